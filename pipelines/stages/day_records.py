"""A day's sessions assembled from the raw zone a chunk of sessions at a time.

Memory holds one chunk's records (`CHUNK` sessions), the window's session ids and its distinct
error messages, never the day's records: the records that belong together are found by the
store's queries (a session's records, its traces' records, the deploys naming it, its tickets'
threads), not by Python lists of everything.

The records a window's assembly reads are those of the window (a day, or an hour of it) plus
everything one link away (the same sessions, traces and ticket threads, the deploys naming
those sessions): `window_records` says which, as one SQL query, and the day's fingerprint
hashes the day's in order as they stream. The error templates are mined over the whole day
(`apply_day_templates`), from the messages each window keeps in the raw zone, so a day
assembled hour by hour gets the templates it gets in one piece.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import Select, and_, or_, select, union

from ingest import garbage
from ingest.assemble import assemble_in_chunks, assign_templates, continued_runs, error_messages, unclaimed_records
from ingest.config import IngestConfig
from ingest.error_templates import templates_for
from ingest.models import QuarantinedRecord, RawRecord, Session, sha256_hex

from pipelines.stages.partition import CHUNK, session_day
from pipelines.stages.windows import Window
from pipelines.store.repository import Store
from pipelines.store.rows import RawErrorMessageRow, RawLinkRow, RawRecordRow, RawSessionRow

_RECORD = RawRecordRow.__table__
_LINK = RawLinkRow.__table__
_READ = [_RECORD.c[name] for name in ("sha256", "source", "kind", "external_id", "file", "position", "occurred_at",
                                      "session_id", "trace_id", "thread", "payload")]
"""The columns a record is read back with (`raw_record`, and its thread): not when it was landed."""


def _of(window: Window | str) -> Window:
    return window if isinstance(window, Window) else Window.of(window)


def in_window(window: Window):
    """The raw records landed for the window: those of its day, within its hour if it has one."""
    r = _RECORD.c
    if not window.hourly:
        return r.day == window.day
    return and_(r.day == window.day, r.occurred_at >= window.start, r.occurred_at < window.end)


def window_records(window: Window | str) -> Select:
    """The sha256 of every record a window's assembly reads: the window's records; every record of
    the sessions they name or link to, and of their traces; every record of those records' ticket
    threads; every record linking to those sessions (a deploy naming them)."""
    r, link = _RECORD.c, _LINK.c
    mine = in_window(_of(window))
    sessions = union(
        select(r.session_id).where(mine, r.session_id.is_not(None)),
        select(link.session_id).where(link.sha256.in_(select(r.sha256).where(mine))),
    )
    traces = select(r.trace_id).where(mine, r.trace_id.is_not(None))
    near = union(
        select(r.sha256, r.thread).where(mine),
        select(r.sha256, r.thread).where(r.session_id.in_(sessions)),
        select(r.sha256, r.thread).where(r.trace_id.in_(traces)),
    ).cte("near")
    threads = select(near.c.thread).where(near.c.thread.is_not(None))
    linked = select(link.sha256).where(link.session_id.in_(sessions))
    return union(
        select(near.c.sha256),
        select(r.sha256).where(r.thread.in_(threads)),
        select(r.sha256).where(r.sha256.in_(linked)),
    )


def day_records(day: str) -> Select:
    """`window_records` of a whole day."""
    return window_records(Window.of(day))


def day_hashes(store: Store, day: str) -> Iterator[str]:
    """`day_records`' hashes in sorted order, streamed from the raw zone."""
    records = day_records(day).subquery()
    query = select(records.c.sha256).order_by(records.c.sha256)
    with store.raw_engine.connect() as conn:
        for (sha,) in conn.execution_options(yield_per=5000).execute(query):
            yield sha


def streamed_fingerprint(store: Store, day: str, digest: str) -> str:
    """`fingerprint.day_fingerprint` of the day's hashes, hashed as they stream in sorted order."""
    fingerprint = hashlib.sha256(digest.encode("utf-8"))
    for sha in day_hashes(store, day):
        fingerprint.update(sha.encode("utf-8"))
    return fingerprint.hexdigest()


def raw_record(row) -> RawRecord:
    """A raw-zone row (ORM object or plain row) as the record it was landed from."""
    occurred = row.occurred_at
    return RawRecord(
        source=row.source, kind=row.kind, external_id=row.external_id, file=row.file, position=row.position,
        occurred_at=occurred.replace(tzinfo=timezone.utc) if occurred and occurred.tzinfo is None else occurred,
        session_id=row.session_id, trace_id=row.trace_id, payload=json.loads(row.payload), sha256=row.sha256,
    )


def _in_day(day: Window | str):
    return RawRecordRow.sha256.in_(window_records(day))


