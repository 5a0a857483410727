"""The run summary a person reads: counts from the store, never a record's values."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ingest.models import SOURCES
from taskgen.health import HealthResult, summarize
from taskgen.output import load_task

from pipelines.store.rows import (
    ClassificationRow,
    QuarantineRow,
    RawRecordRow,
    RawSessionRow,
    RunRow,
    ScrubbedSessionRow,
    TaskRow,
)
from pipelines.store.repository import Store


@dataclass
class RunSummary:
    days: list[str]
    records: dict[str, int] = field(default_factory=dict)
    quarantined: dict[str, int] = field(default_factory=dict)
    quarantine_reasons: dict[str, int] = field(default_factory=dict)
    sessions: int = 0
    strata: dict[str, int] = field(default_factory=dict)
    entities: dict[str, int] = field(default_factory=dict)
    tasks: dict[str, int] = field(default_factory=dict)
    tasks_with_issues: int = 0
    health: dict[str, int] = field(default_factory=dict)
    by_set: dict[str, dict[str, int]] = field(default_factory=dict)
    health_figures: dict = field(default_factory=dict)  # taskgen.health.HealthSummary: per set, pairs and incidents
    output: str = ""
    failed_checks: list[dict] = field(default_factory=list)
    run_ids: list[str] = field(default_factory=list)
    incident: str | None = None

    def to_json(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True, indent=2)


def summarize_days(store: Store, days: list[str], output: Path, task_ids: list[str] | None = None) -> RunSummary:
    summary = RunSummary(days=days, output=str(output))
    day_in = lambda column: column.in_(days)  # noqa: E731 - a short filter reused below
    records = store.tally(RawRecordRow.source, where=[day_in(RawRecordRow.day)])
    summary.records = {source: records.get(source, 0) for source in SOURCES}
    quarantine_where = [day_in(QuarantineRow.day)]
    summary.quarantined = dict(sorted(store.tally(QuarantineRow.source, where=quarantine_where).items()))
    summary.quarantine_reasons = dict(sorted(store.tally(QuarantineRow.reason, where=quarantine_where).items()))
    summary.sessions = store.count(RawSessionRow, day_in(RawSessionRow.day))
    strata = store.tally(ClassificationRow.intent, ClassificationRow.outcome, where=[day_in(ClassificationRow.day)])
    summary.strata = dict(sorted((f"{intent} / {outcome}", n) for (intent, outcome), n in strata.items()))
    entities: Counter = Counter()
    for counts in store.values(ScrubbedSessionRow.counts, day_in(ScrubbedSessionRow.day)):
        entities.update(json.loads(counts))
    summary.entities = dict(sorted(entities.items()))
    task_filter = TaskRow.task_id.in_(task_ids) if task_ids is not None else day_in(TaskRow.day)
    tasks = store.rows(TaskRow, task_filter)
    summary.tasks = dict(sorted(Counter(t.polarity for t in tasks).items()))
    summary.tasks_with_issues = sum(1 for t in tasks if json.loads(t.issues))
    health: Counter = Counter()
    by_set: dict[str, Counter] = {}
    for task in tasks:
        result = json.loads(task.health or "{}")
        verdict = result.get("verdict", "not checked")
        health[verdict] += 1
        by_set.setdefault(task.task_set, Counter())[verdict] += 1
    summary.health = dict(sorted(health.items()))
    summary.health_figures = _health_figures(tasks, output)
    summary.by_set = {name: dict(sorted(c.items())) for name, c in sorted(by_set.items())}
    return summary


def record_failed_checks(store: Store, run_id: str, failed: list[dict]) -> None:
    """Keep a run's failed checks with the run, so that a later command skipping its unchanged
    day still reports them."""
    rows = store.rows(RunRow, RunRow.run_id == run_id)
    if rows:
        summary = json.loads(rows[0].summary) | {"failed_checks": failed}
        store.upsert(RunRow, [dict(rows[0].model_dump(), summary=json.dumps(summary, sort_keys=True))])


def last_failed_checks(store: Store, days: list[str]) -> dict[str, tuple[str, list[dict]]]:
    """For each day, its last finished nightly run and the checks that run failed."""
    last: dict[str, RunRow] = {}
    for run in store.rows(RunRow, RunRow.partition.in_(days), RunRow.scope == "nightly", RunRow.finished_at.is_not(None)):
        if run.partition not in last or run.finished_at > last[run.partition].finished_at:
            last[run.partition] = run
    return {day: (run.run_id, json.loads(run.summary).get("failed_checks", [])) for day, run in last.items()}
def _health_figures(rows: list[TaskRow], output: Path) -> dict:
    """The health report per set (taskgen.health.summarize) of the checked tasks whose files are there."""
    checked = [row for row in rows if json.loads(row.health or "{}").get("verdict") and (output / row.path).is_file()]
    results = [HealthResult.model_validate_json(row.health) for row in checked]
    tasks = [load_task(output / row.path) for row in checked]
    return summarize(results, tasks).model_dump() if checked else {}
