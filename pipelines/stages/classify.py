"""Classify and sample: intent and outcome per session, then quotas per (intent, outcome) cell."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone

from ingest.models import canonical_json
from taskgen.classify import classify
from taskgen.sample import StratifiedSample, sample_by_signature, stratified_sample
from taskgen.sample import coverage_markdown as _coverage_markdown

from pipelines.stages.assemble import record_day_run
from pipelines.stages.context import RunContext
from pipelines.stages.day_records import apply_day_templates
from pipelines.stages.partition import CHUNK, classifications, home_day, raw_sessions
from pipelines.store.rows import ClassificationRow, SampleRow
from pipelines.store.repository import Store


def classify_day(store: Store, run: RunContext, day: str, *, only: list[str], record_run_id: str = "") -> Counter:
    """Classify the day's sessions (or `only` those), giving the day's first the error templates
    mined over all of its sessions. With `record_run_id` (a day assembled hour by hour), the day's
    run is recorded here, with its fingerprint, as a day assembled in one piece records it."""
    if record_run_id:
        record_day_run(store, run, record_run_id, day, datetime.now(timezone.utc))
    sessions = raw_sessions(store, day, only)
    if not only:  # the incident path's sessions got templates mined over themselves
        sessions = apply_day_templates(store, day, sessions)
    rows, cells = [], Counter()
    for session in sessions:
        c = classify(session, run.taxonomy)
        cells[(c.intent, c.outcome)] += 1
        rows.append(
            dict(session_id=session.session_id, day=home_day(session, day), intent=c.intent, outcome=c.outcome,
                 signature=c.signature, evidence=canonical_json(c.evidence))
        )
        if len(rows) >= CHUNK:  # written a chunk at a time: the day's rows are never all held
            store.upsert(ClassificationRow, rows)
            rows = []
    store.upsert(ClassificationRow, rows)
    return cells


def strata_markdown(cells: Counter) -> str:
    lines = ["| intent | outcome | sessions |", "| --- | --- | ---: |"]
    lines += [f"| {i} | {o} | {n} |" for (i, o), n in sorted(cells.items())]
    return "\n".join(lines)


_SAMPLE_KEYS = (ClassificationRow.session_id, ClassificationRow.intent, ClassificationRow.outcome, ClassificationRow.signature)
_SAMPLE_ORDER = (ClassificationRow.signature, ClassificationRow.session_id)


def sample_day(store: Store, run: RunContext, day: str, *, scope: str, only: list[str]) -> StratifiedSample:
    if only:
        items = sorted(classifications(store, day, only).items())
        every = max(1, len(items))  # the on-call path drafts every session of its incident
        sample = stratified_sample(
            items, run.config.taskgen.sampling.model_copy(update={"easy_cell_cap": every, "default_quota": every})
        )
    else:  # the day's classifications streamed by signature into per-cell reservoirs
        sample = sample_by_signature(store.stream(_SAMPLE_KEYS, ClassificationRow.day == day, order_by=_SAMPLE_ORDER),
                                     run.config.taskgen.sampling)
    store.upsert(
        SampleRow,
        [dict(day=day, scope=scope, selected=canonical_json(sample.selected),
              members=canonical_json(sample.members), coverage=sample.model_dump_json())],
    )
    return sample


def coverage_markdown(sample: StratifiedSample) -> str:
    return _coverage_markdown(sample)
