"""What the stages read of one partition: its raw sessions, classifications, sample and scrubbed rows.

`scope` is "nightly" or the incident id: the incident path writes its own sample row, so it
never disturbs the nightly one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

from ingest.models import Session
from taskgen.classify import Classification
from taskgen.sample import StratifiedSample
from taskgen.seeds import Seed

from pipelines.store.rows import (
    ClassificationRow,
    FrozenSeedRow,
    LedgerRow,
    RawSessionRow,
    SampleRow,
    ScrubbedSessionRow,
    SeedRow,
)
from pipelines.config import AppConfig, StoreConfig
from pipelines.store.repository import Store, day_of, open_store


CHUNK = 200
"""Sessions written or read at a time, so that a stage's memory does not grow with the day."""


def first_day(config: AppConfig | None, store: Store | None = None) -> str:
    """The first partition's day: `partitions.start` in the configuration, else the day of the
    earliest record landed (the ledger keeps it after the raw zone is purged); with nothing landed
    yet, the oldest day the raw zone keeps (`store.raw_retention_days` before today, UTC). The
    partitions cover the data, not hundreds of empty days before it."""
    if config is not None and config.partitions.start is not None:
        return config.partitions.start.isoformat()
    if config is not None:
        earliest = (store or open_store(config)).earliest(LedgerRow.day, LedgerRow.day.is_not(None))
        if earliest:
            return earliest
    retention = (config.store if config is not None else StoreConfig()).raw_retention_days
    return (datetime.now(timezone.utc).date() - timedelta(days=retention)).isoformat()


def configured_first_day(config: AppConfig) -> str | None:
    """The configured first partition (landing quarantines older records), if one is set."""
    return config.partitions.start.isoformat() if config.partitions.start is not None else None


def session_day(session: Session) -> str | None:
    return day_of(session.started_at or session.ended_at)


def home_day(session: Session, day: str) -> str:
    """The partition a session belongs to: the day it started, else the partition running it."""
    return session_day(session) or day


def raw_sessions(store: Store, day: str, only: list[str] | None = None) -> Iterator[Session]:
    """The day's sessions (or just `only`) from the raw zone by session id, a chunk at a time."""
    where = [RawSessionRow.session_id.in_(only)] if only else [RawSessionRow.day == day]
    ids = sorted(store.values(RawSessionRow.session_id, *where))
    for start in range(0, len(ids), CHUNK):
        rows = store.rows(RawSessionRow, RawSessionRow.session_id.in_(ids[start : start + CHUNK]))
        yield from (Session.model_validate_json(row.body) for row in sorted(rows, key=lambda r: r.session_id))


def classifications(store: Store, day: str, only: list[str] | None = None) -> dict[str, Classification]:
    where = [ClassificationRow.session_id.in_(only)] if only else [ClassificationRow.day == day]
    return {
        row.session_id: Classification(
            intent=row.intent, outcome=row.outcome, evidence=json.loads(row.evidence), signature=row.signature,
            **json.loads(row.detail),
        )
        for row in store.rows(ClassificationRow, *where)
    }


def day_sample(store: Store, day: str, scope: str) -> StratifiedSample | None:
    rows = store.rows(SampleRow, SampleRow.day == day, SampleRow.scope == scope)
    return StratifiedSample.model_validate_json(rows[0].coverage) if rows else None


def scrubbed_rows(store: Store, day: str, scope: str) -> list[ScrubbedSessionRow]:
    sample = day_sample(store, day, scope)
    if sample is None:
        return []
    rows = store.rows(ScrubbedSessionRow, ScrubbedSessionRow.session_id.in_(sample.selected))
    return sorted(rows, key=lambda r: r.session_id)


def frozen_seeds(store: Store, session_ids: list[str]) -> dict[str, Seed]:
    """The seed each of these sessions was frozen into (by the freeze stage), by session id."""
    frozen = {row.session_id: row.seed_id for row in store.rows(FrozenSeedRow, FrozenSeedRow.session_id.in_(session_ids))}
    seeds = {
        row.seed_id: Seed.model_validate_json(row.body)
        for row in store.rows(SeedRow, SeedRow.seed_id.in_(sorted(set(frozen.values()))))
    }
    return {session_id: seeds[seed_id] for session_id, seed_id in frozen.items() if seed_id in seeds}


def frozen_clock(session: Session, day: str) -> datetime:
    """The incident time; a session with no time at all is frozen at its partition's start."""
    return session.incident_at or datetime.fromisoformat(day).replace(tzinfo=timezone.utc)
