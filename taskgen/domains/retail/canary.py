"""A canary in every seed: one more order of each customer that no correct trial touches.

It is a copy of the customer's first order (its items and payments too), placed long before the
clock and already cancelled: no request names it, no "latest order" fallback picks it, and no policy
path reaches it, even in a shop that keeps no dates (a delivered copy would open a second valid
return of the same items). The grader's "nothing else changed" check then fails a trial that refunds,
cancels or edits it: a gamed or careless run shows.
"""

from __future__ import annotations

import copy
import re
from datetime import datetime, timedelta

from ingest.models import StateRows, sha256_hex
from taskgen.seeds import format_timestamp

PLACED_DAYS_BEFORE = 400
DELIVERED_DAYS_BEFORE = 395
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


def add_canaries(state: StateRows, clock: datetime, domain_schema: dict | None = None) -> StateRows:
    """The state with one canary order per customer who has an order (the state is not changed), written
    in the product's own names (`domain_schema`: the seed's RetailSchema document; the demo's by default).
    Rows the agent saw stay as it saw them: the canary is found by its owner column, not added to a list
    of order ids on the customer's row."""
    from taskgen.domains.retail.schema import RetailSchema

    schema = RetailSchema.from_document(domain_schema)
    moved = copy.deepcopy(state)
    orders = moved.get(schema.kinds["order"], {})
    first_order: dict[str, str] = {}
    for order_id in sorted(orders):
        owner = schema.field(moved, "order", order_id, "customer")
        if owner is not None:
            first_order.setdefault(str(owner), order_id)
    for customer_id, order_id in sorted(first_order.items()):
        new_id = canary_id(order_id, set(orders))
        orders[new_id] = copy.deepcopy(orders[order_id])
        if "id" in orders[new_id]:
            orders[new_id]["id"] = new_id
        key = next((column for column, value in orders[new_id].items() if value == order_id), None)
        if key is not None:
            orders[new_id][key] = new_id  # the row's own key column (tau-bench's order_id)
        schema.set_field(moved, "order", new_id, "status", CANARY_STATUS)
        schema.set_field(moved, "order", new_id, "placed_at", format_timestamp(clock - timedelta(days=PLACED_DAYS_BEFORE)))
        schema.set_field(moved, "order", new_id, "delivered_at", format_timestamp(clock - timedelta(days=DELIVERED_DAYS_BEFORE)))
        for role in ("order_item", "payment"):
            rows = moved.get(schema.kinds[role], {})
            for row_id in schema.rows_of_order(moved, role, order_id):
                copied_id = canary_id(row_id, set(rows))
                rows[copied_id] = dict(copy.deepcopy(rows[row_id]), id=copied_id)
                schema.set_field(moved, role, copied_id, "order", new_id)
                if "created_at" in rows[copied_id]:
                    rows[copied_id]["created_at"] = schema.field(moved, "order", new_id, "placed_at")
    return moved
