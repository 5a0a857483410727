"""A small simulated retail backend: tool calls applied to a private copy of a seed's state.

It enforces data integrity (unknown ids, over-refunds) and what the product's own tools refuse (the
policy file's `tools`: an order not in a status the tool requires), not policy: breaking policy is the
agent's mistake and the grader's business. Each declared write tool is simulated from its declaration
(the status and fields it writes), so the grader judges another product's tools by the end state too. Escalations and replies are recorded as state
kinds `escalation` and `reply`, so the grader sees the whole outcome in the final state. It works on
the seed's canonical view (`RetailSchema.canonical`), whatever the product calls its columns.
"""

from __future__ import annotations

import copy
from typing import Any

from ingest.models import StateRows, ToolCall
from taskgen.domains.retail.policy import RetailPolicy, WriteTool
from taskgen.domains.retail.rules import refunded_cents
from taskgen.domains.retail.schema import RetailSchema, address_text
from taskgen.domains.retail.variants import catalogue, price_cents
from taskgen.seeds import Seed

TOOLS: tuple[str, ...] = (
    "get_customer", "get_order", "list_orders", "refund_order", "create_return_label",
    "cancel_order", "update_address", "escalate_to_human", "send_reply",
)
WRITE_TOOLS: tuple[str, ...] = ("refund_order", "create_return_label", "cancel_order", "update_address")
"""The demo's tools (the shipped policy file's `tools`); another product's come from its policy file."""
READ_TOOLS: tuple[str, ...] = ("get_customer", "get_order", "list_orders")
CATALOGUE_TOOLS: tuple[str, ...] = ("get_product_details", "list_all_product_types")
"""Reads of the seed's catalogue, offered when the seed holds one (product rows with their variants)."""
ORDER_ADDRESS_FIELD = "shipping_address"
"""The canonical field of an order's own shipping address (schema role order.address)."""


def tool_names(declared: list[WriteTool]) -> tuple[str, ...]:
    """The reads, the declared tools, the reply: TOOLS for the demo's declaration. A product whose tools change an order's
    items (tau2-bench's) has its catalogue read too: which variant exists, is available and costs what."""
    names = {tool.name for tool in declared}
    demo = [name for name in TOOLS if name in names or name in READ_TOOLS or name == "send_reply"]
    catalogue_reads = CATALOGUE_TOOLS if any(tool.plan_action in ("exchange", "modify_items") for tool in declared) else ()
    return (*demo[:-1], *(tool.name for tool in declared if tool.name not in TOOLS), *catalogue_reads, demo[-1])


class ToolError(Exception):
    """A tool call the backend refuses; the message names ids only."""


