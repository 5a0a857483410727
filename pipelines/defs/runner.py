"""Launch the Dagster jobs from the command line, recorded in a persistent Dagster instance.

The CLI's one way in: it plans a refresh or an incident here (checks, landing, the days
unchanged since their last run), launches the same jobs the schedule, the sensor and the UI run
from the workspace's code location (`pipelines.defs.launch`), so every run shows in the UI's run
list, timeline and lineage and re-executes from the UI, and reads the run summary here.
"""

from __future__ import annotations

import fcntl
import re
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines.config import AppConfig, ConfigError
from pipelines.defs.engines import executor_for, write_run_launcher
from pipelines.defs.launch import launch_and_wait
from pipelines.stages.assemble import IncidentNotFound
from pipelines.stages.context import RunContext
from pipelines.stages.fingerprint import unchanged_partitions
from pipelines.stages.partition import first_day
from pipelines.stages.preflight import check_partitions, check_reachable, check_sources, land_everything, landed_days
from pipelines.stages.windows import Window, hours_of
from pipelines.stages.summary import RunSummary, last_failed_checks, record_failed_checks, summarize_days
from pipelines.store.repository import open_store
from pipelines.store.rows import TaskRow
from pipelines.telemetry import TRACEPARENT_TAG, configure, stage_span, trace_carrier

if TYPE_CHECKING:
    from dagster import DagsterInstance

PROJECT_DAGSTER_YAML = Path(__file__).resolve().parents[2] / "dagster.yaml"


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
    """the run's page in the Dagster UI"""

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
    executor_for(config.executor)  # so does an executor whose package is missing
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
    executor_for(config.executor)
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


def dagster_instance(config: AppConfig) -> DagsterInstance:
    """The persistent instance in the configured Dagster home (made with the project's dagster.yaml)."""
    return _open_instance(_dagster_home(config))


def _dagster_home(config: AppConfig) -> str:
    home = config.path(config.dagster_home).resolve()
    home.mkdir(parents=True, exist_ok=True)
    target = home / "dagster.yaml"
    if not target.exists() and PROJECT_DAGSTER_YAML.exists():
        shutil.copyfile(PROJECT_DAGSTER_YAML, target)
    write_run_launcher(target, config.run_launcher)
    return str(home)


