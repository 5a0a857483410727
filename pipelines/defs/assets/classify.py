"""Classify and sample: intent and outcome per session, then the stratified sample."""

from dagster import AssetExecutionContext, AssetsDefinition, MaterializeResult, MetadataValue, PartitionsDefinition, asset

from ingest.models import SOURCES

from pipelines.defs import checks
from pipelines.defs.assets.common import check_spec, start_run
from pipelines.defs.resources import IncidentSource, RunScope, SettingsResource, StoreResource
from pipelines.stages.assemble import assemble_day, scope_sessions
from pipelines.stages.classify import classify_day, coverage_markdown, sample_day, strata_markdown
from pipelines.telemetry import stage_span


def classified_sessions_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(partitions_def=partitions, group_name="sessions", deps=["sessions"])
    def classified_sessions(
        context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope,
        incidents: IncidentSource,
    ) -> MaterializeResult:
        """Intent and outcome of every session, with the evidence (rule names, never text).

        With `partitions.by: hour` this is the day's first step: it records the day's run (its
        hours' runs assembled the sessions), and on the on-call path it lands and assembles the
        incident's sessions itself, as the hourly steps are not in the incident job."""
        run = start_run(settings, context)
        day = context.partition_key
        hourly = run.config.partitions.by == "hour"
        with stage_span("classify", partition=day):
            db = store.get()
            if hourly and scope.incident_id:
                for source in SOURCES:
                    incidents.land(db, source, run_id=context.run.run_id, day=day)
            only = scope_sessions(db, scope.incident_id)
            if hourly and only:
                assemble_day(db, run, day, run_id=context.run.run_id, only=only, scope=scope.name)
            cells = classify_day(db, run, day, only=only, run_id=context.run.run_id, record_run=hourly)
        return MaterializeResult(
            metadata={"sessions": sum(cells.values()), "strata": MetadataValue.md(strata_markdown(cells))}
        )

    return classified_sessions


def stratified_sample_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(
        partitions_def=partitions, group_name="sessions", deps=["classified_sessions"],
        check_specs=[check_spec(partitions, checks.EVERY_INTENT_COVERED, "stratified_sample")],
    )
    def stratified_sample(
        context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
    ) -> MaterializeResult:
        """Quotas per (intent, outcome) cell; every intent covered; near-duplicates collapsed."""
        run = start_run(settings, context)
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

    return stratified_sample
