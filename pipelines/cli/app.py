"""`trace2task`: the command line. Every pipeline run goes through the Dagster jobs.

Errors for people: one line saying what went wrong and what to do, exit code 2 for bad
arguments or configuration, 1 for a failed run; tracebacks only with --debug.
"""

from __future__ import annotations

import json
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from enum import Enum
from typing import Annotated, Optional

import typer
from typer.exceptions import TyperException
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ingest.errors import UserFacingError
from pipelines.config import DEFAULT_CONFIG_FILE, AppConfig, load_config

app = typer.Typer(
    name="trace2task",
    help="Turn an AI agent's production incidents into reproducible, scrubbed benchmark tasks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)

EXIT_FAILED, EXIT_USAGE = 1, 2


class Executor(str, Enum):
    in_process = "in_process"
    multiprocess = "multiprocess"

_state = {"debug": False}

ConfigOption = Annotated[
    Path, typer.Option("--config", "-c", help="the configuration file", show_default=True)
]


class UserError(UserFacingError):
    """A bad argument: shown as one line; exit code 2."""

    exit_code = EXIT_USAGE


def _config(path: Path) -> AppConfig:
    return load_config(path)


@app.callback()
def _main(debug: Annotated[bool, typer.Option("--debug", help="show tracebacks")] = False) -> None:
    _state["debug"] = debug


def _parse_day(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UserError(f"{name} must be a date like 2026-11-20, not {value!r}") from None


def _days(day: str | None, start: str | None, end: str | None) -> list[str]:
    if day and (start or end):
        raise UserError("give either --date or --from/--to, not both")
    if day:
        return [_parse_day(day, "--date").isoformat()]
    if start or end:
        if not (start and end):
            raise UserError("a date range needs both --from and --to")
        first, last = _parse_day(start, "--from"), _parse_day(end, "--to")
        if last < first:
            raise UserError("--to is before --from")
        return [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
    return [(datetime.now(timezone.utc).date() - timedelta(days=1)).isoformat()]


def _run_days(config_path: Path, config: AppConfig, days: list[str], workers: int, executor: str) -> list:
    from pipelines.cli.runner import run_partitions
    from pipelines.stages.plan import runs_per_day

    with Progress(
        TextColumn("[bold]nightly refresh"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
        TimeElapsedColumn(), console=console, transient=False,
    ) as progress:
        task = progress.add_task(f"{days[0]} .. {days[-1]}", total=sum(runs_per_day(config, day) for day in days))

        def done(outcome) -> None:
            progress.advance(task)
            _print_run(outcome)

        return run_partitions(config, config_path, days, workers=workers, executor=executor, on_done=done)


def _print_run(outcome) -> None:
    """A finished run: its day, id and page in the Dagster UI (re-execute it from there)."""
    state = "succeeded" if outcome.success else "failed"
    console.print(f"{outcome.partition}: run {outcome.run_id} {state}: {outcome.url}", highlight=False, soft_wrap=True)


def _print_failures(outcomes) -> bool:
    """Each failed run's failed steps and each failed check, with its day and figures; True if any."""
    for outcome in outcomes:
        if not outcome.success:
            for line in outcome.failures or ["the run failed (see the Dagster UI)"]:
                errors.print(f"[red]error[/red] {outcome.partition} (run {outcome.run_id}): {line}", highlight=False)
        for check in outcome.failed_checks:
            label = "[red]error[/red]" if check.fails_the_run else "[yellow]warning[/yellow]"
            errors.print(f"{label} {check.describe()} (run {outcome.run_id})", highlight=False)
    return any(not outcome.ok for outcome in outcomes)


def _print_counts(title: str, key: str, value: str, counts: dict[str, int]) -> None:
    table = Table(title=title)
    table.add_column(key)
    table.add_column(value, justify="right")
    for name, n in counts.items():
        table.add_row(name, str(n))
    console.print(table)


def _print_summary(summary) -> None:
    table = Table(title="records read per source", show_header=True)
    table.add_column("source")
    table.add_column("records", justify="right")
    table.add_column("quarantined", justify="right")
    for source, n in summary.records.items():
        table.add_row(source, str(n), str(summary.quarantined.get(source, 0)))
    for source, n in summary.quarantined.items():
        if source not in summary.records:
            table.add_row(source, "-", str(n))
    console.print(table)
    if summary.quarantine_reasons:
        _print_counts("quarantine reasons", "reason", "records", summary.quarantine_reasons)
    _print_counts(f"sessions: {summary.sessions}, strata (intent / outcome)", "stratum", "sessions", summary.strata)
    _print_counts("personal-data entities replaced", "entity type", "replaced", summary.entities)
    console.print(
        f"tasks written: {summary.tasks.get('positive', 0)} positive, {summary.tasks.get('negative', 0)} negative stubs; "
        f"with validation issues: {summary.tasks_with_issues}"
    )
    health = ", ".join(f"{k}: {v}" for k, v in summary.health.items()) or "none"
    console.print(f"health check verdicts: {health}")
    for name, verdicts in summary.by_set.items():
        console.print(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in verdicts.items()))
    if summary.health_figures:
        from taskgen.health import HealthSummary

        from pipelines.stages.validate import health_markdown

        console.print(health_markdown(HealthSummary.model_validate(summary.health_figures)), highlight=False)
    console.print(f"output: [bold]{summary.output}[/bold] (tasks/<set>/<task_id>.json, seeds/, manifest.json)")


def _finish(config: AppConfig, days: list[str], outcomes, task_ids=None, incident_id: str = "") -> None:
    """Print the summary, write it (the nightly one to out/run-summary.json; an incident's to
    out/incidents/<id>.json, leaving the nightly one alone) and exit 1 on a failed run or check."""
    from pipelines.stages.plan import write_summary

    summary, summary_path = write_summary(config, days, outcomes, task_ids, incident_id)
    if incident_id:  # the incident's own tasks, not the day's tables
        health = ", ".join(f"{k}: {v}" for k, v in summary.health.items()) or "none"
        console.print(f"tasks: {summary.tasks.get('positive', 0)} positive, {summary.tasks.get('negative', 0)} negative; "
                      f"with validation issues: {summary.tasks_with_issues}; health: {health}")
    else:
        _print_summary(summary)
    home = config.path(config.dagster_home).resolve()
    console.print(f"dagster runs: {', '.join(summary.run_ids) or 'none'} in {home} "
                  f"(`make ui`, then {config.dagster_url.rstrip('/')}/runs/<run id>: re-execute from there)")
    console.print(f"run summary: {summary_path.resolve()}")
    if _print_failures(outcomes):
        raise typer.Exit(EXIT_FAILED)


@app.command("demo-data")
def demo_data(
    out: Annotated[Path, typer.Option(help="folder to write the drop into")],
    sessions: Annotated[int, typer.Option(min=1, help="agent sessions to generate")] = 300,
    days: Annotated[int, typer.Option(min=1, help="days the sessions spread over")] = 7,
    seed: Annotated[int, typer.Option(help="random seed: the same seed writes the same drop")] = 7,
    start: Annotated[str, typer.Option(help="first day (UTC)")] = "2026-11-16",
) -> None:
    """Write a realistic production drop (tickets, traces, logs, escalations, deploys, state)."""
    from ingest.demo import generate_drop

    first = _parse_day(start, "--start")
    with Progress(TextColumn("[bold]demo drop"), BarColumn(), MofNCompleteColumn(), console=console) as progress:
        task = progress.add_task("", total=sessions)
        summary = generate_drop(
            out, sessions=sessions, days=days, seed=seed, start=first,
            progress=lambda n: progress.update(task, completed=n),
        )
    console.print(f"wrote a drop of {sessions} sessions over {days} days to [bold]{out.resolve()}[/bold]")
    console.print(json.dumps(summary.model_dump(mode="json"), indent=2, sort_keys=True))


@app.command("ingest-check")
def ingest_check(
    drop: Annotated[Path, typer.Argument(help="a drop folder: tickets/, traces/, error_logs/, escalations/, deploys/")],
    config_path: Annotated[Optional[Path], typer.Option("--config", "-c", help="read with this configuration's ingest settings")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object on standard output")] = False,
    show_text: Annotated[bool, typer.Option("--show-text", help="the turns' words too, scrubbed")] = False,
) -> None:
    """Dry run over a drop: what each source yields and which sessions come of it. Stores nothing."""
    from ingest.check import check_drop, session_summary
    from ingest.config import IngestConfig

    config = _config(config_path) if config_path is not None else None
    if not drop.is_dir():
        raise UserError(f"not a folder: {drop}")
    checked = check_drop(drop, config.ingest if config else IngestConfig())
    sessions = checked.sessions
    if show_text and sessions:
        sessions = [result.session for result in _check_scrubber(config).scrub_sessions([(s, {}) for s in sessions])]
    summaries = [session_summary(session, show_text=show_text) for session in sessions]
    if as_json:
        sources = {name: source.model_dump() for name, source in checked.sources.items()}
        print(json.dumps({"sources": sources, "sessions": summaries}, indent=2, ensure_ascii=False))
    else:
        _print_check(checked, summaries)
    if checked.failed():
        errors.print(f"[red]error[/red] no session could be assembled from {drop}")
        raise typer.Exit(EXIT_FAILED)


def _check_scrubber(config: AppConfig | None):
    """The configuration's scrubber and secret, or (no configuration) the default scrubber with a
    secret of this run only: stand-ins are consistent within the output, not across runs."""
    import secrets

    from scrubbers import ScrubConfig, Scrubber

    from pipelines.stages.context import RunContext

    if config is None:
        return Scrubber(ScrubConfig(), secrets.token_bytes(32))
    return RunContext(config).scrubber


def _print_check(checked, summaries: list[dict]) -> None:
    table = Table(title="records per source (nothing stored)")
    for column in ("source", "files", "accepted", "quarantined", "skipped"):
        table.add_column(column, justify="left" if column == "source" else "right")
    for name, source in checked.sources.items():
        table.add_row(name, str(source.files), str(source.accepted), str(source.quarantined), str(sum(source.skipped.values())))
    console.print(table)
    reasons = {f"{name}: {reason}": n for name, source in checked.sources.items() for reason, n in source.reasons.items()}
    if reasons:
        _print_counts("quarantine reasons", "source: reason", "records", reasons)
    console.print(f"sessions: {len(summaries)}")
    for summary in summaries:
        roles: dict[str, int] = {}
        for turn in summary["turns"]:
            roles[turn["role"]] = roles.get(turn["role"], 0) + 1
        calls = ", ".join(f"{c['name']} ({c['status']})" for c in summary["tool_calls"]) or "none"
        signals = ", ".join(sorted({s["kind"] for s in summary["signals"]})) or "none"
        turns = ", ".join(f"{role} {n}" for role, n in roles.items()) or "none"
        console.print(f"[bold]{summary['session_id']}[/bold]  traces {summary['traces']}  turns: {turns}", highlight=False)
        console.print(f"  tool calls: {calls}", highlight=False)
        console.print(f"  signals: {signals}", highlight=False)
        for turn in summary["turns"]:
            if "text" in turn:
                console.print(f"  {turn['role']}: {turn['text']}", highlight=False, markup=False)


@app.command()
def run(
    config_path: ConfigOption = Path(DEFAULT_CONFIG_FILE),
    day: Annotated[Optional[str], typer.Option("--date", help="the day to refresh (default: yesterday, UTC)")] = None,
    start: Annotated[Optional[str], typer.Option("--from", help="first day of a backfill")] = None,
    end: Annotated[Optional[str], typer.Option("--to", help="last day of a backfill")] = None,
    all_days: Annotated[bool, typer.Option("--all", help="every day the drop's records cover")] = False,
    workers: Annotated[int, typer.Option(min=1, help="partitions run at once, one process each")] = 2,
    executor: Annotated[Optional[Executor], typer.Option(
        help="in_process: a process per run; multiprocess: a process per step (default: the configuration's `executor`)")] = None,
) -> None:
    """The nightly refresh over the configured sources folder, for one day or a date range."""
    from pipelines.cli.runner import plan_refresh
    from pipelines.stages.plan import skipped_outcomes

    if all_days and (day or start or end):
        raise UserError("--all takes no --date, --from or --to")
    config = _config(config_path)
    plan = plan_refresh(config, None if all_days else _days(day, start, end))
    if plan.skipped:
        console.print(f"unchanged since their last run, skipped: {', '.join(plan.skipped)}")
    outcomes = _run_days(config_path, config, plan.todo, workers, Executor(executor).value if executor else "") if plan.todo else []
    _finish(config, plan.days, [*outcomes, *skipped_outcomes(config, plan.skipped)])


@app.command()
def incident(
    incident_id: Annotated[str, typer.Argument(help="a ticket, escalation or deploy event id, a trace id or a session id")],
    config_path: ConfigOption = Path(DEFAULT_CONFIG_FILE),
) -> None:
    """The on-call path: one incident to a draft task and its negative stub, now."""
    from pipelines.cli.runner import plan_incident, run_partition
    from pipelines.stages.plan import incident_tasks

    config = _config(config_path)
    plan = plan_incident(config, incident_id)
    with console.status(f"incident {incident_id}: {len(plan.sessions)} session(s), partition {plan.day}"):
        outcome = run_partition(config, config_path, plan.day, incident_id=incident_id)
    _print_run(outcome)
    tasks = incident_tasks(config, plan)
    out = config.path(config.output).resolve()
    for task in tasks:
        console.print(f"{task.polarity:8} {out / task.path}", soft_wrap=True, highlight=False)
    _finish(config, [plan.day], [outcome], task_ids=[t.task_id for t in tasks], incident_id=incident_id)


@app.command()
def validate(
    folder: Annotated[Path, typer.Argument(help="a folder of task files: out/, out/tasks or out/tasks/<set>")],
) -> None:
    """Check a folder of tasks: set validation and the three-agent health check, per set."""
    from taskgen.report import FolderError, check_folder

    from pipelines.stages.validate import health_markdown

    if not folder.is_dir():
        raise UserError(f"not a folder: {folder}")
    try:
        report = check_folder(folder)
    except FolderError as exc:
        raise UserError(str(exc)) from None
    table = Table(title=f"{len(report.checks)} tasks (task-set version {report.version})")
    for column in ("task", "set", "polarity", "issues", "reference", "refund-all", "do-nothing", "verdict"):
        table.add_column(column)
    flagged = [c for c in report.checks if c.issues or c.health.flags]
    shown = flagged if len(report.checks) > 40 else report.checks  # a long set: only what needs a look
    for check in shown:
        h = check.health
        table.add_row(
            check.task.task_id, check.task.set, check.task.polarity,
            ", ".join(i.code for i in check.issues) or "-",
            *("pass" if ok else "fail" for ok in (h.reference_passed, h.refund_all_passed, h.do_nothing_passed)),
            h.verdict,
        )
    console.print(table)
    for check in flagged:  # whole ids, one a line, for scripts and narrow terminals
        reasons = check.health.flags
        console.print(f"flagged {check.task.task_id}: {', '.join(reasons)}", highlight=False)
    console.print(health_markdown(report.summary))
    if report.failed:
        raise typer.Exit(EXIT_FAILED)


@app.command()
def scrub(
    path: Annotated[str, typer.Argument(help="a text, JSON or JSON Lines file, a folder, or - for standard input")],
    out: Annotated[Optional[Path], typer.Option(help="where to write (default: beside the input)")] = None,
    config_path: ConfigOption = Path(DEFAULT_CONFIG_FILE),
) -> None:
    """Scrub personal data from a file or folder with the pipeline's engine and secret."""
    from scrubbers import scrub_path

    from pipelines.stages.context import RunContext

    config = _config(config_path)
    source: Path | str = path if path == "-" else Path(path)
    if isinstance(source, Path) and not source.exists():
        raise UserError(f"no such file or folder: {source}")
    result = scrub_path(source, out, RunContext(config).scrubber)
    report = errors if path == "-" else console
    counts = ", ".join(f"{k}: {v}" for k, v in sorted(result.counts.items())) or "nothing found"
    report.print(f"replaced {counts}")
    if path != "-":
        report.print(f"scrubbed copy: {result.output}")


@app.command("purge-raw")
def purge_raw(config_path: ConfigOption = Path(DEFAULT_CONFIG_FILE)) -> None:
    """Delete raw records older than the configured retention from the raw landing zone."""
    from pipelines.store.repository import open_store

    config = _config(config_path)
    cutoff = datetime.now(timezone.utc) - timedelta(days=config.store.raw_retention_days)
    removed = open_store(config).purge_raw(cutoff)
    console.print(f"purged {removed} raw records landed before {cutoff:%Y-%m-%d}")


@app.command()
def demo(
    config_path: ConfigOption = Path(DEFAULT_CONFIG_FILE),
    sessions: Annotated[int, typer.Option(min=1)] = 300,
    days: Annotated[int, typer.Option(min=1)] = 7,
) -> None:
    """Write the demo drop if it is missing, make a secret if there is none, run every day."""
    from ingest.demo import generate_drop

    config = _config(config_path)
    drop = config.path(config.drop)
    if not (drop / "traces").is_dir():
        console.print(f"writing the demo drop to {drop.resolve()} ...")
        generate_drop(drop, sessions=sessions, days=days, seed=7, start=date(2026, 11, 16))
    if config.secret.file is not None and not config.path(config.secret.file).exists():
        if not (config.secret.env and __import__("os").environ.get(config.secret.env)):
            config.read_secret(create=True)
            console.print(f"made a new pseudonym secret in {config.path(config.secret.file).resolve()} (mode 0600)")
    run(config_path=config_path, day=None, start=None, end=None, all_days=True, workers=2, executor=None)


def _mount_review() -> None:
    try:
        from pipelines.cli.review import review_app
    except ImportError:  # the review commands are optional in a minimal install
        return
    app.add_typer(review_app, name="review")


_mount_review()


def main() -> None:
    try:
        code = app(standalone_mode=False)  # click returns a typer.Exit's code instead of raising it
    except UserFacingError as exc:
        errors.print(f"[red]error[/red] {exc}")
        if _state["debug"]:
            raise
        sys.exit(exc.exit_code)
    except OSError as exc:
        errors.print(f"[red]error[/red] {exc}")
        if _state["debug"]:
            raise
        sys.exit(EXIT_FAILED)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        errors.print("aborted")
        sys.exit(130)
    except TyperException as exc:  # usage errors: typer's own message, exit 2
        exc.show()
        sys.exit(EXIT_USAGE)
    except Exception as exc:  # anything unforeseen: its type only (a message could quote a record)
        errors.print(f"[red]error[/red] unexpected {type(exc).__name__}; run `trace2task --debug ...` for the traceback")
        if _state["debug"]:
            raise
        sys.exit(EXIT_FAILED)
    sys.exit(code if isinstance(code, int) else 0)
