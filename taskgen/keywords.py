"""The keyword taxonomy's reading of a request, and when it is confident enough that the sentence
encoder is not consulted (issue 18: intent by meaning cost about 20 CPU ms a session).

`keyword_intent` scores each intent by its rules (a called tool 3, a phrase 2, a keyword 1). A session is
labelled by keywords and calls alone (`confident_intent`) when they agree and nothing in the request
leaves room for another reading: every state-changing call of the agent's is a tool the taxonomy names,
all for one action intent; the first clause asking for something names that intent by its keywords;
no clause of the request names another intent; and no clause is one the request rules read with
meaning (a fallback, a negation, a condition, a later ask, an instruction on the order of the asks, a
question beside another request). Everywhere else (a vague or mixed request, no call, a call the
taxonomy does not name) the encoder reads the request as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from taskgen.followups import contains_word
from taskgen.requests import Clause, is_later_ask, is_question, orders_the_asks

if TYPE_CHECKING:
    from taskgen.taxonomy import Taxonomy

TOOL_WEIGHT = 3
PHRASE_WEIGHT = 2
KEYWORD_WEIGHT = 1
CONFIDENT_EVIDENCE = "rule:keywords_and_calls_agree"
"""The evidence of an intent labelled by keywords and calls alone, without the encoder."""
_PLAIN_ROLES = ("request", "context", "boilerplate", "preference")
"""Clause roles the keyword path reads as the meaning path does; any other role needs the encoder."""


def keyword_intent(texts: Sequence[str], called: set[str], taxonomy: Taxonomy) -> tuple[str, list[str]]:
    """The intent whose rules score highest in `texts` (and `called` tools), with the rules that matched;
    the fallback intent and `rule:fallback` when none matches."""
    text = "\n".join(texts).lower()
    best_intent, best_score, best_evidence = taxonomy.fallback_intent, 0, ["rule:fallback"]
    for intent, rule in taxonomy.intents.items():
        evidence = [f"tool:{tool}" for tool in rule.tools if tool in called]
        evidence += [f"phrase:{phrase}" for phrase in rule.phrases if contains_word(text, phrase)]
        evidence += [f"keyword:{word}" for word in rule.keywords if contains_word(text, word)]
        score = sum(
            TOOL_WEIGHT if item.startswith("tool:") else PHRASE_WEIGHT if item.startswith("phrase:") else KEYWORD_WEIGHT
            for item in evidence
        )
        if score > best_score:
            best_intent, best_score, best_evidence = intent, score, evidence
    return best_intent, best_evidence


def named_intents(text: str, taxonomy: Taxonomy) -> set[str]:
    """Every intent one of whose keywords or phrases occurs in `text`."""
    text = text.lower()
    return {intent for intent, rule in taxonomy.intents.items()
            if any(contains_word(text, word.lower()) for word in [*rule.keywords, *rule.phrases])}


def confident_intent(clauses: Sequence[Clause], tools: Sequence[str], taxonomy: Taxonomy,
                     actions: set[str]) -> str | None:
    """The intent keywords and calls agree on with no room for another reading (see the module's docstring),
    else None: the encoder decides. `tools` are the agent's state-changing calls in order."""
    named = {tool: intent for intent, rule in taxonomy.intents.items() for tool in rule.tools}
    if not tools or any(tool not in named for tool in tools):
        return None
    carried_out = {named[tool] for tool in tools}
    if len(carried_out) != 1 or not carried_out <= actions:
        return None
    (intent,) = carried_out
    languages = taxonomy.request_language
    requests = [clause for clause in clauses if clause.role == "request"]
    if not requests or any(clause.role not in _PLAIN_ROLES or clause.conditional for clause in clauses):
        return None
    first, _ = keyword_intent([requests[0].text], set(), taxonomy)
    if first != intent:
        return None
    for clause in clauses:
        if clause.role in ("boilerplate", "preference"):
            continue
        if named_intents(clause.text, taxonomy) - {intent}:
            return None
        if is_later_ask(clause.text, languages) or orders_the_asks(clause.text, languages):
            return None
        if is_question(clause.text, languages) and len(requests) > 1:  # an ask passed over, or not: meaning says
            return None
    return intent
