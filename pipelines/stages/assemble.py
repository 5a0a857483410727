"""Assemble: the landed records of a day (or of one incident) joined into agent sessions, in the raw zone."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone

from ingest import garbage
from ingest.assemble import assemble_sessions
from ingest.errors import UserFacingError
from ingest.models import canonical_json

from pipelines.stages import day_records
from pipelines.stages.context import RunContext
from pipelines.stages.day_records import raw_record
from pipelines.stages.fingerprint import day_fingerprint
from pipelines.stages.partition import CHUNK, home_day
from pipelines.stages.windows import Window
from pipelines.store.rows import RawRecordRow, RawSessionRow, RunRow
from pipelines.store.repository import Store, day_of


@dataclass
class AssembleResult:
    sessions: int
    quarantined: int
    records_by_source: dict[str, int]


class IncidentNotFound(UserFacingError):
    """The incident id names no landed record; the message holds the id only."""

    exit_code = 2


def scope_sessions(store: Store, incident_id: str) -> list[str]:
    """[] for the nightly refresh; the incident's sessions on the on-call path."""
    if not incident_id:
        return []
    found = store.resolve_incident(incident_id)
    if not found:
        raise IncidentNotFound(
            f"incident {incident_id!r} is not among the landed records: no ticket, escalation, deploy, trace or session has that id"
        )
    return found


def assemble_day(
    store: Store, run: RunContext, day: str, *, run_id: str, only: list[str], scope: str = "nightly"
) -> AssembleResult:
    """Assemble the partition's sessions (`day` is a day, or an hour of one with `partitions.by:
    hour`); with `only`, just those sessions, whatever their day.

    A day's run records itself with the fingerprint of its input, which the CLI compares to skip a
    day that has nothing new (an hour's run leaves that to its day's `record_day_run`).
    """
    started = datetime.now(timezone.utc)  # before reading: a record landing meanwhile makes the next run look again
    window = Window.of(day)
    day = window.day
    if not only:  # the window's sessions a chunk at a time (pipelines.stages.day_records): memory does not grow with the day
        with garbage.paced():  # collected chunk by chunk, in assemble_window
            scan = day_records.scan_window(store, window, None if window.hourly else run.settings_digest)
            if not window.hourly:
                _record_run(store, run_id, day, "nightly", started, scan.fingerprint, run.settings_digest, incident=False)
            written, quarantined = day_records.assemble_window(store, run.config.ingest, window, scan)
        store.quarantine(quarantined, day=day, stage="assemble", run_id=run_id)
        by_source = store.tally(RawRecordRow.source, where=[day_records.in_window(window)])
        return AssembleResult(sessions=written, quarantined=len(quarantined), records_by_source=dict(sorted(by_source.items())))
    settings = run.settings_digest
    records = [raw_record(row) for row in store.raw_records_for_sessions(only)]
    _record_run(store, run_id, day, scope, started, day_fingerprint([r.sha256 for r in records], settings), settings,
                incident=True)
    result = assemble_sessions(records, run.config.ingest)
    wanted = set(only)
    kept = [s for s in result.sessions if s.session_id in wanted]
    now = datetime.now(timezone.utc)
    for start in range(0, len(kept), CHUNK):
        store.upsert(
            RawSessionRow,
            [dict(session_id=s.session_id, day=home_day(s, day), body=s.model_dump_json(), assembled_at=now)
             for s in kept[start : start + CHUNK]],
        )
    store.quarantine(result.quarantined, day=day, stage="assemble", run_id=run_id)
    return AssembleResult(
        sessions=len(kept),
        quarantined=len(result.quarantined),
        records_by_source=dict(Counter(r.source for r in records if day_of(r.occurred_at) == day)),
    )


def record_day_run(store: Store, run: RunContext, run_id: str, day: str, started: datetime) -> None:
    """Record the day's nightly run with the fingerprint of its records and settings."""
    settings = run.settings_digest
    _record_run(store, run_id, day, "nightly", started, day_records.streamed_fingerprint(store, day, settings), settings,
                incident=False)


def _record_run(store: Store, run_id: str, day: str, scope: str, started: datetime, fingerprint: str, settings: str,
                *, incident: bool) -> None:
    store.upsert(
        RunRow,
        [dict(run_id=run_id, kind="incident" if incident else "nightly", partition=day, scope=scope,
              started_at=started, finished_at=None,
              summary=canonical_json({"fingerprint": fingerprint, "settings": settings}))],
    )
