"""The asset graph, one partition a day. Each asset is a few lines that call the libraries.

Records live in the store and the raw zone, never in Dagster's IO managers: every asset
returns a `MaterializeResult` with small metadata (counts and Markdown tables, no values).

The asset checks (`pipelines.defs.checks`) run inside the step of the asset they check, declared as its
`check_specs` with the asset's partitions, so each result belongs to its day: one step per asset, not one more per check, since each Dagster step costs more
than most of our stages. The five raw assets are one step for the same reason; each is still
its own asset in the lineage, and a run may select any of them.
"""

from pipelines.defs.assets.classify import classified_sessions, stratified_sample
from pipelines.defs.assets.ingest import raw_records, sessions
from pipelines.defs.assets.scrub import scrubbed_sessions
from pipelines.defs.assets.tasks import draft_tasks, seeds, task_validation

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
