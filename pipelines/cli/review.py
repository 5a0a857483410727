"""`trace2task review ...`: list, inspect, approve/reject/retire, edit, release and export drafted tasks.

Every command finds the tasks through the configuration (`--config`, default trace2task.yaml
in the current folder) or an explicit `--out` folder. With a configuration, each verdict and
edit is also mirrored in the store (taskgen.decisions.events).
"""

from __future__ import annotations

import getpass
import json
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.columns import Columns
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from taskgen import decisions, review
from taskgen.domains import get_domain
from taskgen.health import check_set
from taskgen.output import load_seed, load_tasks
from taskgen.task import DraftTask, Expectation, ReviewEdit
from taskgen.validate import validate_task

from pipelines.config import DEFAULT_CONFIG_FILE, ConfigError, load_config

review_app = typer.Typer(help="Review drafted tasks and pin releases.", no_args_is_help=True)
ConfigOption = Annotated[
    Optional[Path], typer.Option("--config", "-c", help=f"the configuration file (default: ./{DEFAULT_CONFIG_FILE})")
]
OutOption = Annotated[Optional[Path], typer.Option("--out", help="the task output folder (default: the configuration's)")]
ReviewerOption = Annotated[Optional[str], typer.Option(help="your name, recorded with the decision (default: your login)")]


class Status(str, Enum):
    draft = "draft"
    approved = "approved"
    rejected = "rejected"
    retired = "retired"


class Workspace:
    """The output folder, and the store when a configuration names one."""

    def __init__(self, config_path: Path | None, out: Path | None) -> None:
        self.config = None
        self._store = None
        path = config_path or Path(DEFAULT_CONFIG_FILE)
        if config_path is not None or (out is None and path.is_file()):
            try:
                self.config = load_config(path)
            except ConfigError as error:
                _fail(str(error), code=2)
        if out is None and self.config is None:
            _fail(f"no {DEFAULT_CONFIG_FILE} in {Path.cwd()}: give --config FILE or --out FOLDER", code=2)
        self.out = out if out is not None else self.config.path(self.config.output)
        if not (self.out / "tasks").is_dir():
            _fail(f"no tasks under {self.out}: run `trace2task run` first, or give the right --config or --out", code=2)

    def store(self):
        """The store (opened once; the review page asks for it on every request)."""
        if self.config is None:
            return None
        if self._store is None:
            from pipelines.store.repository import Store

            self._store = Store(self.config.sqlalchemy_url(self.config.store.url), self.config.sqlalchemy_url(self.config.store.raw_url))
        return self._store

    def mirror(self, task: DraftTask) -> None:
        """The task's decisions into the store (nothing without a configuration: the next run mirrors them)."""
        store = self.store()
        if store is not None:
            from pipelines.store.rows import ReviewEventRow

            store.upsert(ReviewEventRow, decisions.events(task))


def _console(width: int | None = None) -> Console:
    """A console per command, so the terminal width is read when the command runs; never
    narrower than `width`, so that ids are shown whole."""
    console = Console()
    if width and width > console.width:
        console = Console(width=width)
    return console


def _utc(moment: datetime | None) -> datetime:
    if moment is None:
        return datetime.min.replace(tzinfo=UTC)
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _fail(message: str, code: int = 1) -> None:
    Console(stderr=True, soft_wrap=True).print(f"[red]error[/red] {message}", highlight=False)
    raise typer.Exit(code)


def _tasks(workspace: Workspace, task_or_pair: str) -> list[DraftTask]:
    """The task, or both tasks of a pair id (positive first)."""
    tasks = load_tasks(workspace.out / "tasks")
    found = [task for task in tasks if task_or_pair in (task.task_id, task.pair_id)]
    if not found:
        _fail(f"no task or pair {task_or_pair} under {workspace.out}")
    return sorted(found, key=lambda task: task.polarity != "positive")


def _incident_ids(task: DraftTask) -> set[str]:
    provenance = task.provenance
    return {provenance.incident_id} - {None} | set(provenance.source_record_ids) | set(provenance.session_ids) | set(provenance.trace_ids)


