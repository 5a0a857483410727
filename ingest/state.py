"""Read-only access to the product's own state, through a StateMapping: a SQL database
(any SQLAlchemy URL) or a folder of JSON documents keyed by id."""

from __future__ import annotations

import importlib.util
import json
import re
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchTableError, SQLAlchemyError

from ingest.errors import UserFacingError
from ingest.models import StateRows
from ingest.state_mapping import EntityKind, StateMapping, StateMappingError, referenced_ids
from ingest.timestamps import BadTimestamp, parse_rfc3339, to_utc

__all__ = ["StateMapping", "StateSource", "StateUnavailable", "open_state"]

STREAM_ROWS = 1000
"""Rows fetched at a time when a whole table is read."""


class StateUnavailable(UserFacingError, RuntimeError):
    """The state store does not answer. One line; never contains a password."""

class StateSource(ABC):
    def __init__(self, mapping: StateMapping) -> None:
        self.mapping = mapping

    @abstractmethod
    def _rows_where(self, kind: str, column: str, values: list[str]) -> list[dict[str, Any]]:
        """Rows of `kind` whose `column` is one of `values` (JSON-ready, JSON columns decoded)."""

    @abstractmethod
    def _all_rows(self, kind: str, columns: set[str]) -> Iterator[dict[str, Any]]:
        """Every row of `kind`, streamed; a SQL source may read only `columns` (top-level names)."""

    def rows_with_pii(self, entity_types: set[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        """(kind, row) for every row of each kind with a personal field of one of `entity_types`,
        holding at least those fields: the scrubber's list of the product's real people."""
        for name, spec in sorted(self.mapping.kinds.items()):
            columns = {path.split(".")[0] for path, entity in spec.pii.items() if entity in entity_types}
            if columns:
                yield from ((name, row) for row in self._all_rows(name, columns))

    def identifiers(self) -> frozenset[str]:
        """Every id the state holds, of any shape, that a scrubber must leave alone: row keys, foreign
        keys and, inside rows, values under `id`, `*_id` and `*_ids` (tau-bench's ten-digit item ids,
        which a phone recognizer would otherwise take for numbers). Personal paths are skipped, and so
        is any id holding a run of three letters or more, which may be built from a name
        (`fatima_johnson_7581`): those are replaced like the name they carry."""
        found: set[str] = set()
        for name, spec in sorted(self.mapping.kinds.items()):
            personal = set(spec.pii)
            for row in self._all_rows(name, self._identifier_columns(name)):
                for column in (spec.key, *spec.foreign_keys):
                    for value in referenced_ids(row, column):
                        _add_identifier(found, value)
                for path, value in _id_values(row, ""):
                    if not _personal(path, personal):
                        _add_identifier(found, value)
        return frozenset(found)

    def _identifier_columns(self, kind: str) -> set[str]:
        """Top-level columns `identifiers` reads (a SQL source reads only these)."""
        spec = self.mapping.kind(kind)
        return {spec.key, *(column.split(".")[0] for column in spec.foreign_keys), *spec.json_columns}

    def get(self, kind: str, entity_id: str) -> dict[str, Any] | None:
        rows = self._rows_where(kind, self.mapping.kind(kind).key, [str(entity_id)])
        return rows[0] if rows else None

    def pii_fields(self, kind: str) -> dict[str, str]:
        """Column or dotted path -> Presidio entity type, for the scrubber."""
        return dict(self.mapping.kind(kind).pii)

    def snapshot(self, entity_ids: dict[str, list[str]], as_of: datetime | None) -> StateRows:
        """The named entities, the child rows referencing them, and every parent those rows reference
        (transitively). A row of an owner kind (the mapping's `owner`), named or reached as a parent, brings
        its child rows too, each with its own child rows (a customer's other orders with their items and
        payments): at most `max_owned_rows` of each child kind, the newest first; the rows it brings make no
        further owner bring theirs. Rows dated after `as_of` are left out. Unknown kinds are ignored."""
        rows: StateRows = {}
        pending: list[tuple[str, dict[str, Any], bool]] = []  # (kind, row, brought by an owner)
        expanded: set[tuple[str, str]] = set()

        def keep(kind: str, found: list[dict[str, Any]], owned: bool = False) -> None:
            spec = self.mapping.kinds[kind]
            for row in found:
                row_id = str(row.get(spec.key))
                if row_id not in rows.get(kind, {}):
                    if _existed(row, spec, as_of):
                        rows.setdefault(kind, {})[row_id] = row
                        pending.append((kind, row, owned))
                elif spec.owner and not owned and (kind, row_id) not in expanded:
                    pending.append((kind, rows[kind][row_id], False))  # first reached through an owner's rows

        named = {kind: sorted(set(map(str, ids))) for kind, ids in sorted(entity_ids.items()) if kind in self.mapping.kinds}
        for kind, ids in named.items():
            keep(kind, self._rows_where(kind, self.mapping.kinds[kind].key, ids))
        for kind, ids in named.items():
            present = sorted(rows.get(kind, {}))
            if self.mapping.kinds[kind].owner:
                continue  # an owner brings its children below, bounded, with theirs
            for child, column in self.mapping.children_of(kind):
                if present:
                    keep(child, self._rows_where(child, column, present))
        while pending:
            kind, row, owned = pending.pop()
            spec = self.mapping.kinds[kind]
            row_id = str(row.get(spec.key))
            if spec.owner and not owned and (kind, row_id) not in expanded:
                expanded.add((kind, row_id))
                for child, column in self.mapping.children_of(kind):
                    child_spec = self.mapping.kinds[child]
                    found = [found_row for found_row in self._rows_where(child, column, [row_id]) if _existed(found_row, child_spec, as_of)]
                    chosen = _newest_first(found, child_spec)[: spec.max_owned_rows]
                    keep(child, chosen, True)
                    chosen_ids = sorted({str(found_row.get(child_spec.key)) for found_row in chosen})
                    for grandchild, grand_column in self.mapping.children_of(child):
                        if chosen_ids:
                            keep(grandchild, self._rows_where(grandchild, grand_column, chosen_ids), True)
            for column, parent in sorted(spec.foreign_keys.items()):
                for value in referenced_ids(row, column):
                    awaited = self.mapping.kinds[parent].owner and not owned and (parent, value) not in expanded
                    if value not in rows.get(parent, {}) or awaited:
                        keep(parent, self._rows_where(parent, self.mapping.kinds[parent].key, [value]), owned)
        return {kind: dict(sorted(by_id.items())) for kind, by_id in sorted(rows.items())}


def _newest_first(found: list[dict[str, Any]], spec: EntityKind) -> list[dict[str, Any]]:
    """Rows by their `dated_by` date, newest first (undated ones last), ties by key: which rows a capped owner brings."""

    def when(row: dict[str, Any]) -> float:
        if spec.dated_by is not None and row.get(spec.dated_by) is not None:
            try:
                return parse_rfc3339(str(row[spec.dated_by]), assume_utc=True).timestamp()
            except BadTimestamp:
                pass
        return float("-inf")

    return sorted(sorted(found, key=lambda row: str(row.get(spec.key))), key=when, reverse=True)


_NAME_LIKE_RUN = re.compile(r"[^\W\d_]{3}")


def _add_identifier(found: set[str], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return
    text = str(value).strip()
    if len(text) >= 4 and any(c.isdigit() for c in text) and not _NAME_LIKE_RUN.search(text):
        found.add(text)


def _id_values(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """(dotted path, value) of every scalar under a key `id`, `*_id` or `*_ids`, lists included."""
    if isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            if str(key) == "id" or str(key).endswith(("_id", "_ids")):
                for scalar in item if isinstance(item, list) else [item]:
                    yield child, scalar
            if isinstance(item, (dict, list)):
                yield from _id_values(item, child)
    elif isinstance(value, list):
        for item in value:
            yield from _id_values(item, f"{path}.*" if path else "*")


def _personal(path: str, personal: set[str]) -> bool:
    """Whether a dotted path is one of the mapping's personal paths (`*` matching any key)."""
    parts = path.split(".")
    return any(
        len(pattern.split(".")) == len(parts) and all(p in ("*", q) for p, q in zip(pattern.split("."), parts))
        for pattern in personal
    )


def _existed(row: dict[str, Any], spec: EntityKind, as_of: datetime | None) -> bool:
    if as_of is None or spec.dated_by is None or row.get(spec.dated_by) is None:
        return True
    try:
        dated = parse_rfc3339(str(row[spec.dated_by]), assume_utc=True)
    except BadTimestamp:
        return True
    return dated <= to_utc(as_of)


def _json_ready(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (bytes, memoryview)):
        return bytes(value).hex()
    return value


def _decoded(row: dict[str, Any], spec: EntityKind) -> dict[str, Any]:
    result = {column: _json_ready(value) for column, value in row.items()}
    for column in spec.json_columns:
        if isinstance(result.get(column), str):
            try:
                result[column] = json.loads(result[column])
            except ValueError:
                pass
    return result


class SqlStateSource(StateSource):
    def __init__(self, url: str, mapping: StateMapping) -> None:
        super().__init__(mapping)
        try:
            parsed = make_url(url)
        except ArgumentError:
            raise StateUnavailable("state location is not a valid SQLAlchemy URL") from None
        self._label = parsed.render_as_string(hide_password=True)
        self._engine = _read_only_engine(parsed)
        tables = sorted({kind.table for kind in mapping.kinds.values() if kind.table})
        metadata = sa.MetaData()
        try:
            metadata.reflect(self._engine, only=tables)
        except NoSuchTableError:
            raise StateMappingError("a table named in the mapping is missing from the state database") from None
        except (SQLAlchemyError, sqlite3.Error) as error:
            raise StateUnavailable(f"state database {self._label} does not answer ({type(error).__name__})") from None
        self._tables = metadata.tables
        for name, kind in sorted(mapping.kinds.items()):
            if kind.table is not None:
                columns = self._tables[kind.table].c
                for column in [kind.key, *(fk.split(".")[0] for fk in kind.foreign_keys), *kind.json_columns, *([kind.dated_by] if kind.dated_by else []),
                               *([kind.updated_by] if kind.updated_by else [])]:
                    if column not in columns:
                        raise StateMappingError(f"kinds.{name}: column '{column}' not in table '{kind.table}'")
        for role_name, role in sorted(mapping.roles.items()):
            kind = mapping.kinds.get(mapping.role_kind(role_name))
            if kind is not None and kind.table is not None:
                for column_role, column in sorted(role.columns.items()):
                    if column.split(".")[0] not in self._tables[kind.table].c:
                        raise StateMappingError(
                            f"roles.{role_name}.columns.{column_role}: column '{column}' not in table '{kind.table}'"
                        )

    def _rows_where(self, kind: str, column: str, values: list[str]) -> list[dict[str, Any]]:
        spec = self.mapping.kind(kind)
        if spec.table is None or not values:
            return []
        table = self._tables[spec.table]
        target = table.c[column]
        typed = [_typed(value, target) for value in values]
        query = sa.select(table).where(target.in_(typed)).order_by(*table.primary_key.columns or [table.c[spec.key]])
        try:
            with self._engine.connect() as connection:
                found = [dict(row._mapping) for row in connection.execute(query)]
        except (SQLAlchemyError, sqlite3.Error) as error:
            raise StateUnavailable(f"state database {self._label} does not answer ({type(error).__name__})") from None
        return [_decoded(row, spec) for row in found]

    def _identifier_columns(self, kind: str) -> set[str]:
        """Every column but the personal ones: ids sit in columns the mapping need not name."""
        spec = self.mapping.kind(kind)
        personal = {path for path in spec.pii if "." not in path}
        return {column.name for column in self._tables[spec.table].c} - personal if spec.table else set()

    def _all_rows(self, kind: str, columns: set[str]) -> Iterator[dict[str, Any]]:
        spec = self.mapping.kind(kind)
        if spec.table is None:
            return
        table = self._tables[spec.table]
        selected = [table.c[c] for c in sorted(columns) if c in table.c]
        if not selected:
            return
        try:
            with self._engine.connect() as connection:
                result = connection.execution_options(yield_per=STREAM_ROWS).execute(sa.select(*selected))
                for row in result:
                    yield _decoded(dict(row._mapping), spec)
        except (SQLAlchemyError, sqlite3.Error) as error:
            raise StateUnavailable(f"state database {self._label} does not answer ({type(error).__name__})") from None


def _typed(value: str, column: sa.Column) -> Any:
    try:
        python_type = column.type.python_type
    except NotImplementedError:
        return value
    if python_type is int and value.lstrip("-").isdigit():
        return int(value)
    return value


def _read_only_engine(url: sa.URL) -> sa.Engine:
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if not database or database == ":memory:" or not Path(database).is_file():
            raise StateUnavailable(f"state database {url.render_as_string(hide_password=True)} does not exist")
        uri = Path(database).resolve().as_uri() + "?mode=ro"
        return sa.create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False))
    if url.drivername == "postgresql" and importlib.util.find_spec("psycopg") is None:
        url = url.set(drivername="postgresql+psycopg2")
    options = {"connect_args": {"options": "-c default_transaction_read_only=on"}} if url.get_backend_name() == "postgresql" else {}
    try:
        return sa.create_engine(url, **options)
    except ImportError:
        raise StateUnavailable(f"no database driver installed for {url.drivername}") from None


class FolderStateSource(StateSource):
    """JSON documents in a folder: each either an object keyed by id or a list of rows carrying `key`.

    `file: db.json#users` names a key inside a document holding several kinds (tau2-bench's
    `db.json` keeps users, orders and products in one file); the document is read once.
    """

    def __init__(self, folder: Path, mapping: StateMapping) -> None:
        super().__init__(mapping)
        self._folder = folder
        self._documents: dict[str, dict[str, dict[str, Any]]] = {}
        self._files: dict[str, Any] = {}
        for name, kind in mapping.kinds.items():
            if kind.file is None:
                raise StateMappingError(f"kinds.{name}: a folder state source needs 'file', not 'table'")
            if "#" in kind.file and not all(kind.file.split("#", 1)):
                raise StateMappingError(f"kinds.{name}.file: write a key inside a file as 'db.json#users'")

    def _rows_by_id(self, kind: str) -> dict[str, dict[str, Any]]:
        if kind not in self._documents:
            spec = self.mapping.kind(kind)
            name, _, key = str(spec.file).partition("#")
            if name not in self._files:
                try:
                    self._files[name] = json.loads((self._folder / name).read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    raise StateUnavailable(f"state document for kind '{kind}' cannot be read") from None
            document = self._files[name]
            if key:
                if not isinstance(document, dict) or key not in document:
                    raise StateMappingError(f"kinds.{kind}.file: the document has no key '{key}'")
                document = document[key]
            self._documents[kind] = _index(document, spec)
        return self._documents[kind]

    def _all_rows(self, kind: str, columns: set[str]) -> Iterator[dict[str, Any]]:
        spec = self.mapping.kind(kind)
        return (_decoded(row, spec) for _, row in sorted(self._rows_by_id(kind).items()))

    def _rows_where(self, kind: str, column: str, values: list[str]) -> list[dict[str, Any]]:
        spec = self.mapping.kind(kind)
        rows = self._rows_by_id(kind)
        if column == spec.key:
            return [_decoded(rows[value], spec) for value in values if value in rows]
        wanted = set(values)
        return [_decoded(row, spec) for _, row in sorted(rows.items()) if str(row.get(column)) in wanted]


def _index(document: Any, spec: EntityKind) -> dict[str, dict[str, Any]]:
    if isinstance(document, dict):
        return {str(entity_id): {spec.key: entity_id, **row} for entity_id, row in document.items() if isinstance(row, dict)}
    if isinstance(document, list):
        return {str(row[spec.key]): row for row in document if isinstance(row, dict) and spec.key in row}
    raise StateUnavailable(f"state document for kind '{spec.file}' is neither an object nor a list")


def open_state(location: str, mapping: StateMapping) -> StateSource:
    """A SQLAlchemy URL (`sqlite:///state.db`, `postgresql://...`) or a folder of JSON documents."""
    if "://" in location:
        return SqlStateSource(location, mapping)
    folder = Path(location)
    if folder.is_dir():
        return FolderStateSource(folder, mapping)
    raise StateUnavailable("state location is neither a database URL nor an existing folder")
