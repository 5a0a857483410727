"""Where the retail concepts live in a product's own data: roles read from the state mapping.

The retail rules, environment and grader work on one canonical view of a seed: kinds `customer`,
`order`, `order_item`, `payment`, `refund`, `return_label`; an order's `customer_id`, `status`,
`created_at` (placed), `delivered_at`, `total_cents`, `tracking_number` and `shipping_address` (the order's own
address, written by a product tool such as tau2-bench's modify_pending_order_address), if kept; a customer's `address`. A product names these
its own way; its state mapping says how under `roles` (the demo's names are the defaults):

    roles:
      order:
        kind: purchase
        columns: {customer: buyer, status: state, placed_at: ordered_on, delivered_at: received_on, amount: grand_total}
        options: {amount_unit: currency}      # 12.34 means 1234 cents
      customer: {kind: client, columns: {address: postal_address}}

A column role declared '' is one the product does not keep: an order without `placed_at` or
`delivered_at` has no such field in the canonical view, and the return window cannot be judged on it
(the rules and the reference agent leave it out; no negative crosses it).

The seed keeps the product's rows as they stood; `RetailSchema` travels with it, so every reader of
the seed (environment, grader, reference agents, reviewers' tools) sees the same canonical view.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ingest.config import IngestConfig
from ingest.entities import ids_in_text
from ingest.models import StateRows
from ingest.state_mapping import StateMapping, StateMappingError

DEFAULT_ORDER_ID_PATTERNS = tuple(IngestConfig().entity_patterns["order"].text_patterns)
"""The ingest default's order patterns: a seed that carries no schema was frozen with them."""

ROLE_COLUMNS: dict[str, dict[str, str]] = {
    "order": {
        "customer": "customer_id", "status": "status", "placed_at": "created_at", "delivered_at": "delivered_at",
        "amount": "total_cents", "tracking": "", "address": "",
    },
    "customer": {"address": "address"},
    "order_item": {"order": "order_id", "price": "price_cents"},
    "payment": {"order": "order_id", "amount": "amount_cents"},
    "refund": {"order": "order_id", "amount": "amount_cents"},
    "return_label": {"order": "order_id"},
}
"""Each role, its column roles and the demo's column names ('' = the demo has none)."""

CANONICAL_COLUMNS: dict[str, dict[str, str]] = {
    "order": {"customer": "customer_id", "status": "status", "placed_at": "created_at", "delivered_at": "delivered_at",
              "amount": "total_cents", "tracking": "tracking_number", "address": "shipping_address"},
    "customer": {"address": "address"},
    "order_item": {"order": "order_id", "price": "price_cents"},
    "payment": {"order": "order_id", "amount": "amount_cents"},
    "refund": {"order": "order_id", "amount": "amount_cents"},
    "return_label": {"order": "order_id"},
}
"""The field each column role has in the canonical view."""

REQUIRED_ROLES = ("order", "customer")
_OPTIONAL_ROLES = {("order", "placed_at"), ("order", "delivered_at"), ("order", "tracking")}
"""Fields a product may not keep at all (tau-bench keeps no dates; the demo no tracking number): declared ''
in the mapping, absent from the canonical view."""
_AMOUNT_ROLES = {("order", "amount"), ("order_item", "price"), ("payment", "amount"), ("refund", "amount")}


