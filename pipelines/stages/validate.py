"""Validate: set validation and the cross-replay health check (reference agent, refund-everything,
do-nothing, the incident's own replay) of a day's tasks."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ingest.models import canonical_json
from taskgen.health import check_set, summarize, with_issues
from taskgen.output import load_task, refresh_manifest
from taskgen.review import current_version
from taskgen.seeds import Seed
from taskgen.task import DraftTask
from taskgen.validate import validate_set, validate_task

from pipelines.stages.context import RunContext
from pipelines.stages.partition import day_sample
from pipelines.store.rows import RunRow, SeedRow, TaskRow
from pipelines.store.repository import Store


@dataclass
class ValidationReport:
    tasks: int = 0
    with_issues: int = 0
    reference_failures: int = 0
    markdown: str = ""
    summary: dict = field(default_factory=dict)
    task_ids: list[str] = field(default_factory=list)  # the tasks this run validated (its checks judge these)


def _day_tasks(out: Path, task_rows: dict[str, TaskRow]) -> list[DraftTask]:
    """The rows' task files, read where the rows say they are (not the whole task folder);
    a file someone deleted is skipped, as a scan of the folder would."""
    paths = [out / row.path for row in task_rows.values()]
    return sorted((load_task(path) for path in paths if path.is_file()), key=lambda task: task.task_id)


def validate_day(store: Store, run: RunContext, day: str, *, scope: str, run_id: str) -> ValidationReport:
    out, domain = run.output, run.domain
    sample = day_sample(store, day, scope)
    where = [TaskRow.day == day]
    if sample is not None and scope != "nightly":
        where = [TaskRow.session_id.in_(sample.selected)]
    task_rows = {row.task_id: row for row in store.rows(TaskRow, *where)}
    tasks = _day_tasks(out, task_rows)
    seed_ids = sorted({task.seed_id for task in tasks})
    seeds = {row.seed_id: Seed.model_validate_json(row.body) for row in store.rows(SeedRow, SeedRow.seed_id.in_(seed_ids))}
    results, updates, report = [], [], ValidationReport(tasks=len(tasks), task_ids=[task.task_id for task in tasks])
    set_issues = validate_set(tasks)
    for task, health in zip(tasks, check_set(tasks, seeds, domain)):
        seed = seeds[task.seed_id]
        issues = validate_task(task, seed, domain) + [i for i in set_issues if i.subject in (task.task_id, task.pair_id)]
        health = with_issues(health, [issue.code for issue in issues])
        results.append(health)
        report.with_issues += bool(issues)
        report.reference_failures += not (health.reference_passed or health.stub)
        updates.append(
            dict(task_rows[task.task_id].model_dump(), issues=canonical_json([i.model_dump() for i in issues]),
                 health=health.model_dump_json())
        )
    store.upsert(TaskRow, updates)
    set_version = current_version(out)
    summary = summarize(results, tasks, set_version)
    report.summary = summary.model_dump()
    report.markdown = health_markdown(summary)
    refresh_manifest(out, set_version)
    _finish_run(store, run_id, report)
    return report


def _finish_run(store: Store, run_id: str, report: "ValidationReport") -> None:
    rows = store.rows(RunRow, RunRow.run_id == run_id)
    if not rows:
        return
    summary = json.loads(rows[0].summary) | {"tasks": report.tasks, "with_issues": report.with_issues}
    store.upsert(
        RunRow,
        [dict(rows[0].model_dump(), finished_at=datetime.now(timezone.utc), summary=canonical_json(summary))],
    )


def health_markdown(summary) -> str:
    """Per set: the verdicts of the tasks that are not stubs, then the pairs (stubs apart)."""
    lines = [
        f"task-set version: {summary.version}",
        "",
        "| set | tasks | works | broken | no power | pair not discriminating | incident passes | invalid | reference pass | refund-all pass | do-nothing pass |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in ("capability", "regression"):
        s = getattr(summary, name)
        lines.append(
            f"| {name} | {s.tasks} | {s.works} | {s.broken} | {s.no_discriminating_power} | {s.pair_not_discriminating} | {s.incident_passes} | {s.invalid} | "
            f"{s.reference_pass_rate:.0%} | {s.refund_all_pass_rate:.0%} | {s.do_nothing_pass_rate:.0%} |"
        )
    lines += [
        "",
        "| set | pairs | stubs | pairs that discriminate | failed incidents whose replay fails the positive |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name in ("capability", "regression"):
        s = getattr(summary, name)
        lines.append(
            f"| {name} | {s.pairs} | {s.stub_pairs} ({s.stub_share:.0%}) | "
            f"{s.discriminating_pairs} ({s.discriminating_share:.0%} of non-stub pairs) | "
            f"{s.incident_replay_fails} of {s.incident_replayed} ({s.incident_fail_share:.0%}) |"
        )
    return "\n".join(lines)
