"""What each decision drafts, compared whole, and where the incident's own resolution is read from."""

from datetime import timedelta

import pytest

from ingest.models import DeploySignal, EscalationSignal, Signals, ToolCall
from taskgen.classify import Classification
from taskgen.domains.retail.negatives import boundary_question
from taskgen.domains.retail.plans import _RUBRIC, action_named_in, incident_action, plan_for
from taskgen.domains.retail.rules import Decision
from taskgen.task import Expectation

from retail_fixtures import make_session, make_state

WRITES = ["refund_order", "create_return_label", "cancel_order", "update_address"]


def _check(name, **args):
    return Expectation(check=name, args=args)


def _untouched(order_id="#W1000001", status="delivered", customer_id=None, address=None):
    checks = [_check("no_refund", order_id=order_id), _check("order_status", order_id=order_id, status=status)]
    if customer_id:
        checks.append(_check("address_equals", customer_id=customer_id, address=address))
    return checks


def test_each_action_drafts_its_expectations_and_tools():
    state = make_state()
    home = state["customer"]["cus_1001"]["address"]
    plan = plan_for(Decision(action="refund", rule="refund_allowed", order_id="#W1000001", amount_cents=8999), state)
    assert (plan.expectations, plan.required_tools, plan.forbidden_tools, plan.rubric) == (
        [_check("refund_exists", order_id="#W1000001", amount_cents=8999), _check("order_status", order_id="#W1000001", status="delivered"),
         _check("reply_sent"), _check("reply_states_amount", amount_cents=8999)],
        ["refund_order"], ["create_return_label", "cancel_order", "update_address"],
        [_RUBRIC["refund"]])
    plan = plan_for(Decision(action="return_label", rule="return_allowed", order_id="#W1000001"), state)
    assert (plan.expectations, plan.required_tools, plan.forbidden_tools) == (
        [_check("return_label_exists", order_id="#W1000001"), *_untouched()], ["create_return_label"],
        ["refund_order", "cancel_order", "update_address"])
    plan = plan_for(Decision(action="cancel", rule="cancel_allowed", order_id="#W1000002"), state)
    assert (plan.expectations, plan.required_tools, plan.forbidden_tools) == (
        [_check("order_status", order_id="#W1000002", status="cancelled"), _check("no_refund", order_id="#W1000002"), _check("reply_sent")],
        ["cancel_order"], ["refund_order", "create_return_label", "update_address"])
    plan = plan_for(Decision(action="update_address", rule="address_change_allowed", customer_id="cus_1001", address="1 Elm St"), state)
    assert (plan.expectations, plan.required_tools, plan.forbidden_tools) == (
        [_check("address_equals", customer_id="cus_1001", address="1 Elm St")], ["update_address"], ["refund_order", "create_return_label", "cancel_order"])
    plan = plan_for(Decision(action="escalate", rule="above_auto_refund_limit", order_id="#W1000001"), state)
    assert (plan.expectations, plan.required_tools, plan.forbidden_tools) == (
        [_check("escalated"), *_untouched(), _check("reply_promises_no_refund")], ["escalate_to_human"], WRITES)
    plan = plan_for(Decision(action="escalate", rule="order_in_transit", customer_id="cus_1001"), state)
    assert plan.expectations == [_check("escalated"), _check("address_equals", customer_id="cus_1001", address=home),
                                 _check("reply_promises_no_refund")]
    unknown = make_state()
    unknown["customer"]["cus_1001"]["address"] = None  # emptied on the seed: the incident's own write, its value before unknown
    plan = plan_for(Decision(action="escalate", rule="account_access_needs_human", customer_id="cus_1001"), unknown)
    assert not [item for item in plan.expectations if item.check == "address_equals"]  # never address_equals(address=)
    plan = plan_for(Decision(action="update_address", rule="address_to_ask", customer_id="cus_1001"), state, target_order_id="#W1000002")
    assert (plan.expectations, plan.required_tools, plan.forbidden_tools) == (
        [_check("not_escalated"), _check("reply_sent"),
         # asked for the address, or changed it (known from elsewhere): a refusal alone is neither
         Expectation(check="any_of", any_of=[_check("reply_asks_for", about="address"),
                                             _check("address_changed", customer_id="cus_1001", address=home)]),
         *_untouched("#W1000002", "processing")], [],
        ["refund_order", "create_return_label", "cancel_order", "escalate_to_human"])
    plan = plan_for(Decision(action="decline", rule="order_closed", order_id="#W1000002"), state)
    assert (plan.expectations, plan.forbidden_tools) == (
        [_check("reply_refuses"), *_untouched("#W1000002", "processing"),
         # its writes forbidden by name: an attempt the tool refuses still fails (in_scope_parts frees other parts' tools)
         _check("reply_promises_no_refund")], WRITES)
    plan = plan_for(Decision(action="decline", rule="outside_return_window", order_id="#W1000001"), state)
    assert (plan.expectations, plan.required_tools, plan.forbidden_tools, plan.rubric) == (
        [_check("reply_refuses"), _check("not_escalated"), *_untouched(), _check("reply_promises_no_refund")], [],
        [*WRITES, "escalate_to_human"],
        [_RUBRIC["decline"].format(rule="outside_return_window")])
    plan = plan_for(Decision(action="decline", rule="not_order_owner", order_id="#W1000003"), state, "cus_1001")
    assert plan.expectations[-1] == _check("reply_withholds", order_id="#W1000003", requester="cus_1001")
    assert plan_for(Decision(action="decline", rule="not_order_owner", order_id="#W1000003"), state).expectations[-1] == _check(
        "reply_withholds", order_id="#W1000003")
    plan = plan_for(Decision(action="inform", rule="order_status_lookup", order_id="#W1000004"), state)
    assert (plan.expectations, plan.forbidden_tools) == (
        [_check("reply_sent"), _check("not_escalated"), *_untouched("#W1000004", "shipped"),
         _check("reply_states_status", order_id="#W1000004", status="shipped")], [*WRITES, "escalate_to_human"])
    plan = plan_for(Decision(action="inform", rule="information_only"), state)
    assert (plan.expectations, plan.rubric) == ([_check("reply_sent"), _check("not_escalated")], [_RUBRIC["inform"]])
    # an answer about an order the request names (the decision names none): that order stays as it is
    plan = plan_for(Decision(action="inform", rule="information_only"), state, "cus_1001", target_order_id="#W1000001")
    assert plan.expectations == [_check("reply_sent"), _check("not_escalated"), *_untouched(customer_id="cus_1001", address=home)]


