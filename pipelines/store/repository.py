"""The repository over the two databases (`pipelines.store.rows`): the store and the raw zone.

Each table lives in one database, so a call names the table or its columns and the
repository picks the database; a raw-zone SQLite file is created with mode 0600, and rows
past the retention are purged. Every write is an idempotent upsert inside a transaction, so
reruns never duplicate and a killed run leaves either the old row or the new one.
"""

from __future__ import annotations

import os
import stat
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import Table, delete, func, inspect, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlmodel import Session, SQLModel, create_engine

from ingest.errors import UserFacingError
from ingest.models import QuarantinedRecord, RawRecord

from pipelines.config import AppConfig
from pipelines.store.rows import (
    RAW_TABLES,
    STORE_TABLES,
    CursorRow,
    LedgerRow,
    QuarantineRow,
    RawErrorMessageRow,
    RawLinkRow,
    RawRecordRow,
    RawSessionRow,
)


class StoreUnavailable(UserFacingError):
    """The store or raw zone does not answer; the message names the database, not its password."""





def _engine(url: str, *, private_file: bool) -> Engine:
    if url.startswith("sqlite:///") and ":memory:" not in url:
        path = Path(url[len("sqlite:///"):])
        path.parent.mkdir(parents=True, exist_ok=True)
        if private_file and not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, stat.S_IRUSR | stat.S_IWUSR))
        if private_file:
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
        engine = create_engine(url, connect_args={"timeout": 60})
        with engine.connect() as conn:  # WAL is kept by the file: set it once, not under another writer
            if conn.exec_driver_sql("PRAGMA journal_mode").scalar() != "wal":
                conn.exec_driver_sql("PRAGMA journal_mode=WAL")
        return engine
    return create_engine(url, pool_pre_ping=True)


