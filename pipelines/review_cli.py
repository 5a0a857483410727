"""`trace2task review ...`: list, inspect, approve/reject/retire, release and export drafted tasks."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.columns import Columns
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from taskgen import review
from taskgen.domains import get_domain
from taskgen.health import check_set
from taskgen.output import load_seed, load_tasks
from taskgen.task import DraftTask
from taskgen.validate import validate_task

review_app = typer.Typer(help="Review drafted tasks and pin releases.", no_args_is_help=True)
OutOption = Annotated[Path, typer.Option("--out", help="the task output folder")]
DEFAULT_OUT = Path("out")


def _console() -> Console:
    """A console per command, so the terminal width is read when the command runs."""
    return Console()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _fail(error: review.ReviewError) -> None:
    _console().print(f"[red]{error}[/red]")
    raise typer.Exit(1)


@review_app.command("list")
def list_tasks(out: OutOption = DEFAULT_OUT, status: Annotated[str | None, typer.Option(help="only this status")] = None) -> None:
    table = Table(title=f"Tasks (task-set version {review.current_version(out)})")
    for column in ("task_id", "set", "split", "polarity", "intent", "outcome", "status", "questions"):
        table.add_column(column, no_wrap=column == "task_id")
    for task in load_tasks(out / "tasks"):
        if status is None or task.status == status:
            table.add_row(task.task_id, task.set, task.split, task.polarity, task.intent, task.outcome, task.status,
                          str(len(task.review_questions)))
    _console().print(table)


def _task_panel(task: DraftTask, pair: list[DraftTask], out: Path) -> Panel:
    seed = load_seed(out, task.seed_id)
    domain = get_domain(task.domain)
    issues = validate_task(task, seed, domain)
    seeds = {member.seed_id: load_seed(out, member.seed_id) for member in pair}
    health = dict(zip([member.task_id for member in pair], check_set(pair, seeds, domain)))[task.task_id]
    lines = [
        f"[bold]{task.polarity}[/bold] {task.task_id} ({task.status}, {task.set}/{task.split})",
        f"[bold]Prompt:[/bold] {task.prompt}",
        f"[bold]Seed:[/bold] {seed.seed_id} clock {seed.clock}; "
        + ", ".join(f"{kind}={len(rows)}" for kind, rows in sorted(seed.state.items())),
        "[bold]Expectations:[/bold]", *[f"  - {item.describe()}" for item in task.expectations],
        f"[bold]Required:[/bold] {', '.join(task.required_tools) or '-'}  [bold]Forbidden:[/bold] {', '.join(task.forbidden_tools) or '-'}",
        f"[bold]Boundary:[/bold] {task.boundary or '-'}",
        "[bold]Validation:[/bold] " + (", ".join(issue.code for issue in issues) or "ok"),
        f"[bold]Health:[/bold] {health.verdict} (reference {health.reference_passed}, refund-all {health.refund_all_passed}, "
        f"do-nothing {health.do_nothing_passed}, other task's reference {health.partner_reference_passed})"
        + (f"; flags: {', '.join(health.flags)}" if health.flags else ""),
        "[bold]Review questions:[/bold]", *[f"  ? {question}" for question in task.review_questions],
    ]
    return Panel("\n".join(lines), expand=True)


@review_app.command("show")
def show(task_id: str, out: OutOption = DEFAULT_OUT) -> None:
    """The task and its pair side by side: prompt, seed, expectations, validation and health."""
    try:
        task = review.find_task(out, task_id)
    except review.ReviewError as error:
        _fail(error)
    pair = [other for other in load_tasks(out / "tasks") if other.pair_id == task.pair_id]
    _console().print(f"Task-set version {review.current_version(out)}")
    _console().print(Columns([_task_panel(member, pair, out) for member in sorted(pair, key=lambda member: member.polarity != "positive")], equal=True))


def _set(task_id: str, status: str, out: Path, reason: str | None, reviewer: str | None) -> None:
    try:
        task = review.set_status(out, task_id, status, reason=reason, reviewer=reviewer, at=_now())
    except review.ReviewError as error:
        _fail(error)
    _console().print(f"{task.task_id}: {task.status} (task-set version {review.current_version(out)})")


@review_app.command("approve")
def approve(task_id: str, out: OutOption = DEFAULT_OUT, reviewer: str | None = None) -> None:
    _set(task_id, "approved", out, None, reviewer)


@review_app.command("reject")
def reject(task_id: str, reason: Annotated[str, typer.Option(help="why the task is rejected")], out: OutOption = DEFAULT_OUT,
           reviewer: str | None = None) -> None:
    _set(task_id, "rejected", out, reason, reviewer)


@review_app.command("retire")
def retire(task_id: str, out: OutOption = DEFAULT_OUT, reason: str | None = None, reviewer: str | None = None) -> None:
    _set(task_id, "retired", out, reason, reviewer)


@review_app.command("release")
def release(version: str, notes: Annotated[str, typer.Option(help="change notes for this version")], out: OutOption = DEFAULT_OUT) -> None:
    """Pin the approved tasks as task-set VERSION under <out>/releases/VERSION/."""
    try:
        target = review.release(out, version, notes)
    except review.ReviewError as error:
        _fail(error)
    _console().print(f"Released task-set version {version} to {target}")


@review_app.command("export")
def export(out: OutOption = DEFAULT_OUT, format: Annotated[str, typer.Option("--format")] = "inspect",
           output: Annotated[Path | None, typer.Option(help="the JSONL file to write")] = None) -> None:
    """Export approved tasks; `inspect` writes Inspect AI samples as JSONL."""
    if format != "inspect":
        _console().print(f"[red]unknown format {format}; supported: inspect[/red]")
        raise typer.Exit(2)
    path = review.export_inspect(out, output)
    _console().print(f"Exported task-set version {review.current_version(out)} to {path}")