class RetailEnvironment:
    """The reads and the reply are methods `_tool_<name>`; the write tools are the policy file's declared ones
    (`tools`), simulated by `_write`; the demo's keep a method each, whose signature and docstring describe
    the tool to agents (exports)."""

    def __init__(self, seed: Seed, tools: list[WriteTool] | None = None) -> None:
        self.clock = seed.clock
        self.schema = RetailSchema.from_document(seed.domain_schema)
        self.state: StateRows = self.schema.canonical(seed.state)
        self.calls: list[ToolCall] = []
        declared = list(tools) if tools is not None else RetailPolicy.model_fields["tools"].default_factory()
        self.write_tools: dict[str, WriteTool] = {tool.name: tool for tool in declared}
        self.tools = tool_names(declared)
        if set(CATALOGUE_TOOLS) - set(self.tools) and any(
                isinstance(row, dict) and isinstance(row.get("variants"), dict) for row in self.state.get("product", {}).values()):
            # the seed holds the catalogue (tau2-bench's products): its reads, as tau2-bench's tools name them
            self.tools = (*self.tools[:-1], *CATALOGUE_TOOLS, self.tools[-1])

    def call(self, name: str, **arguments: Any) -> Any:
        """Run one tool; a refused call is recorded with status 'error' and returns None."""
        handler = getattr(self, f"_tool_{name}", None) if name in self.tools else None
        try:
            if name in self.write_tools:
                result = self._write(self.write_tools[name], arguments)
            elif handler is None:
                raise ToolError(f"unknown tool {name}")
            else:
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

    def _tool_get_product_details(self, product_id: str) -> dict:
        """Look up a product with its variants (item ids, options, availability, prices).

        Args:
            product_id: the product's id
        """
        return copy.deepcopy(self._row("product", str(product_id)))

    def _tool_list_all_product_types(self) -> dict:
        """List the products the shop sells: name -> product id."""
        return {str(row.get("name", product_id)): str(row.get("product_id", product_id))
                for product_id, row in sorted(self.state.get("product", {}).items()) if isinstance(row, dict)}

    def _tool_refund_order(self, order_id: str, amount_cents: int, reason: str) -> dict:
        """Refund part or all of an order's unrefunded amount.

        Args:
            order_id: the order's id
            amount_cents: the amount to refund, in cents
            reason: why the refund is given
        """
        return self._write(self.write_tools["refund_order"], {"order_id": order_id, "amount_cents": amount_cents, "reason": reason})

    def _tool_create_return_label(self, order_id: str) -> dict:
        """Create a return label for an order.

        Args:
            order_id: the order's id
        """
        return self._write(self.write_tools["create_return_label"], {"order_id": order_id})

    def _tool_cancel_order(self, order_id: str, reason: str = "") -> dict:
        """Cancel an order.

        Args:
            order_id: the order's id
            reason: why the customer cancels it, in their words (e.g. "no longer needed", "ordered by mistake")
        """
        return self._write(self.write_tools["cancel_order"], {"order_id": order_id, **({"reason": reason} if reason else {})})

    def _tool_update_address(self, customer_id: str, address: str) -> dict:
        """Change a customer's address.

        Args:
            customer_id: the customer's id
            address: the new address on one line, e.g. "12 Main St, Springfield, IL 62704"
        """
        return self._write(self.write_tools["update_address"], {"customer_id": customer_id, "address": address})

    def _tool_escalate_to_human(self, reason: str) -> dict:
        """Hand the conversation to a human agent.

        Args:
            reason: why a human is needed
        """
        return self._write(self.write_tools["escalate_to_human"], {"reason": reason})

    def _tool_send_reply(self, text: str) -> dict:
        """Send the customer a reply.

        Args:
            text: the reply
        """
        return self._insert("reply", "reply", {"text": text})

    # ------------------------------------------------------------------ declared write tools
    def _write(self, tool: WriteTool, arguments: dict[str, Any]) -> dict:
        """A declared tool's effect: its order refused outside the statuses it requires (or already in the
        status it sets), then the row it adds or the status, address and recorded fields it writes."""
        missing = [name for name in tool.arguments if name not in tool.optional and name not in arguments]
        unknown = [name for name in arguments if name not in tool.arguments]
        if missing or unknown:
            raise ToolError(f"bad arguments for {tool.name}")
        order_id = arguments[tool.order_arg] if tool.order_arg else None
        order = self._row("order", order_id) if order_id is not None else None
        if order is not None:
            status = order.get("status")
            if tool.requires_status and status not in tool.requires_status:
                raise ToolError(f"order {order_id} is {status}: {tool.name} needs it {' or '.join(tool.requires_status)}")
            if tool.sets_status and status == tool.sets_status:
                raise ToolError(f"order {order_id} already {status}")
        if order is not None and tool.items_arg and isinstance(order.get("items"), list):
            # tau2-bench's tools refuse an item the order does not hold (as many times as it holds it)
            held = [str(item.get("item_id", item.get("id"))) for item in order["items"] if isinstance(item, dict)]
            asked = [str(item) for item in arguments.get(tool.items_arg) or []]
            if not asked or any(asked.count(item) > held.count(item) for item in asked):
                raise ToolError(f"order {order_id} does not hold the items {tool.name} names")
        reason = arguments.get(tool.reason_arg) if tool.reason_arg else None
        if tool.action == "refund":
            remaining = int(order.get("total_cents", 0)) - refunded_cents(self.state, order_id)
            if not 0 < int(arguments[tool.amount_arg]) <= remaining:
                raise ToolError(f"refund amount out of range for order {order_id}")
            return self._insert("refund", "refund", {"order_id": order_id, "amount_cents": int(arguments[tool.amount_arg]), "reason": reason})
        if tool.action == "return_label":
            return self._insert("return_label", "label", {"order_id": order_id})
        if tool.action == "escalate":
            return self._insert("escalation", "esc", {"reason": reason})
        if tool.action == "update_address":
            customer = self._row("customer", arguments[tool.customer_arg])
            customer["address"] = self._address(tool, arguments)
            return copy.deepcopy(customer)
        if order is None:
            raise ToolError(f"{tool.name} names no order")
        if tool.action == "order_address":
            order[ORDER_ADDRESS_FIELD] = self._address(tool, arguments)
        if tool.refunds:
            remaining = int(order.get("total_cents") or 0) - refunded_cents(self.state, order_id)
            if remaining > 0:
                self._insert("refund", "refund", {"order_id": order_id, "amount_cents": remaining, "reason": tool.name})
        if tool.rewrites_items:
            self._rewrite_items(tool, order, order_id, arguments)
        if tool.sets_status:
            order["status"] = tool.sets_status
        for field, argument in tool.records.items():
            value = arguments.get(argument)
            order[field] = sorted(value) if isinstance(value, list) else value
        if tool.reason_field and reason:
            order[tool.reason_field] = reason
        return copy.deepcopy(order)

    def _rewrite_items(self, tool: WriteTool, order: dict, order_id: str, arguments: dict[str, Any]) -> None:
        """An item change of the order (tau2-bench's modify_pending_order_items): each named item becomes the new one,
        another available variant of its product where the seed holds the catalogue (its price and options too); with
        `settles_difference`, the price difference is refunded (a cheaper item) or paid (a dearer one)."""
        old = [str(item) for item in arguments.get(tool.items_arg or "") or []]
        new = [str(item) for item in arguments.get(tool.new_items_arg or "") or []]
        if not isinstance(order.get("items"), list) or len(old) != len(new):
            raise ToolError(f"{tool.name}: the new items must pair with the changed ones")
        variants = catalogue(self.state)
        items = [item for item in order["items"] if isinstance(item, dict)]
        changes, difference, used = [], 0, set()
        for before, after in zip(old, new, strict=True):
            index = next(index for index, item in enumerate(items) if str(item.get("item_id")) == before and index not in used)
            used.add(index)
            item = items[index]
            product = str(item.get("product_id") or variants.get(before, ("", {}))[0])
            known = any(owner == product for owner, _ in variants.values())
            owner, variant = variants.get(after, ("", {}))
            if known and (owner != product or before == after or variant.get("available", True) is False):
                raise ToolError(f"{tool.name}: new item {after} is no available variant of the same product")
            old_price, new_price = price_cents(item.get("price")), price_cents(variant.get("price"))
            if old_price is not None and new_price is not None:
                difference += new_price - old_price
            changes.append((item, after, variant))
        for item, after, variant in changes:
            item["item_id"] = after
            if "price" in variant:
                item["price"] = variant["price"]
            if isinstance(variant.get("options"), dict):
                item["options"] = copy.deepcopy(variant["options"])
        if tool.settles_difference and difference:
            method = arguments.get(tool.payment_arg) if tool.payment_arg else None
            kind = "refund" if difference < 0 else "payment"
            self._insert(kind, kind, {"order_id": order_id, "amount_cents": abs(difference), "reason": tool.name,
                                      "payment_method_id": method})

    @staticmethod
    def _address(tool: WriteTool, arguments: dict[str, Any]) -> str | None:
        """The address the call writes, on one line as the canonical view keeps it."""
        if len(tool.address_args) == 1:
            return arguments[tool.address_args[0]]
        return address_text({name: arguments.get(name) for name in tool.address_args})
