"""The pipeline's own records, through SQLModel.

Two databases, each any SQLAlchemy URL (SQLite files by default):
- the raw landing zone (`RAW_TABLES`): source records and assembled sessions with their raw
  values; a SQLite file here is created with mode 0600, and rows past the retention are purged;
- the store (`STORE_TABLES`): ledger of content hashes, cursors, quarantine, classifications,
  samples, scrubbed sessions, seeds, tasks and runs. Nothing in it holds a raw value.
Every write is an idempotent upsert inside a transaction, so reruns never duplicate and a
killed run leaves either the old row or the new one.
"""

from __future__ import annotations

import os
import stat
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Text, delete, func, inspect, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlmodel import Field, Session, SQLModel, create_engine

from ingest.models import QuarantinedRecord, RawRecord, canonical_json


class StoreUnavailable(Exception):
    """The store or raw zone does not answer; the message names the database, not its password."""

    shows_no_values = True



# ---------------------------------------------------------------- raw landing zone
class RawRecordRow(SQLModel, table=True):
    __tablename__ = "raw_record"
    sha256: str = Field(primary_key=True)
    source: str = Field(index=True)
    kind: str
    external_id: str = Field(index=True)
    file: str
    position: int
    occurred_at: datetime | None = None
    day: str | None = Field(default=None, index=True)
    session_id: str | None = Field(default=None, index=True)
    trace_id: str | None = Field(default=None, index=True)
    thread: str | None = Field(
        default=None, index=True, description="records that belong together whatever their day (a ticket and its comments)"
    )
    payload: str = Field(sa_column=Column(Text, nullable=False))
    landed_at: datetime


class RawLinkRow(SQLModel, table=True):
    """A record that names sessions other than its own (a deploy event naming several)."""

    __tablename__ = "raw_link"
    sha256: str = Field(primary_key=True)
    session_id: str = Field(primary_key=True, index=True)


class RawSessionRow(SQLModel, table=True):
    __tablename__ = "raw_session"
    session_id: str = Field(primary_key=True)
    day: str = Field(index=True)
    body: str = Field(sa_column=Column(Text, nullable=False))
    assembled_at: datetime


# ---------------------------------------------------------------- store (no raw values)
class LedgerRow(SQLModel, table=True):
    """Every source record read, by content hash: what makes a rerun read nothing twice."""

    __tablename__ = "ledger"
    sha256: str = Field(primary_key=True)
    source: str = Field(index=True)
    file: str
    position: int
    day: str | None = Field(default=None, index=True)
    run_id: str


class CursorRow(SQLModel, table=True):
    __tablename__ = "source_cursor"
    source: str = Field(primary_key=True)
    file: str = Field(primary_key=True)
    byte_offset: int
    line: int
    size: int
    prefix_sha256: str = Field(description="sha256 of the file's first byte_offset bytes")


class QuarantineRow(SQLModel, table=True):
    __tablename__ = "quarantine"
    source: str = Field(primary_key=True)
    file: str = Field(primary_key=True)
    position: int = Field(primary_key=True)
    record: int = Field(default=0, primary_key=True)
    reason: str = Field(primary_key=True)
    sha256: str | None = None
    day: str = Field(index=True)
    stage: str = "ingest"
    run_id: str


class ClassificationRow(SQLModel, table=True):
    __tablename__ = "classification"
    session_id: str = Field(primary_key=True)
    day: str = Field(index=True)
    intent: str
    outcome: str
    signature: str
    evidence: str = Field(sa_column=Column(Text, nullable=False))
    detail: str = Field(
        default="{}", sa_column=Column(Text, nullable=False, default="{}"),
        description="JSON: every outcome signal (source, ref, kind, outcome it supports) and the review questions",
    )


class SampleRow(SQLModel, table=True):
    __tablename__ = "sample"
    day: str = Field(primary_key=True)
    scope: str = Field(primary_key=True, description="'nightly' or the incident id")
    selected: str = Field(sa_column=Column(Text, nullable=False))
    members: str = Field(sa_column=Column(Text, nullable=False))
    coverage: str = Field(sa_column=Column(Text, nullable=False))


class ScrubbedSessionRow(SQLModel, table=True):
    __tablename__ = "scrubbed_session"
    session_id: str = Field(primary_key=True)
    day: str = Field(index=True)
    session: str = Field(sa_column=Column(Text, nullable=False))
    state: str = Field(sa_column=Column(Text, nullable=False))
    counts: str = Field(sa_column=Column(Text, nullable=False))


class SeedRow(SQLModel, table=True):
    __tablename__ = "seed"
    seed_id: str = Field(primary_key=True)
    body: str = Field(sa_column=Column(Text, nullable=False))


