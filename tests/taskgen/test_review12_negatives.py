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
        moved = add_canaries(state, CLOCK, schema)
        canaries = [order_id for order_id in set(moved["order"]) - set(state["order"])]
        assert canaries
        real_tracking = {tracking for row in state["order"].values() for parcel in row["fulfillments"] for tracking in parcel["tracking_id"]}
        for order_id in canaries:
            parcels = moved["order"][order_id]["fulfillments"]
            assert bool(parcels) == keeps, (cancelled_parcels, parcels)
            for parcel in parcels:
                # the same shape (twelve digits), never another order's parcel
                assert all(len(tracking) == 12 and tracking.isdigit() and tracking not in real_tracking for tracking in parcel["tracking_id"])
