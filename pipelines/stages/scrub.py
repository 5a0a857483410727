"""Scrub: the sampled sessions and their state rows with every person replaced; the leak gate applied."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ingest.models import QuarantinedRecord, canonical_json

from pipelines.stages.context import RunContext
from pipelines.stages.partition import day_sample, home_day, raw_sessions
from pipelines.stages.state import AppState
from pipelines.store.rows import ScrubbedSessionRow
from pipelines.store.repository import Store


@dataclass
class ScrubDayResult:
    scrubbed: int = 0
    failed: int = 0
    entities: dict[str, int] = field(default_factory=dict)


def scrub_day(
    store: Store, run: RunContext, state: AppState, day: str, *, scope: str, run_id: str
) -> ScrubDayResult:
    sample = day_sample(store, day, scope)
    result = ScrubDayResult()
    if sample is None or not sample.selected:
        return result
    sessions = raw_sessions(store, day, sample.selected)
    items = [(s, state.snapshot(s.entity_ids, s.incident_at)) for s in sessions]
    scrubbed = run.scrubber_for(state).scrub_sessions(items, state.pii_fields(), run.real_people(state))
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
