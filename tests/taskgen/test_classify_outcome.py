"""Outcome from every source: later contacts that contradict a claimed success, with the signals that decided it."""

from datetime import timedelta

import pytest

from ingest.models import EscalationSignal, Signals, TicketSignal, ToolCall, Turn
from taskgen.classify import classify
from taskgen.contacts import ContactIndex, LaterSession, later_contacts

from retail_fixtures import CLOCK, make_session

@pytest.fixture(scope="module")
def taxonomy(taxonomy):
    """The retail taxonomy with intent by keywords: outcome rules do not need the meaning model."""
    return taxonomy.model_copy(update={"examples": {}})


CLAIM = "Your refund for #W1000001 has been processed, you should see it in 3-5 days."
COMPLAINT = "It's been two weeks and my bank shows nothing. You said it was done!"


def _refund(session_id="s-1", turns=(), calls=None, signals=None, start=CLOCK):
    """A refund chat for #W1000001 where the agent claims success, then `turns` (role, text, source)."""
    session = make_session(session_id, "I want a refund for #W1000001, it arrived broken.", "cus_1001", ["#W1000001"],
                           calls, signals)
    base = [Turn(role="user", text=session.turns[0].text, at=start, source="traces"),
            Turn(role="agent", text=CLAIM, at=start + timedelta(minutes=1), source="traces")]
    later = [Turn(role=role, text=text, at=start + timedelta(minutes=2 + n), source=source)
             for n, (role, text, source) in enumerate(turns)]
    return session.model_copy(update={"turns": base + later, "started_at": start,
                                      "ended_at": start + timedelta(minutes=1 + len(turns))})


def _kinds(classification):
    return {(signal.source, signal.kind, signal.points_to) for signal in classification.signals}


def test_a_complaint_ticket_after_a_claimed_success_makes_it_failed(taxonomy):
    c = classify(_refund(turns=[("user", COMPLAINT, "tickets")]), taxonomy)
    assert c.outcome == "failed"
    assert ("tickets", "complaint_language:en", "failed") in _kinds(c)
    assert ("traces", "claimed_success:en", "resolved") in _kinds(c)
    assert "tickets:turn:2:complaint_language:en" in c.evidence
    assert len(c.review_questions) == 1 and "claimed_success" in c.review_questions[0]
    assert "bank" not in c.review_questions[0] and "bank" not in " ".join(c.evidence)


def test_without_a_contrary_contact_the_claim_stands_but_as_low_evidence(taxonomy):
    """The cold review: every evaluation session was a confident `resolved` from one claimed_success signal."""
    c = classify(_refund(turns=[("user", "Great, thank you so much!", "traces")]), taxonomy)
    assert c.outcome == "resolved" and ("traces", "claimed_success:en", "resolved") in _kinds(c)
    assert c.outcome_uncertain and c.outcome_uncertain_because == ["claimed_success_only"]
    assert c.review_questions == ["Outcome unknown: 'resolved' rests only on the agent's own claim (traces turn:1 "
                                  "(claimed_success:en)); no state change, ticket or later contact confirms it. Did the "
                                  "customer get what they asked for?"]


def test_a_state_changing_call_that_succeeded_is_more_than_a_claim(taxonomy):
    done = classify(_refund(calls=[ToolCall(name="refund_order", arguments={"order_id": "#W1000001"})]), taxonomy)
    assert done.outcome == "resolved" and ("traces", "action_done", "resolved") in _kinds(done)
    assert not done.outcome_uncertain and done.review_questions == []
    silent = make_session("s-q", "Do you sell gift cards?", "cus_1001", [])
    nothing = classify(silent, taxonomy)
    assert (nothing.outcome, nothing.outcome_uncertain_because) == ("resolved", ["no_outcome_signal"])
    assert not classify(_refund(signals=Signals(tickets=[TicketSignal(id="T-1", status="Reopened")])), taxonomy).outcome_uncertain


def test_complaint_words_in_the_request_itself_are_not_a_later_contact(taxonomy):
    session = make_session("s-2", "My refund never arrived and I was told it was done.", "cus_1001", ["#W1000001"])
    assert classify(session, taxonomy).outcome == "resolved"


