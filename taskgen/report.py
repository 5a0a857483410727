"""Check a folder of tasks: set validation and the three-agent health check, per task and per set."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from taskgen.domains import get_domain
from taskgen.health import HealthResult, HealthSummary, check_set, summarize, with_issues
from taskgen.output import load_seed, load_tasks
from taskgen.review import current_version
from taskgen.task import DraftTask, ValidationIssue
from taskgen.validate import validate_set, validate_task


class FolderError(Exception):
    """The folder holds no tasks, or a task's seed is missing; names paths and ids only."""


@dataclass
class TaskCheck:
    task: DraftTask
    issues: list[ValidationIssue]
    health: HealthResult


@dataclass
class FolderReport:
    version: str
    checks: list[TaskCheck] = field(default_factory=list)
    summary: HealthSummary | None = None

    @property
    def failed(self) -> bool:
        """A task with a failed check; a stub negative is listed, but it is a person's to write, not a failure."""
        return any(c.issues or (c.health.flags and not c.health.stub) for c in self.checks)


def _layout(folder: Path) -> tuple[Path, Path]:
    """(tasks folder, output root holding seeds/) for `out/`, `out/tasks` or `out/tasks/<set>`."""
    for root in (folder, folder.parent, folder.parent.parent):
        if (root / "seeds").is_dir():
            tasks = folder if folder != root else root / "tasks"
            return tasks, root
    raise FolderError(f"no seeds/ folder at or above {folder}")


def check_folder(folder: Path) -> FolderReport:
    tasks_dir, root = _layout(Path(folder))
    tasks = load_tasks(tasks_dir)
    if not tasks:
        raise FolderError(f"no task files under {tasks_dir}")
    report = FolderReport(version=current_version(root))
    set_issues = validate_set(tasks)
    seeds = {}
    for task in tasks:
        if not (root / "seeds" / f"{task.seed_id}.json").is_file():
            raise FolderError(f"task {task.task_id}: its seed {task.seed_id} is missing from {root / 'seeds'}")
        seeds[task.seed_id] = load_seed(root, task.seed_id)
    for name in sorted({task.domain for task in tasks}):
        members = [task for task in tasks if task.domain == name]
        domain = get_domain(name)
        for task, health in zip(members, check_set(members, seeds, domain)):
            issues = validate_task(task, seeds[task.seed_id], domain)
            issues += [i for i in set_issues if i.subject in (task.task_id, task.pair_id)]
            report.checks.append(TaskCheck(task=task, issues=issues, health=with_issues(health, [i.code for i in issues])))
    report.checks.sort(key=lambda check: check.task.task_id)
    report.summary = summarize([c.health for c in report.checks], tasks, report.version)
    return report
