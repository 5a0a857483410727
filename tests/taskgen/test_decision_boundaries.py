"""Negatives that test the request's own decision boundary, not only who is asking (cold review 5):
an agent that verifies identity and then hands everything to a human must fail some negative."""

from __future__ import annotations

import pytest

from ingest.models import ToolCall

from retail_fixtures import CLOCK, make_session, make_state
from taskgen.classify import classify
from taskgen.domains.retail import reference, rules
from taskgen.draft import draft_pair, starting_seed
from taskgen.health import health_check
from taskgen.seeds import format_timestamp, freeze_seed
from taskgen.task import AgentView

EXCHANGE = "I want to exchange the kettle in my order #W1000002 for the blue one."


def _run_reference(domain, state, prompt, intent):
    env = domain.environment(freeze_seed(state, CLOCK))
    view = AgentView(prompt=prompt, intent=intent, actor={"customer_id": "cus_1001"}, clock=format_timestamp(CLOCK))
    reference.reference_agent(domain.policy)(view, env)
    return env


@pytest.mark.parametrize(("status", "action", "rule"), [
    ("processing", "escalate", "outside_agent_tools"),  # not delivered yet: still an item change only a human makes
    ("cancelled", "decline", "order_closed"),  # nothing left to change: refused, not handed on
])
def test_an_item_change_on_a_cancelled_order_is_refused_not_handed_on(domain, status, action, rule):
    state = make_state()
    state["order"]["#W1000002"]["status"] = status
    decision = rules.decide("exchange", EXCHANGE, state, {"customer_id": "cus_1001"}, CLOCK, domain.policy, "#W1000002")
    assert (decision.action, decision.rule) == (action, rule)
    env = _run_reference(domain, state, EXCHANGE, "exchange")
    assert any(call.name == "escalate_to_human" for call in env.calls) is (action == "escalate")


def test_a_status_refusal_with_an_item_change_on_a_cancelled_order_stays_a_refusal(domain):
    state = make_state()
    state["order"]["#W1000002"]["status"] = "cancelled"
    words = "I want to modify #W1000002: take the speaker out, or I return it later."
    decision = rules.decide("return_label", words, state, {"customer_id": "cus_1001"}, CLOCK, domain.policy, "#W1000002")
    assert (decision.action, decision.rule) == ("decline", "status_not_returnable")
    assert not any(call.name == "escalate_to_human" for call in _run_reference(domain, state, words, "return_label").calls)


def test_an_escalating_positive_gets_a_decision_boundary_negative_over_the_identity_one(domain, taxonomy):
    """The 13 escalation positives of cold review 5 all had the identity negative; where the order can be
    cancelled on the seed, the negative is the same request on that cancelled order (boundary `closed`)."""
    seed = starting_seed(make_state(), CLOCK, domain)  # with its canary rows
    session = make_session("s-x", EXCHANGE, "cus_1001", ["#W1000002"])
    classification = classify(session, taxonomy).model_copy(update={"intent": "exchange"})
    pair = draft_pair(session, classification, seed, domain)
    assert "escalate_to_human" in pair.positive.required_tools
    assert pair.negative.boundary == "closed"
    # only the target is cancelled; the customer's other orders stay as they were; the refusal and the "no hand-over"
    # are about the cancelled order (cold review 6, finding 3), the hand-over judged, not forbidden by name; the writes
    # are forbidden by name, so an attempt the tool refuses fails too (cold review of 2026-12-07; a part of the request
    # on another order gets its tool back: in_scope_parts)
    orders, before = pair.negative_seed.state["order"], seed.state["order"]
    assert orders["#W1000002"]["status"] == "cancelled"
    assert {key: row for key, row in orders.items() if key != "#W1000002"} == {key: row for key, row in before.items() if key != "#W1000002"}
    assert pair.negative.forbidden_tools == domain.policy.write_tool_names
    assert "reply_refuses()" in {item.describe() for item in pair.negative.expectations}
    assert any("about order #W1000002" in item for item in pair.negative.rubric)
    positive, negative = health_check(pair.positive, seed, domain, (pair.negative, pair.negative_seed)), health_check(
        pair.negative, pair.negative_seed, domain, (pair.positive, seed))
    assert positive.verdict == negative.verdict == "works", (positive.flags, negative.flags)
    assert positive.pair_discriminates and negative.pair_discriminates