def test_a_complaint_the_agent_then_fixes_is_resolved(taxonomy):
    turns = [("user", COMPLAINT, "traces"), ("agent", "Sorry! I've refunded it again, it has been processed now.", "traces")]
    assert classify(_refund(turns=turns), taxonomy).outcome == "resolved"


def test_with_no_claim_a_complaint_after_the_first_reply_still_fails(taxonomy):
    session = make_session("s-3", "Where is my order #W1000004?", "cus_1002", ["#W1000004"])
    session = session.model_copy(update={"turns": [*session.turns, Turn(role="user", text="That's not right, still nothing.", source="traces")]})
    c = classify(session, taxonomy)
    assert c.outcome == "failed" and not any(s.kind.startswith("claimed") for s in c.signals)
    assert c.review_questions == []


def test_complaint_language_is_configuration_per_language(taxonomy):
    german = _refund(turns=[("user", "Das Geld ist immer noch nicht da.", "tickets")])
    assert ("tickets", "complaint_language:de", "failed") in _kinds(classify(german, taxonomy))
    english_only = taxonomy.model_copy(update={"complaint_language": {"en": taxonomy.complaint_language["en"]}})
    assert classify(german, english_only).outcome == "resolved"


def test_a_successful_action_tool_is_a_claim_by_deed(taxonomy):
    call = ToolCall(name="refund_order", arguments={"order_id": "#W1000001"})
    session = make_session("s-4", "Refund #W1000001 please", "cus_1001", ["#W1000001"], [call])
    c = classify(session, taxonomy)
    assert ("traces", "action_done", "resolved") in _kinds(c)
    failed_call = call.model_copy(update={"status": "error"})
    assert "action_done" not in {s.kind for s in classify(session.model_copy(update={"tool_calls": [failed_call]}), taxonomy).signals}


def _later(session_id, text, hours, order="#W1000001"):
    session = make_session(session_id, text, "cus_1001", [order])
    return session.model_copy(update={"started_at": CLOCK + timedelta(hours=hours)})


def test_a_later_session_about_the_same_order_that_complains_makes_it_failed(taxonomy):
    first = _refund(turns=[("user", "Thanks!", "traces")])
    later = later_contacts(first, [first, _later("s-9", "You told me my refund was processed, where is it?", 30)],
                           taxonomy.later_contact_window)
    assert [contact.session_id for contact in later] == ["s-9"]
    c = classify(first, taxonomy, later)
    assert c.outcome == "failed"
    assert ("later_session", "complaint_language:en", "failed") in _kinds(c)
    assert "later_session:s-9:complaint_language:en" in c.evidence


def test_later_contacts_keep_to_the_window_and_the_order(taxonomy):
    first = _refund()
    window = timedelta(hours=72)
    others = [_later("in", "x", 71), _later("out", "x", 73), _later("other-order", "x", 5, order="#W1000002"),
              _later("before", "x", -1)]
    assert [c.session_id for c in later_contacts(first, others, window)] == ["in"]
    assert later_contacts(first, others, timedelta(hours=80))[-1].session_id == "out"
    assert later_contacts(first.model_copy(update={"started_at": None, "ended_at": None}), others, window) == []


def test_sessions_without_an_order_or_a_start_are_no_contacts():
    assert LaterSession.of(make_session("s", "x", "cus_1001", [])) is None
    assert LaterSession.of(make_session("s", "x", "cus_1001", ["#W1"]).model_copy(update={"started_at": None})) is None
    assert ContactIndex([make_session("s", "x", "cus_1001", [])]).later_contacts(_refund(), timedelta(days=9)) == []


