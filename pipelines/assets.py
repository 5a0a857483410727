"""The asset graph, one partition a day. Each asset is a few lines that call the libraries.

Records live in the store and the raw zone, never in Dagster's IO managers: every asset
returns a `MaterializeResult` with small metadata (counts and Markdown tables, no values).
"""


from dagster import (
    AssetExecutionContext,
    DailyPartitionsDefinition,
    MaterializeResult,
    MetadataValue,
    asset,
)

from ingest.models import SOURCES

from . import stages
from .resources import IncidentSource, RunScope, SettingsResource, StateDatabase, StoreResource
from .store import QuarantineRow, RawRecordRow
from .telemetry import configure, count, stage_span

PARTITIONS_START = "2025-01-01"
DAILY = DailyPartitionsDefinition(start_date=PARTITIONS_START, end_offset=1)


def _markdown_counts(counts: dict[str, int], key: str) -> MetadataValue:
    lines = [f"| {key} | count |", "| --- | ---: |"]
    lines += [f"| {name} | {value} |" for name, value in sorted(counts.items())]
    return MetadataValue.md("\n".join(lines))


def _start(context: AssetExecutionContext, settings: SettingsResource):
    config = settings.load()
    configure(config.telemetry, config.base_dir)
    return config


def _raw_asset(source: str):
    @asset(
        name=f"raw_{source}",
        partitions_def=DAILY,
        group_name="ingest",
        kinds={"json"},
        description=f"New {source.replace('_', ' ')} records landed in the raw zone (hash ledger, cursor, quarantine).",
    )
    def _land(
        context: AssetExecutionContext,
        settings: SettingsResource,
        store: StoreResource,
        incidents: IncidentSource,
    ) -> MaterializeResult:
        _start(context, settings)
        day = context.partition_key
        db = store.get()
        with stage_span("ingest", source=source, partition=day) as span:
            landed = incidents.land(db, source, run_id=context.run.run_id, day=day)
            in_day = db.count(RawRecordRow, RawRecordRow.source == source, RawRecordRow.day == day, raw=True)
            quarantined = db.count(QuarantineRow, QuarantineRow.source == source, QuarantineRow.day == day)
            span.set_attribute("trace2task.records_read", landed.read)
            span.set_attribute("trace2task.records_new", landed.new)
            span.set_attribute("trace2task.records_quarantined", landed.quarantined)
        count("records_read", landed.read, {"source": source})
        count("records_quarantined", landed.quarantined, {"source": source})
        return MaterializeResult(
            metadata={
                "records_in_partition": in_day,
                "quarantined_in_partition": quarantined,
                "read_this_run": landed.read,
                "new_this_run": landed.new,
                "quarantined_this_run": landed.quarantined,
                "files_read": landed.files_read,
                "files_unchanged": landed.files_skipped,
                "quarantine_reasons": _markdown_counts(landed.quarantine_reasons, "reason"),
            }
        )

    return _land


RAW_ASSETS = [_raw_asset(source) for source in SOURCES]


