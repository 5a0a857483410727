"""The executor and the run launcher come from trace2task.yaml, not from an edit of the definitions."""

import importlib.util

import pytest
import yaml

from pipelines.config import ConfigError, load_config
from pipelines.defs.definitions import defs
from pipelines.stages.dagster_home import dagster_home

BASE = "drop: d\nstate: {location: x, mapping: m.yaml}\n"


def _configure(folder, extra: str = ""):
    path = folder / "trace2task.yaml"
    path.write_text(BASE + extra)
    return path


def test_the_steps_run_in_process_unless_the_configuration_says_otherwise(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _configure(tmp_path)
    assert defs().resolve_job_def("nightly_refresh").executor_def.name == "in_process"


def test_the_configured_executor_and_its_settings_run_every_job(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _configure(tmp_path, "executor: {name: multiprocess, config: {max_concurrent: 3}}\n")
    for job in ("nightly_refresh", "incident"):
        executor = defs().resolve_job_def(job).executor_def
        assert executor.name == "multiprocess"


def test_a_commands_executor_reaches_the_code_location_it_launches_from(tmp_path, monkeypatch):
    """`--executor` cannot travel in the run config (the definitions name the executor): the CLI
    sets TRACE2TASK_EXECUTOR for the launch, and `defs` reads it when the location loads."""
    monkeypatch.chdir(tmp_path)
    _configure(tmp_path, "executor: {name: multiprocess, config: {max_concurrent: 3}}\n")
    monkeypatch.setenv("TRACE2TASK_EXECUTOR", "in_process")
    for job in ("nightly_refresh", "incident"):
        assert defs().resolve_job_def(job).executor_def.name == "in_process"
    monkeypatch.delenv("TRACE2TASK_EXECUTOR")
    assert defs().resolve_job_def("nightly_refresh").executor_def.name == "multiprocess"


def test_a_misspelt_executor_setting_is_one_line_naming_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _configure(tmp_path, "executor: {name: multiprocess, config: {max_concurent: 3}}\n")
    with pytest.raises(ConfigError, match=r"executor\.config.*max_concurent") as error:
        defs()
    assert "\n" not in str(error.value).strip()


@pytest.mark.parametrize("name, package", [("celery", "dagster_celery"), ("k8s", "dagster_k8s"), ("celery_k8s", "dagster_celery_k8s")])
def test_a_cluster_executor_without_its_package_is_one_line_naming_the_package(tmp_path, monkeypatch, name, package):
    if importlib.util.find_spec(package) is not None:
        pytest.skip(f"{package} is installed here")
    monkeypatch.chdir(tmp_path)
    _configure(tmp_path, f"executor: {{name: {name}}}\n")
    with pytest.raises(ConfigError, match=rf"executor '{name}' needs the {package.replace('_', '-')} package: pip install") as error:
        defs()
    assert "\n" not in str(error.value).strip()


def test_an_unknown_executor_is_a_bad_setting(tmp_path):
    with pytest.raises(ConfigError, match="bad setting 'executor.name'"):
        load_config(_configure(tmp_path, "executor: {name: ray}\n"))


def test_the_configured_run_launcher_is_written_into_the_dagster_instance(tmp_path):
    config = load_config(_configure(tmp_path, "run_launcher: {module: dagster_k8s, class: K8sRunLauncher, config: {job_namespace: t2t}}\n"))
    home = dagster_home(config)
    settings = yaml.safe_load((tmp_path / ".dagster_home" / "dagster.yaml").read_text())
    assert settings["run_launcher"] == {"module": "dagster_k8s", "class": "K8sRunLauncher", "config": {"job_namespace": "t2t"}}
    assert settings["telemetry"] == {"enabled": False}  # the project's settings are kept
    assert home == str((tmp_path / ".dagster_home").resolve())


def test_without_a_run_launcher_the_instance_keeps_dagsters_default(tmp_path):
    dagster_home(load_config(_configure(tmp_path)))
    assert "run_launcher" not in yaml.safe_load((tmp_path / ".dagster_home" / "dagster.yaml").read_text())


def test_by_hour_landing_and_assembly_run_per_hour_and_the_rest_per_day(tmp_path, monkeypatch):
    from datetime import datetime, timezone

    from dagster import AssetKey, build_schedule_context

    monkeypatch.chdir(tmp_path)
    _configure(tmp_path, "partitions: {by: hour, start: 2026-11-16}\n")
    definitions = defs()
    hourly = definitions.resolve_job_def("sessions_by_hour")
    assert hourly.partitions_def.get_partition_keys()[:2] == ["2026-11-16-00:00", "2026-11-16-01:00"]
    assert {key.to_user_string() for key in hourly.asset_layer.selected_asset_keys} == {
        "raw_tickets", "raw_traces", "raw_error_logs", "raw_escalations", "raw_deploys", "sessions"}
    for name in ("nightly_refresh", "incident"):
        job = definitions.resolve_job_def(name)
        assert job.partitions_def.get_partition_keys()[0] == "2026-11-16"
        assert AssetKey("sessions") not in job.asset_layer.selected_asset_keys
        assert AssetKey("classified_sessions") in job.asset_layer.selected_asset_keys
    schedule = next(s for s in definitions.schedules if s.name == "sessions_by_hour_schedule")
    request = schedule(build_schedule_context(scheduled_execution_time=datetime(2026, 11, 20, 10, 5, tzinfo=timezone.utc)))
    assert request.partition_key == "2026-11-20-09:00"


def test_by_day_there_is_no_hourly_job(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _configure(tmp_path)
    assert {job.name for job in defs().resolve_all_job_defs()} >= {"nightly_refresh", "incident"}
    assert "sessions_by_hour" not in {job.name for job in defs().resolve_all_job_defs()}