def _asked_for(workspace: Workspace, incident: str) -> set[str]:
    """The tasks `trace2task incident ID` drafted when asked for this id (the store keeps that)."""
    store = workspace.store()
    if store is None:
        return set()
    from pipelines.store.rows import TaskRunRow

    return set(store.values(TaskRunRow.task_id, TaskRunRow.scope == incident))


@review_app.command("list")
def list_tasks(
    config_path: ConfigOption = None,
    out: OutOption = None,
    status: Annotated[Optional[Status], typer.Option(help="only this status")] = None,
    changed: Annotated[bool, typer.Option("--changed", help="only tasks whose drafted content changed since review")] = False,
    disagreements: Annotated[bool, typer.Option("--disagreements", help="only tasks whose reviewers disagree")] = False,
    incident: Annotated[Optional[str], typer.Option(help="only tasks drafted from this incident (any of its record ids)")] = None,
) -> None:
    workspace = Workspace(config_path, out)
    columns = ("task_id", "version", "set", "split", "polarity", "intent", "outcome", "status", "questions", "changed", "reviewers")
    rows = []
    asked_for = _asked_for(workspace, incident) if incident is not None else set()
    for task in load_tasks(workspace.out / "tasks"):
        if status is not None and task.status != status.value:
            continue
        if (changed and not task.changed_since_review) or (disagreements and not decisions.disagreement(task)):
            continue
        if incident is not None and incident not in _incident_ids(task) and task.task_id not in asked_for:
            continue
        verdicts = decisions.verdicts_by_reviewer(task)
        rows.append((
            task.task_id, str(task.version), task.set, task.split, task.polarity, task.intent, task.outcome, task.status,
            str(len(decisions.open_questions(task))), ", ".join(change.field for change in task.changed_since_review) or "-",
            ", ".join(f"{name}: {verdict}" for name, verdict in verdicts.items()) or "-",
        ))
    table = Table(title=f"Tasks (task-set version {review.current_version(workspace.out)})")
    for column in columns:
        table.add_column(column, no_wrap=True)
    for row in rows:
        table.add_row(*row)
    widths = [max([len(column), *(len(row[n]) for row in rows)]) for n, column in enumerate(columns)]
    _console(sum(widths) + 3 * len(columns) + 1).print(table)


def _task_panel(task: DraftTask, pair: list[DraftTask], out: Path) -> Panel:
    seed = load_seed(out, task.seed_id)
    domain = get_domain(task.domain)
    issues = validate_task(task, seed, domain)
    seeds = {member.seed_id: load_seed(out, member.seed_id) for member in pair}
    health = dict(zip([member.task_id for member in pair], check_set(pair, seeds, domain)))[task.task_id]
    answered = decisions.answers(task)
    lines = [
        f"[bold]{task.polarity}[/bold] {task.task_id} v{task.version} ({task.status}, {task.set}/{task.split})",
        f"[bold]Prompt:[/bold] {escape(task.prompt)}",
        f"[bold]Seed:[/bold] {seed.seed_id} clock {seed.clock}; "
        + ", ".join(f"{kind}={len(rows)}" for kind, rows in sorted(seed.state.items())),
        f"[bold]Expectations ({task.expectations_status}):[/bold]", *[f"  - {item.describe()}" for item in task.expectations],
        f"[bold]Required:[/bold] {', '.join(task.required_tools) or '-'}  [bold]Forbidden:[/bold] {', '.join(task.forbidden_tools) or '-'}",
        *([f"[bold]Forbidden calls (a check):[/bold] {escape('; '.join(rule.describe() for rule in task.forbidden_calls))}"]
          if task.forbidden_calls else []),
        *([f"[bold]May change (not required, not a check):[/bold] {escape('; '.join(item.describe() for item in task.may_change))}"]
          if task.may_change else []),
        f"[bold]Boundary:[/bold] {task.boundary or '-'}",
        "[bold]Validation:[/bold] " + (", ".join(issue.code for issue in issues) or "ok"),
        f"[bold]Health:[/bold] {health.verdict} (reference {health.reference_passed}, refund-all {health.refund_all_passed}, "
        f"do-nothing {health.do_nothing_passed}, other task's reference {health.partner_reference_passed})"
        + (f"; flags: {', '.join(health.flags)}" if health.flags else ""),
        "[bold]Review questions:[/bold]",
        *[
            escape(f"  {n}. {question}" + (f"\n     answer ({answered[question].reviewer}): {answered[question].value}" if question in answered else " (open)"))
            for n, question in enumerate(task.review_questions, 1)
        ],
        "[bold]Verdicts:[/bold] " + ("none" if not task.reviews else ""),
        *[
            escape(f"  {r.at or '-'} {r.reviewer or '(unnamed)'}: {r.status} v{r.version}" + (f" ({r.reason})" if r.reason else "")
                   + (f" forced over {', '.join(r.forced)}" if r.forced else ""))
            for r in task.reviews
        ],
        *([escape(f"  reviewers disagree: {decisions.verdicts_by_reviewer(task)}")] if decisions.disagreement(task) else []),
        *[f"  edit {e.field} by {e.reviewer} at {e.at or '-'}" for e in task.edits if e.field != "answer"],
        "[bold]Changed since review:[/bold] " + ("no" if not task.changed_since_review else ""),
        *[escape(f"  {decisions.describe_change(change)}") for change in task.changed_since_review],
    ]
    return Panel("\n".join(lines), expand=True)


