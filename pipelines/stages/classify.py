"""Classify and sample: intent and outcome per session, then quotas per (intent, outcome) cell."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timezone

from ingest.models import Session, canonical_json
from taskgen.classify import Classification, classify, prepare
from taskgen.sample import StratifiedSample, sample_by_signature, stratified_sample
from taskgen.sample import coverage_markdown as _coverage_markdown

from pipelines.stages import contacts
from pipelines.stages.assemble import record_day_run
from pipelines.stages.context import RunContext
from pipelines.stages.day_records import apply_day_templates
from pipelines.stages.partition import CHUNK, classifications, home_day, raw_sessions
from pipelines.store.rows import ClassificationRow, SampleRow
from pipelines.store.repository import Store


def classify_day(store: Store, run: RunContext, day: str, *, only: list[str], run_id: str = "",
                 record_run: bool = False) -> Counter:
    """Classifies the day's sessions (or just `only`) a chunk at a time, each with its later contacts
    assembled from the landed records (`pipelines.stages.contacts`): the labels are those of the
    records landed, whichever days have run. The day's sessions (not the incident path's, whose
    templates were mined over themselves) first get the error templates mined over all of the day's
    messages. The nightly run (`run_id`, no `only`) keeps the contacts' fingerprint, so that a later
    complaint about the day's orders runs the day again; with `record_run` (a day assembled hour by
    hour) the day's run is recorded here first, with its records' fingerprint, as a day assembled
    in one piece records it."""
    if record_run and run_id and not only:
        record_day_run(store, run, run_id, day, datetime.now(timezone.utc))
    taxonomy = run.taxonomy
    reach = contacts.reach_of(raw_sessions(store, day, only), taxonomy.later_contact_window)
    index, fingerprint = contacts.day_contacts(store, run.config.ingest, reach)
    sessions = raw_sessions(store, day, only)
    if not only:
        sessions = apply_day_templates(store, day, sessions)
    cells: Counter = Counter()
    for chunk in _chunks(sessions, CHUNK):  # the day's sessions are never all held
        later = [index.later_contacts(session, taxonomy.later_contact_window) for session in chunk]
        prepare(chunk, taxonomy, later)
        rows = []
        for session, its_later in zip(chunk, later):
            c = classify(session, taxonomy, its_later)
            cells[(c.intent, c.outcome)] += 1
            rows.append(
                dict(session_id=session.session_id, day=home_day(session, day), intent=c.intent, outcome=c.outcome,
                     signature=c.signature, evidence=canonical_json(c.evidence), detail=classification_detail(c))
            )
        store.upsert(ClassificationRow, rows)
    if run_id and not only:
        contacts.record_contacts(store, run_id, fingerprint)
    return cells


def _chunks(sessions: Iterator[Session], size: int) -> Iterator[list[Session]]:
    chunk: list[Session] = []
    for session in sessions:
        chunk.append(session)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def classification_detail(c: Classification) -> str:
    """The store's `detail` column: what decided the label, what disagreed with it (ids and kinds only),
    the intent's confidence."""
    return canonical_json(c.model_dump(include={"signals", "review_questions", "intent_confidence", "uncertain", "uncertain_because",
                                     "executed_actions", "outcome_uncertain", "outcome_uncertain_because"}))


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
        sample = sample_by_signature(((*keys, *_uncertain(detail)) for *keys, detail in rows), run.config.taskgen.sampling)
    store.upsert(
        SampleRow,
        [dict(day=day, scope=scope, selected=canonical_json(sample.selected),
              members=canonical_json(sample.members), coverage=sample.model_dump_json())],
    )
    return sample


def _uncertain(detail: str | None) -> tuple[bool, bool]:
    """Whether the stored label's intent was uncertain, and its outcome (its `detail` column)."""
    found = json.loads(detail) if detail else {}
    return bool(found.get("uncertain")), bool(found.get("outcome_uncertain"))


def coverage_markdown(sample: StratifiedSample) -> str:
    return _coverage_markdown(sample)
