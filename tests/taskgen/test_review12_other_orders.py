"""Issue #12, third cold review of tau2 drafts: a write the customer asks for outright on another of their orders, told
by its items ("I also want to return the water bottle"), was only allowed on the positive (may change), so an agent
that left it undone passed. It is required now, with what it records pinned as the task's own write is; the
reference agent does it; the negative judges it as the positive does."""

from __future__ import annotations

from test_catalogue_branch import _plan, _run, _task
from test_product_tools import ACTOR, _seed, tau2  # noqa: F401  (tau2: the fixture)

from taskgen.domains.retail.negatives import plan_negative
from taskgen.domains.retail.other_orders import asked_on_other_orders
from taskgen.domains.retail.rules import decide

TWO = "I want to change the desk lamp in order #W1234567 to the black one with a halogen bulb. I also want to return the water bottle."
LAMP = (("modify_pending_order_items", dict(order_id="#W1234567", item_ids=["111"], new_item_ids=["113"], payment_method_id="gift_card_1")),
        ("send_reply", {"text": "The lamp is changed."}))
BOTTLE = ("return_delivered_order_items", dict(order_id="#W7654321", item_ids=["222"], payment_method_id="cc_1"))
RETURN_CHECKS = ["order_status(order_id=#W7654321, status=return requested)", "recorded_items(field=return_items, items=222, order_id=#W7654321)",
                 "recorded_payment(customer_id=c1, field=return_payment_method_id, order_id=#W7654321, original_or_gift_card=1)"]


def test_a_return_asked_outright_on_another_order_is_required_with_its_items_and_payment(tau2):
    positive = _plan(tau2, TWO)
    assert "return_delivered_order_items" in positive.required_tools
    described = [item.describe() for item in positive.expectations]
    assert all(check in described for check in RETURN_CHECKS), described
    assert not any(allowance.row_id == "#W7654321" for allowance in positive.may_change)  # checked, no longer only allowed
    task = _task(positive, TWO)
    reference, _ = _run(tau2, task, _seed())
    assert reference.passed, reference.reasons
    assert not _run(tau2, task, _seed(), agent="", calls=LAMP)[0].passed  # the other order's part left undone
    assert _run(tau2, task, _seed(), agent="", calls=(*LAMP, BOTTLE))[0].passed


def test_the_negative_judges_the_other_orders_write_as_the_positive_and_the_reference_passes_it(tau2):
    positive = _plan(tau2, TWO)
    negative = plan_negative(TWO, "exchange", _seed(), ACTOR, positive, tau2)
    assert negative.boundary == "closed"
    assert all(check in [item.describe() for item in negative.expectations] for check in RETURN_CHECKS)
    task = _task(negative, TWO, "negative").model_copy(update={"forbidden_calls": negative.forbidden_calls})
    negative_seed = _seed().model_copy(update={"state": negative.state})
    reference, _ = _run(tau2, task, negative_seed)
    assert reference.passed, reference.reasons
    # the return tool the other order needs refuses the cancelled order: a call of it there is forbidden by a check
    assert "return_delivered_order_items(order_id=#W1234567)" in [rule.describe() for rule in negative.forbidden_calls]


def test_nothing_is_required_where_the_words_leave_the_order_open(tau2):
    state = _seed().state
    decision = decide("exchange", TWO, state, ACTOR, _seed().clock_datetime, tau2, "#W1234567")
    assert decision.action == "modify_items"
    clock = _seed().clock_datetime
    assert [order for order, _, _ in asked_on_other_orders(TWO, state, ACTOR, clock, "#W1234567", tau2)] == ["#W7654321"]
    for words in ("I want to change the desk lamp in order #W1234567 to the black one. If it is cheap, also return the water bottle.",
                  "I want to change the desk lamp in order #W1234567 to the black one. I also want to return the desk lamp.",  # its own order
                  "I want to return the water bottle.",  # one request: the task's own
                  "I want to change the desk lamp in order #W1234567 to the black one. I also want to return the kettle."):  # no such item
        assert asked_on_other_orders(words, state, ACTOR, clock, "#W1234567", tau2) == [], words
    # the order the product's tool refuses (a return of a pending order): nothing required there
    pending = _seed().state
    pending["order"]["#W7654321"]["status"] = "pending"
    assert asked_on_other_orders(TWO, pending, ACTOR, clock, "#W1234567", tau2) == []
