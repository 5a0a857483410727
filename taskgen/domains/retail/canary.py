"""A canary in every seed: an order of each customer that no correct trial touches: a real one the session does
not name or touch where the seed holds one (`real_canary`: one the customer cancelled before the clock first),
else one more.

Its items and amounts are those of another customer's order that holds none of the customer's own
items (a copy of their own order reads as a second one of the same things: "the second tablet"; only
when no such order exists is it one), placed long before the clock and already cancelled as the shop records it (no delivery date, its payments
refunded, its parcels as the seed's other cancelled orders keep theirs, under tracking ids of its own): no request names it, no "latest order" fallback picks it, and no policy
path reaches it, even in a shop that keeps no dates (a delivered copy would open a second valid
return of the same items). The grader's "nothing else changed" check then fails a trial that refunds,
cancels or edits it: a gamed or careless run shows.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection
from datetime import datetime, timedelta

from ingest.models import StateRows, sha256_hex
from taskgen.seeds import format_timestamp

PLACED_DAYS_BEFORE = 400
# The status the environment's own cancel_order writes: in none of the policy's refundable,
# returnable, cancellable or escalation lists, so no correct trial acts on the canary.
CANARY_STATUS = "cancelled"
_TRAILING_DIGITS = re.compile(r"(\d+)(\D*)$")


def canary_id(order_id: str, taken: set[str]) -> str:
    """An id of the same shape as `order_id` (its trailing digits replaced), not among `taken`."""
    for attempt in range(100):
        digest = int(sha256_hex(f"canary:{attempt}:{order_id}")[:12], 16)
        match = _TRAILING_DIGITS.search(order_id)
        if match:
            width = len(match.group(1))
            candidate = order_id[: match.start(1)] + str(digest % 10**width).zfill(width) + match.group(2)
        else:
            candidate = f"{order_id}-{digest % 10**6:06d}"
        if candidate not in taken:
            return candidate
    raise ValueError(f"no free canary id next to order {order_id}")


def _donor(schema, customer_id: str, moved: StateRows) -> str | None:
    """An order of another customer of the seed none of whose items the customer has on any order: the
    canary's items, so no customer takes it for a second copy of a real order ("the second tablet").
    Chosen by a hash of the customer, so the same inputs give the same canary."""
    from taskgen.domains.retail.rules import item_names

    view = schema.canonical(moved)
    names = lambda order_id: {name.lower() for name in item_names(view, order_id)}  # noqa: E731
    mine = {name for order_id, row in view.get("order", {}).items() if str(row.get("customer_id")) == customer_id for name in names(order_id)}
    candidates = []
    for order_id, row in view.get("order", {}).items():
        theirs = names(order_id)
        if row.get("customer_id") is not None and str(row["customer_id"]) != customer_id and theirs and not theirs & mine:
            candidates.append((sha256_hex(f"canary-donor:{customer_id}:{order_id}"), order_id))
    return min(candidates)[1] if candidates else None


def _cancelled_keeps_parcels(schema, state: StateRows) -> bool:
    """How the shop records a cancelled order's parcels, read from the seed's own cancelled orders: True when
    they keep theirs (tau-bench's and tau2-bench's do: a tracking id on every cancelled order) or the seed has
    none to tell; False when its cancelled orders carry none."""
    orders = state.get(schema.kinds["order"], {})
    cancelled = [row for order_id, row in orders.items()
                 if schema.field(state, "order", order_id, "status") == CANARY_STATUS and isinstance(row.get("fulfillments"), list)]
    return not cancelled or any(row["fulfillments"] for row in cancelled)


def _new_tracking(value: object, salt: str) -> object:
    """A tracking id of the same shape as `value` (its digits replaced by a hash), so the copy shares no
    parcel with the order it was copied from."""
    if not isinstance(value, str) or not any(char.isdigit() for char in value):
        return value
    digits = iter(str(int(sha256_hex(f"canary-parcel:{salt}:{value}")[:24], 16)).zfill(len(value)))
    return "".join(next(digits) if char.isdigit() else char for char in value)


def _parcel_template(state: StateRows, order_kind: str) -> dict | None:
    """A parcel as the shop records one (the first of the seed's orders that has any), for a canary copied from an
    order not yet shipped where the shop's cancelled orders keep theirs."""
    for _, row in sorted(state.get(order_kind, {}).items()):
        parcels = row.get("fulfillments")
        if isinstance(parcels, list) and parcels and isinstance(parcels[0], dict):
            return parcels[0]
    return None


def _parcel_for(row: dict, template: dict, salt: str) -> dict:
    """One parcel of all the row's items, shaped as `template`, under a tracking id of its own."""
    items = [item.get("item_id") for item in row.get("items") or [] if isinstance(item, dict) and item.get("item_id")]
    parcel = copy.deepcopy(template)
    for key, value in parcel.items():
        if "tracking" in key:
            parcel[key] = [_new_tracking(item, salt) for item in value] if isinstance(value, list) else _new_tracking(value, salt)
        elif key.endswith("item_ids") and items:
            parcel[key] = items
    return parcel


def refund_payment_history(row: dict) -> bool:
    """Each payment of an order row that keeps its payment history (tau-bench's `payment_history`) refunded in
    full, as the shop's cancellation leaves it; False where the row keeps no such history."""
    history = row.get("payment_history")
    if not isinstance(history, list):
        return False
    paid = [entry for entry in history if isinstance(entry, dict) and entry.get("transaction_type") == "payment"]
    if paid:
        row["payment_history"] = [*paid, *({**entry, "transaction_type": "refund"} for entry in paid)]
    return True


def _as_cancelled(row: dict, keeps_parcels: bool, salt: str, template: dict | None = None) -> None:
    """The order row as the shop keeps a cancelled one, so a reader takes it for a real order the customer
    cancelled (cold reviews of #12): where the row keeps its payments (tau-bench's `payment_history`), each
    payment is refunded in full; where it keeps its parcels (`fulfillments`), it keeps them as the shop's other
    cancelled orders do (`_cancelled_keeps_parcels`), with tracking ids of its own (one parcel shaped as the seed's
    others when copied from an order not shipped yet), or has none."""
    refund_payment_history(row)
    if isinstance(row.get("fulfillments"), list):
        if not keeps_parcels:
            row["fulfillments"] = []
            return
        if not row["fulfillments"] and template is not None:
            row["fulfillments"] = [_parcel_for(row, template, salt)]  # copied from an order not shipped yet
            return
        for parcel in row["fulfillments"]:
            if isinstance(parcel, dict):
                for key, value in parcel.items():
                    if "tracking" in key:
                        parcel[key] = [_new_tracking(item, salt) for item in value] if isinstance(value, list) else _new_tracking(value, salt)


def real_canary(schema, state: StateRows, customer_id: str, avoid: Collection[str]) -> str | None:
    """A real order of the customer in the seed (as of the clock) and not in `avoid` (the orders the session names
    or touches, and those whose fields the seed cannot tell): one already cancelled first, else any other. The
    session leaves it alone, so the grader's "nothing else changed" fails a trial that refunds, cancels or edits it:
    it is the customer's canary as it stands, and none is made up. A made-up one, in a seed holding no other
    customer's order to take items from, is a copy of one of the customer's own orders, which a reader (and an
    agent) takes for a second one of the same things (cold review of 2026-12-07: 17 of 20 tau2 seeds)."""
    owned = [order_id for order_id in sorted(state.get(schema.kinds["order"], {}))
             if order_id not in avoid and (owner := schema.field(state, "order", order_id, "customer")) is not None
             and str(owner) == customer_id]
    cancelled = [order_id for order_id in owned if schema.field(state, "order", order_id, "status") == CANARY_STATUS]
    return next(iter(cancelled or owned), None)


def add_canaries(state: StateRows, clock: datetime, domain_schema: dict | None = None, avoid: Collection[str] = ()) -> StateRows:
    """The state with one canary order per customer who has an order (the state is not changed), written
    in the product's own names (`domain_schema`: the seed's RetailSchema document; the demo's by default).
    A customer with a real cancelled order outside `avoid` (`real_canary`) has it for a canary and gets no
    other. Else the canary's items and amounts are another customer's order's of this seed, with none of the
    customer's own items; only when no such order exists is it a copy of the customer's first order. Rows the
    agent saw stay as they saw them: the canary is found by its owner column, not added to a list of order ids
    on the customer's row."""
    from taskgen.domains.retail.schema import RetailSchema

    schema = RetailSchema.from_document(domain_schema)
    moved = copy.deepcopy(state)
    orders = moved.get(schema.kinds["order"], {})
    keeps_parcels = _cancelled_keeps_parcels(schema, state)
    template = _parcel_template(state, schema.kinds["order"])
    first_order: dict[str, str] = {}
    for order_id in sorted(orders):
        owner = schema.field(moved, "order", order_id, "customer")
        if owner is not None:
            first_order.setdefault(str(owner), order_id)
    for customer_id, own_id in sorted(first_order.items()):
        if real_canary(schema, state, customer_id, avoid) is not None:
            continue
        order_id = _donor(schema, customer_id, moved) or own_id
        new_id = canary_id(own_id, set(orders))
        orders[new_id] = copy.deepcopy(orders[order_id])
        if "id" in orders[new_id]:
            orders[new_id]["id"] = new_id
        key = next((column for column, value in orders[new_id].items() if value == order_id), None)
        if key is not None:
            orders[new_id][key] = new_id  # the row's own key column (tau-bench's order_id)
        schema.set_field(moved, "order", new_id, "customer", customer_id)
        for column in set(orders[new_id]) & set(orders[own_id]):
            if "address" in column or column.startswith("ship"):
                orders[new_id][column] = copy.deepcopy(orders[own_id][column])  # sent to the customer, not the donor
        own_payments = orders[own_id].get("payment_history")
        if isinstance(orders[new_id].get("payment_history"), list) and isinstance(own_payments, list) and own_payments:
            # paid with the customer's own method (tau-bench keeps it inside the order row)
            for payment in orders[new_id]["payment_history"]:
                if isinstance(payment, dict) and "payment_method_id" in payment and isinstance(own_payments[0], dict):
                    payment["payment_method_id"] = own_payments[0].get("payment_method_id")
        _as_cancelled(orders[new_id], keeps_parcels, new_id, template)
        schema.set_field(moved, "order", new_id, "status", CANARY_STATUS)
        schema.set_field(moved, "order", new_id, "placed_at", format_timestamp(clock - timedelta(days=PLACED_DAYS_BEFORE)))
        # A cancelled order was never delivered: the copy carries no delivery date (its first order's may).
        schema.set_field(moved, "order", new_id, "delivered_at", None)
        for role in ("order_item", "payment"):
            rows = moved.setdefault(schema.kinds[role], {})
            for row_id in schema.rows_of_order(moved, role, order_id):
                copied_id = canary_id(row_id, set(rows))
                rows[copied_id] = dict(copy.deepcopy(rows[row_id]), id=copied_id)
                schema.set_field(moved, role, copied_id, "order", new_id)
                if "created_at" in rows[copied_id]:
                    rows[copied_id]["created_at"] = schema.field(moved, "order", new_id, "placed_at")
    return moved
