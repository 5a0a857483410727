"""Classify and sample: intent and outcome per session, then quotas per (intent, outcome) cell."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from ingest.models import canonical_json
from taskgen.classify import classify
from taskgen.config import TaskgenConfig
from taskgen.sample import StratifiedSample, stratified_sample
from taskgen.sample import coverage_markdown as _coverage_markdown

from pipelines.config import AppConfig
from pipelines.stages.partition import classifications, home_day, raw_sessions
from pipelines.store.rows import ClassificationRow, SampleRow
from pipelines.store.repository import Store


@lru_cache(maxsize=4)
def _taxonomy(config_json: str):
    return TaskgenConfig.model_validate_json(config_json).load_taxonomy()


def classify_day(store: Store, config: AppConfig, day: str, *, only: list[str]) -> Counter:
    taxonomy = _taxonomy(config.taskgen.model_dump_json())
    rows, cells = [], Counter()
    for session in raw_sessions(store, day, only):
        c = classify(session, taxonomy)
        cells[(c.intent, c.outcome)] += 1
        rows.append(
            dict(session_id=session.session_id, day=home_day(session, day), intent=c.intent, outcome=c.outcome,
                 signature=c.signature, evidence=canonical_json(c.evidence))
        )
    store.upsert(ClassificationRow, rows)
    return cells


def strata_markdown(cells: Counter) -> str:
    lines = ["| intent | outcome | sessions |", "| --- | --- | ---: |"]
    lines += [f"| {i} | {o} | {n} |" for (i, o), n in sorted(cells.items())]
    return "\n".join(lines)


def sample_day(store: Store, config: AppConfig, day: str, *, scope: str, only: list[str]) -> StratifiedSample:
    items = sorted(classifications(store, day, only).items())
    if only:
        every = max(1, len(items))  # the on-call path drafts every session of its incident
        sample = stratified_sample(
            items, config.taskgen.sampling.model_copy(update={"easy_cell_cap": every, "default_quota": every})
        )
    else:
        sample = stratified_sample(items, config.taskgen.sampling)
    store.upsert(
        SampleRow,
        [dict(day=day, scope=scope, selected=canonical_json(sample.selected),
              members=canonical_json(sample.members), coverage=sample.model_dump_json())],
    )
    return sample


def coverage_markdown(sample: StratifiedSample) -> str:
    return _coverage_markdown(sample)