class RetailSchema(BaseModel):
    """The resolved roles: for each role its kind and its columns, plus how amounts and order ids are written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kinds: dict[str, str] = Field(default_factory=lambda: {role: role for role in ROLE_COLUMNS})
    columns: dict[str, dict[str, str]] = Field(default_factory=lambda: copy.deepcopy(ROLE_COLUMNS))
    amount_unit: Literal["cents", "currency"] = "cents"
    order_id_patterns: list[str] = Field(default_factory=lambda: list(DEFAULT_ORDER_ID_PATTERNS))

    @classmethod
    def from_mapping(cls, mapping: StateMapping, order_id_patterns: list[str] | None = None) -> RetailSchema:
        """Roles from the mapping with the demo's names as defaults; a role it cannot resolve is one
        StateMappingError naming that role."""
        unknown = sorted(set(mapping.roles) - set(ROLE_COLUMNS))
        if unknown:
            raise StateMappingError(f"roles.{unknown[0]}: not a retail role; known: {', '.join(ROLE_COLUMNS)}")
        kinds, columns, unit = {}, copy.deepcopy(ROLE_COLUMNS), "cents"
        for role, defaults in ROLE_COLUMNS.items():
            kinds[role] = mapping.role_kind(role)
            declared = mapping.roles.get(role)
            if declared is None:
                continue
            extra = sorted(set(declared.columns) - set(defaults))
            if extra:
                raise StateMappingError(f"roles.{role}.columns.{extra[0]}: not a column role of {role}; known: {', '.join(defaults)}")
            columns[role].update(declared.columns)
            if "amount_unit" in declared.options:
                unit = declared.options["amount_unit"]
                if unit not in ("cents", "currency"):
                    raise StateMappingError(f"roles.{role}.options.amount_unit: '{unit}' is neither 'cents' nor 'currency'")
        for role in REQUIRED_ROLES:
            if kinds[role] not in mapping.kinds:
                raise StateMappingError(f"roles.{role}: the mapping has no kind '{kinds[role]}' (declare roles.{role}.kind)")
        order_kind = mapping.kinds[kinds["order"]]
        owner = columns["order"]["customer"]
        if order_kind.foreign_keys.get(owner) != kinds["customer"]:
            raise StateMappingError(
                f"roles.order.columns.customer: '{owner}' is not a foreign key of kind '{kinds['order']}' to '{kinds['customer']}'"
            )
        for role in ("order_item", "payment", "refund", "return_label"):
            spec = mapping.kinds.get(kinds[role])
            if spec is not None and spec.foreign_keys.get(columns[role]["order"]) != kinds["order"]:
                raise StateMappingError(
                    f"roles.{role}.columns.order: '{columns[role]['order']}' is not a foreign key of kind '{kinds[role]}' to '{kinds['order']}'"
                )
        patterns = list(order_id_patterns) if order_id_patterns is not None else list(DEFAULT_ORDER_ID_PATTERNS)
        return cls(kinds=kinds, columns=columns, amount_unit=unit, order_id_patterns=patterns)

    @classmethod
    def from_document(cls, document: dict[str, Any] | None) -> RetailSchema:
        return cls.model_validate(document) if document else cls()

    def document(self) -> dict[str, Any]:
        """What a seed carries: nothing when the schema is the demo's own (seed ids stay as they were)."""
        return {} if self == RetailSchema() else self.model_dump(mode="json")

    def column(self, role: str, column_role: str) -> str | None:
        return self.columns[role].get(column_role) or None

    # ------------------------------------------------------------------ order ids in text
    def order_ids_in(self, text: str) -> list[str]:
        """Order ids in the order they appear, each once, by the configured entity patterns."""
        found: list[tuple[int, str]] = []
        for pattern in self.order_id_patterns:
            found += ids_in_text(pattern, text)
        return list(dict.fromkeys(value for _, value in sorted(found)))

    # ------------------------------------------------------------------ canonical view
    def to_cents(self, value: Any) -> int | None:
        if value is None or value == "":
            return None
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None
        return round(number * 100) if self.amount_unit == "currency" else round(number)

    def from_cents(self, cents: int) -> int | float:
        return round(cents / 100, 2) if self.amount_unit == "currency" else int(cents)

    def canonical(self, state: StateRows) -> StateRows:
        """The seed's rows under the canonical kinds and field names; other fields stay as they are."""
        view: StateRows = {}
        role_of_kind = {kind: role for role, kind in self.kinds.items()}
        for kind, rows in state.items():
            role = role_of_kind.get(kind)
            if role is None:
                view.setdefault(kind, {}).update(copy.deepcopy(rows))
                continue
            view[role] = {row_id: self._canonical_row(role, row_id, row) for row_id, row in rows.items()}
        for role in ROLE_COLUMNS:
            view.setdefault(role, {})
        return view

    def _canonical_row(self, role: str, row_id: str, row: dict[str, Any]) -> dict[str, Any]:
        canonical = copy.deepcopy(row)
        canonical["id"] = row_id
        for column_role, field in CANONICAL_COLUMNS[role].items():
            column = self.column(role, column_role)
            if column is None and (role, column_role) == ("order", "address"):
                continue  # not declared: a `shipping_address` the row keeps (the demo's) is the order's own address as it is
            if column is None and (role, column_role) in _OPTIONAL_ROLES:
                # The product keeps no such date (declared ''): the field is absent, not None (None: not
                # delivered yet), so no rule reads a date the product never had.
                canonical.pop(field, None)
                continue
            value = _get(row, column) if column else None
            if (role, column_role) in _AMOUNT_ROLES:
                value = self.to_cents(value)
            elif column_role == "address":
                value = address_text(value)
            if column and column != field:
                canonical.pop(column, None)
            canonical[field] = value
        return canonical

    def set_field(self, state: StateRows, role: str, row_id: str, column_role: str, value: Any) -> bool:
        """Write one canonical field back into the product's row; False when the schema has no such column."""
        column = self.column(role, column_role)
        row = state.get(self.kinds[role], {}).get(row_id)
        if not column or row is None:
            return False
        if (role, column_role) in _AMOUNT_ROLES and value is not None:
            value = self.from_cents(int(value))
        _put(row, column, value)
        return True

    def field(self, state: StateRows, role: str, row_id: str, column_role: str) -> Any:
        return self._canonical_row(role, row_id, state.get(self.kinds[role], {}).get(row_id, {})).get(
            CANONICAL_COLUMNS[role][column_role]
        )

    def rows_of_order(self, state: StateRows, role: str, order_id: str) -> list[str]:
        """Ids of the `role` rows (items, payments, refunds, labels) that belong to the order."""
        column = self.column(role, "order")
        return sorted(row_id for row_id, row in state.get(self.kinds[role], {}).items() if column and str(_get(row, column)) == order_id)


def _get(row: dict[str, Any], path: str) -> Any:
    """A dotted path's value; a number segment indexes a list (`payment_history.0.amount`)."""
    node: Any = row
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit():
            node = node[int(part)] if int(part) < len(node) else None
        elif isinstance(node, dict):
            node = node.get(part)
        else:
            return None
    return node


def _put(row: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node: Any = row
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def address_text(value: Any) -> str | None:
    """An address as one line: a string as it is, a structured one (address1, city, state, zip...) joined."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        street = ", ".join(str(value[key]) for key in ("address1", "address2", "street", "line1", "line2") if value.get(key))
        region = " ".join(str(value[key]) for key in ("state", "zip", "postcode", "postal_code") if value.get(key))
        return ", ".join(part for part in (street, str(value.get("city") or ""), region) if part)
    return str(value)
