"""The asset graph, one partition a day. Each asset is a few lines that call the libraries.

Records live in the store and the raw zone, never in Dagster's IO managers: every asset
returns a `MaterializeResult` with small metadata (counts and Markdown tables, no values).

The asset checks (`checks.py`) run inside the step of the asset they check, declared as its
`check_specs` with the asset's partitions, so each result belongs to its day: one step per asset, not one more per check, since each Dagster step costs more
than most of our stages. The five raw assets are one step for the same reason; each is still
its own asset in the lineage, and a run may select any of them.
"""

import warnings
from collections.abc import Iterator

from dagster import (
    AssetCheckSpec,
    AssetExecutionContext,
    AssetKey,
    AssetSpec,
    DailyPartitionsDefinition,
    MaterializeResult,
    MetadataValue,
    PreviewWarning,
    asset,
    multi_asset,
)

from ingest.models import SOURCES

from pipelines.defs import checks
from pipelines.stages.assemble import assemble_day, scope_sessions
from pipelines.stages.classify import classify_day, coverage_markdown, sample_day, strata_markdown
from pipelines.stages.draft import draft_day
from pipelines.stages.freeze import freeze_day
from pipelines.stages.residue import residue_day
from pipelines.stages.scrub import scrub_day
from pipelines.stages.validate import validate_day
from pipelines.stages.context import RunContext
from pipelines.stages.partition import PARTITIONS_START
from pipelines.defs.resources import IncidentSource, RunScope, SettingsResource, StateDatabase, StoreResource
from pipelines.store.rows import QuarantineRow, RawRecordRow
from pipelines.telemetry import configure, count, stage_span

DAILY = DailyPartitionsDefinition(start_date=PARTITIONS_START, end_offset=1)


def _check_spec(name: str, asset: str | AssetKey, **kwargs) -> AssetCheckSpec:
    """A check of one day: its results carry their partition, so the UI shows which day failed.
    (Dagster 1.13 calls `partitions_def` on a check spec a preview; its warning is not ours to print.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PreviewWarning)
        return AssetCheckSpec(name, asset=asset, partitions_def=DAILY, **kwargs)


def _markdown_counts(counts: dict[str, int], key: str) -> MetadataValue:
    lines = [f"| {key} | count |", "| --- | ---: |"]
    lines += [f"| {name} | {value} |" for name, value in sorted(counts.items())]
    return MetadataValue.md("\n".join(lines))


def _start(context: AssetExecutionContext, settings: SettingsResource) -> RunContext:
    run = settings.context()
    configure(run.config.telemetry, run.config.base_dir)
    return run


def _raw_key(source: str) -> AssetKey:
    return AssetKey(f"raw_{source}")


@multi_asset(
    name="raw_records",
    partitions_def=DAILY,
    can_subset=True,
    specs=[
        AssetSpec(
            _raw_key(source),
            group_name="ingest",
            kinds={"json"},
            description=f"New {source.replace('_', ' ')} records landed in the raw zone (hash ledger, cursor, quarantine).",
        )
        for source in SOURCES
    ],
    check_specs=[
        _check_spec(checks.QUARANTINE_BELOW_LIMIT, _raw_key(source), description=checks.QUARANTINE_DESCRIPTION)
        for source in SOURCES
    ],
)
def raw_records(
    context: AssetExecutionContext,
    settings: SettingsResource,
    store: StoreResource,
    incidents: IncidentSource,
) -> Iterator[MaterializeResult]:
    run = _start(context, settings)
    day = context.partition_key
    db = store.get()
    for source in SOURCES:
        key = _raw_key(source)
        if key not in context.selected_asset_keys:
            continue
        with stage_span("ingest", source=source, partition=day) as span:
            landed = incidents.land(db, source, run_id=context.run.run_id, day=day)
            in_day = db.count(RawRecordRow, RawRecordRow.source == source, RawRecordRow.day == day)
            quarantined = db.count(QuarantineRow, QuarantineRow.source == source, QuarantineRow.day == day)
            span.set_attribute("trace2task.records_read", landed.read)
            span.set_attribute("trace2task.records_new", landed.new)
            span.set_attribute("trace2task.records_quarantined", landed.quarantined)
        count("records_read", landed.read, {"source": source})
        count("records_quarantined", landed.quarantined, {"source": source})
        yield MaterializeResult(
            asset_key=key,
            metadata={
                "records_in_partition": in_day,
                "quarantined_in_partition": quarantined,
                "read_this_run": landed.read,
                "new_this_run": landed.new,
                "quarantined_this_run": landed.quarantined,
                "files_read": landed.files_read,
                "files_unchanged": landed.files_skipped,
                "quarantine_reasons": _markdown_counts(landed.quarantine_reasons, "reason"),
            },
            check_results=checks.selected(
                context, [checks.quarantine_below_limit(key, in_day, quarantined, run.config.quarantine_max_share)]
            ),
        )


@asset(partitions_def=DAILY, group_name="sessions", deps=[raw_records], kinds={"sqlite"})
def sessions(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Every record joined to its agent session (raw zone: the sessions still hold raw values)."""
    run = _start(context, settings)
    day = context.partition_key
    with stage_span("assemble", partition=day) as span:
        db = store.get()
        only = scope_sessions(db, scope.incident_id)
        result = assemble_day(db, run, day, run_id=context.run.run_id, only=only, scope=scope.name)
        span.set_attribute("trace2task.sessions", result.sessions)
    return MaterializeResult(
        metadata={
            "sessions": result.sessions,
            "records_by_source": _markdown_counts(result.records_by_source, "source"),
            "quarantined_links": result.quarantined,
        }
    )


