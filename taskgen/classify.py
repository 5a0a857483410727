"""Intent from words and tool calls, outcome from signals, and a near-duplicate signature."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache

from pydantic import BaseModel, ConfigDict, Field

from ingest.models import Session, sha256_hex
from taskgen import calls, meaning
from taskgen.contacts import LaterSession
from taskgen.followups import confirms, contains_word as _contains_word, contrary_kind, matched_language
from taskgen.keywords import CONFIDENT_EVIDENCE, confident_intent, keyword_intent as _keyword_intent
from taskgen.plain import plain_evidence
from taskgen.meaning import IntentScores, MeaningModel
from taskgen.requests import Clause, asks_amount, consequent, is_later_ask, is_question, negated_phrase, orders_the_asks, split_request, states_amount
from taskgen.taxonomy import Taxonomy

OUTCOMES: tuple[str, ...] = ("rolled_back", "escalated", "errored", "failed", "resolved")
"""Outcomes in precedence order: the first that applies wins."""


class OutcomeSignal(BaseModel):
    """One piece of evidence about a session's outcome: where it is, what it is, which outcome it supports."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="deploys, escalations, error_logs, tickets, traces, later_session")
    ref: str = Field(description="the record's id, a turn or tool reference, or a count; never user text")
    kind: str = Field(description="e.g. rollback, complaint_language:en, claimed_success:en, repeat_request")
    points_to: str = Field(description="the outcome this signal supports")


