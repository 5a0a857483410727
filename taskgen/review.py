"""Human review of drafted tasks: status changes and pinned releases (exports: taskgen.exports)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from taskgen.output import atomic_write, load_tasks, manifest_for, pretty_json, refresh_manifest, task_path
from taskgen.task import DraftTask, ReviewRecord, TaskStatus


class ReviewError(Exception):
    """A review action that cannot be done (unknown task, existing release); names ids only."""


def current_version(out: Path) -> str:
    manifest = Path(out) / "manifest.json"
    return json.loads(manifest.read_text(encoding="utf-8"))["version"] if manifest.exists() else "unreleased"


def find_task(out: Path, task_id: str) -> DraftTask:
    for task in load_tasks(Path(out) / "tasks"):
        if task.task_id == task_id:
            return task
    raise ReviewError(f"no task {task_id} under {out}")


def set_status(
    out: Path, task_id: str, status: TaskStatus, reason: str | None = None, reviewer: str | None = None, at: str | None = None
) -> DraftTask:
    """Rewrite the task file atomically with its new status and review block; the manifest follows."""
    task = find_task(out, task_id)
    updated = task.model_copy(update={"status": status, "review": ReviewRecord(status=status, reason=reason, reviewer=reviewer, at=at)})
    atomic_write(task_path(out, updated), pretty_json(updated))
    refresh_manifest(out, current_version(out))
    return updated


def release(out: Path, version: str, notes: str) -> Path:
    """Pin a task-set version: approved tasks, their seeds and a manifest with notes in releases/<version>/."""
    target = Path(out) / "releases" / version
    if target.exists():
        raise ReviewError(f"release {version} already exists; versions are pinned")
    approved = [task for task in load_tasks(Path(out) / "tasks") if task.status == "approved"]
    staging = target.with_name(f".{version}.staging")
    shutil.rmtree(staging, ignore_errors=True)
    for task in approved:
        atomic_write(task_path(staging, task), pretty_json(task))
        seed_file = Path(out) / "seeds" / f"{task.seed_id}.json"
        atomic_write(staging / "seeds" / seed_file.name, seed_file.read_text(encoding="utf-8"))
    atomic_write(staging / "manifest.json", pretty_json(manifest_for(staging, version, approved, notes)))
    staging.rename(target)
    refresh_manifest(out, version)
    return target
