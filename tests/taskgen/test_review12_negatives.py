"""Issue #12, cold review of tau2-bench drafts (negatives, canary, wording, coverage): a negative crosses one
boundary on its own order and judges the rest of the request as the positive does; the canary reads like a
cancelled order of the shop's own schema; the task says when the seed or the words cannot carry it."""

from __future__ import annotations

import copy

from retail_fixtures import CLOCK, make_session
from test_schema_roles import _tau_seed
from taskgen.domains.retail.canary import add_canaries


def _with_parcels(seed, cancelled_parcels: list | None):
    """The tau-shaped state with a parcel on every order, and (optionally) a real cancelled order of cus_b
    carrying `cancelled_parcels`."""
    state = copy.deepcopy(seed.state)
    for number, row in enumerate(state["order"].values()):
        row["fulfillments"] = [{"tracking_id": [f"68230873693{number}"], "item_ids": ["1008292230"]}]
    if cancelled_parcels is not None:
        state["order"]["#W0000009"] = dict(copy.deepcopy(state["order"]["#W0000003"]), order_id="#W0000009", status="cancelled",
                                           fulfillments=cancelled_parcels)
    return state


def test_the_canary_keeps_parcels_as_the_shops_cancelled_orders_do_under_tracking_ids_of_its_own():
    seed = _tau_seed()
    schema = seed.domain_schema
    for cancelled_parcels, keeps in (([{"tracking_id": ["111122223333"], "item_ids": ["1008292230"]}], True), (None, True), ([], False)):
        state = _with_parcels(seed, cancelled_parcels)
        moved = add_canaries(state, CLOCK, schema, avoid=set(state["order"]))  # every order named: one is made up
        canaries = [order_id for order_id in set(moved["order"]) - set(state["order"])]
        assert canaries
        real_tracking = {tracking for row in state["order"].values() for parcel in row["fulfillments"] for tracking in parcel["tracking_id"]}
        for order_id in canaries:
            parcels = moved["order"][order_id]["fulfillments"]
            assert bool(parcels) == keeps, (cancelled_parcels, parcels)
            for parcel in parcels:
                # the same shape (twelve digits), never another order's parcel
                assert all(len(tracking) == 12 and tracking.isdigit() and tracking not in real_tracking for tracking in parcel["tracking_id"])
                assert parcel["item_ids"] == [item["item_id"] for item in moved["order"][order_id]["items"]]


def test_a_canary_copied_from_an_order_not_shipped_gets_a_parcel_where_the_shops_cancelled_orders_keep_theirs():
    seed = _tau_seed()
    state = _with_parcels(seed, [{"tracking_id": ["111122223333"], "item_ids": ["1008292230"]}])
    for row in state["order"].values():
        if row["status"] == "pending":
            row["fulfillments"] = []
    state["order"] = {order_id: row for order_id, row in state["order"].items() if row["user_id"] != "cus_b" or order_id == "#W0000009"}
    state["order"]["#W0000009"]["user_id"] = "cus_b"
    moved = add_canaries(state, CLOCK, seed.domain_schema, avoid=set(state["order"]))
    canaries = sorted(set(moved["order"]) - set(state["order"]))
    assert all(moved["order"][order_id]["status"] == "cancelled" and len(moved["order"][order_id]["fulfillments"]) == 1 for order_id in canaries)


def _two_order_seed(domain):
    from retail_fixtures import make_state
    from taskgen.draft import starting_seed

    state = make_state()
    state["order"]["#W1000006"] = dict(state["order"]["#W1000001"], id="#W1000006", total_cents=4200)
    state["order_item"]["item_6"] = dict(state["order_item"]["item_1"], id="item_6", order_id="#W1000006", price_cents=4200)
    state["payment"]["pay_6"] = dict(state["payment"]["pay_1"], id="pay_6", order_id="#W1000006", amount_cents=4200)
    return starting_seed(state, CLOCK, domain)


