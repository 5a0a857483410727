"""Classify and sample: intent and outcome per session, then quotas per (intent, outcome) cell."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta

from ingest.models import Session, canonical_json
from taskgen.classify import Classification, classify, prepare
from taskgen.contacts import ContactIndex, LaterSession
from taskgen.sample import StratifiedSample, sample_by_signature, stratified_sample
from taskgen.sample import coverage_markdown as _coverage_markdown

from pipelines.stages.context import RunContext
from pipelines.stages.partition import CHUNK, classifications, home_day, raw_sessions
from pipelines.store.rows import ClassificationRow, RawSessionRow, SampleRow
from pipelines.store.repository import Store


def _contact_index(store: Store, sessions: list[Session], window: timedelta) -> ContactIndex:
    """Sessions that may be later contacts of `sessions`: those of the raw zone's days from the first
    session's day to the window's end after the last one (only what matching needs is kept)."""
    times = [t for s in sessions for t in (s.started_at, s.ended_at) if t is not None]
    if not times:
        return ContactIndex([])
    first, last = min(times).date(), (max(times) + window).date()
    days = [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
    contacts = []
    for start in range(0, len(days), CHUNK):
        ids = store.values(RawSessionRow.session_id, RawSessionRow.day.in_(days[start : start + CHUNK]))
        for chunk in range(0, len(ids), CHUNK):
            rows = store.rows(RawSessionRow, RawSessionRow.session_id.in_(ids[chunk : chunk + CHUNK]))
            contacts += [LaterSession.of(Session.model_validate_json(row.body)) for row in rows]
    return ContactIndex(contact for contact in contacts if contact is not None)


def classify_day(store: Store, run: RunContext, day: str, *, only: list[str]) -> Counter:
    """Classifies the day's sessions (or just `only`), each with its later contacts from the raw zone."""
    taxonomy = run.taxonomy
    sessions = list(raw_sessions(store, day, only))
    contacts = _contact_index(store, sessions, taxonomy.later_contact_window)
    prepare(sessions, taxonomy)
    rows, cells = [], Counter()
    for session in sessions:
        c = classify(session, taxonomy, contacts.later_contacts(session, taxonomy.later_contact_window))
        cells[(c.intent, c.outcome)] += 1
        rows.append(
            dict(session_id=session.session_id, day=home_day(session, day), intent=c.intent, outcome=c.outcome,
                 signature=c.signature, evidence=canonical_json(c.evidence), detail=classification_detail(c))
        )
        if len(rows) >= CHUNK:  # written a chunk at a time: the day's rows are never all held
            store.upsert(ClassificationRow, rows)
            rows = []
    store.upsert(ClassificationRow, rows)
    return cells


def classification_detail(c: Classification) -> str:
    """The store's `detail` column: what decided the label, what disagreed with it (ids and kinds only),
    the intent's confidence."""
    return canonical_json(c.model_dump(include={"signals", "review_questions", "intent_confidence", "uncertain"}))


def strata_markdown(cells: Counter) -> str:
    lines = ["| intent | outcome | sessions |", "| --- | --- | ---: |"]
    lines += [f"| {i} | {o} | {n} |" for (i, o), n in sorted(cells.items())]
    return "\n".join(lines)


_SAMPLE_KEYS = (ClassificationRow.session_id, ClassificationRow.intent, ClassificationRow.outcome, ClassificationRow.signature,
                ClassificationRow.detail)
_SAMPLE_ORDER = (ClassificationRow.signature, ClassificationRow.session_id)


def sample_day(store: Store, run: RunContext, day: str, *, scope: str, only: list[str]) -> StratifiedSample:
    if only:
        items = sorted(classifications(store, day, only).items())
        every = max(1, len(items))  # the on-call path drafts every session of its incident
        sample = stratified_sample(
            items, run.config.taskgen.sampling.model_copy(update={"easy_cell_cap": every, "default_quota": every})
        )
    else:  # the day's classifications streamed by signature into per-cell reservoirs
        rows = store.stream(_SAMPLE_KEYS, ClassificationRow.day == day, order_by=_SAMPLE_ORDER)
        sample = sample_by_signature(((*keys, _uncertain(detail)) for *keys, detail in rows), run.config.taskgen.sampling)
    store.upsert(
        SampleRow,
        [dict(day=day, scope=scope, selected=canonical_json(sample.selected),
              members=canonical_json(sample.members), coverage=sample.model_dump_json())],
    )
    return sample


def _uncertain(detail: str | None) -> bool:
    """Whether the stored label's intent confidence was below the threshold (its `detail` column)."""
    return bool(detail) and bool(json.loads(detail).get("uncertain"))


def coverage_markdown(sample: StratifiedSample) -> str:
    return _coverage_markdown(sample)
