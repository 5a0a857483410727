"""Scrub: the sampled sessions and their state rows with every person replaced; the leak gate applied."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from ingest.models import QuarantinedRecord, canonical_json

from pipelines.config import AppConfig
from pipelines.stages.partition import day_sample, home_day, raw_sessions
from pipelines.store.rows import ScrubbedSessionRow
from pipelines.store.repository import Store

if TYPE_CHECKING:
    from scrubbers import Scrubber

    from pipelines.defs.resources import StateDatabase


@dataclass
class ScrubDayResult:
    scrubbed: int = 0
    failed: int = 0
    entities: dict[str, int] = field(default_factory=dict)


@lru_cache(maxsize=2)
def _scrubber(config_json: str, secret: bytes, identifiers: frozenset[str]) -> "Scrubber":
    from scrubbers import ScrubConfig, Scrubber  # imported here: Presidio and spaCy load only where they work

    return Scrubber(ScrubConfig.model_validate_json(config_json), secret, identifiers)


def scrubber_for(config: AppConfig, identifiers: frozenset[str] = frozenset()) -> "Scrubber":
    """`identifiers`: the state database's ids (`StateDatabase.identifiers()`), left alone."""
    return _scrubber(config.scrub.model_dump_json(), config.read_secret(), identifiers)


_REAL_PEOPLE: dict[tuple[str, ...], frozenset[str]] = {}
"""Per process: a worker running several days reads the state database's people once."""


def _real_people(config: AppConfig, scrubber: "Scrubber", state: "StateDatabase", pii_fields: dict[str, dict[str, str]]) -> frozenset[str]:
    key = (config.state_location(), str(config.path(config.state.mapping)), config.scrub.model_dump_json(),
           hashlib.sha256(config.read_secret()).hexdigest())
    if key not in _REAL_PEOPLE:
        _REAL_PEOPLE[key] = scrubber.real_people(state.people_rows(), pii_fields)
    return _REAL_PEOPLE[key]


def scrub_day(
    store: Store, config: AppConfig, state: "StateDatabase", day: str, *, scope: str, run_id: str
) -> ScrubDayResult:
    sample = day_sample(store, day, scope)
    result = ScrubDayResult()
    if sample is None or not sample.selected:
        return result
    sessions = raw_sessions(store, day, sample.selected)
    items = [(s, state.snapshot(s.entity_ids, s.incident_at)) for s in sessions]
    scrubber, pii_fields = scrubber_for(config, state.identifiers()), state.pii_fields()
    scrubbed = scrubber.scrub_sessions(items, pii_fields, _real_people(config, scrubber, state, pii_fields))
    entities: Counter = Counter()
    rows, failures = [], []
    for item in scrubbed:
        entities.update(item.report.counts)
        if not item.report.leak_passed:
            failures.append(item.report)
            continue
        rows.append(
            dict(session_id=item.session.session_id, day=home_day(item.session, day), session=item.session.model_dump_json(),
                 state=canonical_json(item.state), counts=canonical_json(item.report.counts))
        )
    store.upsert(ScrubbedSessionRow, rows)
    store.quarantine(
        [
            QuarantinedRecord(
                source="sessions", file=f"session:{report.session_id}", position=0,
                reason="leak gate: " + ", ".join(sorted(report.leak_types)),
            )
            for report in failures
        ],
        day=day, stage="scrub", run_id=run_id,
    )
    result.scrubbed, result.failed, result.entities = len(rows), len(failures), dict(entities)
    return result