class TaskRow(SQLModel, table=True):
    __tablename__ = "task"
    task_id: str = Field(primary_key=True)
    day: str = Field(index=True)
    session_id: str = Field(index=True)
    task_set: str
    polarity: str
    pair_id: str
    seed_id: str
    path: str
    sha256: str
    issues: str = Field(sa_column=Column(Text, nullable=False))
    health: str = Field(sa_column=Column(Text, nullable=False))
    scope: str = Field(default="nightly", description="'nightly' or the incident id that drafted it")


class ReviewEventRow(SQLModel, table=True):
    """The store's copy of every reviewer's verdict and edit (taskgen.decisions.events): a task
    file lost or overwritten gets its decisions back from here on the next re-draft."""

    __tablename__ = "review_event"
    task_id: str = Field(primary_key=True)
    kind: str = Field(primary_key=True, description="'verdict' or 'edit'")
    seq: int = Field(primary_key=True, description="its place in the task's history")
    pair_id: str = Field(index=True)
    polarity: str
    version: int
    body: str = Field(sa_column=Column(Text, nullable=False))


class TaskRunRow(SQLModel, table=True):
    """Which Dagster run drafted which task, and the id the engineer asked for (`scope`: the
    incident id given to `trace2task incident`, or 'nightly'). Kept here, not in the task file,
    which stays byte-identical across runs."""

    __tablename__ = "task_run"
    task_id: str = Field(primary_key=True)
    run_id: str = Field(primary_key=True)
    scope: str = Field(index=True)
    day: str
    session_id: str
    version: int
    drafted_at: datetime


class RunRow(SQLModel, table=True):
    __tablename__ = "run"
    run_id: str = Field(primary_key=True)
    kind: str
    partition: str
    scope: str
    started_at: datetime
    finished_at: datetime | None = None
    summary: str = Field(default="{}", sa_column=Column(Text, nullable=False))


