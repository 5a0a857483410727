"""The customer's words cut into clauses, each with the part it plays in the request.

Before intent is scored, what the customer says is split into sentences and clauses and each clause
gets a role, by the taxonomy's `request_language` (regular expressions, configuration per language):

- `boilerplate`: identity the customer gives to be found ("your zip code is 19122", "my name is …"),
  persona and user-simulator instructions ("You are polite and brief", "If the agent asks for
  confirmation …"). Such a clause asks for nothing; when a sentence starts with identity and goes on to
  a request ("You are Yusuf in 19122 and you want to return …"), only the request is kept.
- `fallback`: what the customer wants only if the first request cannot be done ("if not, cancel it",
  "otherwise return it", "if it is not available, cancel the order": a condition saying the request
  failed, the language's `failure`), or settles for instead after a change of mind ("Actually, just
  change the address"). What it asks is the part after its condition (`consequent`). Never the primary request while a request is there. A plain
  fallback (one request and what to do if it fails) is not a second request; it counts for several
  requests only when it asks for another intent than a primary request that is itself conditional
  ("if partial cancellation is possible, return the office items; if not, change my address"): then
  the words alone cannot say which branch the customer ended up asking for (`taskgen.classify`).
- a clause under a condition that is not a failure ("if it's not shipped yet, change it", "if the price
  is over $300, remove it") is a `request` with `conditional` set.
- `preference`: how the customer wants to pay or be paid ("You prefer PayPal for any payment or refund",
  "Original payment is preferred"): it qualifies a request, it asks for nothing itself, never the primary request.
- `negated`: a request the customer says they do not want ("I never want to cancel"). Not a request.
- `consequence`: what follows from another request ("… and get a refund", "refund to my credit card"):
  not a request of its own. Which intents follow from which is the taxonomy's `consequences`.
- `context`: a clause that asks nothing ("You received a laptop", "the kettle arrived cracked"): it
  tells the story; it is scored only when no clause asks for anything.
- `request`: everything else; the first request clause that asks for an action is the primary request.

Plain functions, no model: `taskgen.classify` scores the clauses by meaning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel, ConfigDict, Field

ROLES = ("request", "fallback", "context", "negated", "consequence", "boilerplate", "preference")


class RequestLanguage(BaseModel):
    """Regular expressions (case-insensitive, searched in a clause) for one language."""

    model_config = ConfigDict(extra="forbid")

    identity: list[str] = Field(default_factory=list, description="a clause giving who the customer is (name, zip code, email)")
    boilerplate: list[str] = Field(default_factory=list, description="persona and simulator instructions: a clause asking nothing")
    request_start: str = Field(
        default="", description="where the request starts in a sentence that opens with identity (e.g. 'you want to')")
    clause_breaks: list[str] = Field(
        default_factory=list, description="where a sentence splits into clauses (the break starts the next clause)")
    fallback: list[str] = Field(default_factory=list, description="a clause that asks only if the first request fails")
    condition: list[str] = Field(
        default_factory=list, description="a clause under a condition ('if …'): a fallback when it also has a `failure`, "
                                          "else a conditional request")
    failure: list[str] = Field(
        default_factory=list, description="a condition saying the request cannot be done ('is not available', 'cannot')")
    question: list[str] = Field(
        default_factory=list, description="a clause asking to be told something ('you want to know …', '… ?')")
    amount_question: list[str] = Field(
        default_factory=list, description="a clause asking how much ('how much you need to pay', 'know the refund total')")
    amount_answer: list[str] = Field(
        default_factory=list, description="an agent turn stating an amount ('$54.04', '12 dollars'): the question answered")
    ask_order: list[str] = Field(
        default_factory=list, description="an instruction on which ask to say first ('first mention the modification "
                                          "then the address'): the order of the words is not the order asked")
    later_ask: list[str] = Field(
        default_factory=list, description="a clause saying it is not the first ask ('Lastly, …', 'After this, …')")
    continuation: list[str] = Field(
        default_factory=list, description="a clause carrying on the one before it in its sentence ('…, but change the "
                                          "address'): after a fallback, it is part of that fallback")
    preference: list[str] = Field(
        default_factory=list, description="a clause saying how the customer prefers to pay or be paid: never a request")
    negation: list[str] = Field(default_factory=list, description="a clause that says the customer does not want something")
    request_cues: list[str] = Field(
        default_factory=list, description="a clause that asks for something has one of these (none listed: every clause asks)")


@dataclass(frozen=True)
class Clause:
    text: str
    role: str
    sentence: int
    """Index of the sentence it came from, in the customer's words."""
    conditional: bool = False
    """A request under a condition that is not the failure of another request ("if it's not shipped yet, …")."""


_PARENTHESES = re.compile(r"\([^()]*\)|\{[^{}]*\}|\[[^\[\]]*\]")
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