@review_app.command("show")
def show(task_id: Annotated[str, typer.Argument(help="a task id or a pair id")], config_path: ConfigOption = None,
         out: OutOption = None) -> None:
    """The task and its pair side by side: prompt, seed, expectations, validation, health, decisions."""
    workspace = Workspace(config_path, out)
    pair_id = _tasks(workspace, task_id)[0].pair_id
    pair = _tasks(workspace, pair_id)
    console = _console()
    console.print(f"Task-set version {review.current_version(workspace.out)}; pair {pair_id}")
    console.print(Columns([_task_panel(member, pair, workspace.out) for member in pair], equal=True))
    console.print(_provenance_panel(workspace, pair))


def _provenance_panel(workspace: Workspace, pair: list[DraftTask]) -> Panel:
    """Where the pair comes from: the incident, the id the engineer asked for and the Dagster runs
    that drafted it, every source record, and the scrubbed session with its tool calls."""
    provenance = pair[0].provenance
    lines = [
        f"[bold]Incident:[/bold] {provenance.incident_id or '-'}",
        f"[bold]Sessions:[/bold] {', '.join(provenance.session_ids)}",
        f"[bold]Traces:[/bold] {', '.join(provenance.trace_ids) or '-'}",
    ]
    store = workspace.store()
    if store is None:
        lines.append(f"[bold]Source records:[/bold] {', '.join(provenance.source_record_ids) or '-'}")
        lines.append("(runs and the transcript are in the store: give --config to see them)")
        return Panel("\n".join(lines), title="Provenance", expand=True)
    from ingest.models import Session

    from pipelines.store.rows import ScrubbedSessionRow, TaskRunRow

    runs = store.rows(TaskRunRow, TaskRunRow.task_id.in_([task.task_id for task in pair]))
    lines.append("[bold]Drafted by:[/bold]")
    seen = set()
    for run in sorted(runs, key=lambda r: (r.drafted_at, r.run_id)):
        if run.run_id in seen:
            continue
        seen.add(run.run_id)
        asked = "the nightly refresh" if run.scope == "nightly" else f"trace2task incident {run.scope}"
        lines.append(f"  run {run.run_id} ({asked}, partition {run.day}, task version {run.version})")
    session_id = runs[0].session_id if runs else provenance.session_ids[0]
    scrubbed = store.rows(ScrubbedSessionRow, ScrubbedSessionRow.session_id == session_id)
    if not scrubbed:
        lines.append(f"[bold]Source records:[/bold] {', '.join(provenance.source_record_ids) or '-'}")
        lines.append(f"(no scrubbed copy of session {session_id} in the store)")
        return Panel("\n".join(lines), title="Provenance", expand=True)
    session = Session.model_validate_json(scrubbed[0].session)
    lines.append("[bold]Source records:[/bold]")
    lines += [escape(f"  {record.source} {record.external_id} ({record.file}:{record.position})") for record in session.provenance]
    lines.append(f"[bold]Session {session.session_id} (scrubbed):[/bold]")
    events = [(turn.at, 0, f"  {turn.role}: {escape(turn.text)}") for turn in session.turns]
    events += [
        (call.at, 1, escape(f"  tool {call.name}({json.dumps(call.arguments, sort_keys=True)}) -> {call.status}"
                            + (f": {call.error}" if call.error else "")))
        for call in session.tool_calls
    ]
    ordered = sorted(events, key=lambda event: (event[0] is None, _utc(event[0]), event[1]))
    lines += [text for _, _, text in ordered]
    return Panel("\n".join(lines), title="Provenance", expand=True)