class Classification(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent: str
    outcome: str
    evidence: list[str] = Field(description="rule names, taxonomy keywords, tool names, signal ids; never user text")
    signature: str = Field(description="failure signature: near-duplicates share it")
    intent_confidence: float = Field(default=1.0, description="0..1; below the taxonomy's threshold the intent is uncertain")
    uncertain: bool = False
    uncertain_because: list[str] = Field(
        default_factory=list,
        description="low_confidence, small_margin, several_requests, meaning_disagrees, fallback_request, text_tool_conflict, "
                    "unrequested_change: "
                    "the rules that made the intent uncertain",
    )
    executed_actions: list[str] = Field(
        default_factory=list,
        description="the intents of every state-changing call the agent made, in the order first called (not the intent: what was done)",
    )
    outcome_uncertain: bool = Field(
        default=False, description="the outcome rests only on the agent's own word (or on nothing), or the agent's "
                                   "state-changing calls contradict each other: low evidence"
    )
    outcome_uncertain_because: list[str] = Field(
        default_factory=list,
        description="claimed_success_only, no_outcome_signal (the outcome is unknown; a closing line naming nothing done "
                    "counts as no signal), conflicting_calls, amount_unanswered (a how-much question no agent turn "
                    "answers): why the outcome "
                    "has low evidence")
    signals: list[OutcomeSignal] = Field(default_factory=list, description="every outcome signal found, agreeing or not")
    review_questions: list[str] = Field(default_factory=list, description="conflicts and doubts for the task's reviewer")


def _action_tools(session: Session, taxonomy: Taxonomy) -> list[str]:
    prefixes = tuple(prefix.lower() for prefix in taxonomy.read_only_tool_prefixes)
    return sorted({call.name for call in session.tool_calls if not call.name.lower().startswith(prefixes)})


@cache
def _meaning_model(examples_json: str) -> MeaningModel:
    return MeaningModel(json.loads(examples_json))


def _intent_by_meaning(texts: Sequence[str], taxonomy: Taxonomy, hint: str | None = None) -> IntentScores | None:
    if not taxonomy.examples or not meaning.available():
        return None
    return _meaning_model(json.dumps(taxonomy.examples, sort_keys=True)).score(texts, hint)


def _named_tools(taxonomy: Taxonomy) -> dict[str, str]:
    return {tool: intent for intent, rule in taxonomy.intents.items() for tool in rule.tools}


class _Intent(BaseModel):
    """The intent of a session and what speaks for it and against it."""

    intent: str
    evidence: list[str]
    confidence: float
    runner_up: str | None = None
    margin: float | None = None
    requests: list[str] = Field(default_factory=list, description="the distinct action intents asked for or carried out")
    several: bool = False
    executed: list[str] = Field(default_factory=list, description="the action intents the agent's calls carried out, in order")
    conflict: bool = False
    passed_over: list[str] = Field(default_factory=list, description="earlier asks the first action request came after")
    unrequested: list[tuple[int, str, str]] = Field(
        default_factory=list, description="(call counted from 1, tool, intent) of changes nothing in the words asks for")
    fallbacks: list[str] = Field(default_factory=list, description="other action intents asked for if the primary fails")
    meaning_vote: str | None = Field(default=None, description="the intent of the primary request's nearest labelled example")


TOOL_CONFIRM_WEIGHT = 0.1
"""Added to the words' similarity of each intent the agent's calls carried out: a call confirms the words'
intent or breaks a near tie, it never outvotes what the customer clearly asked for."""


def _request(session: Session) -> list[str]:
    """What the customer asked for: ticket subjects and the first two user turns."""
    texts = [ticket.subject for ticket in session.signals.tickets if ticket.subject]
    return texts + [turn.text for turn in session.turns if turn.role == "user" and turn.text.strip()][:2]


def _clauses(session: Session, taxonomy: Taxonomy) -> list[Clause]:
    return split_request(_request(session), taxonomy.request_language)


def _by_meaning(taxonomy: Taxonomy) -> bool:
    return bool(taxonomy.examples) and meaning.available()


def _keyword_label(session: Session, clauses: Sequence[Clause], taxonomy: Taxonomy) -> str | None:
    """The intent the keywords and the agent's calls agree on with no room for another reading
    (`taskgen.keywords.confident_intent`): the encoder is not consulted for it."""
    prefixes = tuple(prefix.lower() for prefix in taxonomy.read_only_tool_prefixes)
    tools = [call.name for call in session.tool_calls if not call.name.lower().startswith(prefixes)]
    return confident_intent(clauses, tools, taxonomy, _actions(taxonomy))


def prepare(sessions: Sequence[Session], taxonomy: Taxonomy, later: Sequence[Sequence[LaterSession]] = ()) -> None:
    """Embeds in one encoder call (much quicker than one text at a time) what `classify` will read by meaning in
    `sessions` (`later`: each one's later contacts): the requests whose intent keywords and calls do not settle
    (`_keyword_label`), and the words after a claim of success."""
    if not _by_meaning(taxonomy):
        return
    read = [(session, clauses) for session in sessions if (clauses := _clauses(session, taxonomy))
            and _keyword_label(session, clauses, taxonomy) is None]
    texts = [clause.text for _, clauses in read for clause in clauses]
    texts += [meaning.tool_words(tool) for session, _ in read for tool in _action_tools(session, taxonomy)]
    for session, contacts in zip(sessions, [*later, *[()] * (len(sessions) - len(later))]):
        texts += [text for group in _read_after_claim(session, taxonomy, contacts) for text in meaning.read_texts(group)]
    meaning.embed(texts)


def _read_after_claim(session: Session, taxonomy: Taxonomy, later: Sequence[LaterSession]) -> list[list[str]]:
    """The words `_contrary_contacts` reads by meaning: each user turn after a claim of success and, with later
    contacts, the request and each contact's words."""
    claim_index, claims = _agent_claims(session, taxonomy)
    if not claims:
        return []
    groups = [[session.turns[index].text] for index in _followups(session, claim_index)]
    return groups + ([_request(session), *(list(contact.user_texts) for contact in later)] if later else [])


def _followups(session: Session, claim_index: int | None) -> list[int]:
    """The user turns after the agent's last claim of success, else after its first reply."""
    first_reply = next((index for index, turn in enumerate(session.turns) if turn.role == "agent"), None)
    after = claim_index if claim_index is not None else first_reply
    return [] if after is None else [i for i in range(after + 1, len(session.turns)) if session.turns[i].role == "user"]


def _actions(taxonomy: Taxonomy) -> set[str]:
    return (set(taxonomy.action_intents) if taxonomy.action_intents else set(taxonomy.intents)) - {taxonomy.fallback_intent}


def _action_requests(intents: set[str], taxonomy: Taxonomy) -> list[str]:
    return sorted(intents & _actions(taxonomy))


def _call_intents(session: Session, taxonomy: Taxonomy, model: MeaningModel | None) -> list[tuple[int, str, str]]:
    """(index, tool, action intent) of each state-changing call of the agent's that carries out an action intent."""
    prefixes = tuple(prefix.lower() for prefix in taxonomy.read_only_tool_prefixes)
    called = [(i, call.name) for i, call in enumerate(session.tool_calls) if not call.name.lower().startswith(prefixes)]
    named = _named_tools(taxonomy)
    intents = model.tool_intents([t for _, t in called], named) if model is not None else [named.get(t) for _, t in called]
    return [(i, tool, intent) for (i, tool), intent in zip(called, intents) if intent in _actions(taxonomy)]


def _share(values: Sequence[float], k: int) -> float:
    """Value k's share of the softmax (at the meaning model's temperature) over every value."""
    import math

    return 1.0 / sum(math.exp((value - values[k]) / meaning.TEMPERATURE) for value in values)


def _classify_intent(session: Session, taxonomy: Taxonomy) -> _Intent:
    """The first request in the customer's words (`taskgen.requests`): each clause by meaning when the taxonomy
    has examples and the model is installed (its keywords breaking near ties), else by the keyword rules.
    The agent's calls only confirm it or break a near tie; calls that carried out something else make
    `conflict` (the intent stays the customer's)."""
    clauses = _clauses(session, taxonomy)
    settled = _by_meaning(taxonomy) and _keyword_label(session, clauses, taxonomy) is not None
    model = _meaning_model(json.dumps(taxonomy.examples, sort_keys=True)) if _by_meaning(taxonomy) and not settled else None
    by_call = _call_intents(session, taxonomy, model)
    executed = list(dict.fromkeys(intent for _, _, intent in by_call))  # what the calls carried out, first called first
    intents = model.intents if model is not None else [*taxonomy.intents]
    keyword = [_keyword_intent([clause.text], set(), taxonomy) for clause in clauses]
    if model is not None and clauses:
        rows, nearest = model.rows([clause.text for clause in clauses])
        for row, (hint, hint_evidence) in zip(rows, keyword):
            if hint_evidence != ["rule:fallback"] and hint in intents:
                row[intents.index(hint)] += meaning.KEYWORD_WEIGHT
    else:
        nearest = []
        rows = [[float(intent == hint) for intent in intents] for hint, _ in keyword]
    best = [intents[max(range(len(row)), key=lambda k: (row[k], -k))] for row in rows]
    roles = [clause.role for clause in clauses]
    asking = ("request", "fallback")
    for i in range(1, len(clauses) if model is not None else 0):  # "return the luggage and get the same one in red"
        j = i - 1
        if (clauses[i].sentence == clauses[j].sentence and roles[i] in asking and roles[j] in asking
                and best[i] in taxonomy.refinements.get(best[j], ()) and keyword[i][1] == ["rule:fallback"]
                and meaning.confidence(rows[i]) >= taxonomy.intent_confidence_threshold):
            rows[j], nearest[j], best[j], roles[i] = rows[i], nearest[i], best[i], "refinement"
    for i in range(len(clauses) if model is not None else 0):  # "if you can't cancel it, change the address": the ask
        ask = consequent(clauses[i].text, taxonomy.request_language) if roles[i] == "fallback" else None  # is after the
        if ask and best[i] not in executed:  # condition; linked to the call that carried it out
            (row,), (near,) = model.rows([ask])
            if (meant := intents[max(range(len(row)), key=lambda k: (row[k], -k))]) in executed:
                rows[i], nearest[i], best[i], keyword[i] = row, near, meant, _keyword_intent([ask], set(), taxonomy)
    for i, intent in enumerate(best):  # "return it and refund to my card": the refund follows from the return
        if roles[i] in asking and any(best[j] in taxonomy.consequences.get(intent, ()) and roles[j] in asking for j in range(i)):
            roles[i] = "consequence"
    actions = _actions(taxonomy)
    clear = [model is None or meaning.confidence(row) >= taxonomy.intent_confidence_threshold for row in rows]
    # "I never want to cancel my entire order": no clause asking for what the customer refuses is the primary request
    refused = {_keyword_intent([phrase], set(), taxonomy)[0] for phrase in (
        negated_phrase(clause.text, taxonomy.request_language) for clause, role in zip(clauses, roles) if role == "negated")
        if phrase} & actions
    # the first clear request for an action; else the first request for an action its own keywords name (a clear
    # question before it, "you want to know the tracking number; also exchange or return the tablet", is passed over);
    # else the first request for an action or a clear one; a fallback only when no request asks for anything; else anything
    named = [clear[i] or keyword[i][0] == best[i] for i in range(len(clauses))]
    order = [("request", True, True), ("request", True, named), ("request", None, None), ("fallback", True, True),
             ("request", False, False), ("fallback", True, False), ("fallback", False, False),
             ("consequence", False, False), ("context", True, False), ("context", False, False)]

    def fits(i: int, role: str, need: bool | None, sure: bool | list[bool]) -> bool:
        if roles[i] != role or best[i] in refused:
            return False
        if need is None:
            return best[i] in actions or clear[i]
        return (not need or best[i] in actions) and (sure[i] if isinstance(sure, list) else not sure or clear[i])

    primary = next((i for role, need, sure in order for i in range(len(clauses)) if fits(i, role, need, sure)),
                   None)
    if model is not None and primary is not None and not clear[primary]:  # a vague request, read with its story
        story = [i for i in range(primary) if roles[i] == "context"][-2:]
        if story:
            told = " ".join(clauses[i].text for i in [*story, primary])
            (row,), (near,) = model.rows([told])
            hint, hint_evidence = _keyword_intent([told], set(), taxonomy)
            if hint_evidence != ["rule:fallback"] and hint in intents:
                row[intents.index(hint)] += meaning.KEYWORD_WEIGHT
            if meaning.confidence(row) > meaning.confidence(rows[primary]):
                rows[primary], nearest[primary], keyword[primary] = row, near, (hint, hint_evidence)
                best[primary] = intents[max(range(len(row)), key=lambda k: (row[k], -k))]
    evidence = [f"rule:{roles[i]}_clause:{i}" for i in range(len(clauses)) if roles[i] != "request" and len(clauses) > 1]
    evidence += [f"rule:conditional_clause:{i}" for i in range(len(clauses)) if clauses[i].conditional and roles[i] == "request"]
    evidence += [f"rule:negated_intent:{intent}" for intent in sorted(refused)]
    evidence += [f"tool:{tool}" for tool in _action_tools(session, taxonomy)]
    threshold = taxonomy.intent_confidence_threshold
    if primary is None:  # the words ask nothing: the calls say what was wanted, else the fallback
        intent = executed[0] if executed else taxonomy.fallback_intent
        return _Intent(intent=intent, evidence=["rule:intent_from_tools" if executed else "rule:fallback", *evidence],
                       confidence=1.0 if len(executed) == 1 else 0.0, executed=executed,
                       requests=_action_requests(set(executed), taxonomy), several=len(executed) >= 2)
    words = rows[primary]
    scored = [value + (TOOL_CONFIRM_WEIGHT if intent in executed else 0.0) for intent, value in zip(intents, words)]
    k = max(range(len(scored)), key=lambda n: (scored[n], -n))
    if model is None:
        confidence = 1.0 if keyword[primary][1] != ["rule:fallback"] else 0.0
    else:
        confidence = _share(scored, k)
    if len(clauses) > 1:
        evidence.insert(0, f"rule:primary_request:{primary}")
    if model is not None:
        evidence.insert(0, f"meaning:{nearest[primary]}")
    elif settled:
        evidence.insert(0, CONFIDENT_EVIDENCE)
    if best[primary] not in actions and executed and confidence < threshold:  # vague words: the calls decide
        k, evidence = intents.index(executed[0]), ["rule:intent_from_tools", *evidence]
        confidence = _share(scored, k) if model is not None else 1.0
    elif intents[k] != best[primary]:
        evidence.append("rule:tie_broken_by_tools")
    intent = intents[k]
    if keyword[primary][0] == intent:
        evidence += [item for item in keyword[primary][1] if item != "rule:fallback" or model is None]
    others = [value for n, value in enumerate(scored) if n != k]
    margin = scored[k] - max(others) if others and model is not None else None
    runner_up = intents[max((n for n in range(len(scored)) if n != k), key=lambda n: (scored[n], -n))] if others else None
    # A fallback is what to do if the primary request fails: a second request only when it asks for another intent
    # and the primary request is itself under a condition (two branches, the words cannot say which one held).
    branching = roles[primary] == "request" and clauses[primary].conditional
    counted = [i for i in range(len(clauses)) if roles[i] == "request" or (roles[i] == "fallback" and branching)]
    asked = {best[i] for i in range(len(clauses)) if (i in counted and (  # clear on its own, or its keywords agree
        model is None or meaning.confidence(rows[i]) >= taxonomy.request_confidence or keyword[i][0] == best[i]))
        or (roles[i] == "context" and model is not None and meaning.confidence(rows[i]) >= taxonomy.request_confidence)
        or (roles[i] == "fallback" and branching)}
    asked = set(_action_requests(asked - refused | {intent}, taxonomy))
    # The first request rule, never silently broken: an earlier ask passed over (a question about the order, say)
    # or a primary request that says it comes later ("Lastly, …") makes the session one of several requests.
    skipped = [i for i in range(primary) if roles[i] == "request" and best[i] not in refused and (
        best[i] != intent or is_question(clauses[i].text, taxonomy.request_language))]
    evidence += [f"rule:skipped_request:{i}" for i in skipped]
    later_ask = is_later_ask(clauses[primary].text, taxonomy.request_language) and primary > 0
    if later_ask:
        evidence.append(f"rule:later_ask:{primary}")
    done = set(executed)
    conflict = bool(executed) and intent not in done  # the calls carried out something else than the words' intent
    several = len(asked) >= 2 or bool(skipped) or later_ask  # the words ask for more than one thing
    # Later requests after a clear first one that nothing passed over leave the intent in no doubt (it is the first
    # request by definition; cold review 3, sessions 16 and 19): several_requests flags only a first request in
    # question. The agent's first action, when there is one, must be that request too.
    # An instruction on which ask to say first ("first mention the modification then the address") puts the order of
    # the words in question (cold review 3, session 15).
    reordered = [i for i, clause in enumerate(clauses) if orders_the_asks(clause.text, taxonomy.request_language)]
    evidence += [f"rule:ask_order:{i}" for i in reordered]
    if several and not skipped and not later_ask and not branching and not reordered and clear[primary] \
            and executed[:1] in ([], [intent]):
        several = False
    asked |= {best[i] for i in skipped}
    # "exchange it; if that's not possible, return it": the words cannot say which branch the session ended in, unless
    # the agent's first action was the primary request
    fallbacks = sorted({best[i] for i in range(len(clauses)) if roles[i] == "fallback" and named[i] and best[i] in actions
                        and best[i] != intent and best[i] not in refused})
    if executed[:1] == [intent] and not set(fallbacks) & done:
        fallbacks = []
    # whatever the words' confidence, a fallback clause whose intent the agent carried out is the branch taken
    fallbacks = sorted(set(fallbacks) | {best[i] for i in range(len(clauses)) if roles[i] == "fallback" and best[i] in done
                                         and best[i] != intent and best[i] not in refused})
    # calls explained by the words are no conflict: a fallback carried out, or what the intent is done through
    # ("refund" through a return: the taxonomy's done_through)
    conflict = conflict and bool(done - set(fallbacks) - set(taxonomy.done_through.get(intent, ())))
    evidence += [f"rule:fallback_request:{i}" for i in range(len(clauses)) if roles[i] == "fallback" and best[i] in fallbacks]
    # a change nothing in the words asks for (nor their fallbacks, consequences, or what the intent is done through), when
    # the intent was carried out too (else the calls conflict with the words): the agent did more than was asked
    said = [clauses[i].text.lower() for i in range(len(clauses)) if roles[i] not in ("negated", "boilerplate", "preference")]
    words = asked | set(fallbacks) | {best[i] for i in range(len(clauses)) if roles[i] not in ("negated", "boilerplate", "preference")}
    words |= {name for name, rule in taxonomy.intents.items() for text in said  # "cancel or return": both named
              if any(_contains_word(text, word.lower()) for word in [*rule.keywords, *rule.phrases])}
    several = several or len(done & words) >= 2  # two kinds carried out that the words ask for, however clear they are
    explained = words | set(taxonomy.done_through.get(intent, ())) | {
        then for then, after in taxonomy.consequences.items() if set(after) & words}
    unrequested = [] if conflict else [(i + 1, tool, meant) for i, tool, meant in by_call if meant not in explained]
    evidence += [f"traces:calls:{n}:unrequested_change" for n, _, _ in unrequested]  # counted from 1
    passed_over = [*(f"clause {i}" for i in skipped), *([f"'later' wording in clause {primary}"] if later_ask else [])]
    return _Intent(intent=intent, evidence=list(dict.fromkeys(evidence)), confidence=round(confidence, 4),
                   runner_up=runner_up, margin=None if margin is None else round(margin, 4),
                   requests=sorted(asked | done), several=several, executed=executed, conflict=conflict, unrequested=unrequested,
                   passed_over=passed_over, fallbacks=fallbacks, meaning_vote=nearest[primary].split(":")[0] if model is not None else None)


def _doubts(found: _Intent, taxonomy: Taxonomy) -> tuple[list[str], str]:
    """The rules that make the intent uncertain, and the review question saying why."""
    because, reasons = [], []
    if found.confidence < taxonomy.intent_confidence_threshold:
        because.append("low_confidence")
        reasons.append(f"has confidence {found.confidence:.2f}, below {taxonomy.intent_confidence_threshold:.2f}")
    if found.margin is not None and found.margin < taxonomy.intent_min_margin:
        because.append("small_margin")
        reasons.append(f"is only {found.margin:.2f} ahead of '{found.runner_up}' (less than {taxonomy.intent_min_margin:.2f})")
    if found.several:
        because.append("several_requests")
        reasons.append(f"is one of several requests in the session ({', '.join(found.requests)})" + (
            f", asked after an earlier one ({', '.join(found.passed_over)})" if found.passed_over else ""))
    if (found.meaning_vote and found.meaning_vote != found.intent and found.margin is not None
            and found.margin < taxonomy.meaning_disagrees_margin):
        because.append("meaning_disagrees")
        reasons.append(f"is not what the request's nearest labelled example says ('{found.meaning_vote}'): keywords or "
                       "calls moved it")
    if found.fallbacks:
        because.append("fallback_request")
        taken = [intent for intent in found.fallbacks if intent in found.executed]
        reasons.append(f"has a fallback asking for {', '.join(found.fallbacks)} if it cannot be done, and " + (
            f"the agent's calls carried out the fallback ({', '.join(taken)})" if taken
            else "nothing the agent did shows which branch the session took"))
    if found.conflict:
        because.append("text_tool_conflict")
        reasons.append(f"is what the customer's words ask for, but the agent's calls carried out {', '.join(found.executed)}")
    if found.unrequested:
        because.append("unrequested_change")
        reasons.append("is what the words ask for, but the agent also made changes they do not ask for (" + ", ".join(
            f"call {n} {tool}: {meant}" for n, tool, meant in found.unrequested) + "; did the customer want them?)")
    if not because:
        return [], ""
    return because, (f"Intent '{found.intent}' {'; it '.join(reasons)} (what points to it: {plain_evidence(found.evidence)}). "
                     f"Is '{found.intent}' what the customer asked for?")


def _intent_of_texts(texts: Sequence[str], taxonomy: Taxonomy) -> str:
    keyword_intent, evidence = _keyword_intent(texts, set(), taxonomy)
    scores = _intent_by_meaning(texts, taxonomy, keyword_intent if evidence != ["rule:fallback"] else None)
    return scores.best if scores is not None else keyword_intent


def _signal(source: str, ref: str, kind: str, points_to: str) -> OutcomeSignal:
    return OutcomeSignal(source=source, ref=ref, kind=kind, points_to=points_to)


def _agent_claims(session: Session, taxonomy: Taxonomy) -> tuple[int | None, list[OutcomeSignal]]:
    """Index of the last agent turn claiming success (None: no claim in words), and the claim signals.

    A state-changing tool call that succeeded is a claim too, by action rather than words: any tool the taxonomy
    names for an intent, and any other whose name does not start with a read-only prefix."""
    last_claim, signals = None, []
    for index, turn in enumerate(session.turns):
        if turn.role == "agent":
            language = matched_language(turn.text, taxonomy.success_claims)
            if language is not None:  # a closing line naming nothing done (no number, no id) is no evidence of it
                last_claim = index
                kind = "claimed_success" if re.search(r"\d", turn.text) else "claimed_success_vague"
                signals.append(_signal("traces", f"turn:{index}", f"{kind}:{language}", "resolved"))
    done = calls.carried_out(calls.attempts(session, taxonomy))  # the last attempt of each change decides
    signals += [_signal("traces", f"tool:{name}", "action_done", "resolved") for name in done]
    return last_claim, signals


def _contrary_contacts(
    session: Session, taxonomy: Taxonomy, later: Sequence[LaterSession], intent: str, claim_index: int | None,
    claimed: bool,
) -> list[OutcomeSignal]:
    """Contacts that say the session did not do what the customer needed."""
    signals: list[OutcomeSignal] = []
    complaint_tags = {tag.lower() for tag in taxonomy.complaint_tags}
    negative_statuses = {status.lower() for status in taxonomy.negative_ticket_statuses}
    for ticket in sorted(session.signals.tickets, key=lambda ticket: ticket.id):
        if (ticket.status or "").lower() in negative_statuses:
            signals.append(_signal("tickets", ticket.id, f"negative_status:{ticket.status.lower()}", "failed"))
        for tag in sorted(complaint_tags & {tag.lower() for tag in ticket.tags}):
            signals.append(_signal("tickets", ticket.id, f"complaint_tag:{tag}", "failed"))
    for index in _followups(session, claim_index):
        turn = session.turns[index]
        kind = contrary_kind([turn.text], taxonomy, claimed)  # a complaint phrase, or a contradiction's meaning
        if kind is not None:
            signals.append(_signal(turn.source, f"turn:{index}", kind, "failed"))
    asked: set[str] = set()
    if claimed and later:  # what the session was about: its label, and what its words alone say
        asked = {intent, _intent_of_texts(_request(session), taxonomy)} - {taxonomy.fallback_intent}
    for contact in later:
        kind = contrary_kind(contact.user_texts, taxonomy, claimed)  # a later contact confirming the claim repeats nothing
        if kind is not None:
            signals.append(_signal("later_session", contact.session_id, kind, "failed"))
        elif asked and _intent_of_texts(contact.user_texts, taxonomy) in asked and not confirms(contact.user_texts, taxonomy):
            signals.append(_signal("later_session", contact.session_id, "repeat_request", "failed"))
    return signals


def _classify_outcome(
    session: Session, taxonomy: Taxonomy, intent: str, later: Sequence[LaterSession]
) -> tuple[str, list[OutcomeSignal], str]:
    """Returns (outcome, every signal found, signature detail). The first outcome in `OUTCOMES`
    that a signal points to wins; `resolved` only when nothing points elsewhere."""
    signals_in = session.signals
    signals: list[OutcomeSignal] = []
    deploys = sorted(signals_in.deploys, key=lambda deploy: deploy.id)
    signals += [_signal("deploys", deploy.id, deploy.kind, "rolled_back") for deploy in deploys]
    escalations = sorted(signals_in.escalations, key=lambda escalation: escalation.id)
    signals += [_signal("escalations", escalation.id, "escalation", "escalated") for escalation in escalations]
    # a failed call a later attempt of the same kind on the same order made good is no error of the session's, nor
    # is its span's error (`calls.recovered_trace_errors`); an error on the last attempt is
    groups = calls.attempts(session, taxonomy)
    failed_calls = [session.tool_calls[i] for i in calls.unrecovered_errors(groups)]
    recovered = calls.recovered_trace_errors(session, groups)
    errors = [error for n, error in enumerate(signals_in.errors) if n not in recovered]
    if errors:
        signals.append(_signal("error_logs", str(len(errors)), "error_logs", "errored"))
    if signals_in.span_errors - len(recovered) > 0:
        signals.append(_signal("traces", str(signals_in.span_errors - len(recovered)), "span_errors", "errored"))
    if failed_calls:
        signals.append(_signal("traces", str(len(failed_calls)), "failed_tool_calls", "errored"))
    claim_index, claims = _agent_claims(session, taxonomy)
    signals += _contrary_contacts(session, taxonomy, later, intent, claim_index, claimed=bool(claims))
    signals += claims
    outcome = next((o for o in OUTCOMES if any(signal.points_to == o for signal in signals)), "resolved")
    if outcome == "rolled_back":
        detail = ",".join(deploy.id for deploy in deploys)
    elif outcome == "escalated":
        detail = ",".join(sorted({reason_category(escalation.reason) for escalation in escalations}))
    elif outcome == "errored":
        templates = sorted({error.template or reason_category(error.message) for error in errors})
        templates += sorted({f"tool:{call.name}" for call in failed_calls})
        detail = ",".join(templates)
    elif outcome == "failed":
        detail = ",".join(sorted({signal.kind.split(":")[0] for signal in signals if signal.points_to == "failed"}))
    else:
        detail = ",".join(sorted({call.name for call in session.tool_calls}))
    return outcome, signals, detail


def _review_questions(outcome: str, signals: list[OutcomeSignal]) -> list[str]:
    """Signals that disagree with the label, as questions naming ids and kinds (never customer words)."""
    deciding = [signal for signal in signals if signal.points_to == outcome]
    # A claim of success disagrees only with a customer saying otherwise: under a rollback, an escalation
    # or an error the agent's own success is expected, not a conflict.
    contrary = [signal for signal in signals
                if signal.points_to != outcome and (signal.points_to != "resolved" or outcome == "failed")]
    if not contrary or not deciding:
        return []
    def names(items: list[OutcomeSignal]) -> str:
        return ", ".join(f"{s.source} {s.ref} ({s.kind})" for s in items)
    question = (f"Outcome '{outcome}' from {names(deciding)}, but {names(contrary)} "
                f"point{'s' if len(contrary) == 1 else ''} elsewhere. Is '{outcome}' right?")
    if outcome == "failed" and all(signal.kind == "repeat_request" for signal in deciding):
        question += " Only a repeated request contradicts the claimed success."
    return [question]


def reason_category(text: str) -> str:
    """A coarse category for free text written by the agent/system: lowercase words, ids and numbers dropped."""
    words = re.findall(r"[a-z]+", re.sub(r"\S*\d\S*", " ", text.lower()))
    return " ".join(words[:6])


def _vague(signal: OutcomeSignal) -> bool:
    return signal.kind.startswith("claimed_success_vague")


def _outcome_doubts(outcome: str, signals: list[OutcomeSignal], conflicts: Sequence[tuple[int, str, int, str]] = (),
                    unanswered: Sequence[int] = ()) -> tuple[list[str], list[str]]:
    """A `resolved` that rests only on the agent's word (or on no signal at all) has low evidence: the outcome
    is unknown, nothing the agent did not say itself (a state change, a later contact, a ticket) confirms it.
    State-changing calls that contradict each other (`calls.conflicting_calls`) make any outcome doubtful."""
    because, questions = [], []
    vague = [signal for signal in signals if _vague(signal)]
    signals = [signal for signal in signals if not _vague(signal)]
    if outcome == "resolved" and not signals:
        because.append("no_outcome_signal")
        questions.append("Outcome unknown: 'resolved' is only the default, no signal says what happened (no claim, no "
                         "state change, no later contact" + (f"; the agent's closing line at {', '.join(s.ref for s in vague)} "
                         "names nothing done" if vague else "") + "). Did the customer get what they asked for?")
    elif outcome == "resolved" and all(signal.kind.startswith("claimed_success") for signal in signals):
        refs = ", ".join(f"{s.source} {s.ref} ({s.kind})" for s in signals)
        because.append("claimed_success_only")
        questions.append(f"Outcome unknown: 'resolved' rests only on the agent's own claim ({refs}); no state change, "
                         "ticket or later contact confirms it. Did the customer get what they asked for?")
    if conflicts:
        because.append("conflicting_calls")
        pairs = "; ".join(f"call {i + 1} {a} and call {j + 1} {b}" for i, a, j, b in conflicts)  # counted from 1
        questions.append(f"Outcome '{outcome}': state-changing calls act on the same order and items in contradicting "
                         f"ways ({pairs}); at least one cannot have done what it says. Is '{outcome}' right?")
    if outcome == "resolved" and unanswered:
        because.append("amount_unanswered")
        questions.append(f"Outcome 'resolved': the customer asked how much (clause {', '.join(str(i) for i in unanswered)}) "
                         "and no agent turn states an amount. Did the customer get the answer they asked for?")
    return because, questions


def _recovered(session: Session, taxonomy: Taxonomy) -> list[str]:
    """Each retried change whose error a later attempt made good: the failed calls and the one that made them good,
    counted from 1 as a listing counts them (`traces:calls:1->2:recovered_error`), for a reviewer to see."""
    return [f"traces:calls:{','.join(str(i + 1) for i in group.recovered)}->{group.recovered_by + 1}:recovered_error"
            for group in calls.recovered_errors(calls.attempts(session, taxonomy))]


def _unanswered_amounts(session: Session, taxonomy: Taxonomy) -> list[int]:
    """The clauses asking how much something comes to, when no agent turn states an amount."""
    languages = taxonomy.request_language
    if any(turn.role == "agent" and states_amount(turn.text, languages) for turn in session.turns):
        return []
    return [i for i, clause in enumerate(_clauses(session, taxonomy))
            if clause.role not in ("negated", "boilerplate") and asks_amount(clause.text, languages)]


def classify(session: Session, taxonomy: Taxonomy, later: Sequence[LaterSession] = ()) -> Classification:
    """Intent and outcome of `session`; `later` are its later contacts (`taskgen.contacts`)."""
    found = _classify_intent(session, taxonomy)
    intent = found.intent
    outcome, signals, detail = _classify_outcome(session, taxonomy, intent, later)
    signature = f"{intent}:{outcome}:{sha256_hex(detail)[:12]}"
    outcome_evidence = [f"{s.source}:{s.ref}:{s.kind}" for s in signals if s.points_to == outcome and not _vague(s)]
    because, question = _doubts(found, taxonomy)
    outcome_because, outcome_questions = _outcome_doubts(outcome, signals, calls.conflicting_calls(session, taxonomy),
                                                         _unanswered_amounts(session, taxonomy))
    questions = outcome_questions + _review_questions(outcome, signals)
    if question:
        questions.insert(0, question)
    return Classification(
        intent=intent,
        outcome=outcome,
        evidence=found.evidence + (outcome_evidence or ["rule:no_failure_signal"]) + _recovered(session, taxonomy),
        signature=signature,
        intent_confidence=found.confidence,
        uncertain=bool(because),
        uncertain_because=because,
        executed_actions=found.executed,
        outcome_uncertain=bool(outcome_because),
        outcome_uncertain_because=outcome_because,
        signals=signals,
        review_questions=questions,
    )