@asset(partitions_def=DAILY, group_name="sessions", deps=RAW_ASSETS, kinds={"sqlite"})
def sessions(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Every record joined to its agent session (raw zone: the sessions still hold raw values)."""
    config = _start(context, settings)
    day = context.partition_key
    with stage_span("assemble", partition=day) as span:
        db = store.get()
        only = stages.scope_sessions(db, scope.incident_id)
        result = stages.assemble_day(db, config, day, run_id=context.run.run_id, only=only, scope=scope.name)
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
    config = _start(context, settings)
    day = context.partition_key
    with stage_span("classify", partition=day):
        db = store.get()
        cells = stages.classify_day(db, config, day, only=stages.scope_sessions(db, scope.incident_id))
    return MaterializeResult(
        metadata={"sessions": sum(cells.values()), "strata": MetadataValue.md(stages.strata_markdown(cells))}
    )


@asset(partitions_def=DAILY, group_name="sessions", deps=[classified_sessions])
def stratified_sample(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Quotas per (intent, outcome) cell; every intent covered; near-duplicates collapsed."""
    config = _start(context, settings)
    day = context.partition_key
    with stage_span("sample", partition=day) as span:
        db = store.get()
        only = stages.scope_sessions(db, scope.incident_id)
        sample = stages.sample_day(db, config, day, scope=scope.name, only=only)
        span.set_attribute("trace2task.selected", len(sample.selected))
    return MaterializeResult(
        metadata={
            "selected": len(sample.selected),
            "missing_intents": ", ".join(sample.missing_intents) or "none",
            "coverage": MetadataValue.md(stages.coverage_markdown(sample)),
        }
    )


@asset(partitions_def=DAILY, group_name="scrub", deps=[stratified_sample])
def scrubbed_sessions(
    context: AssetExecutionContext,
    settings: SettingsResource,
    store: StoreResource,
    state: StateDatabase,
    scope: RunScope,
) -> MaterializeResult:
    """The sampled sessions and their state rows with every person replaced; leak gate applied."""
    config = _start(context, settings)
    day = context.partition_key
    with stage_span("scrub", partition=day) as span:
        result = stages.scrub_day(store.get(), config, state, day, scope=scope.name, run_id=context.run.run_id)
        span.set_attribute("trace2task.scrubbed", result.scrubbed)
        span.set_attribute("trace2task.leak_gate_failures", result.failed)
        for entity, n in sorted(result.entities.items()):
            span.set_attribute(f"trace2task.entities.{entity}", n)
    count("entities_replaced", sum(result.entities.values()))
    return MaterializeResult(
        metadata={
            "scrubbed": result.scrubbed,
            "leak_gate_failures": result.failed,
            "entities_replaced": _markdown_counts(result.entities, "entity type"),
        }
    )


@asset(partitions_def=DAILY, group_name="tasks", deps=[scrubbed_sessions])
def seeds(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Frozen starting states (state rows and clock), content-addressed and shared."""
    config = _start(context, settings)
    day = context.partition_key
    with stage_span("freeze", partition=day) as span:
        result = stages.freeze_day(store.get(), config, day, scope=scope.name)
        span.set_attribute("trace2task.seeds", result.seeds)
    return MaterializeResult(metadata={"seeds": result.seeds, "sessions": result.sessions})


@asset(partitions_def=DAILY, group_name="tasks", deps=[seeds])
def draft_tasks(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Draft tasks, each with its paired negative stub, written as JSON files for review."""
    config = _start(context, settings)
    day = context.partition_key
    with stage_span("draft", partition=day) as span:
        result = stages.draft_day(store.get(), config, day, scope=scope.name)
        span.set_attribute("trace2task.tasks_written", result.written)
    count("tasks_written", result.written)
    return MaterializeResult(
        metadata={
            "tasks": result.positives,
            "negative_stubs": result.negatives,
            "written": result.written,
            "withdrawn_stale_drafts": result.withdrawn,
            "by_set": _markdown_counts(result.by_set, "set"),
            "output": MetadataValue.path(str(config.path(config.output))),
        }
    )


@asset(partitions_def=DAILY, group_name="tasks", deps=[draft_tasks])
def task_validation(
    context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
) -> MaterializeResult:
    """Set validation and the reference / refund-everything / do-nothing health check."""
    config = _start(context, settings)
    day = context.partition_key
    with stage_span("validate", partition=day):
        report = stages.validate_day(store.get(), config, day, scope=scope.name, run_id=context.run.run_id)
    return MaterializeResult(
        metadata={
            "tasks": report.tasks,
            "with_issues": report.with_issues,
            "reference_failures": report.reference_failures,
            "report": MetadataValue.md(report.markdown),
        }
    )


PIPELINE_ASSETS = [
    *RAW_ASSETS,
    sessions,
    classified_sessions,
    stratified_sample,
    scrubbed_sessions,
    seeds,
    draft_tasks,
    task_validation,
]