def _open_instance(home: str) -> DagsterInstance:
    """Open the instance under a lock: two commands creating a new home's storage at once
    (the nightly run and the on-call path) would otherwise race to create its tables."""
    from dagster import DagsterInstance

    with open(Path(home) / ".trace2task-open.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return DagsterInstance.from_config(home)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run_config(config_path: Path, incident_id: str) -> dict:
    return {
        "loggers": {"console": {"config": {"log_level": "CRITICAL"}}},  # the CLI prints each failed step as one line
        "resources": {
            "settings": {"config": {"config_path": str(config_path.resolve())}},
            "scope": {"config": {"incident_id": incident_id}},
        }
    }


def _failures(events: list) -> list[str]:
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


def _failed_checks(events: list) -> list[FailedCheck]:
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


HOURLY_JOB = "sessions_by_hour"
"""With `partitions.by: hour`, the job of an hour's partition: landing and assembly."""


def runs_per_day(config: AppConfig) -> int:
    """The Dagster runs a day's refresh makes: one, or 24 hours' and the day's."""
    return 25 if config.partitions.by == "hour" else 1


def run_partition(
    config: AppConfig,
    config_path: Path,
    partition: str,
    *,
    incident_id: str = "",
    executor: str = "",
    job_name: str = "",
    instance: DagsterInstance | None = None,
) -> RunOutcome:
    """One run of the nightly (or, with an incident id, the incident) job for one partition
    (`job_name` names another job, such as an hour's `sessions_by_hour`), launched from the
    workspace's code location (`pipelines.defs.launch`) and waited for.

    The steps run on the configuration's executor (`executor:` in trace2task.yaml), or on
    `executor` if given: "in_process" (one process, spaCy loaded once) or "multiprocess" (a
    process per step); the launched code location reads it from TRACE2TASK_EXECUTOR.
    """
    instance = instance or dagster_instance(config)
    job = job_name or ("incident" if incident_id else "nightly_refresh")
    tags = {"dagster/partition": partition}
    if incident_id:
        tags["trace2task/incident"] = incident_id
    configure(config.telemetry, config.base_dir)
    with stage_span("run", partition=partition, job=job) as span:
        tags.update({TRACEPARENT_TAG: carrier["traceparent"]} if (carrier := trace_carrier()).get("traceparent") else {})
        launched = launch_and_wait(
            instance, Path(_dagster_home(config)), config_path, job, _run_config(config_path, incident_id), tags,
            executor=executor,
        )
        span.set_attribute("trace2task.run_id", launched.run_id)
        span.set_attribute("trace2task.success", launched.success)
    failures = [f"the run did not start: {launched.launch_error}"] if launched.launch_error else _failures(launched.events)
    return RunOutcome(run_id=launched.run_id, partition=partition, success=launched.success, failures=failures,
                      failed_checks=_failed_checks(launched.events), url=_run_url(config, launched.run_id))


def _run_url(config: AppConfig, run_id: str) -> str:
    return f"{config.dagster_url.rstrip('/')}/runs/{run_id}"


def run_partitions(
    config: AppConfig,
    config_path: Path,
    partitions: list[str],
    *,
    workers: int,
    executor: str = "",
    on_done: Callable[[RunOutcome], None] | None = None,
) -> list[RunOutcome]:
    """Run the nightly job for each day, `workers` runs at a time (one process each).

    With `partitions.by: hour`, each day is first its 24 hours' runs of `sessions_by_hour`
    (landing and assembly, spread over the workers like days), then the day's run of the
    nightly job from classification on; a day one of whose hours failed is not run, and its
    outcome carries the hours' failures and failed checks. `on_done` sees every run, hours too
    (`runs_per_day` says how many a day makes)."""
    if config.partitions.by != "hour":
        return _run_all(config, config_path, [("nightly_refresh", day) for day in partitions], workers, executor, on_done)
    hours = _run_all(config, config_path, [(HOURLY_JOB, hour) for day in partitions for hour in hours_of(day)],
                     workers, executor, on_done)
    by_day: dict[str, list[RunOutcome]] = {}
    for outcome in hours:
        by_day.setdefault(Window.of(outcome.partition).day, []).append(outcome)
    ready = [day for day in partitions if all(outcome.success for outcome in by_day.get(day, []))]
    days = {outcome.partition: outcome for outcome in _run_all(
        config, config_path, [("nightly_refresh", day) for day in ready], workers, executor, on_done)}
    outcomes = []
    for day in partitions:
        ran = days.get(day) or RunOutcome(run_id=by_day[day][0].run_id, partition=day, success=False,
                                          failures=["an hour's run failed: the day's sample and tasks were not made"],
                                          url=_run_url(config, by_day[day][0].run_id))
        for hour in sorted(by_day.get(day, []), key=lambda o: o.partition):
            ran.failures += [f"{hour.partition}: {failure}" for failure in hour.failures]
            ran.failed_checks += hour.failed_checks
            ran.success = ran.success and hour.success
        outcomes.append(ran)
    return outcomes


def _run_all(
    config: AppConfig, config_path: Path, runs: list[tuple[str, str]], workers: int, executor: str,
    on_done: Callable[[RunOutcome], None] | None,
) -> list[RunOutcome]:
    """Each (job, partition) run, `workers` at a time (each run its own process), sorted by partition."""
    instance = dagster_instance(config)  # made (under its lock) before any launch reads it
    outcomes: list[RunOutcome] = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [
            pool.submit(run_partition, config, config_path, partition, executor=executor, job_name=job_name,
                        instance=instance)
            for job_name, partition in runs
        ]
        for future in as_completed(futures):
            outcomes.append(future.result())
            if on_done:
                on_done(outcomes[-1])
    return sorted(outcomes, key=lambda o: o.partition)
