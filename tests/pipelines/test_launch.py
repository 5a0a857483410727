"""The Dagster home the CLI launches its runs through: the configured home's storage, no queue."""

import shutil
from pathlib import Path

import pytest
import yaml
from dagster import DagsterInstance, QueuedRunCoordinator

from pipelines.defs.launch import WORKSPACE_YAML
from pipelines.stages.dagster_home import launch_home

ROOT = Path(__file__).resolve().parents[2]


def test_the_launch_home_shares_the_storage_and_starts_runs_at_once(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(ROOT / "dagster.yaml", home / "dagster.yaml")
    settings = yaml.safe_load((launch_home(home) / "dagster.yaml").read_text())
    assert settings["storage"] == {"sqlite": {"base_dir": str(home)}}
    assert settings["local_artifact_storage"]["config"]["base_dir"] == str(home)
    assert settings["telemetry"] == {"enabled": False}  # the rest of the home's settings are kept
    instance = DagsterInstance.from_config(str(home / ".cli-launch"))
    assert not isinstance(instance.run_coordinator, QueuedRunCoordinator)  # a submitted run starts at once
    queued = DagsterInstance.from_config(str(home))
    assert isinstance(queued.run_coordinator, QueuedRunCoordinator)  # the UI's and daemon's home is untouched
    assert instance.root_directory == queued.root_directory == str(home)  # one storage, two ways of starting runs


def test_a_home_on_postgresql_keeps_its_storage(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(ROOT / "docs" / "dagster-postgres.yaml", home / "dagster.yaml")
    original = yaml.safe_load((home / "dagster.yaml").read_text())
    settings = yaml.safe_load((launch_home(home) / "dagster.yaml").read_text())
    storage_keys = {"storage", "run_storage", "event_log_storage", "schedule_storage"}
    assert {k: settings[k] for k in storage_keys & original.keys()} == {k: original[k] for k in storage_keys & original.keys()}
    assert settings["run_coordinator"]["class"] == "DefaultRunCoordinator"


def test_the_cli_launches_from_the_workspace_make_ui_serves():
    assert WORKSPACE_YAML == ROOT / "workspace.yaml"
    assert yaml.safe_load(WORKSPACE_YAML.read_text())["load_from"][0]["python_module"]["module_name"] == "pipelines.defs.definitions"


def test_a_commands_executor_travels_to_the_code_server_and_only_then(tmp_path, monkeypatch):
    """`--executor` reaches the command's code server as TRACE2TASK_EXECUTOR; without it the location
    runs the configured executor, whatever the shell that started the command had set. A server
    that exits before serving is a one-line error with its last words."""
    from pipelines.config import EXECUTOR_ENV, ConfigError
    from pipelines.defs import launch

    seen = []

    class Exited:
        def __init__(self, command, env, stdout, **kwargs):
            seen.append((command, env))
            stdout.write("Error: could not load pipelines.defs.definitions\n")

        def poll(self):
            return 1

        def terminate(self):
            pass

        def wait(self, timeout=None):
            return 1

    monkeypatch.setattr(launch.subprocess, "Popen", Exited)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv(EXECUTOR_ENV, "multiprocess")
    for executor in ("in_process", ""):
        with pytest.raises(ConfigError, match="did not start: Error: could not load pipelines.defs.definitions$"):
            with launch.code_server(tmp_path / "home", tmp_path / "t.yaml", executor=executor):
                pass
    assert seen[0][1][EXECUTOR_ENV] == "in_process"
    assert EXECUTOR_ENV not in seen[1][1]
    command = seen[0][0]
    assert command[1:3] == ["api", "grpc"] and command[command.index("--location-name") + 1] == "pipelines.defs.definitions"
    assert command[command.index("-d") + 1] == str(ROOT)  # workspace.yaml's working directory
    assert not list((tmp_path / "home" / ".cli-launch").glob("code-server-*"))  # its log is not left behind


@pytest.mark.parametrize("by", ["day", "hour"])
def test_a_command_starts_one_code_server_for_all_its_runs(tmp_path, monkeypatch, by):
    """Three days (by hour, the runs of the hours holding records and the 3 days'), all launched at the
    one server the command started; an hour without records is not launched."""
    from contextlib import contextmanager
    from types import SimpleNamespace

    from pipelines.cli import runner

    served, launched = [], []

    @contextmanager
    def code_server(home, config_path, *, executor=""):
        served.append(executor)
        yield tmp_path / f"workspace-{len(served)}.yaml"

    def launch_and_wait(instance, home, workspace, config_path, job, run_config, tags):
        launched.append((workspace, job))
        return SimpleNamespace(run_id=f"run-{len(launched)}", success=True, events=[], launch_error="")

    monkeypatch.setattr(runner, "code_server", code_server)
    monkeypatch.setattr(runner, "launch_and_wait", launch_and_wait)
    monkeypatch.setattr(runner, "dagster_instance", lambda config: None)
    monkeypatch.setattr(runner, "dagster_home", lambda config: str(tmp_path))
    config = SimpleNamespace(partitions=SimpleNamespace(by=by), telemetry=None, base_dir=tmp_path,
                             dagster_url="http://127.0.0.1:3000")
    monkeypatch.setattr(runner, "configure", lambda *args: None)
    landed = {"2026-11-16": ["2026-11-16-03:00", "2026-11-16-17:00"], "2026-11-17": [], "2026-11-18": ["2026-11-18-00:00"]}
    monkeypatch.setattr(runner.plan, "hours_to_run", lambda config, days: [h for day in days for h in landed[day]])
    days = ["2026-11-16", "2026-11-17", "2026-11-18"]
    outcomes = runner.run_partitions(config, tmp_path / "t.yaml", days, workers=2, executor="multiprocess")
    assert [o.partition for o in outcomes] == days and all(o.success for o in outcomes)
    assert served == ["multiprocess"]
    assert len(launched) == (3 if by == "day" else 3 + 3) and {w for w, _ in launched} == {tmp_path / "workspace-1.yaml"}
    if by == "hour":
        assert [job for _, job in launched].count(runner.HOURLY_JOB) == 3
