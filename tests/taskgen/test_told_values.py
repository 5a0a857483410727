"""tau2-bench's communicate_info beside the task's own request: "I also want to get the tracking number of my cancelled
order". The positive's reply must carry the value the seed holds (a check that can fail), and the reference says it."""

from __future__ import annotations

import copy

from test_catalogue_branch import _plan, _run, _task
from test_product_tools import _seed, tau2  # noqa: F401  (tau2: the fixture)

from taskgen.domains.retail.schema import RetailSchema
from taskgen.domains.retail.told import tracking_asked

PROMPT = ("Please change the desk lamp in order #W1234567 to black halogen. I also want to get the tracking number of my "
          "cancelled order.")


def _with_cancelled(tracking: str | None = "286422338955", twice: bool = False):
    schema = RetailSchema()
    schema.columns["order"]["tracking"] = "tracking_number"  # a shop keeping tracking numbers (the demo keeps none)
    seed = _seed().model_copy(update={"state": copy.deepcopy(_seed().state), "domain_schema": schema.document()})
    for order_id in ("#W5550001", *(("#W5550002",) if twice else ())):
        seed.state["order"][order_id] = {"id": order_id, "customer_id": "c1", "status": "cancelled", "total_cents": 1000,
                                         "items": [], **({"tracking_number": tracking} if tracking else {})}
    return seed


def test_the_tracking_number_of_the_order_the_words_mean_is_checked_in_the_reply(tau2):
    seed = _with_cancelled()
    plan = _plan(tau2, PROMPT, seed)
    assert any(item.check == "reply_contains" and item.args["value"] == "286422338955" for item in plan.expectations)
    task = _task(plan, PROMPT)
    verdict, env = _run(tau2, task, seed)
    assert verdict.passed, verdict.reasons
    silent = (("modify_pending_order_items", dict(order_id="#W1234567", item_ids=["111"], new_item_ids=["113"], payment_method_id="gift_card_1")),
              ("send_reply", {"text": "Done."}))
    assert not _run(tau2, task, seed, "", silent)[0].passed  # the change made, the customer not told


def test_no_check_where_the_seed_does_not_tell_one_order_or_holds_no_tracking():
    for seed in (_with_cancelled(twice=True), _with_cancelled(tracking=None)):
        state = RetailSchema.from_document(seed.domain_schema).canonical(seed.state)
        assert tracking_asked(PROMPT, state, "c1", ["cancelled", "pending"]) == []
    state = RetailSchema.from_document(_with_cancelled().domain_schema).canonical(_with_cancelled().state)
    assert tracking_asked(PROMPT, state, "c1", ["cancelled"])  # the one cancelled order, with its tracking number
    assert tracking_asked(PROMPT, state, None, ["cancelled"]) == []
    assert tracking_asked("Where is my cancelled order?", state, "c1", ["cancelled"]) == []


def _orders(*rows: tuple[str, str, str | None], customer: str = "c1") -> dict:
    """A canonical view holding `rows` (order id, status, tracking number) of `customer`."""
    return {"order": {order_id: {"id": order_id, "customer_id": customer, "status": status,
                                 **({"tracking_number": tracking} if tracking else {})} for order_id, status, tracking in rows}}


def _values(checks) -> list[str]:
    return [item.args["value"] for item in checks]


def test_the_words_are_read_whatever_their_case_and_a_status_after_other_words():
    state = _orders(("#W1", "cancelled", "111"), ("#W2", "delivered", "222"))
    assert _values(tracking_asked("Also, the Tracking Number of My Cancelled Order?", state, "c1", ["cancelled", "delivered"])) == ["111"]
    assert _values(tracking_asked("I want the tracking id of my most recent delivered order.", state, "c1", ["cancelled", "delivered"])) == ["222"]
    # a status the words do not end with is not the one they mean ('cancelled orders' of another shape, 'undelivered')
    assert tracking_asked("The tracking number of my undelivered order.", state, "c1", ["cancelled", "delivered"]) == []
    # another customer's order in that status is not the requester's
    assert tracking_asked("The tracking number of my cancelled order.", _orders(("#W1", "cancelled", "111"), customer="c2"), "c1", ["cancelled"]) == []


def test_the_longest_status_the_words_end_with_is_the_one_they_mean():
    from taskgen.domains import Plan
    from taskgen.domains.retail.told import told_elsewhere

    state = _orders(("#W1", "shipped", "111"), ("#W2", "partially shipped", "222"))
    empty = Plan(expectations=[])
    assert _values(told_elsewhere(empty, "The tracking number of my partially shipped order, please.", state, "c1")) == ["222"]
    assert _values(told_elsewhere(empty, "The tracking number of my shipped order, please.", state, "c1")) == ["111"]


def test_every_tracking_request_is_read_past_one_naming_no_status_and_none_without_orders():
    from taskgen.domains import Plan
    from taskgen.domains.retail.told import told_elsewhere

    state = _orders(("#W1", "cancelled", "111"))
    words = "What is the tracking number of my old order? And the tracking number of my cancelled order?"
    assert _values(tracking_asked(words, state, "c1", ["cancelled"])) == ["111"]
    assert tracking_asked(words, {}, "c1", ["cancelled"]) == [] and told_elsewhere(Plan(expectations=[]), words, {}, "c1") == []


def test_a_check_the_plan_holds_already_is_not_added_twice():
    from taskgen.domains import Plan
    from taskgen.domains.retail.told import told_elsewhere

    state = _orders(("#W1", "cancelled", "111"))
    words = "The tracking number of my cancelled order, please."
    added = told_elsewhere(Plan(expectations=[]), words, state, "c1")
    assert _values(added) == ["111"]
    assert told_elsewhere(Plan(expectations=added), words, state, "c1") == []
