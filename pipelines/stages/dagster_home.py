"""The Dagster homes a command uses: the configured one (made from the project's dagster.yaml,
with the run launcher trace2task.yaml names), and the CLI's launch home beside it.

Plain files: Dagster reads them when an instance opens (`pipelines.defs.launch`).
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import yaml

from pipelines.config import AppConfig, RunLauncherConfig

PROJECT_DAGSTER_YAML = Path(__file__).resolve().parents[2] / "dagster.yaml"
LAUNCH_HOME = ".cli-launch"
STORAGE_KEYS = {"storage", "run_storage", "event_log_storage", "schedule_storage"}


def dagster_home(config: AppConfig) -> str:
    """The configured Dagster home, made with the project's dagster.yaml if new, with the
    configured run launcher written into it."""
    home = config.path(config.dagster_home).resolve()
    home.mkdir(parents=True, exist_ok=True)
    target = home / "dagster.yaml"
    if not target.exists() and PROJECT_DAGSTER_YAML.exists():
        shutil.copyfile(PROJECT_DAGSTER_YAML, target)
    write_run_launcher(target, config.run_launcher)
    return str(home)


def write_run_launcher(dagster_yaml: Path, launcher: RunLauncherConfig | None) -> None:
    """Set (or, with none configured, leave alone) the `run_launcher` of the instance's dagster.yaml."""
    if launcher is None:
        return
    settings = yaml.safe_load(dagster_yaml.read_text(encoding="utf-8")) if dagster_yaml.exists() else None
    settings = settings or {}
    wanted = {"module": launcher.module, "class": launcher.class_, "config": launcher.config}
    if settings.get("run_launcher") == wanted:
        return
    settings["run_launcher"] = wanted
    dagster_yaml.write_text(yaml.safe_dump(settings, sort_keys=False), encoding="utf-8")


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