def decide(workspace: Workspace, task_id: str, status: str, reason: str | None, reviewer: str, force: bool = False) -> DraftTask:
    """One verdict on one task, written to its file and mirrored in the store: the CLI and the
    review page both decide through here. Raises review.ReviewError (NeedsForce without `force`)."""
    updated = review.set_status(workspace.out, task_id, status, reason=reason, reviewer=reviewer, at=_now(), force=force)
    workspace.mirror(updated)
    return updated


class PairNeedsForce(review.NeedsForce):
    """Approving a pair (or several tasks) that one of them could not take without --force."""

    def __init__(self, blocked: dict[str, list[str]]) -> None:
        review.ReviewError.__init__(self, "; ".join(f"{task_id} has {', '.join(reasons)}" for task_id, reasons in blocked.items())
                                    + ": look again, or approve with --force (recorded)")
        self.blocked = blocked
        self.reasons = [reason for reasons in blocked.values() for reason in reasons]


def decide_all(workspace: Workspace, tasks: list[DraftTask], status: str, reason: str | None, reviewer: str,
               force: bool = False) -> list[DraftTask]:
    """One verdict on each task (a pair: its positive, then its negative), each through `decide`.
    An approval one of them could not take without `force` raises PairNeedsForce and changes none:
    a pair is never left half approved."""
    if status == "approved" and not force:
        blocked = {task.task_id: reasons for task in tasks if (reasons := review.approval_blockers(workspace.out, task))}
        if blocked:
            raise PairNeedsForce(blocked)
    return [decide(workspace, task.task_id, status, reason, reviewer, force) for task in tasks]


def record_edits(workspace: Workspace, task_id: str, edits: list[ReviewEdit]) -> DraftTask:
    """A reviewer's edits to one task, written and mirrored (the CLI and the review page)."""
    for item in edits:
        task = review.edit(workspace.out, task_id, item)
    workspace.mirror(task)
    return task


def _decide(task_or_pair: str, status: str, workspace: Workspace, reason: str | None, reviewer: str | None,
            force: bool = False) -> None:
    try:
        decided = decide_all(workspace, _tasks(workspace, task_or_pair), status, reason, reviewer or getpass.getuser(), force)
    except review.ReviewError as error:
        _fail(str(error))
    for updated in decided:
        forced = f" (forced over {', '.join(updated.reviews[-1].forced)})" if updated.reviews[-1].forced else ""
        _console().print(f"{updated.task_id}: {updated.status} v{updated.version}{forced} "
                         f"(task-set version {review.current_version(workspace.out)})", highlight=False)


@review_app.command("approve")
def approve(
    task_id: Annotated[str, typer.Argument(help="a task id, or a pair id for both tasks")],
    config_path: ConfigOption = None, out: OutOption = None, reviewer: ReviewerOption = None,
    force: Annotated[bool, typer.Option("--force", help="approve over validation issues or open review questions (recorded)")] = False,
) -> None:
    _decide(task_id, "approved", Workspace(config_path, out), None, reviewer, force)


@review_app.command("reject")
def reject(
    task_id: Annotated[str, typer.Argument(help="a task id, or a pair id for both tasks")],
    reason: Annotated[str, typer.Option(help="why the task is rejected")],
    config_path: ConfigOption = None, out: OutOption = None, reviewer: ReviewerOption = None,
) -> None:
    _decide(task_id, "rejected", Workspace(config_path, out), reason, reviewer)


