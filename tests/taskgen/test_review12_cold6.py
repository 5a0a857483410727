"""Issue #12, sixth cold review of tau2 drafts: a negative's seed stays one the product's own tools could leave."""

from __future__ import annotations

from test_product_tools import ACTOR, tau2  # noqa: F401  (tau2: the fixture)

from taskgen.domains.retail.negatives import cross_boundary
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.rules import refunded_cents
from taskgen.domains.retail.schema import RetailSchema
from taskgen.seeds import Seed


def _pending(history: list[dict] | None, refund_rows: bool = False) -> Seed:
    order = {"id": "#W1234567", "customer_id": "c1", "status": "pending", "total_cents": 5000, "created_at": "2025-12-20T00:00:00Z"}
    if history is not None:
        order["payment_history"] = history
    state = {"customer": {"c1": {"id": "c1", "address": "1 Old Rd, Austin, TX 78701"}}, "order": {"#W1234567": order}}
    if refund_rows:
        state |= {"payment": {"pay-1": {"id": "pay-1", "order_id": "#W1234567", "amount_cents": 5000}}, "refund": {}}
    return Seed(seed_id="seed-closed", clock="2026-01-01T00:00:00Z", domain="retail", state=state)


def test_a_closed_negative_refunds_each_payment_where_the_order_keeps_its_payment_history(tau2):
    """tau2's cancel_pending_order refunds every payment beside the status: a cancelled order with no refund in its
    history is a state no tool leaves (sixth cold review: 8 of 20 'closed' negatives)."""
    paid = [{"transaction_type": "payment", "amount": 30.0, "payment_method_id": "gift_card_1"},
            {"transaction_type": "payment", "amount": 20.0, "payment_method_id": "cc_1"}]
    state, _ = cross_boundary("closed", _pending(paid), "#W1234567", ACTOR, tau2)
    order = state["order"]["#W1234567"]
    assert order["status"] == "cancelled"
    assert [e for e in order["payment_history"] if e["transaction_type"] == "refund"] == [
        {"transaction_type": "refund", "amount": 30.0, "payment_method_id": "gift_card_1"},
        {"transaction_type": "refund", "amount": 20.0, "payment_method_id": "cc_1"}]
    assert refunded_cents(state, "#W1234567") == 5000


def test_a_closed_negative_adds_a_refund_row_where_the_product_keeps_refunds_as_rows():
    """A product whose closing tool refunds and that keeps payments and refunds as rows of their own."""
    policy = RetailPolicy.from_yaml()
    refunding = [tool.model_copy(update={"refunds": True}) if tool.sets_status == "cancelled" else tool for tool in policy.tools]
    policy = policy.model_copy(update={"tools": refunding})
    state, _ = cross_boundary("closed", _pending(None, refund_rows=True), "#W1234567", ACTOR, policy)
    view = RetailSchema().canonical(state)
    assert view["order"]["#W1234567"]["status"] == "cancelled" and refunded_cents(view, "#W1234567") == 5000
    (refund,) = view["refund"].values()
    assert refund["created_at"] < "2026-01-01T00:00:00Z"


def test_a_closing_tool_that_does_not_refund_adds_no_refund():
    """The demo's cancel_order refunds nothing itself (refund_order does): its closed negatives stay as they were."""
    state, _ = cross_boundary("closed", _pending(None, refund_rows=True), "#W1234567", ACTOR, RetailPolicy.from_yaml())
    assert state["refund"] == {} and state["order"]["#W1234567"]["status"] == "cancelled"
