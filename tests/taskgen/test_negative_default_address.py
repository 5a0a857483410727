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
    assert changed.describe() in described and kept.describe() not in described
    assert "order_status(order_id=#W1000002, status=shipped)" in described  # its own order still crosses
    # where the task is the customer's own address (no order address written or allowed), the address crosses too
    customer_task = positive.model_copy(update={"may_change": []})
    assert kept.describe() in [item.describe() for item in rest_of_request(negative, customer_task, "#W1000002", state, policy).expectations]
