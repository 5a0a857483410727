"""Launch a run of the workspace's code location, as the UI, the schedule and the sensor do: the
Dagster side of the CLI's runner (`pipelines.cli.runner`), which opens the instance here too.

The CLI's runs are the workspace's runs: `dagster job launch -w workspace.yaml` loads the code
location workspace.yaml describes (`pipelines.defs.definitions`, the one `make ui` serves), records
the run with that location's origin and starts it through the instance's run launcher. So a run
the CLI started shows on the UI's timeline and re-executes from the UI like any other.

A command serves the location once (`code_server`: `dagster api grpc` on a loopback port, named as
workspace.yaml names the location) and launches each of its runs at that server through a
workspace file of its own (`grpc_server`), rather than `dagster job launch` loading the definitions
again for every run: a backfill of many partitions pays for one start of the code location.

The launch uses a Dagster home of its own beside the configured one
(`pipelines.stages.dagster_home.launch_home`: the same storage, but runs start at once rather
than waiting in the queue, which only `dagster-daemon` works). The command then waits for the run to finish and reads its events.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from pipelines.config import CONFIG_FILE_ENV, EXECUTOR_ENV, AppConfig, ConfigError
from pipelines.stages.dagster_home import dagster_home, launch_home
from pipelines.stages.processes import dies_with

if TYPE_CHECKING:
    from dagster import DagsterInstance

WORKSPACE_YAML = Path(__file__).resolve().parents[2] / "workspace.yaml"
POLL_SECONDS = 0.5
SERVER_START_SECONDS = 300
SERVER_STARTED = "Started Dagster code server"


@dataclass
class Launched:
    """A finished run: its id, whether it succeeded, its events (empty when the launch failed)."""
    run_id: str
    success: bool
    events: list
    launch_error: str = ""


def dagster_instance(config: AppConfig) -> DagsterInstance:
    """The persistent instance in the configured Dagster home (made with the project's dagster.yaml)."""
    return _open_instance(dagster_home(config))


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


def _location() -> tuple[str, str, Path]:
    """(location name, module, working directory) of workspace.yaml's code location."""
    if not WORKSPACE_YAML.is_file():
        raise ConfigError(f"workspace.yaml not found at {WORKSPACE_YAML}: install the project with `make install`")
    entry = yaml.safe_load(WORKSPACE_YAML.read_text(encoding="utf-8"))["load_from"][0]["python_module"]
    module = entry["module_name"]
    return entry.get("location_name", module), module, WORKSPACE_YAML.parent / entry.get("working_directory", ".")


def _environment(home: Path, config_path: Path, executor: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != EXECUTOR_ENV}
    env.update({"DAGSTER_HOME": str(launch_home(home)), CONFIG_FILE_ENV: str(config_path.resolve())})
    env.update({EXECUTOR_ENV: executor} if executor else {})
    return env


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def code_server(home: Path, config_path: Path, *, executor: str = "") -> Iterator[Path]:
    """Serve workspace.yaml's code location for one command, loaded once with the command's
    configuration (TRACE2TASK_CONFIG) and executor (TRACE2TASK_EXECUTOR); yield a workspace file
    that points `dagster job launch` at it. The server (and the runs it started, all waited for by
    then) is stopped when the command is done, and dies with the command's process if that is killed
(`pipelines.stages.processes.dies_with`)."""
    location, module, working_directory = _location()
    folder = launch_home(home)
    port, name = _free_port(), uuid.uuid4().hex
    log_path = folder / f"code-server-{name}.log"
    command = [str(Path(sys.executable).with_name("dagster")), "api", "grpc", "-m", module, "-d", str(working_directory),
               "-h", "127.0.0.1", "-p", str(port), "--location-name", location]
    with log_path.open("w", encoding="utf-8") as log:
        server = subprocess.Popen(command, env=_environment(home, config_path, executor), cwd=config_path.resolve().parent,
                                  stdout=log, stderr=subprocess.STDOUT, preexec_fn=dies_with(os.getpid()))
    workspace = folder / f"workspace-{name}.yaml"
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while SERVER_STARTED not in log_path.read_text(encoding="utf-8", errors="replace"):
            if server.poll() is not None or time.monotonic() > deadline:
                said = [line.strip() for line in log_path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
                raise ConfigError(f"the code location {location} did not start: {said[-1][:300] if said else 'no output'}")
            time.sleep(POLL_SECONDS / 5)
        workspace.write_text(yaml.safe_dump({"load_from": [{"grpc_server": {"host": "127.0.0.1", "port": port,
                                                                          "location_name": location}}]}), encoding="utf-8")
        yield workspace
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        workspace.unlink(missing_ok=True)
        log_path.unlink(missing_ok=True)


def launch_and_wait(
    instance: DagsterInstance, home: Path, workspace: Path, config_path: Path, job: str, run_config: dict,
    tags: dict[str, str],
) -> Launched:
    """Launch `job` at the code server `workspace` points to (`code_server`), wait until the run
    ends, return its events.

    The location loaded `config_path` (TRACE2TASK_CONFIG) and runs the steps on its configured
    executor, or on the command's (TRACE2TASK_EXECUTOR: a run config cannot switch the executor the
    definitions name). A re-execution from the UI runs on the executor of the UI's location."""
    run_id = str(uuid.uuid4())
    command = [
        str(Path(sys.executable).with_name("dagster")), "job", "launch", "-w", str(workspace), "-j", job,
        "--run-id", run_id, "--tags", json.dumps(tags), "--config-json", json.dumps(run_config),
    ]
    launched = subprocess.run(command, env=_environment(home, config_path, ""), cwd=config_path.resolve().parent,
                              capture_output=True, text=True)
    if launched.returncode != 0 or instance.get_run_by_id(run_id) is None:
        said = [line.strip() for line in launched.stderr.splitlines() if line.strip()]  # Dagster's own words, no values
        return Launched(run_id=run_id, success=False, events=[], launch_error=said[-1][:300] if said else "launch failed")
    while not (run := instance.get_run_by_id(run_id)).is_finished:
        time.sleep(POLL_SECONDS)
    events = [entry.dagster_event for entry in instance.all_logs(run_id) if entry.is_dagster_event]
    return Launched(run_id=run_id, success=run.is_success, events=events)