@cache
def _compiled(patterns: tuple[str, ...]) -> re.Pattern | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE) if patterns else None


def _matches(patterns: Sequence[str], text: str) -> bool:
    pattern = _compiled(tuple(patterns))
    return pattern is not None and pattern.search(text) is not None


def _clauses_of(sentence: str, language: RequestLanguage) -> list[str]:
    breaks = _compiled(tuple(language.clause_breaks))
    if breaks is None:
        return [sentence]
    starts = sorted({0} | {match.start() for match in breaks.finditer(sentence) if match.start() > 0})
    return [sentence[start:end].strip(" ,;") for start, end in zip(starts, [*starts[1:], len(sentence)])]


def split_request(texts: Sequence[str], languages: dict[str, RequestLanguage]) -> list[Clause]:
    """The customer's words as clauses with their roles (see the module's docstring). Deterministic;
    with no languages configured every sentence is one `request` clause."""
    whole = "\n".join(text for text in texts if text.strip())
    whole = _PARENTHESES.sub(" ", _PARENTHESES.sub(" ", whole))  # asides: simulator notes, item options
    clauses: list[Clause] = []
    for number, sentence in enumerate(part.strip() for part in _SENTENCES.split(whole)):
        if len(sentence.split()) < 2:
            continue
        for language in languages.values():
            if _matches(language.identity, sentence) and language.request_start:
                start = re.search(language.request_start, sentence, re.IGNORECASE)
                if start is not None and start.start() > 0:
                    clauses.append(Clause(sentence[: start.start()].strip(" ,;"), "boilerplate", number))
                    sentence = sentence[start.start():]
                break
        for text in _clauses_of(sentence, languages[next(iter(languages))]) if languages else [sentence]:
            if len(text.split()) >= 2:
                role = _role(text, languages)
                if (clauses and clauses[-1].sentence == number and clauses[-1].role == "fallback" and role == "request"
                        and any(_matches(language.continuation, text) for language in languages.values())):
                    role = "fallback"  # "if not possible, keep the order, but change the address": still the fallback
                conditional = role == "request" and any(_matches(language.condition, text) for language in languages.values())
                clauses.append(Clause(text, role, number, conditional))
    if not clauses and whole.strip():  # a word or two: the request itself
        clauses.append(Clause(whole.strip(), "request", 0))
    return clauses


def _role(text: str, languages: dict[str, RequestLanguage]) -> str:
    for language in languages.values():
        if _matches(language.identity, text) and not re.search(language.request_start or "$^", text, re.IGNORECASE):
            return "boilerplate"
        if _matches(language.boilerplate, text):
            return "boilerplate"
        if _matches(language.preference, text):
            return "preference"
        if _matches(language.negation, text):
            return "negated"
        if _matches(language.fallback, text):
            return "fallback"
        if _matches(language.condition, text) and _matches(language.failure, text):
            return "fallback"
        if language.request_cues and not _matches(language.request_cues, text):
            return "context"
    return "request"


def consequent(text: str, languages: dict[str, RequestLanguage]) -> str | None:
    """What a clause under a condition asks, after the condition ("if you can't, just change the address" → "just
    change the address"); None when it has no condition or nothing of two words after it."""
    if not any(_matches(language.condition, text) or _matches(language.fallback, text) for language in languages.values()):
        return None
    ask = text.partition(",")[2].strip(" ,;")
    return ask if len(ask.split()) >= 2 else None


def negated_phrase(text: str, languages: dict[str, RequestLanguage]) -> str | None:
    """The words of a negated clause that say what the customer does not want ("never want to cancel")."""
    for language in languages.values():
        pattern = _compiled(tuple(language.negation))
        match = pattern.search(text) if pattern is not None else None
        if match is not None:
            return match.group(0)
    return None


def is_later_ask(text: str, languages: dict[str, RequestLanguage]) -> bool:
    """The clause says it is not the customer's first ask ("Lastly, you want to …")."""
    return any(_matches(language.later_ask, text) for language in languages.values())


def is_question(text: str, languages: dict[str, RequestLanguage]) -> bool:
    """The clause asks to be told something rather than for something to be done."""
    return any(_matches(language.question, text) for language in languages.values())


def orders_the_asks(text: str, languages: dict[str, RequestLanguage]) -> bool:
    """The clause tells which ask to say first ("first mention the modification then the address")."""
    return any(_matches(language.ask_order, text) for language in languages.values())


def asks_amount(text: str, languages: dict[str, RequestLanguage]) -> bool:
    """The clause asks how much something costs or comes to ("how much you need to pay today")."""
    return any(_matches(language.amount_question, text) for language in languages.values())


def states_amount(text: str, languages: dict[str, RequestLanguage]) -> bool:
    """The agent's turn states an amount ("the refund is $54.04")."""
    return any(_matches(language.amount_answer, text) for language in languages.values())