def test_every_positive_forbids_each_write_it_does_not_need_and_checks_its_target():
    """An idle or greedy extra write fails every action: each state-changing tool not required is forbidden,
    and the target order's status and refunds are checked where the action does not change them."""
    state = make_state()
    for decision in (Decision(action="refund", rule="refund_allowed", order_id="#W1000001", amount_cents=8999),
                     Decision(action="return_label", rule="return_allowed", order_id="#W1000001"),
                     Decision(action="cancel", rule="cancel_allowed", order_id="#W1000002")):
        plan = plan_for(decision, state)
        assert sorted([*plan.required_tools, *plan.forbidden_tools]) == sorted(WRITES), decision.action
        checks = {item.check for item in plan.expectations}
        assert ("order_status" in checks) and ({"no_refund", "refund_exists"} & checks), decision.action


def test_earlier_refunds_are_expected_unchanged_not_absent():
    state = make_state()
    state["refund"]["r1"] = {"id": "r1", "order_id": "#W1000001", "amount_cents": 999}
    plan = plan_for(Decision(action="decline", rule="already_refunded", order_id="#W1000001"), state)
    assert plan.expectations[2] == _check("refunded_total", order_id="#W1000001", amount_cents=999)


@pytest.mark.parametrize(
    ("text", "action"),
    [("Refund declined by tier 2", "decline"), ("customer is not eligible", "decline"), ("the agent should not have refunded", "decline"),
     ("order outside the return window", "decline"), ("escalated to billing", "escalate"), ("above the auto-refund limit", "escalate"),
     ("needs a human", "escalate"), ("return label sent", "return_label"), ("label created", "return_label"), ("Refunded in full", "refund"),
     ("cancelled the order", "cancel"), ("fixed the address", "update_address"), ("unlocked by the accounts team", None), ("", None)],
)
def test_action_named_in(text, action):
    assert action_named_in(text) == action


def _classified(outcome):
    return Classification(intent="refund", outcome=outcome, evidence=[], signature="x")


def test_incident_action_reads_each_outcome_from_its_own_evidence():
    deploys = [DeploySignal(id="dep-2", kind="rollback", reason="refunded outside the return window"),
               DeploySignal(id="dep-1", kind="rollback", reason="a bad build")]
    session = make_session("s", "refund #W1000001", "cus_1001", ["#W1000001"], signals=Signals(deploys=deploys))
    assert incident_action(session, _classified("rolled_back")) == ("decline", "deploy:dep-2:reason")
    vague = make_session("s", "x", "cus_1001", [], signals=Signals(deploys=[deploys[1]]))
    assert incident_action(vague, _classified("rolled_back")) == (None, "rolled_back:no_usable_reason")
    escalations = [EscalationSignal(id="esc-2", reason="r", resolution="Refunded by tier 2"), EscalationSignal(id="esc-1", reason="r", resolution=None)]
    escalated = make_session("s", "x", "cus_1001", [], signals=Signals(escalations=escalations))
    assert incident_action(escalated, _classified("escalated")) == ("refund", "escalation:esc-2:resolution")
    unresolved = make_session("s", "x", "cus_1001", [], signals=Signals(escalations=escalations[1:]))
    assert incident_action(unresolved, _classified("escalated")) == (None, "escalated:no_resolution")
    calls = [ToolCall(name="refund_order", arguments={}), ToolCall(name="cancel_order", arguments={}, status="error"), ToolCall(name="get_order")]
    resolved = make_session("s", "x", "cus_1001", [], calls)
    assert incident_action(resolved, _classified("resolved")) == ("refund", "resolved:agent_path")
    assert incident_action(make_session("s", "x", "cus_1001", []), _classified("resolved")) == ("inform", "resolved:agent_path")
    assert incident_action(resolved, _classified("errored")) == (None, "errored:agent_path_untrusted")