@dataclass
class WindowScan:
    """What one pass over a window's records (`window_records`, read once, in sha256 order) tells
    assembly: every session they name or link to (a superset of the sessions they make), the
    records that name no session (dangling links are among them), the traces of their spans that
    name no session, and with a settings digest the day's fingerprint (`streamed_fingerprint`)."""
    candidates: list[str]
    unnamed_records: list[str]
    unnamed_span_traces: set[str]
    fingerprint: str | None


def scan_window(store: Store, window: Window | str, digest: str | None = None) -> WindowScan:
    """`WindowScan` of the window, its records read once: each evaluation of `window_records` reads
    the day's records and their neighbours again, most of a day's query time."""
    window = _of(window)
    r, link = _RECORD.c, _LINK.c
    query = (
        select(r.sha256, r.kind, r.session_id, r.trace_id, link.session_id)
        .select_from(_RECORD.outerjoin(_LINK, link.sha256 == r.sha256))
        .where(r.sha256.in_(window_records(window)))
        .order_by(r.sha256)
    )
    fingerprint = hashlib.sha256(digest.encode("utf-8")) if digest is not None else None
    sessions: set[str] = set()
    unnamed: list[str] = []
    span_traces: set[str] = set()
    previous = None
    with store.raw_engine.connect() as conn:
        for sha, kind, session_id, trace_id, linked in conn.execution_options(yield_per=5000).execute(query):
            if linked is not None:
                sessions.add(linked)
            if sha == previous:  # the same record again, for another session it links to
                continue
            previous = sha
            if fingerprint is not None:
                fingerprint.update(sha.encode("utf-8"))
            if session_id is not None:
                sessions.add(session_id)
            elif kind == "span":
                if trace_id is not None:
                    span_traces.add(trace_id)
            else:
                unnamed.append(sha)
    return WindowScan(candidates=sorted(sessions), unnamed_records=sorted(unnamed), unnamed_span_traces=span_traces,
                      fingerprint=fingerprint.hexdigest() if fingerprint is not None else None)


def _unnamed_traces(store: Store, scan: WindowScan) -> bool:
    """Whether a trace of the window's records has spans that no span or GenAI event of it (in the
    whole raw zone) names a session for."""
    r = _RECORD.c
    traces = sorted(scan.unnamed_span_traces)
    with store.raw_engine.connect() as conn:
        for chunk in _chunks(traces):
            named = {trace for (trace,) in conn.execute(select(r.trace_id).distinct().where(
                r.trace_id.in_(chunk), r.kind.in_(("span", "genai_event")), r.session_id.is_not(None)))}
            if len(named) < len(chunk):
                return True
    return False


def _continued(store: Store, day: str, scan: WindowScan) -> dict[str, str]:
    """trace id -> session for the day's traces no conversation id names (`scan`: the day's).
    Resolving them compares each run with every earlier run of the day, so the day's spans are
    read at once: only when such traces are there (a framework that names no conversation, such
    as the OpenAI Agents SDK)."""
    if not _unnamed_traces(store, scan):
        return {}
    rows = store.rows(RawRecordRow, _in_day(day), RawRecordRow.kind.in_(("span", "genai_event")))
    return continued_runs(raw_record(row) for row in rows)


def records_reader(store: Store, continued: dict[str, str]) -> Callable[[list[str]], list[RawRecord]]:
    """`records_for` of `assemble_in_chunks`: the sessions' records, their traces' records (and
    those of the unnamed traces that continue them), the records linking to them and their
    tickets' threads, read as plain rows (no ORM objects: this is most of a day's reading)."""
    by_session: dict[str, list[str]] = {}
    for trace_id, session_id in continued.items():
        by_session.setdefault(session_id, []).append(trace_id)
    r, link = _RECORD.c, _LINK.c

    def records_for(ids: list[str]) -> list[RawRecord]:
        found: dict[str, object] = {}
        with store.raw_engine.connect() as conn:
            def add(*where) -> None:
                for row in conn.execute(select(*_READ).where(*where)):
                    found.setdefault(row.sha256, row)

            add(r.session_id.in_(ids))
            # the records naming these sessions are found: their traces and threads add the others
            others = or_(r.session_id.is_(None), r.session_id.not_in(ids))
            size = max(100, 900 - len(ids))  # an IN list and the sessions within SQLite's oldest variable limit
            traces = {row.trace_id for row in found.values() if row.trace_id}
            traces |= {trace for sid in ids for trace in by_session.get(sid, [])}
            for chunk in _chunks(sorted(traces), size):
                add(r.trace_id.in_(chunk), others)
            add(r.sha256.in_(select(link.sha256).where(link.session_id.in_(ids))))
            for chunk in _chunks(sorted({row.thread for row in found.values() if row.thread}), size):
                add(r.thread.in_(chunk), others)
        return [raw_record(row) for row in found.values()]

    return records_for


