"""A small simulated retail backend: tool calls applied to a private copy of a seed's state.

It enforces data integrity (unknown ids, over-refunds), not policy: breaking policy is the
agent's mistake and the grader's business. Escalations and replies are recorded as state
kinds `escalation` and `reply`, so the grader sees the whole outcome in the final state. It works on
the seed's canonical view (`RetailSchema.canonical`), whatever the product calls its columns.
"""

from __future__ import annotations

import copy
from typing import Any

from ingest.models import StateRows, ToolCall
from taskgen.domains.retail.rules import refunded_cents
from taskgen.domains.retail.schema import RetailSchema
from taskgen.seeds import Seed

TOOLS: tuple[str, ...] = (
    "get_customer", "get_order", "list_orders", "refund_order", "create_return_label",
    "cancel_order", "update_address", "escalate_to_human", "send_reply",
)
WRITE_TOOLS: tuple[str, ...] = ("refund_order", "create_return_label", "cancel_order", "update_address")


class ToolError(Exception):
    """A tool call the backend refuses; the message names ids only."""


class RetailEnvironment:
    """Each tool is a method `_tool_<name>`; its signature and docstring describe the tool to agents (exports)."""

    def __init__(self, seed: Seed) -> None:
        self.clock = seed.clock
        self.schema = RetailSchema.from_document(seed.domain_schema)
        self.state: StateRows = self.schema.canonical(seed.state)
        self.calls: list[ToolCall] = []

    def call(self, name: str, **arguments: Any) -> Any:
        """Run one tool; a refused call is recorded with status 'error' and returns None."""
        handler = getattr(self, f"_tool_{name}", None) if name in TOOLS else None
        try:
            if handler is None:
                raise ToolError(f"unknown tool {name}")
            result = handler(**arguments)
        except (ToolError, TypeError) as error:
            message = str(error) if isinstance(error, ToolError) else f"bad arguments for {name}"
            self.calls.append(ToolCall(name=name, arguments=arguments, status="error", error=message))
            return None
        self.calls.append(ToolCall(name=name, arguments=arguments, result=result))
        return result

    def _row(self, kind: str, row_id: str) -> dict:
        row = self.state.get(kind, {}).get(row_id)
        if row is None:
            raise ToolError(f"{kind} {row_id} not found")
        return row

    def _insert(self, kind: str, prefix: str, row: dict) -> dict:
        rows = self.state.setdefault(kind, {})
        row = {"id": f"{prefix}-{len(rows) + 1:04d}", "created_at": self.clock, **row}
        rows[row["id"]] = row
        return copy.deepcopy(row)

    def _tool_get_customer(self, customer_id: str) -> dict:
        """Look up a customer's record.

        Args:
            customer_id: the customer's id
        """
        return copy.deepcopy(self._row("customer", customer_id))

    def _tool_get_order(self, order_id: str) -> dict:
        """Look up an order with its items.

        Args:
            order_id: the order's id
        """
        order = copy.deepcopy(self._row("order", order_id))
        rows = [item for item in self.state.get("order_item", {}).values() if item.get("order_id") == order_id]
        if rows or not isinstance(order.get("items"), list):
            order["items"] = rows  # item rows of their own; else the items the order row keeps (tau-bench)
        return order

    def _tool_list_orders(self, customer_id: str) -> list[dict]:
        """List a customer's orders.

        Args:
            customer_id: the customer's id
        """
        self._row("customer", customer_id)
        orders = [order for order in self.state.get("order", {}).values() if order.get("customer_id") == customer_id]
        return sorted((copy.deepcopy(order) for order in orders), key=lambda order: str(order["id"]))

    def _tool_refund_order(self, order_id: str, amount_cents: int, reason: str) -> dict:
        """Refund part or all of an order's unrefunded amount.

        Args:
            order_id: the order's id
            amount_cents: the amount to refund, in cents
            reason: why the refund is given
        """
        order = self._row("order", order_id)
        remaining = int(order.get("total_cents", 0)) - refunded_cents(self.state, order_id)
        if not 0 < int(amount_cents) <= remaining:
            raise ToolError(f"refund amount out of range for order {order_id}")
        return self._insert("refund", "refund", {"order_id": order_id, "amount_cents": int(amount_cents), "reason": reason})

    def _tool_create_return_label(self, order_id: str) -> dict:
        """Create a return label for an order.

        Args:
            order_id: the order's id
        """
        self._row("order", order_id)
        return self._insert("return_label", "label", {"order_id": order_id})

    def _tool_cancel_order(self, order_id: str, reason: str = "") -> dict:
        """Cancel an order.

        Args:
            order_id: the order's id
            reason: why the customer cancels it, in their words (e.g. "no longer needed", "ordered by mistake")
        """
        order = self._row("order", order_id)
        if order.get("status") == "cancelled":
            raise ToolError(f"order {order_id} already cancelled")
        order["status"] = "cancelled"
        if reason:
            order["cancel_reason"] = reason
        return copy.deepcopy(order)

    def _tool_update_address(self, customer_id: str, address: str) -> dict:
        """Change a customer's address.

        Args:
            customer_id: the customer's id
            address: the new address on one line, e.g. "12 Main St, Springfield, IL 62704"
        """
        customer = self._row("customer", customer_id)
        customer["address"] = address
        return copy.deepcopy(customer)

    def _tool_escalate_to_human(self, reason: str) -> dict:
        """Hand the conversation to a human agent.

        Args:
            reason: why a human is needed
        """
        return self._insert("escalation", "esc", {"reason": reason})

    def _tool_send_reply(self, text: str) -> dict:
        """Send the customer a reply.

        Args:
            text: the reply
        """
        return self._insert("reply", "reply", {"text": text})
