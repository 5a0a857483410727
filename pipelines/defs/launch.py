"""Launch a run of the workspace's code location, as the UI, the schedule and the sensor do.

The CLI's runs are the workspace's runs: `dagster job launch -w workspace.yaml` loads the code
location workspace.yaml describes (`pipelines.defs.definitions`, the one `make ui` serves), records
the run with that location's origin and starts it through the instance's run launcher. So a run
the CLI started shows on the UI's timeline and re-executes from the UI like any other.

The launch uses a Dagster home of its own beside the configured one (`<dagster_home>/.cli-launch`):
the same storage, but runs start at once rather than waiting in the queue, which only
`dagster-daemon` works. The command then waits for the run to finish and reads its events.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from pipelines.config import CONFIG_FILE_ENV, EXECUTOR_ENV, ConfigError

if TYPE_CHECKING:
    from dagster import DagsterInstance

WORKSPACE_YAML = Path(__file__).resolve().parents[2] / "workspace.yaml"
LAUNCH_HOME = ".cli-launch"
POLL_SECONDS = 0.5
STORAGE_KEYS = {"storage", "run_storage", "event_log_storage", "schedule_storage"}


@dataclass
class Launched:
    """A finished run: its id, whether it succeeded, its events (empty when the launch failed)."""
    run_id: str
    success: bool
    events: list
    launch_error: str = ""


def launch_home(home: Path) -> Path:
    """A Dagster home with `home`'s settings and storage whose runs start when submitted.

    Written afresh each time from `home`'s dagster.yaml: storage it leaves to the defaults is
    named explicitly (the defaults are relative to the home, and this one is another folder)."""
    source = home / "dagster.yaml"
    settings = (yaml.safe_load(source.read_text(encoding="utf-8")) if source.exists() else None) or {}
    if not STORAGE_KEYS & settings.keys():
        settings["storage"] = {"sqlite": {"base_dir": str(home)}}
    settings.setdefault("local_artifact_storage", {"module": "dagster.core.storage.root", "class": "LocalArtifactStorage",
                                                   "config": {"base_dir": str(home)}})
    settings.setdefault("compute_logs", {"module": "dagster.core.storage.local_compute_log_manager",
                                         "class": "LocalComputeLogManager", "config": {"base_dir": str(home / "storage")}})
    settings.pop("run_queue", None)
    if isinstance(settings.get("concurrency"), dict):
        settings["concurrency"].pop("runs", None)
    settings["run_coordinator"] = {"module": "dagster.core.run_coordinator", "class": "DefaultRunCoordinator"}
    target = home / LAUNCH_HOME
    target.mkdir(exist_ok=True)
    written = target / f"dagster.yaml.{uuid.uuid4().hex}.tmp"  # replaced whole: a launch never reads half a file
    written.write_text(
        "# Written by trace2task from ../dagster.yaml for the runs the CLI launches: same storage, no queue.\n"
        + yaml.safe_dump(settings, sort_keys=True),
        encoding="utf-8",
    )
    os.replace(written, target / "dagster.yaml")
    return target


def launch_and_wait(
    instance: DagsterInstance, home: Path, config_path: Path, job: str, run_config: dict, tags: dict[str, str],
    *, executor: str = "",
) -> Launched:
    """Launch `job` of the workspace's code location, wait until the run ends, return its events.

    The location loads `config_path` (TRACE2TASK_CONFIG) and runs the steps on its configured
    executor, or on `executor` (TRACE2TASK_EXECUTOR: a run config cannot switch the executor the
    definitions name). A re-execution from the UI runs on the executor of the UI's location."""
    if not WORKSPACE_YAML.is_file():
        raise ConfigError(f"workspace.yaml not found at {WORKSPACE_YAML}: install the project with `make install`")
    run_id = str(uuid.uuid4())
    command = [
        str(Path(sys.executable).with_name("dagster")), "job", "launch", "-w", str(WORKSPACE_YAML), "-j", job,
        "--run-id", run_id, "--tags", json.dumps(tags), "--config-json", json.dumps(run_config),
    ]
    env = {key: value for key, value in os.environ.items() if key != EXECUTOR_ENV}
    env.update({"DAGSTER_HOME": str(launch_home(home)), CONFIG_FILE_ENV: str(config_path.resolve())})
    env.update({EXECUTOR_ENV: executor} if executor else {})
    launched = subprocess.run(command, env=env, cwd=config_path.resolve().parent, capture_output=True, text=True)
    if launched.returncode != 0 or instance.get_run_by_id(run_id) is None:
        said = [line.strip() for line in launched.stderr.splitlines() if line.strip()]  # Dagster's own words, no values
        return Launched(run_id=run_id, success=False, events=[], launch_error=said[-1][:300] if said else "launch failed")
    while not (run := instance.get_run_by_id(run_id)).is_finished:
        time.sleep(POLL_SECONDS)
    events = [entry.dagster_event for entry in instance.all_logs(run_id) if entry.is_dagster_event]
    return Launched(run_id=run_id, success=run.is_success, events=events)
