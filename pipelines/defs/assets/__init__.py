"""The asset graph, one partition a day. Each asset is a few lines that call the libraries.

Records live in the store and the raw zone, never in Dagster's IO managers: every asset
returns a `MaterializeResult` with small metadata (counts and Markdown tables, no values).

The assets are made for a partitions definition (`pipeline_assets(partitions_for(config))`),
when the code location loads: where the partitions start comes from the configuration.

The asset checks (`pipelines.defs.checks`) run inside the step of the asset they check, declared as its
`check_specs` with the asset's partitions, so each result belongs to its day: one step per asset, not one more per check, since each Dagster step costs more
than most of our stages. The five raw assets are one step for the same reason; each is still
its own asset in the lineage, and a run may select any of them.
"""

from dagster import AssetsDefinition, PartitionsDefinition

from pipelines.defs.assets.classify import classified_sessions_asset, stratified_sample_asset
from pipelines.defs.assets.ingest import raw_records_asset, sessions_asset
from pipelines.defs.assets.scrub import scrubbed_sessions_asset
from pipelines.defs.assets.tasks import draft_tasks_asset, seeds_asset, task_validation_asset

HOURLY_FACTORIES = [raw_records_asset, sessions_asset]
"""The assets an hour's partition runs with `partitions.by: hour` (landing and assembly)."""

DAY_FACTORIES = [
    classified_sessions_asset,
    stratified_sample_asset,
    scrubbed_sessions_asset,
    seeds_asset,
    draft_tasks_asset,
    task_validation_asset,
]


def pipeline_assets(partitions: PartitionsDefinition, hours: PartitionsDefinition | None = None) -> list[AssetsDefinition]:
    """Every asset of the pipeline, partitioned by `partitions` (days), landing and assembly by
    `hours` if given: a day's assets then read its 24 hours' sessions (Dagster maps the hours onto
    their day)."""
    return [factory(hours or partitions) for factory in HOURLY_FACTORIES] + [factory(partitions) for factory in DAY_FACTORIES]
