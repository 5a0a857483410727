"""The Dagster home the CLI launches its runs through: the configured home's storage, no queue."""

import shutil
from pathlib import Path

import yaml
from dagster import DagsterInstance, QueuedRunCoordinator

from pipelines.defs.launch import WORKSPACE_YAML, launch_home

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


def test_a_commands_executor_travels_to_the_launched_location_and_only_then(tmp_path, monkeypatch):
    """`--executor` reaches the code location as TRACE2TASK_EXECUTOR; without it the location runs
    the configured executor, whatever the shell that started the command had set."""
    from types import SimpleNamespace

    from pipelines.config import EXECUTOR_ENV
    from pipelines.defs import launch

    seen = []
    monkeypatch.setattr(launch.subprocess, "run", lambda command, env, **kwargs: seen.append(env) or
                        SimpleNamespace(returncode=1, stderr="launch refused\n"))
    instance = SimpleNamespace(get_run_by_id=lambda run_id: None)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv(EXECUTOR_ENV, "multiprocess")
    for executor in ("in_process", ""):
        launched = launch.launch_and_wait(instance, tmp_path / "home", tmp_path / "t.yaml", "nightly_refresh", {}, {},
                                          executor=executor)
        assert (launched.success, launched.launch_error) == (False, "launch refused")
    assert seen[0][EXECUTOR_ENV] == "in_process"
    assert EXECUTOR_ENV not in seen[1]