def test_a_repeated_request_contradicts_only_a_claimed_success(taxonomy):
    repeat = [LaterSession.of(_later("s-8", "Hi, I'd like a refund for order #W1000001 please.", 20))]
    c = classify(_refund(), taxonomy, repeat)
    assert c.outcome == "failed" and ("later_session", "repeat_request", "failed") in _kinds(c)
    assert "Only a repeated request" in c.review_questions[0]
    no_claim = make_session("s-5", "I want a refund for #W1000001", "cus_1001", ["#W1000001"])
    assert classify(no_claim, taxonomy, repeat).outcome == "resolved"
    other_intent = [LaterSession.of(_later("s-7", "Please cancel my order #W1000001", 20))]
    assert classify(_refund(), taxonomy, other_intent).outcome == "resolved"


def test_precedence_keeps_the_contrary_signal_as_a_review_question(taxonomy):
    escalated = _refund(turns=[("user", COMPLAINT, "tickets")],
                        signals=Signals(escalations=[EscalationSignal(id="esc-1", reason="customer upset")]))
    c = classify(escalated, taxonomy)
    assert c.outcome == "escalated"
    assert ("tickets", "complaint_language:en", "failed") in _kinds(c)
    assert "escalations esc-1 (escalation)" in c.review_questions[0] and "complaint_language:en" in c.review_questions[0]
    assert "claimed_success" not in c.review_questions[0]


def test_ticket_status_and_tags_are_signals_of_their_own(taxonomy):
    reopened = _refund(signals=Signals(tickets=[TicketSignal(id="T-1", status="Reopened")]))
    assert ("tickets", "negative_status:reopened", "failed") in _kinds(classify(reopened, taxonomy))
    tagged = _refund(signals=Signals(tickets=[TicketSignal(id="T-2", status="solved", tags=["CSAT_bad"])]))
    assert ("tickets", "complaint_tag:csat_bad", "failed") in _kinds(classify(tagged, taxonomy))


def test_failure_signature_follows_the_deciding_signals(taxonomy):
    by_language = classify(_refund("a", turns=[("user", COMPLAINT, "tickets")]), taxonomy)
    by_tag = classify(_refund("b", signals=Signals(tickets=[TicketSignal(id="T-2", tags=["complaint"])])), taxonomy)
    same = classify(_refund("c", turns=[("user", "Still nothing arrived.", "tickets")]), taxonomy)
    assert by_language.signature == same.signature != by_tag.signature


def test_a_repeat_of_what_the_words_asked_counts_and_the_label_follows_the_words_not_the_tools(taxonomy):
    keywords = taxonomy
    call = ToolCall(name="create_return_label", arguments={"order_id": "#W1000001"})
    session = _refund(calls=[call]).model_copy(update={"turns": [
        Turn(role="user", text="Please cancel my order #W1000001", at=CLOCK, source="traces"),
        Turn(role="agent", text="Done, it has been cancelled.", at=CLOCK + timedelta(minutes=1), source="traces")]})
    again = [LaterSession.of(_later("s-6", "Please cancel my order #W1000001", 20))]
    c = classify(session, keywords, again)
    assert (c.intent, c.executed_actions) == ("cancellation", ["return_label"])  # what was done is not what was asked
    assert "text_tool_conflict" in c.uncertain_because
    assert c.outcome == "failed" and ("later_session", "repeat_request", "failed") in _kinds(c)


def test_reason_category_keeps_the_first_six_words_without_ids():
    from taskgen.classify import reason_category

    assert reason_category("Customer 12 asked for a REFUND of order #W123 twice, agent unsure") == "customer asked for a refund of"
    assert reason_category("") == ""


def test_a_taxonomy_file_is_read_as_utf8(tmp_path):
    from taskgen.taxonomy import Taxonomy

    path = tmp_path / "taxonomy.yaml"
    path.write_bytes("intents: {refund: {keywords: [rückerstattung]}}\n".encode("utf-8"))
    assert Taxonomy.from_yaml(path).intents["refund"].keywords == ["rückerstattung"]


def test_a_customer_chasing_after_the_claim_is_a_complaint(taxonomy):
    chase = _refund(turns=[("user", "Any news? nobody has replied", "tickets")])
    assert ("tickets", "complaint_language:en", "failed") in _kinds(classify(chase, taxonomy))
    bot = _refund(turns=[("user", "I cancelled it with your bot and it still shipped", "traces")])
    assert classify(bot, taxonomy).outcome == "failed"
