"""What a command runs, before Dagster runs it, and what it reports after: the plan of a refresh
(checks, landing, the days unchanged since their last run) or of an incident (its sessions and
day), the outcome of each run with the checks it failed, and the summary written from the store.

Plain functions: `pipelines.cli.runner` launches the runs between the plan and the summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from pipelines.config import AppConfig, ConfigError
from pipelines.stages.assemble import IncidentNotFound
from pipelines.stages.context import RunContext
from pipelines.stages.fingerprint import unchanged_partitions
from pipelines.stages.partition import first_day
from pipelines.stages.preflight import check_partitions, check_reachable, check_sources, land_everything, landed_days
from pipelines.stages.summary import RunSummary, last_failed_checks, record_failed_checks, summarize_days
from pipelines.stages.windows import landed_hours
from pipelines.store.repository import open_store
from pipelines.store.rows import TaskRow


@dataclass
class FailedCheck:
    """An asset check that did not pass: which, on which asset and day, and its figures."""

    check: str
    asset: str
    partition: str | None
    severity: str
    figures: dict[str, str]

    @property
    def fails_the_run(self) -> bool:
        return self.severity == "ERROR"

    def describe(self) -> str:
        figures = ", ".join(f"{name} {value}" for name, value in sorted(self.figures.items()))
        return f"check {self.check} failed on {self.asset} for {self.partition or 'no partition'}" + (f": {figures}" if figures else "")


@dataclass
class RunOutcome:
    run_id: str
    partition: str
    success: bool
    failures: list[str]
    failed_checks: list[FailedCheck] = field(default_factory=list)
    url: str = ""
    """the run's page in the Dagster UI (`run_url`)"""

    @property
    def ok(self) -> bool:
        return self.success and not any(check.fails_the_run for check in self.failed_checks)


@dataclass
class RefreshPlan:
    days: list[str]
    """The days asked for (or every day the landed records cover)."""
    todo: list[str]
    """Of `days`, those whose records or settings changed since their last run."""

    @property
    def skipped(self) -> list[str]:
        return [day for day in self.days if day not in self.todo]


def plan_refresh(config: AppConfig, days: list[str] | None) -> RefreshPlan:
    """Check the configuration once, land every source once (the runs' raw assets then find
    nothing new to read) and leave out the days unchanged since their last run."""
    check_sources(config, f"write one with `trace2task demo-data --out {config.path(config.drop)}`")
    run = RunContext(config)
    run.secret  # a missing secret fails here, once, not in every run
    store = open_store(config)
    land_everything(store, config)
    if days is None:
        days = landed_days(store)
        if not days:
            raise ConfigError(f"no records in {config.path(config.drop)}: nothing to run")
    check_reachable(run)
    check_partitions(days, first_day(config, store))
    unchanged = unchanged_partitions(store, run, days)
    return RefreshPlan(days=days, todo=[day for day in days if day not in unchanged])


def skipped_outcomes(config: AppConfig, days: list[str]) -> list[RunOutcome]:
    """The last runs of the days skipped as unchanged, with the checks they failed: a day whose
    data fails a check keeps failing the command until its data or settings change."""
    return [
        RunOutcome(run_id=run_id, partition=day, success=True, failures=[],
                   failed_checks=[FailedCheck(**check) for check in failed])
        for day, (run_id, failed) in sorted(last_failed_checks(open_store(config), days).items())
        if failed
    ]


@dataclass
class IncidentPlan:
    incident_id: str
    day: str
    sessions: list[str]


def plan_incident(config: AppConfig, incident_id: str) -> IncidentPlan:
    """The incident's sessions and partition, after the same checks and landing as a refresh."""
    check_sources(config, "the incident's records are read from it")
    run = RunContext(config)
    run.secret
    check_reachable(run)
    store = open_store(config)
    land_everything(store, config)
    sessions = store.resolve_incident(incident_id)
    if not sessions:
        raise IncidentNotFound(
            f"incident {incident_id!r} not found in {config.path(config.drop)}: no landed ticket, escalation, deploy, "
            "trace or session has that id (a record that could not be read is quarantined, not landed: "
            "see `quarantine reasons` after `trace2task run`)"
        )
    day = store.incident_day(sessions) or datetime.now(timezone.utc).date().isoformat()
    check_partitions([day], first_day(config, store))
    return IncidentPlan(incident_id=incident_id, day=day, sessions=sessions)