def _add_missing_columns(engine: Engine, tables: list) -> None:
    """A store made by an earlier version gains the columns added since (with their defaults)."""
    inspector = inspect(engine)
    for table in tables:
        present = {column["name"] for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name in present:
                continue
            default = column.default.arg if column.default is not None else None
            clause = f" DEFAULT '{default}'" if isinstance(default, str) else ""
            with engine.begin() as conn:
                conn.exec_driver_sql(
                    f"ALTER TABLE {table.name} ADD COLUMN {column.name} {column.type.compile(engine.dialect)}{clause}"
                )


def _create_tables(engine: Engine, tables: list) -> None:
    """Create missing tables; another process creating them at the same moment is not an error."""
    for attempt in range(6):
        try:
            SQLModel.metadata.create_all(engine, tables=tables)
            _add_missing_columns(engine, tables)
            return
        except (OperationalError, IntegrityError, ProgrammingError) as exc:
            racing = isinstance(exc, (IntegrityError, ProgrammingError)) or any(
                sign in str(exc.orig) for sign in ("locked", "already exists")
            )
            if not racing or attempt == 5:
                raise
            time.sleep(0.2 * (attempt + 1))


def _describe(url: str) -> str:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an unparseable URL is described by its scheme only
        return url.split(":", 1)[0]


def _upsert(session: Session, table, rows: Sequence[dict[str, Any]], *, update: bool) -> None:
    """Insert rows; on a primary-key clash update them (or keep the old ones)."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    insert = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}.get(dialect)
    keys = [c.name for c in table.primary_key.columns]
    if insert is None:  # another database: one row at a time, still inside the transaction
        for row in rows:
            match = [table.c[k] == row[k] for k in keys]
            if session.execute(select(func.count()).select_from(table).where(*match)).scalar_one():
                if update:
                    session.execute(table.update().where(*match).values(**row))
            else:
                session.execute(table.insert().values(**row))
        return
    stmt = insert(table)
    if update:
        cols = {c.name: stmt.excluded[c.name] for c in table.columns if c.name not in keys}
        stmt = stmt.on_conflict_do_update(index_elements=keys, set_=cols) if cols else stmt.on_conflict_do_nothing()
    else:  # no conflict target: a store made before a key column was added keeps its old key
        stmt = stmt.on_conflict_do_nothing()
    session.execute(stmt, list(rows))  # executemany: one compiled statement, batched by the driver


def _chunks(values: list[Any], size: int = 900) -> Iterator[list[Any]]:
    """Slices small enough for an IN list on every backend (SQLite's variable limit)."""
    for start in range(0, len(values), size):
        yield values[start : start + size]


def thread_of(record: RawRecord) -> str | None:
    """A ticket and its comments share a thread: comments name only their ticket, not the session."""
    if record.source != "tickets":
        return None
    ticket_id = record.payload.get("ticket_id") if record.kind == "comment" else record.external_id
    return f"ticket:{ticket_id}" if ticket_id is not None else None


def day_of(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).date().isoformat()


def _add_threads(session: Session, found: dict[str, RawRecordRow]) -> None:
    """Add every record sharing a thread with the found ones (a ticket's comments, a comment's ticket)."""
    threads = sorted({row.thread for row in found.values() if row.thread})
    for start in range(0, len(threads), 900):
        chunk = threads[start : start + 900]
        for row in session.exec(select(RawRecordRow).where(RawRecordRow.thread.in_(chunk))).scalars():
            found.setdefault(row.sha256, row)


def open_store(config: AppConfig) -> Store:
    """The store and raw zone the configuration names."""
    return Store(config.sqlalchemy_url(config.store.url), config.sqlalchemy_url(config.store.raw_url))


def _table_of(model_or_column) -> Table:
    """The table of a SQLModel class or of one of its columns."""
    table = getattr(model_or_column, "__table__", None)
    return table if table is not None else model_or_column.class_.__table__


class Store:
    """The store and the raw zone, opened from their URLs."""

    def __init__(self, url: str, raw_url: str):
        self.url, self.raw_url = url, raw_url
        try:
            self.engine = _engine(url, private_file=False)
            self.raw_engine = (
                self.engine if raw_url == url else _engine(raw_url, private_file=True)
            )
            _create_tables(self.engine, STORE_TABLES)
            _create_tables(self.raw_engine, RAW_TABLES)
        except OperationalError as exc:
            cause = str(getattr(exc, "orig", exc)).strip().splitlines()[0][:120]
            raise StoreUnavailable(
                f"the store does not answer: {_describe(url)} / {_describe(raw_url)} ({cause})"
            ) from None

    @contextmanager
    def _session(self, engine: Engine) -> Iterator[Session]:
        with Session(engine) as session:
            with session.begin():
                yield session

    def _session_for(self, *tables_or_columns) -> Any:
        """A transaction on the database that holds these tables (models or their columns)."""
        tables = {_table_of(thing) for thing in tables_or_columns}
        raw = {table in RAW_TABLES for table in tables}
        if len(raw) != 1:
            raise ValueError("one query reads one database: " + ", ".join(sorted(t.name for t in tables)))
        return self._session(self.raw_engine if raw.pop() else self.engine)

    def dispose(self) -> None:
        self.engine.dispose()
        if self.raw_engine is not self.engine:
            self.raw_engine.dispose()

    # ------------------------------------------------------------ landing
    def known_hashes(self, hashes: Iterable[str]) -> set[str]:
        hashes = list(hashes)
        found: set[str] = set()
        with self._session(self.engine) as s:
            for start in range(0, len(hashes), 900):
                chunk = hashes[start : start + 900]
                found.update(s.exec(select(LedgerRow.sha256).where(LedgerRow.sha256.in_(chunk))).scalars())
        return found

    def land(
        self,
        records: Sequence[RawRecord],
        quarantined: Sequence[QuarantinedRecord],
        *,
        run_id: str,
        quarantine_day: str,
        cursors: Sequence[CursorRow] = (),
        links: dict[str, list[str]] | None = None,
    ) -> int:
        """Write records to the raw zone, then ledger, quarantine and the cursors of the files
        read to their end to the store.

        Raw rows first: a kill between the two leaves raw rows without a ledger entry, which
        the rerun writes again (an upsert), never a ledger entry without its record.
        Returns how many records were new.
        """
        now = datetime.now(timezone.utc)
        known = self.known_hashes(r.sha256 for r in records)
        new = list({r.sha256: r for r in records if r.sha256 not in known}.values())
        raw_rows = [
            dict(
                sha256=r.sha256, source=r.source, kind=r.kind, external_id=r.external_id, file=r.file,
                position=r.position, occurred_at=r.occurred_at, day=day_of(r.occurred_at),
                session_id=r.session_id, trace_id=r.trace_id, thread=thread_of(r),
                payload=r.canonical_payload(), landed_at=now,
            )
            for r in new
        ]
        link_rows = [
            dict(sha256=sha, session_id=sid) for sha, sids in sorted((links or {}).items()) for sid in sorted(set(sids))
        ]
        with self._session(self.raw_engine) as s:
            _upsert(s, RawRecordRow.__table__, raw_rows, update=False)
            _upsert(s, RawLinkRow.__table__, link_rows, update=False)
        with self._session(self.engine) as s:
            _upsert(
                s, LedgerRow.__table__,
                [dict(sha256=r.sha256, source=r.source, file=r.file, position=r.position,
                      day=day_of(r.occurred_at), run_id=run_id) for r in new],
                update=False,
            )
            _upsert(
                s, QuarantineRow.__table__,
                [dict(source=q.source, file=q.file, position=q.position, record=q.record, reason=q.reason,
                      sha256=q.sha256, day=quarantine_day, stage="ingest", run_id=run_id) for q in quarantined],
                update=False,
            )
            _upsert(s, CursorRow.__table__, [cursor.model_dump() for cursor in cursors], update=True)
        return len(new)

    def cursors(self, source: str) -> dict[str, CursorRow]:
        """Every file cursor of `source`, by file."""
        return {row.file: row for row in self.rows(CursorRow, CursorRow.source == source)}

    def quarantine(self, rows: Sequence[QuarantinedRecord], *, day: str, stage: str, run_id: str) -> None:
        with self._session(self.engine) as s:
            _upsert(
                s, QuarantineRow.__table__,
                [dict(source=q.source, file=q.file, position=q.position, record=q.record, reason=q.reason,
                      sha256=q.sha256, day=day, stage=stage, run_id=run_id) for q in rows],
                update=False,
            )

    # ------------------------------------------------------------ reading raw
    def resolve_incident(self, incident_id: str) -> list[str]:
        """Session ids of an incident: a ticket, escalation or deploy id, a trace id or a session id."""
        with self._session(self.raw_engine) as s:
            rows = list(
                s.exec(
                    select(RawRecordRow.sha256, RawRecordRow.session_id).where(
                        (RawRecordRow.external_id == incident_id)
                        | (RawRecordRow.trace_id == incident_id)
                        | (RawRecordRow.session_id == incident_id)
                    )
                )
            )
            found = {sid for _, sid in rows if sid}
            shas = [sha for sha, _ in rows]
            if shas:
                found.update(s.exec(select(RawLinkRow.session_id).where(RawLinkRow.sha256.in_(shas))).scalars())
        return sorted(found)

    def incident_day(self, session_ids: Sequence[str]) -> str | None:
        """The day the first of these sessions started (by its earliest record)."""
        if not session_ids:
            return None
        with self._session(self.raw_engine) as s:
            first = s.exec(
                select(func.min(RawRecordRow.occurred_at)).where(RawRecordRow.session_id.in_(list(session_ids)))
            ).scalar_one_or_none()
        return day_of(first)

    def raw_records_for_sessions(self, session_ids: Sequence[str]) -> list[RawRecordRow]:
        """Every record of these sessions, their traces, and the records that link to them."""
        with self._session(self.raw_engine) as s:
            ids = sorted(set(session_ids))
            found = {r.sha256: r for r in s.exec(select(RawRecordRow).where(RawRecordRow.session_id.in_(ids))).scalars()}
            traces = sorted({r.trace_id for r in found.values() if r.trace_id})
            if traces:
                for row in s.exec(select(RawRecordRow).where(RawRecordRow.trace_id.in_(traces))).scalars():
                    found.setdefault(row.sha256, row)
            linked = list(s.exec(select(RawLinkRow.sha256).where(RawLinkRow.session_id.in_(ids))).scalars())
            if linked:
                for row in s.exec(select(RawRecordRow).where(RawRecordRow.sha256.in_(linked))).scalars():
                    found.setdefault(row.sha256, row)
            _add_threads(s, found)
            for row in found.values():
                s.expunge(row)
        return sorted(found.values(), key=lambda r: (r.source, r.file, r.position))

    def purge_raw(self, older_than: datetime) -> int:
        with self._session(self.raw_engine) as s:
            old = select(RawRecordRow.sha256).where(RawRecordRow.landed_at < older_than)
            s.execute(delete(RawLinkRow).where(RawLinkRow.sha256.in_(old)))
            count = s.execute(delete(RawRecordRow).where(RawRecordRow.landed_at < older_than)).rowcount
            s.execute(delete(RawSessionRow).where(RawSessionRow.assembled_at < older_than))
            s.execute(delete(RawErrorMessageRow).where(RawErrorMessageRow.kept_at < older_than))
        return count or 0

    # ------------------------------------------------------------ generic helpers
    def upsert(self, model: type[SQLModel], rows: Sequence[dict[str, Any]]) -> None:
        with self._session_for(model) as s:
            _upsert(s, model.__table__, rows, update=True)

    def rows(self, model: type[SQLModel], *where) -> list[Any]:
        with self._session_for(model) as s:
            found = list(s.exec(select(model).where(*where)).scalars())
            for row in found:
                s.expunge(row)
            return found

    def tally(self, *columns, where: Sequence[Any] = ()) -> Counter:
        """Rows counted per value of `columns` (a value, or a tuple of values for several columns)."""
        with self._session_for(*columns) as s:
            found = s.execute(select(*columns, func.count()).where(*where).group_by(*columns)).all()
        return Counter({(tuple(row[:-1]) if len(columns) > 1 else row[0]): row[-1] for row in found})

    def distinct(self, column, *where) -> list[Any]:
        with self._session_for(column) as s:
            return sorted(s.execute(select(column).where(*where).distinct()).scalars())

    def earliest(self, column, *where) -> Any:
        """The smallest value of `column` (None for no rows)."""
        with self._session_for(column) as s:
            return s.execute(select(func.min(column)).where(*where)).scalar_one_or_none()

    def latest(self, column, *where) -> Any:
        """The largest value of `column` (None for no rows)."""
        with self._session_for(column) as s:
            return s.execute(select(func.max(column)).where(*where)).scalar_one_or_none()

    def values(self, column, *where) -> list[Any]:
        """One column of the matching rows (without loading the others)."""
        with self._session_for(column) as s:
            return list(s.execute(select(column).where(*where)).scalars())

    def stream(self, columns: Sequence[Any], *where, order_by: Sequence[Any] = (), batch: int = 5000) -> Iterator[tuple]:
        """The matching rows' `columns`, in `order_by` order, fetched `batch` rows at a time (not all held)."""
        with self._session_for(*columns) as s:
            query = select(*columns).where(*where).order_by(*order_by)
            for row in s.execute(query.execution_options(yield_per=batch)):
                yield tuple(row)

    def count(self, model: type[SQLModel], *where) -> int:
        with self._session_for(model) as s:
            return s.exec(select(func.count()).select_from(model).where(*where)).scalar_one()

    def delete(self, model: type[SQLModel], *where) -> None:
        with self._session_for(model) as s:
            s.execute(delete(model).where(*where))

