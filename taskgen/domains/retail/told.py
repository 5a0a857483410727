"""Values the customer asks to be told about another of their orders, beside the task's own request ("I also want to get
the tracking number of my cancelled order": tau2-bench's communicate_info), checked in the reply where the seed tells
the one order the words mean and holds the value."""

from __future__ import annotations

import re

from ingest.models import StateRows
from taskgen.domains.retail.grader import expect
from taskgen.domains import Plan
from taskgen.task import Expectation

_TRACKING_OF = re.compile(r"\btracking (?:number|id|code)s?\b[^.?!]*?\bmy ([a-z ()]+?) order\b", re.IGNORECASE)


def tracking_asked(prompt: str, state: StateRows, customer_id: str | None, statuses: list[str]) -> list[Expectation]:
    """A reply check carrying the tracking number of 'my <status> order' (the status one of the seed's, `statuses` those
    words may name), where the requester has exactly one order in that status and it keeps a tracking number."""
    if not customer_id:
        return []
    checks = []
    for match in _TRACKING_OF.finditer(prompt):
        said = match.group(1).strip().lower()
        status = next((status for status in statuses if said == status.lower() or said.endswith(" " + status.lower())), None)
        if status is None:
            continue
        mine = [order for order in state.get("order", {}).values() if order.get("customer_id") == customer_id and order.get("status") == status]
        if len(mine) == 1 and mine[0].get("tracking_number"):
            checks.append(expect("reply_contains", value=str(mine[0]["tracking_number"])))
    return checks


def told_elsewhere(plan: Plan, prompt: str, state: StateRows, customer_id: str | None) -> list[Expectation]:
    """The reply checks `tracking_asked` finds that the plan does not hold yet."""
    statuses = sorted({str(order.get("status")) for order in state.get("order", {}).values() if order.get("status")}, key=len, reverse=True)
    held = {item.describe() for item in plan.expectations}
    return [item for item in tracking_asked(prompt, state, customer_id, statuses) if item.describe() not in held]
