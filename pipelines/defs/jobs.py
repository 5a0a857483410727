"""The two jobs over the one asset graph: the nightly refresh and the on-call path."""

from dagster import AssetSelection, Definitions, JobDefinition, define_asset_job, multi_or_in_process_executor

from pipelines.defs.assets import PIPELINE_ASSETS
from pipelines.defs.resources import pipeline_resources

PIPELINE = AssetSelection.assets(*PIPELINE_ASSETS)

nightly_refresh = define_asset_job(
    "nightly_refresh",
    selection=PIPELINE,
    description="Every source through to validated draft tasks, for one day.",
)

incident = define_asset_job(
    "incident",
    selection=PIPELINE,
    description=(
        "The on-call path: the same assets for one incident. Set resources.scope.config.incident_id "
        "to a ticket, escalation or deploy id, a trace id or a session id."
    ),
)


def _resolved(name: str) -> JobDefinition:
    definitions = Definitions(
        assets=PIPELINE_ASSETS, jobs=[nightly_refresh, incident], resources=pipeline_resources(),
        executor=multi_or_in_process_executor,
    )
    return definitions.resolve_job_def(name)


def nightly_refresh_job() -> JobDefinition:
    """The resolved nightly job, reconstructable from this module (the runner's `execute_job`)."""
    return _resolved("nightly_refresh")


def incident_job() -> JobDefinition:
    return _resolved("incident")
