"""Whether a day needs running again: a fingerprint of its records, settings, code version and secret."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from ingest.models import canonical_json, sha256_hex

from pipelines.stages import contacts, day_records
from pipelines.stages.context import RunContext
from pipelines.store.rows import RawRecordRow, RunRow
from pipelines.store.repository import Store


def as_utc(moment: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes: every moment the store keeps is UTC."""
    return moment.replace(tzinfo=timezone.utc) if moment is not None and moment.tzinfo is None else moment


def day_fingerprint(hashes: list[str], digest: str) -> str:
    return sha256_hex(digest + "".join(sorted(hashes)))


def unchanged_partitions(store: Store, run: RunContext, days: list[str]) -> set[str]:
    """The days whose records, later contacts and settings are those of their last completed nightly run.

    With the same settings and nothing landed since that run started, or since its fingerprint
    was last found unchanged (one query for every day), a day is unchanged; otherwise its
    records' fingerprint and its later contacts' (`pipelines.stages.contacts`: a complaint about
    the day's orders landing with a later day) are compared, and a match is noted on the run so
    that the next command need not compare it again.
    """
    checked = datetime.now(timezone.utc)  # before reading: a record landing meanwhile makes the next check look again
    settings = run.settings_digest
    window = run.taxonomy.later_contact_window
    last_landed = as_utc(store.latest(RawRecordRow.landed_at))
    last_runs: dict[str, RunRow] = {}
    for row in store.rows(RunRow, RunRow.partition.in_(days), RunRow.scope == "nightly", RunRow.finished_at.is_not(None)):
        if row.partition not in last_runs or as_utc(row.finished_at) > as_utc(last_runs[row.partition].finished_at):
            last_runs[row.partition] = row
    unchanged, verified = set(), []
    for day, last in last_runs.items():
        recorded = json.loads(last.summary)
        since = as_utc(last.started_at)
        if recorded.get("verified_at"):
            since = max(since, datetime.fromisoformat(recorded["verified_at"]))
        if recorded.get("settings") == settings and last_landed is not None and last_landed <= since:
            unchanged.add(day)
        elif (recorded.get("fingerprint") == day_records.streamed_fingerprint(store, day, settings)
              and recorded.get("contacts") == contacts.contacts_fingerprint(store, run.config.ingest, window, day)):
            unchanged.add(day)  # the fingerprint holds the settings digest: they match too
            verified.append(
                dict(last.model_dump(), summary=canonical_json(recorded | {"settings": settings, "verified_at": checked.isoformat()}))
            )
    if verified:
        store.upsert(RunRow, verified)
    return unchanged
