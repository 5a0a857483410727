"""Issue #12 (tau2 task 87 with the agent's reads in its trace): "all my pending orders' address, along with my
default address" — the negative crosses on its own order only (on its way), so the customer's default address,
which is no order, is judged as the positive judges it, not kept as on the seed."""

from __future__ import annotations

from retail_fixtures import make_state
from taskgen.domains import Plan
from taskgen.domains.retail.grader import allow, expect
from taskgen.domains.retail.negatives import rest_of_request
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.task import Expectation

NEW = "565 Maple Drive, Washington, DC 20307"


def _policy() -> RetailPolicy:
    from taskgen.domains.retail.policy import DEFAULT_POLICY_PATH
    import yaml

    return RetailPolicy.model_validate(yaml.safe_load(DEFAULT_POLICY_PATH.read_text(encoding="utf-8")))


def test_the_default_address_the_request_asks_changed_is_judged_as_the_positive_judges_it():
    state, policy = make_state(), _policy()
    old = state["customer"]["cus_1001"]["address"]
    changed = Expectation(check="any_of", any_of=[expect("reply_asks_for", about="address"),
                                                  expect("address_changed", customer_id="cus_1001", address=old)])
    positive = Plan(expectations=[expect("reply_sent"), changed, expect("order_status", order_id="#W1000002", status="processing")],
                    may_change=[allow("order", "#W1000002", "shipping_address")])
    kept = expect("address_equals", customer_id="cus_1001", address=old)
    negative = Plan(expectations=[expect("reply_refuses"), kept, expect("order_status", order_id="#W1000002", status="shipped")])
    judged = rest_of_request(negative, positive, "#W1000002", state, policy)
    described = [item.describe() for item in judged.expectations]
    # changed as the positive asks, or kept by a refusal that comes alone: either passes, so no check of it (an either-or
    # 'it is X, or it is not X' is always true: fifth cold review) but the change allowed
    assert not any("address_equals" in text or "address_changed(" in text for text in described)
    assert allow("customer", "cus_1001", "address") in judged.may_change
    assert "order_status(order_id=#W1000002, status=shipped)" in described  # its own order still crosses
    # where the task is the customer's own address (no order address written or allowed), the address crosses too
    customer_task = positive.model_copy(update={"may_change": []})
    assert kept.describe() in [item.describe() for item in rest_of_request(negative, customer_task, "#W1000002", state, policy).expectations]


def test_the_account_s_address_in_an_either_or_with_the_order_s_is_judged_as_the_positive_judges_it():
    """tau2 task 110 (after task 109 moved everything to one address the same day): the positive's address check is one
    either-or, 'ask for the address, or change the account's, or the order's'; the negative crossing on the order (on its
    way) kept the account's address as on the seed, so changing the default address as the request asks failed it."""
    state, policy = make_state(), _policy()
    old = state["customer"]["cus_1001"]["address"]
    account_changed = expect("address_changed", customer_id="cus_1001", address=old)
    mixed = Expectation(check="any_of", any_of=[expect("reply_asks_for", about="address"), account_changed,
                                                expect("order_address_changed", order_id="#W1000002", address=old)])
    positive = Plan(expectations=[expect("reply_sent"), mixed], may_change=[allow("order", "#W1000002", "shipping_address")])
    kept = expect("address_equals", customer_id="cus_1001", address=old)
    negative = Plan(expectations=[expect("reply_refuses"), kept, expect("order_status", order_id="#W1000002", status="shipped")])
    judged = rest_of_request(negative, positive, "#W1000002", state, policy)
    described = [item.describe() for item in judged.expectations]
    # kept or changed: allowed, not an always-true either-or of the two (fifth cold review)
    assert Expectation(check="any_of", any_of=[kept, account_changed]).describe() not in described
    assert allow("customer", "cus_1001", "address") in judged.may_change
    assert kept.describe() not in described and "order_status(order_id=#W1000002, status=shipped)" in described


def test_words_about_an_order_s_own_address_beside_the_account_s_leave_the_order_tool_free():
    """tau2 task 87/110: 'modify all my pending order address to X, along with my user default address' is decided as the
    account's address change; the product's order-address tool is not forbidden by name, and its pending orders still at
    another address must get the new one (test_review12_fourth: one order where the words speak of one)."""
    from pathlib import Path

    import yaml

    from taskgen.domains.retail.plans import plan_for
    from taskgen.domains.retail.policy import DEFAULT_POLICY_PATH
    from taskgen.domains.retail.rules import Decision

    document = yaml.safe_load(DEFAULT_POLICY_PATH.read_text(encoding="utf-8"))
    document["tools"] = yaml.safe_load((Path(__file__).resolve().parents[2] / "docs" / "examples" / "tau2-retail.tools.yaml").read_text(encoding="utf-8"))
    policy = RetailPolicy.model_validate(document)
    state = make_state()
    state["order"]["#W1000002"]["status"] = "pending"
    decision = Decision(action="update_address", rule="address_change_allowed", customer_id="cus_1001", address=NEW)
    both = "I want to modify all my pending order address to the Washington address, along with my user default address."
    plan = plan_for(decision, state, "cus_1001", prompt=both, policy=policy)
    # 'all my pending order address': each pending order still elsewhere must get it too (fourth cold review: it was only allowed)
    assert "modify_pending_order_address" not in plan.forbidden_tools
    assert plan.required_tools == ["modify_user_address", "modify_pending_order_address"] and plan.may_change == []
    assert f"order_address_equals(address={NEW}, order_id=#W1000002)" in [item.describe() for item in plan.expectations]
    plan = plan_for(decision, state, "cus_1001", prompt="Please change my user default address.", policy=policy)
    assert "modify_pending_order_address" in plan.forbidden_tools and plan.may_change == []
