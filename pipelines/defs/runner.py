"""Launch the Dagster jobs from the command line, recorded in a persistent Dagster instance.

The CLI does not call the stages itself: it runs the same jobs the schedule, the sensor and
the UI run, so every run shows in the UI's run list and lineage.

Dagster is imported where a run is launched, not with this module: a command spreading its
runs over worker processes starts them at once, and only they load Dagster.
"""

from __future__ import annotations

import fcntl
import multiprocessing
import shutil
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines.config import AppConfig, load_config
from pipelines.telemetry import configure, stage_span

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

    @property
    def ok(self) -> bool:
        return self.success and not any(check.fails_the_run for check in self.failed_checks)


def dagster_instance(config: AppConfig) -> DagsterInstance:
    """The persistent instance in the configured Dagster home (made with the project's dagster.yaml)."""
    return _open_instance(_dagster_home(config))


def _dagster_home(config: AppConfig) -> str:
    home = config.path(config.dagster_home).resolve()
    home.mkdir(parents=True, exist_ok=True)
    target = home / "dagster.yaml"
    if not target.exists() and PROJECT_DAGSTER_YAML.exists():
        shutil.copyfile(PROJECT_DAGSTER_YAML, target)
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


def _run_config(config_path: Path, incident_id: str, executor: str) -> dict:
    return {
        "execution": {"config": {executor: {}}},
        "loggers": {"console": {"config": {"log_level": "CRITICAL"}}},  # the CLI prints each failed step as one line
        "resources": {
            "settings": {"config": {"config_path": str(config_path.resolve())}},
            "scope": {"config": {"incident_id": incident_id}},
        }
    }


def _failures(result) -> list[str]:
    messages = []
    for event in result.all_events:
        if event.is_step_failure:
            error = event.step_failure_data.error
            cause = error
            while cause is not None and cause.cause is not None:
                cause = cause.cause
            text = (cause or error).message.strip().splitlines()[-1] if error else "unknown error"
            messages.append(f"{event.step_key}: {text}")
    return messages


def _failed_checks(result) -> list[FailedCheck]:
    """Every check evaluation of the run that did not pass; its metadata holds counts and ids only."""
    failed = []
    for event in result.all_events:
        if event.event_type_value != "ASSET_CHECK_EVALUATION":
            continue
        evaluation = event.event_specific_data
        if evaluation.passed:
            continue
        figures = {name: str(getattr(value, "value", value)) for name, value in evaluation.metadata.items()}
        failed.append(FailedCheck(check=evaluation.check_name, asset=evaluation.asset_key.to_user_string(),
                                  partition=evaluation.partition, severity=evaluation.severity.value, figures=figures))
    return failed


def run_partition(
    instance: DagsterInstance,
    config_path: Path,
    partition: str,
    *,
    incident_id: str = "",
    executor: str = "in_process",
) -> RunOutcome:
    """One run of the nightly (or, with an incident id, the incident) job for one partition.

    `executor` is "in_process" (one process; the CLI's default, spaCy loaded once) or
    "multiprocess" (a process per step, as runs launched from the UI or the schedule use).
    """
    from dagster import execute_job, reconstructable

    from pipelines.defs import definitions

    job = reconstructable(definitions.incident_job if incident_id else definitions.nightly_refresh_job)
    tags = {"dagster/partition": partition}
    if incident_id:
        tags["trace2task/incident"] = incident_id
    config = load_config(config_path)
    configure(config.telemetry, config.base_dir)
    with stage_span("run", partition=partition, job="incident" if incident_id else "nightly_refresh") as span:
        result = execute_job(
            job, instance=instance, run_config=_run_config(config_path, incident_id, executor), tags=tags
        )
        span.set_attribute("trace2task.run_id", result.run_id)
        span.set_attribute("trace2task.success", result.success)
    return RunOutcome(run_id=result.run_id, partition=partition, success=result.success, failures=_failures(result),
                      failed_checks=_failed_checks(result))


def _run_in_worker(home: str, config_path: str, partition: str, executor: str) -> RunOutcome:
    instance = _open_instance(home)
    return run_partition(instance, Path(config_path), partition, executor=executor)


def run_partitions(
    config: AppConfig,
    config_path: Path,
    partitions: list[str],
    *,
    workers: int,
    executor: str = "in_process",
    on_done: Callable[[RunOutcome], None] | None = None,
) -> list[RunOutcome]:
    """Run the nightly job for each partition, `workers` runs at a time (one process each)."""
    outcomes: list[RunOutcome] = []
    if workers <= 1 or len(partitions) <= 1:
        instance = dagster_instance(config)
        for partition in partitions:
            outcomes.append(run_partition(instance, config_path, partition, executor=executor))
            if on_done:
                on_done(outcomes[-1])
        return outcomes
    home = _dagster_home(config)  # each worker opens the instance itself
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(_run_in_worker, home, str(config_path), p, executor) for p in partitions]
        for future in as_completed(futures):
            outcomes.append(future.result())
            if on_done:
                on_done(outcomes[-1])
    return sorted(outcomes, key=lambda o: o.partition)
