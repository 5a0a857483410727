"""End-state grading: expectations on the final state plus required/forbidden tools, never call order."""

from __future__ import annotations

from collections.abc import Callable

from ingest.models import StateRows, ToolCall
from taskgen.task import DraftTask, Expectation, Verdict


def _rows(state: StateRows, kind: str, order_id: str | None = None) -> list[dict]:
    rows = state.get(kind, {}).values()
    return [row for row in rows if order_id is None or row.get("order_id") == order_id]


def _refund_exists(state: StateRows, args: dict) -> bool:
    return any(int(row["amount_cents"]) == int(args["amount_cents"]) for row in _rows(state, "refund", str(args["order_id"])))


def _no_refund(state: StateRows, args: dict) -> bool:
    return not _rows(state, "refund", str(args["order_id"]))


def _return_label_exists(state: StateRows, args: dict) -> bool:
    return bool(_rows(state, "return_label", str(args["order_id"])))


def _order_status(state: StateRows, args: dict) -> bool:
    return state.get("order", {}).get(str(args["order_id"]), {}).get("status") == args["status"]


def _normalized(text: object) -> str:
    return " ".join(str(text).lower().replace(",", " ").split())


def _address_equals(state: StateRows, args: dict) -> bool:
    customer = state.get("customer", {}).get(str(args["customer_id"]), {})
    return _normalized(customer.get("address", "")) == _normalized(args["address"])


def _escalated(state: StateRows, args: dict) -> bool:
    wanted = str(args.get("reason_contains", "")).lower()
    return any(wanted in str(row.get("reason", "")).lower() for row in _rows(state, "escalation"))


def _not_escalated(state: StateRows, args: dict) -> bool:
    return not _rows(state, "escalation")


def _reply_sent(state: StateRows, args: dict) -> bool:
    return bool(_rows(state, "reply"))


CHECKS: dict[str, Callable[[StateRows, dict], bool]] = {
    "refund_exists": _refund_exists,
    "no_refund": _no_refund,
    "return_label_exists": _return_label_exists,
    "order_status": _order_status,
    "address_equals": _address_equals,
    "escalated": _escalated,
    "not_escalated": _not_escalated,
    "reply_sent": _reply_sent,
}


def holds(expectation: Expectation, state: StateRows) -> bool:
    if expectation.check == "any_of":
        return any(holds(option, state) for option in expectation.any_of)
    check = CHECKS.get(expectation.check)
    try:
        return check is not None and check(state, expectation.args)
    except (KeyError, ValueError, TypeError):
        return False


def grade(task: DraftTask, final_state: StateRows, calls: list[ToolCall]) -> Verdict:
    reasons = [f"unmet: {item.describe()}" for item in task.expectations if not holds(item, final_state)]
    succeeded = {call.name for call in calls if call.status == "ok"}
    attempted = {call.name for call in calls}
    reasons += [f"required tool not called: {tool}" for tool in task.required_tools if tool not in succeeded]
    reasons += [f"forbidden tool called: {tool}" for tool in task.forbidden_tools if tool in attempted]
    return Verdict(passed=not reasons, reasons=reasons)