RAW_TABLES = [RawRecordRow.__table__, RawLinkRow.__table__, RawSessionRow.__table__]
STORE_TABLES = [
    LedgerRow.__table__,
    CursorRow.__table__,
    QuarantineRow.__table__,
    ClassificationRow.__table__,
    SampleRow.__table__,
    ScrubbedSessionRow.__table__,
    SeedRow.__table__,
    TaskRow.__table__,
    ReviewEventRow.__table__,
    TaskRunRow.__table__,
    RunRow.__table__,
]


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
    def session(self, *, raw: bool = False) -> Iterator[Session]:
        with Session(self.raw_engine if raw else self.engine) as session:
            with session.begin():
                yield session

    def dispose(self) -> None:
        self.engine.dispose()
        if self.raw_engine is not self.engine:
            self.raw_engine.dispose()

    # ------------------------------------------------------------ landing
    def known_hashes(self, hashes: Iterable[str]) -> set[str]:
        hashes = list(hashes)
        found: set[str] = set()
        with self.session() as s:
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
                payload=canonical_json(r.payload), landed_at=now,
            )
            for r in new
        ]
        link_rows = [
            dict(sha256=sha, session_id=sid) for sha, sids in sorted((links or {}).items()) for sid in sorted(set(sids))
        ]
        with self.session(raw=True) as s:
            _upsert(s, RawRecordRow.__table__, raw_rows, update=False)
            _upsert(s, RawLinkRow.__table__, link_rows, update=False)
        with self.session() as s:
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
        with self.session() as s:
            _upsert(
                s, QuarantineRow.__table__,
                [dict(source=q.source, file=q.file, position=q.position, record=q.record, reason=q.reason,
                      sha256=q.sha256, day=day, stage=stage, run_id=run_id) for q in rows],
                update=False,
            )

    # ------------------------------------------------------------ reading raw
    def raw_hashes_for_day(self, day: str) -> list[str]:
        """The hashes of the day's records and of every record linked to the sessions and traces
        they name, read from the key columns only (the day's fingerprint; what assembly loads)."""
        keys = (RawRecordRow.sha256, RawRecordRow.session_id, RawRecordRow.trace_id, RawRecordRow.thread)
        with self.session(raw=True) as s:
            found = {row.sha256: row for row in s.execute(select(*keys).where(RawRecordRow.day == day))}
            session_ids = {r.session_id for r in found.values() if r.session_id}
            trace_ids = {r.trace_id for r in found.values() if r.trace_id}
            for chunk in _chunks(sorted(found)):
                session_ids.update(s.exec(select(RawLinkRow.session_id).where(RawLinkRow.sha256.in_(chunk))).scalars())
            for column, values in ((RawRecordRow.session_id, session_ids), (RawRecordRow.trace_id, trace_ids)):
                for chunk in _chunks(sorted(values)):
                    for row in s.execute(select(*keys).where(column.in_(chunk))):
                        found.setdefault(row.sha256, row)
            for chunk in _chunks(sorted({r.thread for r in found.values() if r.thread})):
                for row in s.execute(select(*keys).where(RawRecordRow.thread.in_(chunk))):
                    found.setdefault(row.sha256, row)
            linked: set[str] = set()
            for chunk in _chunks(sorted(session_ids)):
                linked.update(s.exec(select(RawLinkRow.sha256).where(RawLinkRow.session_id.in_(chunk))).scalars())
            for chunk in _chunks(sorted(linked - set(found))):
                found.update((sha, None) for sha in s.exec(select(RawRecordRow.sha256).where(RawRecordRow.sha256.in_(chunk))).scalars())
        return sorted(found)

    def raw_record_chunks(self, hashes: Sequence[str]) -> Iterator[list[RawRecordRow]]:
        """These records (those still in the raw zone), a chunk at a time: a caller converting
        them never holds every row at once."""
        for chunk in _chunks(list(hashes)):
            yield self.rows(RawRecordRow, RawRecordRow.sha256.in_(chunk), raw=True)

    def resolve_incident(self, incident_id: str) -> list[str]:
        """Session ids of an incident: a ticket, escalation or deploy id, a trace id or a session id."""
        with self.session(raw=True) as s:
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
        with self.session(raw=True) as s:
            first = s.exec(
                select(func.min(RawRecordRow.occurred_at)).where(RawRecordRow.session_id.in_(list(session_ids)))
            ).scalar_one_or_none()
        return day_of(first)

    def raw_records_for_sessions(self, session_ids: Sequence[str]) -> list[RawRecordRow]:
        """Every record of these sessions, their traces, and the records that link to them."""
        with self.session(raw=True) as s:
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
        with self.session(raw=True) as s:
            old = select(RawRecordRow.sha256).where(RawRecordRow.landed_at < older_than)
            s.execute(delete(RawLinkRow).where(RawLinkRow.sha256.in_(old)))
            count = s.execute(delete(RawRecordRow).where(RawRecordRow.landed_at < older_than)).rowcount
            s.execute(delete(RawSessionRow).where(RawSessionRow.assembled_at < older_than))
        return count or 0

    # ------------------------------------------------------------ generic helpers
    def upsert(self, model: type[SQLModel], rows: Sequence[dict[str, Any]], *, raw: bool = False) -> None:
        with self.session(raw=raw) as s:
            _upsert(s, model.__table__, rows, update=True)

    def rows(self, model: type[SQLModel], *where, raw: bool = False) -> list[Any]:
        with self.session(raw=raw) as s:
            found = list(s.exec(select(model).where(*where)).scalars())
            for row in found:
                s.expunge(row)
            return found

    def tally(self, *columns, where: Sequence[Any] = (), raw: bool = False) -> Counter:
        """Rows counted per value of `columns` (a value, or a tuple of values for several columns)."""
        with self.session(raw=raw) as s:
            found = s.execute(select(*columns, func.count()).where(*where).group_by(*columns)).all()
        return Counter({(tuple(row[:-1]) if len(columns) > 1 else row[0]): row[-1] for row in found})

    def distinct(self, column, *where, raw: bool = False) -> list[Any]:
        with self.session(raw=raw) as s:
            return sorted(s.execute(select(column).where(*where).distinct()).scalars())

    def latest(self, column, *where, raw: bool = False) -> Any:
        """The largest value of `column` (None for no rows)."""
        with self.session(raw=raw) as s:
            return s.execute(select(func.max(column)).where(*where)).scalar_one_or_none()

    def values(self, column, *where, raw: bool = False) -> list[Any]:
        """One column of the matching rows (without loading the others)."""
        with self.session(raw=raw) as s:
            return list(s.execute(select(column).where(*where)).scalars())

    def count(self, model: type[SQLModel], *where, raw: bool = False) -> int:
        with self.session(raw=raw) as s:
            return s.exec(select(func.count()).select_from(model).where(*where)).scalar_one()

    def delete(self, model: type[SQLModel], *where, raw: bool = False) -> None:
        with self.session(raw=raw) as s:
            s.execute(delete(model).where(*where))


def partition_days(start: date, end: date) -> list[str]:
    from datetime import timedelta

    days, current = [], start
    while current <= end:
        days.append(current.isoformat())
        current += timedelta(days=1)
    return days
