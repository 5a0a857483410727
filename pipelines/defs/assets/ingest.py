"""Ingest: each source's new records landed in the raw zone, then joined into agent sessions."""

from collections.abc import Iterator

from dagster import AssetExecutionContext, AssetSpec, AssetsDefinition, MaterializeResult, PartitionsDefinition, asset, multi_asset

from ingest.models import SOURCES

from pipelines.defs import checks
from pipelines.defs.assets.common import check_spec, markdown_counts, raw_key, start_run
from pipelines.defs.resources import IncidentSource, RunScope, SettingsResource, StoreResource
from pipelines.stages.assemble import assemble_day, scope_sessions
from pipelines.stages.windows import Window, landed_counts
from pipelines.telemetry import count, stage_span


def raw_records_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @multi_asset(
        name="raw_records",
        partitions_def=partitions,
        can_subset=True,
        specs=[
            AssetSpec(
                raw_key(source),
                group_name="ingest",
                kinds={"json"},
                description=f"New {source.replace('_', ' ')} records landed in the raw zone (hash ledger, cursor, quarantine).",
            )
            for source in SOURCES
        ],
        check_specs=[
            check_spec(partitions, checks.QUARANTINE_BELOW_LIMIT, raw_key(source), description=checks.QUARANTINE_DESCRIPTION)
            for source in SOURCES
        ],
    )
    def raw_records(
        context: AssetExecutionContext,
        settings: SettingsResource,
        store: StoreResource,
        incidents: IncidentSource,
    ) -> Iterator[MaterializeResult]:
        run = start_run(settings, context)
        partition = context.partition_key  # a day, or an hour of one (`partitions.by: hour`)
        day = Window.of(partition).day
        db = store.get()
        for source in SOURCES:
            key = raw_key(source)
            if key not in context.selected_asset_keys:
                continue
            with stage_span("ingest", source=source, partition=partition) as span:
                landed = incidents.land(db, source, run_id=context.run.run_id, day=day)
                in_partition, in_day, quarantined = landed_counts(db, source, partition)
                span.set_attribute("trace2task.records_read", landed.read)
                span.set_attribute("trace2task.records_new", landed.new)
                span.set_attribute("trace2task.records_quarantined", landed.quarantined)
            count("records_read", landed.read, {"source": source})
            count("records_quarantined", landed.quarantined, {"source": source})
            yield MaterializeResult(
                asset_key=key,
                metadata={
                    "records_in_partition": in_partition,
                    "quarantined_in_day": quarantined,
                    "read_this_run": landed.read,
                    "new_this_run": landed.new,
                    "quarantined_this_run": landed.quarantined,
                    "files_read": landed.files_read,
                    "files_unchanged": landed.files_skipped,
                    "quarantine_reasons": markdown_counts(landed.quarantine_reasons, "reason"),
                },
                check_results=checks.selected(
                    context, [checks.quarantine_below_limit(key, in_day, quarantined, run.config.quarantine_max_share)]
                ),
            )

    return raw_records


def sessions_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(partitions_def=partitions, group_name="sessions", deps=[raw_key(source) for source in SOURCES], kinds={"sqlite"})
    def sessions(
        context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
    ) -> MaterializeResult:
        """Every record joined to its agent session (raw zone: the sessions still hold raw values)."""
        run = start_run(settings, context)
        day = context.partition_key
        with stage_span("assemble", partition=day) as span:
            db = store.get()
            only = scope_sessions(db, scope.incident_id)
            result = assemble_day(db, run, day, run_id=context.run.run_id, only=only, scope=scope.name)
            span.set_attribute("trace2task.sessions", result.sessions)
        return MaterializeResult(
            metadata={
                "sessions": result.sessions,
                "records_by_source": markdown_counts(result.records_by_source, "source"),
                "quarantined_links": result.quarantined,
            }
        )

    return sessions
