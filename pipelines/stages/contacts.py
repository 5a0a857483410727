"""Later contacts of a day's sessions, found in the landed records, never in other days' assembled sessions.

A session's later contacts are the other sessions about one of its orders that started within
the taxonomy's window after it ended (`taskgen.contacts`). The nightly run (one day after
another, or several at once), the on-call path and a rerun must label a session alike, whether
or not the days after it have been assembled yet: so the contacts are assembled here from the
raw zone's records, which are all landed before any day runs. A record of the window's days
that names one of the sessions' orders (by key or by pattern, as assembly finds ids) makes the
sessions it belongs to candidates; the candidates are assembled from their records as a day's
assembly does, and those about one of the orders are the contacts.

The sha256 of every record read to assemble the candidates is the day's contacts fingerprint:
the run keeps it, and a complaint landing later about one of the day's orders changes it, so the
day is classified and drafted again (`pipelines.stages.fingerprint`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import select

from ingest.assemble import assemble_in_chunks
from ingest.config import IngestConfig
from ingest.entities import EntityFinder
from ingest.models import Session, canonical_json
from taskgen.contacts import ContactIndex, LaterSession

from pipelines.stages.day_records import records_reader
from pipelines.stages.partition import CHUNK, raw_sessions
from pipelines.store.repository import Store
from pipelines.store.rows import RawLinkRow, RawRecordRow, RunRow

ORDER = "order"
"""The entity kind a later contact shares with the session (`ingest.config.IngestConfig.entity_patterns`)."""

MARGIN_DAYS = 1
"""Days read past the window's end: a contact that started in the window may name the order in a later record."""


@dataclass(frozen=True)
class Reach:
    """What of some sessions decides which sessions can be their later contacts."""

    orders: frozenset[str]
    days: tuple[str, ...]
    """The days whose records can belong to a contact: from the first session's end to the window's end."""


def reach_of(sessions: Iterable[Session], window: timedelta) -> Reach:
    """The orders of the sessions that can have later contacts, and the days to look in (read as
    the sessions stream: only their orders are kept)."""
    orders: set[str] = set()
    first: datetime | None = None
    last: datetime | None = None
    for session in sessions:
        end = session.ended_at or session.started_at
        if end is None or not session.entity_ids.get(ORDER):
            continue
        orders.update(session.entity_ids[ORDER])
        first = end if first is None else min(first, end)
        last = end if last is None else max(last, end)
    if first is None or last is None:
        return Reach(frozenset(), ())
    start: date = first.date()
    stop: date = (last + window).date() + timedelta(days=MARGIN_DAYS)
    return Reach(frozenset(orders), tuple((start + timedelta(days=n)).isoformat() for n in range((stop - start).days + 1)))


def _naming_records(store: Store, finder: EntityFinder, reach: Reach) -> Iterator[tuple[str, str | None, str | None, str | None]]:
    """(sha256, session id, trace id, thread) of each record of the reach's days whose payload names
    one of its orders, read as they stream."""
    r = RawRecordRow.__table__.c
    query = select(r.sha256, r.session_id, r.trace_id, r.thread, r.payload).where(r.day.in_(list(reach.days)))
    with store.raw_engine.connect() as conn:
        for sha, session_id, trace_id, thread, payload in conn.execution_options(yield_per=2000).execute(query):
            named = finder.find_in_payload(json.loads(payload)).get(ORDER)
            if named and not reach.orders.isdisjoint(named):
                yield sha, session_id, trace_id, thread


def candidates(store: Store, config: IngestConfig, reach: Reach) -> list[str]:
    """The sessions a record naming one of the reach's orders belongs to: the session it names, the
    sessions of its trace and of its ticket thread, the sessions it links to."""
    if not reach.orders:
        return []
    found: set[str] = set()
    shas, traces, threads = [], set(), set()
    for sha, session_id, trace_id, thread in _naming_records(store, EntityFinder(config.entity_patterns), reach):
        shas.append(sha)
        if session_id:
            found.add(session_id)
        if trace_id:
            traces.add(trace_id)
        if thread:
            threads.add(thread)
    r = RawRecordRow
    for column, values in ((r.trace_id, sorted(traces)), (r.thread, sorted(threads))):
        for start in range(0, len(values), CHUNK):
            found.update(store.distinct(r.session_id, column.in_(values[start : start + CHUNK]), r.session_id.is_not(None)))
    for start in range(0, len(shas), CHUNK):
        found.update(store.distinct(RawLinkRow.session_id, RawLinkRow.sha256.in_(shas[start : start + CHUNK])))
    return sorted(found)


def _fingerprint(hashes: Iterable[str]) -> str:
    return hashlib.sha256("".join(sorted(set(hashes))).encode("utf-8")).hexdigest()


def day_contacts(store: Store, config: IngestConfig, reach: Reach) -> tuple[ContactIndex, str]:
    """The later-contact index of the reach's sessions, assembled from the raw zone, and the
    fingerprint of the records read to build it."""
    read: set[str] = set()
    reader = records_reader(store, {})

    def reading(ids: list[str]):
        records = reader(ids)
        read.update(record.sha256 for record in records)
        return records

    sessions = assemble_in_chunks(candidates(store, config, reach), reading, config, chunk=CHUNK)
    index = ContactIndex(
        contact for contact in map(LaterSession.of, sessions) if contact is not None and not reach.orders.isdisjoint(contact.order_ids)
    )
    return index, _fingerprint(read)


def contacts_fingerprint(store: Store, config: IngestConfig, window: timedelta, day: str) -> str:
    """`day_contacts`' fingerprint for the day's assembled sessions, without assembling the contacts."""
    reach = reach_of(raw_sessions(store, day), window)
    reader = records_reader(store, {})
    found = candidates(store, config, reach)
    return _fingerprint(
        record.sha256 for start in range(0, len(found), CHUNK) for record in reader(found[start : start + CHUNK])
    )


def record_contacts(store: Store, run_id: str, fingerprint: str) -> None:
    """Keeps the contacts fingerprint with the run, beside its records' fingerprint."""
    rows = store.rows(RunRow, RunRow.run_id == run_id)
    if rows:
        summary = json.loads(rows[0].summary) | {"contacts": fingerprint}
        store.upsert(RunRow, [dict(rows[0].model_dump(), summary=canonical_json(summary))])