def _chunks(values: list, size: int = 900) -> Iterator[list]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _unclaimed(store: Store, ids: list[str], continued: dict[str, str]) -> list[QuarantinedRecord]:
    """The window's records no session claims (dangling links), a chunk at a time: each record that
    names no session (`ids`, sorted: those of `WindowScan.unnamed_records` no assembled session
    holds), with the spans of its trace and the records of its ticket thread (read as plain rows,
    as `records_reader` reads them)."""
    found: dict[tuple, QuarantinedRecord] = {}
    r = _RECORD.c
    with store.raw_engine.connect() as conn:
        def rows(*where) -> dict[str, object]:
            return {row.sha256: row for row in conn.execute(select(*_READ).where(*where))}

        for start in range(0, len(ids), 900):
            chunk = rows(r.sha256.in_(ids[start : start + 900]))
            context: dict[str, object] = {}
            for part in _chunks(sorted({row.trace_id for row in chunk.values() if row.trace_id})):
                context.update(rows(r.trace_id.in_(part), r.kind == "span"))
            for part in _chunks(sorted({row.thread for row in chunk.values() if row.thread})):
                context.update(rows(r.thread.in_(part), r.kind == "ticket"))
            records = [raw_record(row) for row in {**context, **chunk}.values()]
            for entry in unclaimed_records(records, continued=continued):
                if entry.sha256 in chunk:
                    found[(entry.source, entry.file, entry.position, entry.reason)] = entry
    return [found[key] for key in sorted(found)]


def assemble_window(store: Store, config: IngestConfig, window: Window | str,
                    scan: WindowScan | None = None) -> tuple[int, list[QuarantinedRecord]]:
    """Assemble and write (raw zone) the sessions that started in the window (or have no time at
    all), a chunk at a time, without their error templates; keep the distinct error messages of
    every session the window's records make (`apply_day_templates` mines the day's templates
    from them). Returns how many sessions, and the window's records no session claims.

    Unnamed traces that continue a run (`_continued`) are resolved over the whole day, as a day
    in one piece resolves them. `scan` is the window's `scan_window`, if the caller made it.

    A record that names no session and that a session's provenance holds was routed to that
    session, so it is not looked at again for dangling links: only the rest are (most of a day's
    comments and deploys are claimed). Automatic garbage collection is paced by the chunks
    (`ingest.garbage`)."""
    window = _of(window)
    scan = scan or scan_window(store, window)
    continued = _continued(store, window.day, scan if not window.hourly else scan_window(store, window.day))
    candidates = sorted(set(scan.candidates) | set(continued.values()))
    messages: set[str] = set()
    written, batch = 0, []
    now = datetime.now(timezone.utc)

    def flush(sessions: list[Session]) -> None:
        store.upsert(
            RawSessionRow,
            [dict(session_id=s.session_id, day=session_day(s) or window.day, body=s.model_dump_json(), assembled_at=now)
             for s in sessions]
        )

    read = records_reader(store, continued)

    def records_for(ids: list[str]) -> list[RawRecord]:
        garbage.young()  # the chunk before's garbage: what is young now is mostly that
        return read(ids)

    unclaimed = set(scan.unnamed_records)
    with garbage.paced():
        for session in assemble_in_chunks(candidates, records_for, config, chunk=CHUNK, continued=continued):
            unclaimed.difference_update(p.sha256 for p in session.provenance)  # a session claims it: not dangling
            messages |= error_messages([session])
            if not window.holds(session):
                continue
            batch.append(session)
            if len(batch) >= CHUNK:
                flush(batch)
                written, batch = written + len(batch), []
    flush(batch)
    written += len(batch)
    # the window's messages replace its last run's (and, whole day against hours, the other granularity's)
    if window.hourly:
        store.delete(RawErrorMessageRow, RawErrorMessageRow.window.in_((window.key, window.day)))
    else:
        store.delete(RawErrorMessageRow, RawErrorMessageRow.day == window.day)
    rows = [dict(window=window.key, day=window.day, sha256=sha256_hex(m), message=m, kept_at=now) for m in sorted(messages)]
    for start in range(0, len(rows), 1000):
        store.upsert(RawErrorMessageRow, rows[start : start + 1000])
    return written, _unclaimed(store, sorted(unclaimed), continued)


def apply_day_templates(store: Store, day: str, sessions: Iterator[Session]) -> Iterator[Session]:
    """The day's sessions with their errors' templates, mined once over the distinct messages every
    window of the day kept (a session whose templates change is written back to the raw zone)."""
    templates = templates_for(store.values(RawErrorMessageRow.message, RawErrorMessageRow.day == day))
    changed: list[Session] = []
    now = datetime.now(timezone.utc)

    def flush() -> None:
        store.upsert(RawSessionRow, [dict(session_id=s.session_id, day=session_day(s) or day, body=s.model_dump_json(),
                                          assembled_at=now) for s in changed])
        changed.clear()

    for session in sessions:
        if session.signals.errors:
            before = [error.template for error in session.signals.errors]
            assign_templates([session], templates)
            if [error.template for error in session.signals.errors] != before:
                changed.append(session)
                if len(changed) >= CHUNK:
                    flush()
        yield session
    flush()