@review_app.command("retire")
def retire(
    task_id: Annotated[str, typer.Argument(help="a task id, or a pair id for both tasks")],
    config_path: ConfigOption = None, out: OutOption = None, reason: Optional[str] = None, reviewer: ReviewerOption = None,
) -> None:
    _decide(task_id, "retired", Workspace(config_path, out), reason, reviewer)


def _tools(value: str) -> list[str]:
    return sorted({name.strip() for name in value.split(",") if name.strip()})


def _expectations(value: str) -> list[Expectation]:
    text = Path(value[1:]).read_text(encoding="utf-8") if value.startswith("@") else value
    try:
        items = json.loads(text)
        return [Expectation.model_validate(item) for item in (items if isinstance(items, list) else [items])]
    except ValueError as error:
        _fail(f"--expectations must be a JSON list of {{\"check\": ..., \"args\": {{...}}}} ({type(error).__name__})", code=2)
        raise


@review_app.command("edit")
def edit(
    task_id: Annotated[str, typer.Argument(help="a task id")],
    reviewer: Annotated[str, typer.Option(help="your name, recorded with the edit")],
    config_path: ConfigOption = None, out: OutOption = None,
    expectations: Annotated[Optional[str], typer.Option(help="the expected end state: a JSON list, or @file")] = None,
    confirm_expectations: Annotated[bool, typer.Option("--confirm-expectations", help="confirm the expectations as they are")] = False,
    required_tools: Annotated[Optional[str], typer.Option(help="comma-separated tool names the agent must call")] = None,
    forbidden_tools: Annotated[Optional[str], typer.Option(help="comma-separated tool names the agent must not call")] = None,
    question: Annotated[Optional[int], typer.Option(help="the number of the review question (see `review show`) to answer")] = None,
    answer: Annotated[Optional[str], typer.Option(help="your answer to --question")] = None,
) -> None:
    """Write the expected outcome, the tool rules or a review answer; expectations become `confirmed`."""
    workspace = Workspace(config_path, out)
    task = _tasks(workspace, task_id)[0]
    if task.task_id != task_id:
        _fail("edit takes a task id, not a pair id: the two tasks of a pair expect different things", code=2)
    if (question is None) != (answer is None):
        _fail("--question and --answer go together", code=2)
    if expectations is not None and confirm_expectations:
        _fail("give --expectations or --confirm-expectations, not both", code=2)
    edits: list[ReviewEdit] = []
    if expectations is not None or confirm_expectations:
        value = _expectations(expectations) if expectations is not None else task.expectations
        edits.append(ReviewEdit(field="expectations", value=value, reviewer=reviewer, at=_now()))
    for field, tools in (("required_tools", required_tools), ("forbidden_tools", forbidden_tools)):
        if tools is not None:
            edits.append(ReviewEdit(field=field, value=_tools(tools), reviewer=reviewer, at=_now()))
    if question is not None:
        if not 1 <= question <= len(task.review_questions):
            _fail(f"{task_id} has {len(task.review_questions)} review question(s); --question {question} names none", code=2)
        edits.append(ReviewEdit(field="answer", value=answer, question=task.review_questions[question - 1],
                                reviewer=reviewer, at=_now()))
    if not edits:
        _fail("nothing to edit: give --expectations, --confirm-expectations, --required-tools, --forbidden-tools or --question/--answer", code=2)
    try:
        task = record_edits(workspace, task_id, edits)
    except review.ReviewError as error:
        _fail(str(error))
    _console().print(f"{task.task_id}: edited {', '.join(e.field for e in edits)}; expectations {task.expectations_status}; "
                     f"{len(decisions.open_questions(task))} open question(s)", highlight=False)


