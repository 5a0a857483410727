import pytest

from taskgen.domains.retail.policy import RetailPolicy
from taskgen.draft import assign_splits, draft_pair
from taskgen.seeds import parse_timestamp
from taskgen.task import Expectation


def _pair(drafted, session_id):
    return next(row for row in drafted if row[0].session_id == session_id)


EXPECTED_POSITIVE = {
    "s-refund": ["refund_exists(amount_cents=8999, order_id=#W1000001)", "reply_sent()"],
    "s-return": ["return_label_exists(order_id=#W1000005)", "no_refund(order_id=#W1000005)"],
    "s-cancel": ["order_status(order_id=#W1000002, status=cancelled)", "reply_sent()"],
    "s-address": ["address_equals(address=742 Evergreen Terrace, Springfield, OR 97403, customer_id=cus_1003)"],
}


@pytest.mark.parametrize("session_id", sorted(EXPECTED_POSITIVE))
def test_positive_expectations_per_intent(drafted, session_id):
    positive = _pair(drafted, session_id)[3].positive
    assert [item.describe() for item in positive.expectations] == EXPECTED_POSITIVE[session_id]
    assert positive.status == "draft" and positive.expectations_status == "draft" and positive.version == 1


def test_information_request_forbids_refunds(drafted):
    positive = _pair(drafted, "s-status")[3].positive
    assert "refund_order" in positive.forbidden_tools
    assert positive.expectations[0].check == "reply_sent"


def test_rollback_is_regression_and_expects_the_fixed_behaviour(drafted):
    session, _, _, pair = _pair(drafted, "s-rollback")
    positive = pair.positive
    assert positive.set == "regression" == pair.negative.set
    assert "refund_order" in positive.forbidden_tools
    assert any(item.describe() == "no_refund(order_id=#W1000003)" for item in positive.expectations)
    assert positive.provenance.incident_id == "INC-9" and positive.provenance.trace_ids == ["trace-s-rollback"]


def test_ids_prompt_budget_and_provenance(drafted, domain):
    session, classification, seed, pair = _pair(drafted, "s-refund")
    again = draft_pair(session, classification, seed, domain, members=["s-refund-dup"])
    assert again.positive.task_id == pair.positive.task_id and again.positive.task_id.endswith("-pos")
    assert again.negative.task_id.endswith("-neg") and again.negative.pair_id == again.positive.pair_id
    assert again.positive.provenance.session_ids == ["s-refund", "s-refund-dup"]
    assert pair.positive.prompt == session.first_user_text()
    assert pair.positive.budget.turns == 6 and pair.positive.budget.tokens == 4300 and pair.positive.budget.latency_ms == 30000
    assert pair.positive.clock == seed.clock and pair.positive.seed_id == seed.seed_id


def test_disagreement_between_incident_and_policy_becomes_a_review_question(drafted, domain):
    session, classification, seed, _ = _pair(drafted, "s-refund")
    strict = RetailPolicy.from_yaml().model_copy(update={"return_window_days": 2})
    pair = draft_pair(session, classification, seed, domain, policy=strict)
    assert any("points to 'refund'" in question and "'decline'" in question for question in pair.positive.review_questions)
    assert any(item.describe() == "no_refund(order_id=#W1000001)" for item in pair.positive.expectations)


@pytest.mark.parametrize(
    ("session_id", "boundary"),
    [("s-refund", "return_window"), ("s-return", "return_window"), ("s-cancel", "not_cancellable"),
     ("s-address", "order_in_transit"), ("s-status", "other_customer"), ("s-rollback", "not_delivered")],
)
def test_negatives_cross_the_policy_boundary(drafted, domain, session_id, boundary):
    _, _, seed, pair = _pair(drafted, session_id)
    negative = pair.negative
    assert negative.boundary == boundary and negative.synthetic and negative.polarity == "negative"
    assert negative.boundary_question in negative.review_questions
    assert negative.seed_id == pair.negative_seed.seed_id != seed.seed_id
    checks = {item.check for item in negative.expectations}
    assert checks & {"any_of", "escalated"}
    assert not checks & {"refund_exists", "return_label_exists"}
    assert not negative.required_tools or negative.required_tools == ["escalate_to_human"]
    assert negative.prompt == pair.positive.prompt


def test_return_window_negative_moves_delivery_outside_window(drafted, domain):
    _, _, seed, pair = _pair(drafted, "s-refund")
    order = pair.negative_seed.state["order"]["#W1000001"]
    age = parse_timestamp(seed.clock) - parse_timestamp(order["delivered_at"])
    assert age.days > domain.policy.return_window_days
    assert "30 days" in pair.negative.boundary_question


def test_over_limit_refund_boundary(drafted, domain):
    from taskgen.domains.retail.plans import cross_boundary
    from taskgen.domains.retail.rules import decide

    _, _, seed, pair = _pair(drafted, "s-refund")
    actor = pair.positive.actor
    moved = cross_boundary("auto_refund_limit", seed.state, "#W1000001", seed, actor, domain.policy)
    assert moved["order"]["#W1000001"]["total_cents"] > domain.policy.auto_refund_limit_cents
    assert seed.state["order"]["#W1000001"]["total_cents"] == 8999
    decision = decide("refund", pair.positive.prompt, moved, actor, seed.clock_datetime, domain.policy)
    assert (decision.action, decision.rule) == ("escalate", "above_auto_refund_limit")


def test_assign_splits_is_stratified_by_intent(drafted):
    tasks = [task for row in drafted for task in (row[3].positive, row[3].negative)]
    refunds = [task.model_copy(update={"pair_id": f"pair-{i}", "intent": "refund"}) for i in range(10) for task in tasks[:1]]
    split = assign_splits(refunds, 0.3)
    assert sum(task.split == "heldout" for task in split) == 3
    assert assign_splits(refunds, 0.3) == split


def test_expectation_describe_either_or():
    either = Expectation(check="any_of", any_of=[Expectation(check="reply_sent"), Expectation(check="escalated")])
    assert either.describe() == "reply_sent() OR escalated()"


def test_the_classifications_review_questions_travel_with_both_tasks(drafted, domain):
    session, classification, seed, _ = _pair(drafted, "s-refund")
    doubtful = classification.model_copy(update={"review_questions": ["Outcome 'failed' from ...: is it right?"]})
    pair = draft_pair(session, doubtful, seed, domain)
    assert pair.positive.review_questions[0] == pair.negative.review_questions[0] == "Outcome 'failed' from ...: is it right?"