@asset(partitions_def=DAILY, group_name="sessions", deps=[sessions])
def classified_sessions(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Intent and outcome of every session, with the evidence (rule names, never text)."""
    run = _start(context, settings)
    day = context.partition_key
    with stage_span("classify", partition=day):
        db = store.get()
        cells = classify_day(db, run, day, only=scope_sessions(db, scope.incident_id))
    return MaterializeResult(
        metadata={"sessions": sum(cells.values()), "strata": MetadataValue.md(strata_markdown(cells))}
    )


@asset(
    partitions_def=DAILY, group_name="sessions", deps=[classified_sessions],
    check_specs=[_check_spec(checks.EVERY_INTENT_COVERED, "stratified_sample")],
)
def stratified_sample(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Quotas per (intent, outcome) cell; every intent covered; near-duplicates collapsed."""
    run = _start(context, settings)
    day = context.partition_key
    with stage_span("sample", partition=day) as span:
        db = store.get()
        only = scope_sessions(db, scope.incident_id)
        sample = sample_day(db, run, day, scope=scope.name, only=only)
        span.set_attribute("trace2task.selected", len(sample.selected))
    return MaterializeResult(
        metadata={
            "selected": len(sample.selected),
            "missing_intents": ", ".join(sample.missing_intents) or "none",
            "coverage": MetadataValue.md(coverage_markdown(sample)),
        },
        check_results=checks.selected(context, [checks.every_intent_covered(sample)]),
    )


@asset(
    partitions_def=DAILY, group_name="scrub", deps=[stratified_sample],
    check_specs=[
        _check_spec(checks.NO_PERSONAL_DATA_RESIDUE, "scrubbed_sessions", blocking=True,
                    description=checks.RESIDUE_DESCRIPTION)
    ],
)
def scrubbed_sessions(
    context: AssetExecutionContext,
    settings: SettingsResource,
    store: StoreResource,
    state: StateDatabase,
    scope: RunScope,
) -> MaterializeResult:
    """The sampled sessions and their state rows with every person replaced; leak gate applied."""
    run = _start(context, settings)
    day = context.partition_key
    db, app_state = store.get(), state.open()
    with stage_span("scrub", partition=day) as span:
        result = scrub_day(db, run, app_state, day, scope=scope.name, run_id=context.run.run_id)
        span.set_attribute("trace2task.scrubbed", result.scrubbed)
        span.set_attribute("trace2task.leak_gate_failures", result.failed)
        for entity, n in sorted(result.entities.items()):
            span.set_attribute(f"trace2task.entities.{entity}", n)
    count("entities_replaced", sum(result.entities.values()))
    with stage_span("residue_check", partition=day):
        residue = residue_day(db, app_state, day, scope=scope.name)
    return MaterializeResult(
        metadata={
            "scrubbed": result.scrubbed,
            "leak_gate_failures": result.failed,
            "entities_replaced": _markdown_counts(result.entities, "entity type"),
        },
        check_results=checks.selected(context, [checks.no_personal_data_residue(residue)]),
    )


@asset(partitions_def=DAILY, group_name="tasks", deps=[scrubbed_sessions])
def seeds(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Frozen starting states (state rows and clock), content-addressed and shared."""
    run = _start(context, settings)
    day = context.partition_key
    with stage_span("freeze", partition=day) as span:
        result = freeze_day(store.get(), run, day, scope=scope.name)
        span.set_attribute("trace2task.seeds", result.seeds)
    return MaterializeResult(metadata={"seeds": result.seeds, "sessions": result.sessions})


@asset(
    partitions_def=DAILY, group_name="tasks", deps=[seeds],
    check_specs=[_check_spec(checks.EVERY_POSITIVE_HAS_A_NEGATIVE, "draft_tasks")],
)
def draft_tasks(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Draft tasks, each with its paired negative stub, written as JSON files for review."""
    run = _start(context, settings)
    day = context.partition_key
    db = store.get()
    with stage_span("draft", partition=day) as span:
        result = draft_day(db, run, day, scope=scope.name, run_id=context.run.run_id)
        span.set_attribute("trace2task.tasks_written", result.written)
    count("tasks_written", result.written)
    day_rows = checks.day_task_rows(db, day)
    return MaterializeResult(
        metadata={
            # the day's record stays whole whichever run wrote last (the on-call path drafts a few)
            "tasks_in_partition": len(day_rows),
            "scope": scope.name,
            "tasks": result.positives,
            "negative_stubs": result.negatives,
            "written": result.written,
            "withdrawn_stale_drafts": result.withdrawn,
            "by_set": _markdown_counts(result.by_set, "set"),
            "task_files": _task_files(result.paths),
            "output": MetadataValue.path(str(run.output)),
        },
        check_results=checks.selected(context, [checks.every_positive_has_a_negative(day_rows)]),
    )


def _task_files(paths: dict[str, str]) -> MetadataValue:
    """Every task this run wrote, with its file under the output folder (ids and paths only)."""
    lines = ["| task | file |", "| --- | --- |"] + [f"| {task_id} | {path} |" for task_id, path in sorted(paths.items())]
    return MetadataValue.md("\n".join(lines))


@asset(
    partitions_def=DAILY, group_name="tasks", deps=[draft_tasks],
    check_specs=[
        _check_spec(checks.TASKS_PASS_SET_VALIDATION, "task_validation"),
        _check_spec(checks.REFERENCE_PASSES_EVERY_TASK, "task_validation"),
    ],
)
def task_validation(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Set validation and the reference / refund-everything / do-nothing health check."""
    run = _start(context, settings)
    day = context.partition_key
    db = store.get()
    with stage_span("validate", partition=day):
        report = validate_day(db, run, day, scope=scope.name, run_id=context.run.run_id)
    rows = checks.task_rows(db, report.task_ids)  # not the whole day: another run may be drafting it now
    return MaterializeResult(
        metadata={
            "tasks": report.tasks,
            "with_issues": report.with_issues,
            "reference_failures": report.reference_failures,
            "report": MetadataValue.md(report.markdown),
        },
        check_results=checks.selected(
            context, [checks.tasks_pass_set_validation(rows), checks.reference_passes_every_task(rows)]
        ),
    )


PIPELINE_ASSETS = [
    raw_records,
    sessions,
    classified_sessions,
    stratified_sample,
    scrubbed_sessions,
    seeds,
    draft_tasks,
    task_validation,
]
