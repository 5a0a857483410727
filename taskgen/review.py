"""Human review of drafted tasks: status changes and pinned releases (exports: taskgen.exports)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from taskgen import decisions
from taskgen.domains import get_domain
from taskgen.output import (
    atomic_write,
    find_task_file,
    load_seed,
    load_task,
    load_tasks,
    manifest_for,
    pretty_json,
    refresh_manifest,
    task_lock,
    task_path,
)
from taskgen.task import DraftTask, ReviewEdit, ReviewRecord, TaskStatus
from taskgen.validate import validate_task


class ReviewError(Exception):
    """A review action that cannot be done (unknown task, existing release); names ids only."""


class NeedsForce(ReviewError):
    """Approving over validation issues or open review questions takes --force."""

    def __init__(self, task_id: str, reasons: list[str]) -> None:
        super().__init__(f"{task_id} has {', '.join(reasons)}: look again, or approve with --force (recorded)")
        self.reasons = reasons


VERSION_PATTERN = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?")


def check_version(version: str) -> None:
    """A release version is semantic (1.2.0, 1.2.0-rc.1): it names a folder and sorts."""
    if not VERSION_PATTERN.fullmatch(version):
        raise ReviewError(f"release version must look like 1.2.0 or 1.2.0-rc.1, not {version!r}")


def current_version(out: Path) -> str:
    manifest = Path(out) / "manifest.json"
    return json.loads(manifest.read_text(encoding="utf-8"))["version"] if manifest.exists() else "unreleased"


def find_task(out: Path, task_id: str) -> DraftTask:
    path = find_task_file(out, task_id)
    if path is None:
        raise ReviewError(f"no task {task_id} under {out}")
    return load_task(path)


def approval_blockers(out: Path, task: DraftTask) -> list[str]:
    """What approving `task` would pass over: its validation issue codes and open review questions."""
    domain = get_domain(task.domain)
    issues = validate_task(task, load_seed(out, task.seed_id), domain)
    blockers = [f"validation issue {code}" for code in sorted({issue.code for issue in issues})]
    questions = decisions.open_questions(task)
    if questions:
        blockers.append(f"{len(questions)} open review question(s)")
    return blockers


def _update(out: Path, task_id: str, change) -> DraftTask:
    """Read, change and write one task file under the task lock; the manifest follows."""
    with task_lock(out):
        task = find_task(out, task_id)
        updated = change(task)
        atomic_write(task_path(out, updated), pretty_json(updated))
    refresh_manifest(out, current_version(out))
    return updated


def set_status(
    out: Path, task_id: str, status: TaskStatus, reason: str | None = None, reviewer: str | None = None,
    at: str | None = None, force: bool = False,
) -> DraftTask:
    """Add a verdict to the task's history. Approving over validation issues or open questions
    raises NeedsForce unless `force`, and a forced approval records what it passed over."""

    def change(task: DraftTask) -> DraftTask:
        blockers = approval_blockers(out, task) if status == "approved" else []
        if blockers and not force:
            raise NeedsForce(task.task_id, blockers)
        verdict = ReviewRecord(status=status, reason=reason, reviewer=reviewer, at=at, forced=blockers)
        return decisions.record_verdict(task, verdict)

    return _update(out, task_id, change)


def edit(out: Path, task_id: str, edit: ReviewEdit) -> DraftTask:
    """A reviewer's expectations, tool rules or answer to a review question, under their name."""

    def change(task: DraftTask) -> DraftTask:
        try:
            return decisions.record_edit(task, edit)
        except ValueError as error:
            raise ReviewError(f"{task.task_id}: {error}") from None

    return _update(out, task_id, change)


def release_blockers(tasks: list[DraftTask], allow_unpaired: bool = False) -> list[str]:
    """Why the approved tasks cannot be released: changed since approval, or a positive whose
    negative is not approved (unless `allow_unpaired`)."""
    approved = {task.task_id: task for task in tasks if task.status == "approved"}
    problems = [f"{task.task_id} changed since it was approved" for task in approved.values() if task.changed_since_review]
    if not allow_unpaired:
        approved_negatives = {task.pair_id for task in approved.values() if task.polarity == "negative"}
        problems += [
            f"{task.task_id} has no approved negative"
            for task in approved.values() if task.polarity == "positive" and task.pair_id not in approved_negatives
        ]
    return sorted(problems)


def release(out: Path, version: str, notes: str, allow_unpaired: bool = False) -> Path:
    """Pin a task-set version: approved tasks, their seeds and a manifest with notes in releases/<version>/.

    The manifest pins each task's version and file hash."""
    check_version(version)
    target = Path(out) / "releases" / version
    if target.exists():
        raise ReviewError(f"release {version} already exists; versions are pinned")
    tasks = load_tasks(Path(out) / "tasks")
    problems = release_blockers(tasks, allow_unpaired)
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise ReviewError(f"release {version} refused: {shown} (review them again, or --allow-unpaired for a lone positive)")
    approved = [task for task in tasks if task.status == "approved"]
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
