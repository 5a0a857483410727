"""The CLI's one runner: the Dagster jobs a command launches, recorded in a persistent Dagster instance.

It plans a refresh or an incident (`pipelines.stages.plan`: checks, landing, the days unchanged
since their last run), launches the same jobs the schedule, the sensor and the UI run from the
workspace's code location (`pipelines.defs.launch`, the only part that touches Dagster), so every
run shows in the UI's run list, timeline and lineage and re-executes from the UI, and reads each
run's outcome. Plain code: the runs' order, workers, hours before their day, spans and outcomes.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines.config import AppConfig
from pipelines.defs.engines import executor_for
from pipelines.defs.launch import code_server, dagster_instance, launch_and_wait
from pipelines.stages import plan
from pipelines.stages.dagster_home import dagster_home
from pipelines.stages.plan import IncidentPlan, RefreshPlan, RunOutcome, day_outcomes, failed_checks, run_url, step_failures
from pipelines.stages.windows import Window
from pipelines.telemetry import TRACEPARENT_TAG, configure, stage_span, trace_carrier

if TYPE_CHECKING:
    from pipelines.defs.launch import DagsterInstance


def plan_refresh(config: AppConfig, days: list[str] | None) -> RefreshPlan:
    """`pipelines.stages.plan.plan_refresh`, the configured executor checked first: a missing
    integration package fails here, once, not in every run."""
    executor_for(config.executor)
    return plan.plan_refresh(config, days)


def plan_incident(config: AppConfig, incident_id: str) -> IncidentPlan:
    """`pipelines.stages.plan.plan_incident`, the configured executor checked first."""
    executor_for(config.executor)
    return plan.plan_incident(config, incident_id)


def _run_config(config_path: Path, incident_id: str) -> dict:
    return {
        "loggers": {"console": {"config": {"log_level": "CRITICAL"}}},  # the CLI prints each failed step as one line
        "resources": {
            "settings": {"config": {"config_path": str(config_path.resolve())}},
            "scope": {"config": {"incident_id": incident_id}},
        }
    }


HOURLY_JOB = "sessions_by_hour"
"""With `partitions.by: hour`, the job of an hour's partition: landing and assembly."""


def run_partition(
    config: AppConfig,
    config_path: Path,
    partition: str,
    *,
    incident_id: str = "",
    executor: str = "",
    job_name: str = "",
    instance: DagsterInstance | None = None,
    workspace: Path | None = None,
) -> RunOutcome:
    """One run of the nightly (or, with an incident id, the incident) job for one partition
    (`job_name` names another job, such as an hour's `sessions_by_hour`), launched from the
    workspace's code location (`pipelines.defs.launch`) and waited for: at the command's code
    server `workspace` points to, or at one started for this run.

    The steps run on the configuration's executor (`executor:` in trace2task.yaml), or on
    `executor` if given: "in_process" (one process, spaCy loaded once) or "multiprocess" (a
    process per step); the code location reads it from TRACE2TASK_EXECUTOR.
    """
    instance = instance or dagster_instance(config)  # made (under its lock) before a code server opens it
    if workspace is None:
        with code_server(Path(dagster_home(config)), config_path, executor=executor) as served:
            return run_partition(config, config_path, partition, incident_id=incident_id, job_name=job_name,
                                 instance=instance, workspace=served)
    job = job_name or ("incident" if incident_id else "nightly_refresh")
    tags = {"dagster/partition": partition}
    if incident_id:
        tags["trace2task/incident"] = incident_id
    configure(config.telemetry, config.base_dir)
    with stage_span("run", partition=partition, job=job) as span:
        tags.update({TRACEPARENT_TAG: carrier["traceparent"]} if (carrier := trace_carrier()).get("traceparent") else {})
        launched = launch_and_wait(
            instance, Path(dagster_home(config)), workspace, config_path, job, _run_config(config_path, incident_id), tags,
        )
        span.set_attribute("trace2task.run_id", launched.run_id)
        span.set_attribute("trace2task.success", launched.success)
    failures = [f"the run did not start: {launched.launch_error}"] if launched.launch_error else step_failures(launched.events)
    return RunOutcome(run_id=launched.run_id, partition=partition, success=launched.success, failures=failures,
                      failed_checks=failed_checks(launched.events), url=run_url(config, launched.run_id))


def run_partitions(
    config: AppConfig,
    config_path: Path,
    partitions: list[str],
    *,
    workers: int,
    executor: str = "",
    on_done: Callable[[RunOutcome], None] | None = None,
) -> list[RunOutcome]:
    """Run the nightly job for each day, `workers` runs at a time (one process each), all launched
    at one code server started for the command (`pipelines.defs.launch.code_server`).

    With `partitions.by: hour`, each day is first the runs of `sessions_by_hour` of its hours that
    hold landed records (`plan.hours_to_run`: landing and assembly, spread over the workers like
    days; the command landed every source before), then the day's run of the
    nightly job from classification on; a day one of whose hours failed is not run, and its
    outcome carries the hours' failures and failed checks. `on_done` sees every run, hours too
    (`plan.runs_per_day` says how many a day makes)."""
    instance = dagster_instance(config)  # made (under its lock) before any launch reads it
    with code_server(Path(dagster_home(config)), config_path, executor=executor) as workspace:
        def run_all(runs: list[tuple[str, str]]) -> list[RunOutcome]:
            return _run_all(config, config_path, runs, workers, instance, workspace, on_done)

        if config.partitions.by != "hour":
            return run_all([("nightly_refresh", day) for day in partitions])
        hours = run_all([(HOURLY_JOB, hour) for hour in plan.hours_to_run(config, partitions)])
        by_day: dict[str, list[RunOutcome]] = {}
        for outcome in hours:
            by_day.setdefault(Window.of(outcome.partition).day, []).append(outcome)
        ready = [day for day in partitions if all(outcome.success for outcome in by_day.get(day, []))]
        days = {outcome.partition: outcome for outcome in run_all([("nightly_refresh", day) for day in ready])}
    return day_outcomes(partitions, by_day, days)


def _run_all(
    config: AppConfig, config_path: Path, runs: list[tuple[str, str]], workers: int, instance: DagsterInstance,
    workspace: Path, on_done: Callable[[RunOutcome], None] | None,
) -> list[RunOutcome]:
    """Each (job, partition) run, `workers` at a time (each run its own process), sorted by partition."""
    outcomes: list[RunOutcome] = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [
            pool.submit(run_partition, config, config_path, partition, job_name=job_name, instance=instance,
                        workspace=workspace)
            for job_name, partition in runs
        ]
        for future in as_completed(futures):
            outcomes.append(future.result())
            if on_done:
                on_done(outcomes[-1])
    return sorted(outcomes, key=lambda o: o.partition)