def incident_tasks(config: AppConfig, plan: IncidentPlan) -> list[TaskRow]:
    """The tasks drafted from the incident's sessions, each positive before its negative."""
    tasks = open_store(config).rows(TaskRow, TaskRow.session_id.in_(plan.sessions))
    return sorted(tasks, key=lambda t: (t.pair_id, t.polarity != "positive"))


def write_summary(
    config: AppConfig, days: list[str], outcomes: list[RunOutcome], task_ids: list[str] | None = None, incident_id: str = ""
) -> tuple[RunSummary, Path]:
    """The run summary of `days` (or of an incident's tasks) with the runs and the checks they
    failed, which are also kept with each run. The nightly one is written to
    `run-summary.json` in the output; an incident's to `incidents/<id>.json`, leaving the nightly one alone."""
    from taskgen.output import atomic_write

    store = open_store(config)
    summary = summarize_days(store, days, config.path(config.output).resolve(), task_ids)
    summary.failed_checks = [check.__dict__ for outcome in outcomes for check in outcome.failed_checks]
    for outcome in outcomes:
        record_failed_checks(store, outcome.run_id, [check.__dict__ for check in outcome.failed_checks])
    summary.run_ids = [outcome.run_id for outcome in outcomes]
    name = Path("run-summary.json")
    if incident_id:  # the incident's own tasks, not the day's tables
        summary.incident = incident_id
        name = Path("incidents") / (re.sub(r"[^A-Za-z0-9._-]", "_", incident_id) + ".json")
    return summary, atomic_write(config.path(config.output) / name, summary.to_json() + "\n")




def run_url(config: AppConfig, run_id: str) -> str:
    """The run's page in the Dagster UI (`dagster_url`)."""
    return f"{config.dagster_url.rstrip('/')}/runs/{run_id}"


def step_failures(events: list) -> list[str]:
    """Each failed step of a run's Dagster events, with the last line of its root cause."""
    messages = []
    for event in events:
        if event.is_step_failure:
            error = event.step_failure_data.error
            cause = error
            while cause is not None and cause.cause is not None:
                cause = cause.cause
            text = (cause or error).message.strip().splitlines()[-1] if error else "unknown error"
            messages.append(f"{event.step_key}: {text}")
    return messages


def failed_checks(events: list) -> list[FailedCheck]:
    """Every check evaluation of the run that did not pass; its metadata holds counts and ids only."""
    failed = []
    for event in events:
        if event.event_type_value != "ASSET_CHECK_EVALUATION":
            continue
        evaluation = event.event_specific_data
        if evaluation.passed:
            continue
        figures = {name: str(getattr(value, "value", value)) for name, value in evaluation.metadata.items()}
        failed.append(FailedCheck(check=evaluation.check_name, asset=evaluation.asset_key.to_user_string(),
                                  partition=evaluation.partition, severity=evaluation.severity.value, figures=figures))
    return failed


def day_outcomes(days: list[str], hours: dict[str, list[RunOutcome]], ran: dict[str, RunOutcome]) -> list[RunOutcome]:
    """By hour, each day's outcome: its day run's (or, when an hour failed and the day was not run,
    a failure naming the first hour's run), with its hours' failures and failed checks."""
    outcomes = []
    for day in days:
        outcome = ran.get(day)
        if outcome is None:  # not run: one of its hours failed (a day may have no hour with records)
            first = hours[day][0]
            outcome = RunOutcome(run_id=first.run_id, partition=day, success=False,
                                 failures=["an hour's run failed: the day's sample and tasks were not made"], url=first.url)
        for hour in sorted(hours.get(day, []), key=lambda o: o.partition):
            outcome.failures += [f"{hour.partition}: {failure}" for failure in hour.failures]
            outcome.failed_checks += hour.failed_checks
            outcome.success = outcome.success and hour.success
        outcomes.append(outcome)
    return outcomes


def hours_to_run(config: AppConfig, days: list[str]) -> list[str]:
    """By hour (`partitions.by: hour`), the hourly partitions of these days that hold landed records
    (`landed_hours`: an hour without records has nothing to assemble and is not launched)."""
    store = open_store(config)
    try:
        return [hour for day in days for hour in landed_hours(store, day)]
    finally:
        store.dispose()


def runs_per_day(config: AppConfig, day: str) -> int:
    """The Dagster runs a day's refresh makes: one, or by hour its `hours_to_run` and the day's."""
    return 1 + len(hours_to_run(config, [day])) if config.partitions.by == "hour" else 1