@pytest.mark.parametrize(
    ("calls", "action"),
    [(["get_order_details", "cancel_pending_order"], "cancel"), (["return_delivered_order_items"], "return_label"),
     (["exchange_delivered_order_items"], "escalate"), (["modify_pending_order_items", "calculate"], "escalate"),
     (["modify_user_address"], "update_address"), (["find_user_id_by_email", "get_user_details"], "inform")],
)
def test_another_products_write_tools_are_read_by_their_verb(calls, action):
    """tau2-bench's tools: the incident's own path is evidence in the policy's actions, not 'inform'."""
    session = make_session("s", "x", "cus_1001", [], [ToolCall(name=name, arguments={}) for name in calls])
    assert incident_action(session, _classified("resolved")) == (action, "resolved:agent_path")


def test_boundary_questions_carry_the_policy_numbers(domain):
    policy = domain.policy
    assert boundary_question("return_window", policy).startswith("The policy allows 30 days after delivery: is day 30 itself inside")
    assert boundary_question("auto_refund_limit", policy).startswith("Is a refund of exactly 20000 cents still automatic")
    assert "pending, processing" in boundary_question("not_cancellable", policy)
    assert {boundary_question(name, policy) for name in ("not_delivered", "other_customer", "order_in_transit")} == {
        "Can an order that has not been delivered be refunded or returned, or only cancelled?",
        "Should the agent act on, or disclose, an order that belongs to another customer?",
        "May the customer change the address while an order is on its way, or must a human decide?",
    }


def _diff(before, after):
    changes = set()
    for kind in set(before) | set(after):
        for row_id in set(before.get(kind, {})) | set(after.get(kind, {})):
            old, new = before.get(kind, {}).get(row_id, {}), after.get(kind, {}).get(row_id, {})
            changes |= {(kind, row_id, key, new.get(key)) for key in set(old) | set(new) if old.get(key) != new.get(key)}
    return changes


def test_each_boundary_moves_exactly_what_it_names(domain):
    from taskgen.domains.retail.negatives import cross_boundary
    from taskgen.seeds import format_timestamp, freeze_seed

    from retail_fixtures import CLOCK

    state = make_state()
    state["refund"]["r1"] = {"id": "r1", "order_id": "#W1000001", "amount_cents": 100}
    state["refund"]["r2"] = {"id": "r2", "order_id": "#W1000002", "amount_cents": 100}
    seed = freeze_seed(state, CLOCK)
    me, policy = {"customer_id": "cus_1001"}, domain.policy
    moved = lambda boundary, order_id="#W1000001", actor=me: (cross_boundary(boundary, seed, order_id, actor, policy) or (None, None))[0]  # noqa: E731
    late = format_timestamp(CLOCK - timedelta(days=37))
    placed = format_timestamp(CLOCK - timedelta(days=44))  # placed still before delivered: the seed stays coherent
    assert _diff(seed.state, moved("return_window")) == {("order", "#W1000001", "delivered_at", late), ("order", "#W1000001", "created_at", placed)}
    assert _diff(seed.state, moved("auto_refund_limit")) == {
        ("order", "#W1000001", "total_cents", 25000), ("order_item", "item_1", "price_cents", 25000), ("payment", "pay_1", "amount_cents", 25000),
        ("refund", "r1", "id", None), ("refund", "r1", "order_id", None), ("refund", "r1", "amount_cents", None)}
    assert _diff(seed.state, moved("not_delivered")) == {("order", "#W1000001", "status", "processing"), ("order", "#W1000001", "delivered_at", None)}
    assert _diff(seed.state, moved("not_cancellable", "#W1000002")) == {("order", "#W1000002", "status", "shipped")}
    assert _diff(seed.state, moved("other_customer")) == {("order", "#W1000001", "customer_id", "cus_1002")}
    # only the order the expectations are about moves, never the customer's other orders
    assert _diff(seed.state, moved("order_in_transit", "#W1000002")) == {("order", "#W1000002", "status", "shipped")}
    assert _diff(seed.state, moved("closed", "#W1000002")) == {("order", "#W1000002", "status", "cancelled")}
    assert moved("order_in_transit", None) is None and moved("closed", "#W1000003") is None  # no target; another customer's order
    assert moved("order_in_transit", actor={"customer_id": "cus_9"}) is None and moved("return_window", "#W404") is None
    alone = {"order": {"#W1": {"id": "#W1", "customer_id": "c1"}}, "customer": {"c1": {"id": "c1"}}}
    # no other real customer in the seed: the order is not given to a made-up one
    assert cross_boundary("other_customer", freeze_seed(alone, CLOCK), "#W1", {"customer_id": "c1"}, policy) is None
    assert seed.state == state
