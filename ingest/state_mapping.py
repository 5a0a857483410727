"""The declarative mapping from a product's own data (SQL tables or JSON documents) to entity kinds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ingest.errors import UserFacingError

PII_ENTITIES = ("PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "LOCATION", "ADDRESS", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS", "DATE_TIME", "US_SSN")


class StateMappingError(UserFacingError, ValueError):
    """A mapping file that cannot be used; the message names the offending key."""

    exit_code = 2


class EntityKind(BaseModel):
    """One entity kind: where its rows live and what they mean.

    PII paths are dot-separated; inside JSON a `*` segment matches every key of an object
    or every item of a list (`payment_methods.*.last_four`).
    """

    model_config = ConfigDict(extra="forbid")

    table: str | None = Field(default=None, description="SQL table holding the rows")
    file: str | None = Field(
        default=None, description="JSON document (relative to the state folder) keyed by id; `db.json#users`: a key inside it"
    )
    key: str = Field(description="column holding the id; for a keyed JSON document, the field the id is stored under")
    foreign_keys: dict[str, str] = Field(
        default_factory=dict,
        description="column -> referenced kind; a dotted path with `*` (`items.*.product_id: product`) names ids inside a "
        "JSON column: a reference up only (the row brings the rows it names, a named product brings no orders)",
    )
    pii: dict[str, str] = Field(default_factory=dict, description="column or dotted path -> Presidio entity type")
    dated_by: str | None = Field(default=None, description="column telling when the row came to exist")
    updated_by: str | None = Field(
        default=None, description="column telling when the row last changed: a later change makes its seed fields uncertain"
    )
    json_columns: list[str] = Field(default_factory=list, description="columns holding JSON text to decode")
    owner: bool = Field(
        default=False,
        description="a row of this kind in a snapshot, named or reached as a parent, brings its child rows (a customer's "
        "other orders) with theirs (their items, payments)",
    )
    max_owned_rows: int = Field(
        default=200, ge=1,
        description="an owner row brings at most this many rows of each child kind (the newest by `dated_by`, else the "
        "first by key); a seed holding that many is flagged uncertain: rows beyond the cap may be left out",
    )

    @model_validator(mode="after")
    def _one_location(self) -> EntityKind:
        if (self.table is None) == (self.file is None):
            raise ValueError("exactly one of 'table' or 'file' is required")
        unknown = sorted(set(self.pii.values()) - set(PII_ENTITIES))
        if unknown:
            raise ValueError(f"unknown PII entity type(s) {unknown}; known: {list(PII_ENTITIES)}")
        return self


class Role(BaseModel):
    """What one domain concept is called in this product's data: its kind, its columns by role, options.

    The domain says which roles it needs and their defaults (retail: `taskgen/domains/retail/schema.py`);
    the mapping only checks that the kind exists and, for a SQL table, that the columns do.
    """

    model_config = ConfigDict(extra="forbid")

    kind: str | None = Field(default=None, description="the kind playing this role; None: the role's own name")
    columns: dict[str, str] = Field(default_factory=dict, description="role of a column -> the column's name")
    options: dict[str, str] = Field(default_factory=dict, description="domain-defined settings, e.g. amount_unit")


class StateMapping(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    kinds: dict[str, EntityKind]
    roles: dict[str, Role] = Field(default_factory=dict, description="domain role -> where the product keeps it")

    @model_validator(mode="after")
    def _references_known_kinds(self) -> StateMapping:
        for name, kind in self.kinds.items():
            for column, target in kind.foreign_keys.items():
                if target not in self.kinds:
                    raise ValueError(f"kinds.{name}.foreign_keys.{column}: unknown kind '{target}'")
        for name, role in self.roles.items():
            if role.kind is not None and role.kind not in self.kinds:
                raise ValueError(f"roles.{name}.kind: unknown kind '{role.kind}'")
        return self

    def role_kind(self, role: str) -> str:
        """The kind playing `role` (the role's own name unless the mapping says otherwise)."""
        declared = self.roles.get(role)
        return declared.kind if declared is not None and declared.kind else role

    @classmethod
    def from_yaml(cls, path: Path | str) -> StateMapping:
        try:
            document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except yaml.YAMLError as error:
            raise StateMappingError(f"{path}: not valid YAML ({type(error).__name__})") from None
        return cls.from_document(document, origin=str(path))

    @classmethod
    def from_document(cls, document: Any, origin: str = "mapping") -> StateMapping:
        try:
            return cls.model_validate(document)
        except ValidationError as error:
            first = error.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "(top level)"
            message = first["msg"].removeprefix("Value error, ")
            raise StateMappingError(f"{origin}: bad key '{where}': {message}") from None

    def kind(self, name: str) -> EntityKind:
        if name not in self.kinds:
            raise KeyError(f"unknown entity kind '{name}'")
        return self.kinds[name]

    def children_of(self, name: str) -> list[tuple[str, str]]:
        """(child kind, its column) pairs for every kind whose foreign key points at `name` (a nested path such as
        `items.*.product_id` is a reference up only: a product has no child orders)."""
        return sorted(
            (child, column)
            for child, kind in self.kinds.items()
            for column, target in kind.foreign_keys.items()
            if target == name and not nested(column)
        )

    def owners_at_cap(self, state: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
        """'kind id: why' for each owner row of `state` holding as many rows of a child kind as its kind's
        `max_owned_rows`: the snapshot may have left rows beyond the cap out, so the seed says so."""
        flagged = []
        for name, spec in sorted(self.kinds.items()):
            if not spec.owner:
                continue
            for row_id in sorted(state.get(name, {})):
                for child, column in self.children_of(name):
                    held = sum(1 for row in state.get(child, {}).values() if str(row.get(column)) == row_id)
                    if held >= spec.max_owned_rows:
                        flagged.append(f"{name} {row_id}: holds {held} {child} rows, the mapping's max_owned_rows: "
                                       "any beyond the cap are left out of the seed")
        return flagged


def nested(column: str) -> bool:
    """A foreign key naming ids inside a JSON column (`items.*.product_id`), not a column of its own."""
    return "." in column


def referenced_ids(row: dict[str, Any], column: str) -> list[str]:
    """The ids a foreign key of the row names: its column's value, or every value at a nested path."""
    if not nested(column):
        value = row.get(column)
        return [] if value is None else [str(value)]
    return list(dict.fromkeys(str(value) for _, value in values_at(row, column) if not isinstance(value, (dict, list))))


def values_at(row: Any, path: str) -> list[tuple[str, Any]]:
    """(concrete path, value) pairs for a PII path in a row; `*` fans out over objects and lists."""
    found: list[tuple[str, Any]] = []

    def walk(node: Any, parts: list[str], trail: list[str]) -> None:
        if not parts:
            if node is not None:
                found.append((".".join(trail), node))
            return
        head, rest = parts[0], parts[1:]
        if head == "*":
            items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
            for key, child in items:
                walk(child, rest, [*trail, str(key)])
        elif isinstance(node, dict) and head in node:
            walk(node[head], rest, [*trail, head])

    walk(row, path.split("."), [])
    return found