def test_a_stub_negative_is_not_flagged_reply_alone_passes(domain, taxonomy):
    """A stub expects nothing yet: any reply passes it, which its `stub` verdict already says (validate
    listed such stubs as flagged)."""
    seed = starting_seed(make_state(), CLOCK, domain)  # with its canaries: the greedy agent fails any task
    session = make_session("s-q", "What is the status of my order #W1000002?", "cus_1001", ["#W1000002"])
    pair = draft_pair(session, classify(session, taxonomy), seed, domain)
    stub = pair.positive.model_copy(update={"polarity": "negative", "boundary": "none", "expectations": [],
                                            "required_tools": [], "forbidden_tools": []})
    result = health_check(stub, seed, domain)
    assert result.reference_passed and not result.refund_all_passed
    assert result.verdict == "stub" and "reply_alone_passes" not in result.flags, result.flags


def _positive(domain, taxonomy, words, order_id, intent):
    session = make_session("s-f", words, "cus_1001", [order_id])
    classification = classify(session, taxonomy).model_copy(update={"intent": intent})
    return draft_pair(session, classification, freeze_seed(make_state(), CLOCK), domain).positive


def test_a_fallback_write_beside_a_human_change_is_allowed_where_the_policy_allows_it(domain, taxonomy):
    """Cold review 5: "If it is not available, cancel the whole order" beside an exchange was a forbidden write.
    Whether the item is available, only the human settles; the cancel the policy allows on the seed is
    allowed, not required, and a review question quotes the condition."""
    words = "I want to exchange the kettle in my order #W1000002 for the blue one. If it is not available, cancel the whole order."
    positive = _positive(domain, taxonomy, words, "#W1000002", "exchange")
    assert "escalate_to_human" in positive.required_tools and "cancel_order" not in positive.forbidden_tools
    assert "order_status(order_id=#W1000002, status=cancelled) OR order_status(order_id=#W1000002, status=processing)" in [
        item.describe() for item in positive.expectations]
    assert any("cannot decide" in question and "cancel_allowed" in question for question in positive.review_questions)


@pytest.mark.parametrize(("words", "order_id", "rule"), [
    # the seed decides: a delivered order cannot be cancelled, whatever the condition
    ("I want to exchange the kettle in my order #W1000001 for the blue one. If not, cancel the whole order.", "#W1000001",
     "status_not_cancellable"),
    # the customer says they never want it
    ("I want to exchange the kettle in #W1000002 for the blue one. I never want to cancel my order, if that is the only option.",
     "#W1000002", None),
])
def test_a_fallback_write_the_seed_or_the_words_rule_out_stays_forbidden(domain, taxonomy, words, order_id, rule):
    positive = _positive(domain, taxonomy, words, order_id, "exchange")
    assert "escalate_to_human" in positive.required_tools and "cancel_order" in positive.forbidden_tools
    if rule:
        assert any(f"refuses it (rule {rule})" in question for question in positive.review_questions)


def test_a_fallback_on_the_catalogue_is_not_decided_by_the_orders_status(domain, taxonomy):
    """'If it is not available, cancel the whole order' after a return the status rules out: the return's
    refusal does not settle whether the item is available, so the cancel is allowed, not required."""
    words = "I want to return the kettle of my order #W1000002. If it is not available, cancel the whole order."
    positive = _positive(domain, taxonomy, words, "#W1000002", "return_label")
    assert positive.required_tools == [] and "cancel_order" not in positive.forbidden_tools
    decided = "I want to return the kettle of my order #W1000002. If it cannot be returned, see if it can be canceled."
    assert _positive(domain, taxonomy, decided, "#W1000002", "return_label").required_tools == ["cancel_order"]


def test_the_closed_boundary_needs_no_order_told_by_the_words(domain, taxonomy):
    """'I want to exchange the charger for a blue one' (no order id, none of the items named): the order the
    agent acted on is cancelled, alone, and the negative's words name it, so the pair tests the request."""
    words = "I want to exchange my phone charger for a blue one."
    seed = starting_seed(make_state(), CLOCK, domain)
    acted = [ToolCall(name="modify_pending_order_items", arguments={"order_id": "#W1000002", "item_ids": ["2"]})]
    session = make_session("s-n", words, "cus_1001", ["#W1000002"], acted)
    pair = draft_pair(session, classify(session, taxonomy).model_copy(update={"intent": "exchange"}), seed, domain)
    assert pair.positive.target == {"order_id": "#W1000002"}
    assert pair.negative.boundary == "closed" and "escalate_to_human" in pair.positive.required_tools
    assert pair.negative.prompt == f"{words} It is about my order #W1000002."
    assert [key for key, row in pair.negative_seed.state["order"].items() if row["status"] != seed.state["order"][key]["status"]] == ["#W1000002"]
    results = (health_check(pair.positive, seed, domain, (pair.negative, pair.negative_seed)),
               health_check(pair.negative, pair.negative_seed, domain, (pair.positive, seed)))
    assert [result.verdict for result in results] == ["works", "works"], [result.flags for result in results]