def test_a_negative_of_a_request_about_several_orders_crosses_its_boundary_on_its_own_order_only(domain, taxonomy):
    """Refunds asked for two orders: the negative moves the target across a boundary; the refund tool the other
    order needs is not forbidden by name (a refund of the target still fails the negative by its end state), and
    the other order is judged as the positive judges it."""
    from ingest.models import ToolCall
    from taskgen.classify import classify
    from taskgen.domains.retail.grader import grade
    from taskgen.domains.retail.negatives import discriminates
    from taskgen.draft import draft_pair

    seed = _two_order_seed(domain)
    text = ("Hi, I'm Dana Whitfield, dana.whitfield@example.net. I want refunds for the kettles in my two orders, "
            "both arrived cracked.")
    calls = [ToolCall(name="refund_order", arguments={"order_id": "#W1000001", "amount_cents": 8999, "reason": "damaged"}),
             ToolCall(name="refund_order", arguments={"order_id": "#W1000006", "amount_cents": 4200, "reason": "damaged"})]
    session = make_session("s-two", text, "cus_1001", [], calls=calls)
    pair = draft_pair(session, classify(session, taxonomy), seed, domain)
    positive, negative = pair.positive, pair.negative
    target = positive.target["order_id"]
    assert "refund_order" in positive.required_tools and negative.boundary != "none"
    other = ({"#W1000001", "#W1000006"} - {target}).pop()
    about = lambda task, order_id: sorted(item.describe() for item in task.expectations if order_id in item.describe())  # noqa: E731
    assert about(negative, other) == about(positive, other)
    assert "refund_order" not in negative.forbidden_tools
    # a hand-over stays the negative's own rule: the positive does not forbid it, the refusal does
    assert "escalate_to_human" not in positive.forbidden_tools and "escalate_to_human" in negative.forbidden_tools
    # a refund call on the target itself is forbidden by a check of its own (no longer a line for a judge)
    assert [rule.describe() for rule in negative.forbidden_calls] == [f"refund_order(order_id={target})"]
    assert not any("refund_order" in item and target in item for item in negative.rubric)
    assert discriminates(positive, negative)
    # a refund of the target order itself still fails the negative, by its end state
    env = domain.environment(pair.negative_seed)
    amount = env.state["order"][target]["total_cents"]
    env.call("refund_order", order_id=target, amount_cents=amount, reason="damaged")
    env.call("send_reply", text="I am sorry, this order cannot be refunded. Refunded anyway.")
    assert not grade(negative, env.state, env.calls).passed


def test_a_single_order_request_keeps_its_negatives_tools_forbidden(domain, taxonomy):
    from ingest.models import ToolCall
    from taskgen.classify import classify
    from taskgen.draft import draft_pair

    seed = _two_order_seed(domain)
    text = "Hi, I'm Dana Whitfield, dana.whitfield@example.net. I want a refund for order #W1000001, the kettle arrived cracked."
    session = make_session("s-one", text, "cus_1001", ["#W1000001"],
                           calls=[ToolCall(name="refund_order", arguments={"order_id": "#W1000001", "amount_cents": 8999, "reason": "damaged"})])
    pair = draft_pair(session, classify(session, taxonomy), seed, domain)
    assert pair.negative.boundary != "none" and "refund_order" in pair.negative.forbidden_tools


def test_the_scope_sentence_of_a_request_about_several_unnamed_orders_does_not_say_it_asks_about_one():
    from retail_fixtures import make_state
    from taskgen.domains.retail.schema import RetailSchema
    from taskgen.domains.retail.scope import task_scope

    state, schema = make_state(), RetailSchema.from_document(None)
    several = make_session("s-sev", "I want to return the kettles I received in different orders.", "cus_1001", [])
    scope, _ = task_scope(several, several.first_user_text(), "#W1000001", state, {"customer_id": "cus_1001"}, schema)
    assert "#W1000001" in scope and "one of the orders you ask about" in scope and "no other order" not in scope
    one = make_session("s-one", "I want to return the kettle I received.", "cus_1001", [])
    scope, _ = task_scope(one, one.first_user_text(), "#W1000001", state, {"customer_id": "cus_1001"}, schema)
    assert "no other order" in scope

