"""Scrub: the sampled sessions with every person replaced, and the residue check beside them."""

from dagster import AssetExecutionContext, AssetsDefinition, MaterializeResult, PartitionsDefinition, asset

from pipelines.defs import checks
from pipelines.defs.assets.common import check_spec, markdown_counts, start_run
from pipelines.defs.resources import RunScope, SettingsResource, StateDatabase, StoreResource
from pipelines.stages.residue import residue_day
from pipelines.stages.scrub import scrub_day
from pipelines.telemetry import count, stage_span


def scrubbed_sessions_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(
        partitions_def=partitions, group_name="scrub", deps=["stratified_sample"],
        check_specs=[
            check_spec(partitions, checks.NO_PERSONAL_DATA_RESIDUE, "scrubbed_sessions", blocking=True,
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
        run = start_run(settings, context)
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
                "entities_replaced": markdown_counts(result.entities, "entity type"),
            },
            check_results=checks.selected(context, [checks.no_personal_data_residue(residue)]),
        )

    return scrubbed_sessions