@review_app.command("serve")
def serve(
    config_path: ConfigOption = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="the port on 127.0.0.1")] = 8765,
    reviewer: ReviewerOption = None,
    dagster_url: Annotated[str, typer.Option(help="the Dagster UI the run links open (`make ui`)")] = "http://127.0.0.1:3000",
) -> None:
    """The review page on http://127.0.0.1:PORT/: the list with filters, one pair on one screen, the decisions."""
    import uvicorn

    from pipelines.cli.review_web.app import create_app

    workspace = Workspace(config_path or Path(DEFAULT_CONFIG_FILE), None)
    name = reviewer or getpass.getuser()
    app = create_app(workspace, reviewer=name, port=port, dagster_url=dagster_url)
    _console().print(f"review page: http://127.0.0.1:{port}/ (reviewing as {name}; Ctrl-C stops)", highlight=False)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


@review_app.command("release")
def release(
    version: Annotated[str, typer.Argument(help="the task-set version, e.g. 1.2.0")],
    notes: Annotated[str, typer.Option(help="change notes for this version")],
    config_path: ConfigOption = None, out: OutOption = None,
    allow_unpaired: Annotated[bool, typer.Option("--allow-unpaired", help="release a positive whose negative is not approved")] = False,
) -> None:
    """Pin the approved tasks, with their versions, as task-set VERSION under <out>/releases/VERSION/."""
    workspace = Workspace(config_path, out)
    try:
        target = review.release(workspace.out, version, notes, allow_unpaired=allow_unpaired)
    except review.ReviewError as error:
        _fail(str(error))
    _console().print(f"Released task-set version {version} to {target}", highlight=False)


@review_app.command("export")
def export(
    version: Annotated[str, typer.Option("--version", help="the pinned release to export")],
    out: Annotated[Path, typer.Option("--out", help="the folder the export is written to")],
    format: Annotated[str, typer.Option("--format", help="inspect (Inspect AI task folder) or tau2 (tau2-bench tasks)")] = "inspect",
    split: Annotated[str, typer.Option("--split", help="dev or held-out")] = "dev",
    source: Annotated[Path | None, typer.Option("--from", help="the task output folder holding releases/ [default: the configuration's output]")] = None,
    config: Annotated[Path, typer.Option("--config", "-c", help="the configuration file (its taskgen settings)")] = Path("trace2task.yaml"),
) -> None:
    """Export one split of a pinned release: `inspect` writes samples.jsonl, task.py and export.json;
    `tau2` writes tasks.json and export.json with the mapping set in taskgen.exports.tau2_mapping."""
    from pipelines.config import load_config
    from taskgen.config import TaskgenConfig
    from taskgen.exports.inspect import export_inspect
    from taskgen.exports.release import ExportError, load_release_split
    from taskgen.exports.tau2 import Tau2Mapping, export_tau2

    if format not in ("inspect", "tau2"):
        _console().print(f"[red]unknown format {format}; supported: inspect, tau2[/red]")
        raise typer.Exit(2)
    mapping_path = None
    if config.is_file() or source is None:
        app_config = load_config(config)
        settings, source = app_config.taskgen, source or app_config.path(app_config.output)
        if settings.exports.tau2_mapping is not None:
            mapping_path = app_config.path(settings.exports.tau2_mapping)
    else:
        settings = TaskgenConfig()
    if format == "tau2" and mapping_path is None:
        _console().print(f"[red]no tau2 mapping: set taskgen.exports.tau2_mapping in {config} (see docs/examples/tau2-retail.export.yaml)[/red]")
        raise typer.Exit(2)
    try:
        mapping = Tau2Mapping.from_yaml(mapping_path) if format == "tau2" else None
        release = load_release_split(source, version, split)
        if mapping is None:
            summary = export_inspect(release, out, settings.load_domain())
        else:
            summary = export_tau2(release, out, settings.load_domain(), mapping)
    except ExportError as error:
        _console().print(str(error), style="red", markup=False)
        raise typer.Exit(1) from None
    written = json.loads(summary.read_text(encoding="utf-8"))
    counts = written["counts"]
    console = _console()
    console.print(f"Exported release {version} ({split}) as {format}: {counts['total']} tasks {counts['by_polarity']} to {summary.parent}",
                  soft_wrap=True)
    for entry in written.get("left_out", []):
        console.print(f"  left out {entry['task_id']}: {entry['reason']}", soft_wrap=True, markup=False)
