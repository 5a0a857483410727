"""The jobs over the one asset graph: the nightly refresh and the on-call path, and with
`partitions.by: hour` the hour's landing and assembly."""

from dagster import AssetSelection, define_asset_job

from ingest.models import SOURCES

from pipelines.defs.assets.common import raw_key

HOURLY_ASSETS = AssetSelection.assets(*[raw_key(source) for source in SOURCES], "sessions")
"""What an hour's partition runs with `partitions.by: hour`: landing and assembly (the per-session
steps); everything from classification on is the day's."""


def pipeline_jobs(hourly: bool) -> list:
    """nightly_refresh and incident over every asset of a day; by hour, over the day's assets, with
    sessions_by_hour over the hour's."""
    day = AssetSelection.all() - HOURLY_ASSETS if hourly else AssetSelection.all()
    jobs = [
        define_asset_job(
            "nightly_refresh", selection=day,
            description="Every source through to validated draft tasks, for one day"
            + (" (its hours' sessions_by_hour runs first)." if hourly else "."),
        ),
        define_asset_job(
            "incident", selection=day,
            description=(
                "The on-call path: the same assets for one incident. Set resources.scope.config.incident_id "
                "to a ticket, escalation or deploy id, a trace id or a session id."
            ),
        ),
    ]
    if hourly:
        jobs.append(define_asset_job(
            "sessions_by_hour", selection=HOURLY_ASSETS,
            description="One hour's new records landed and its sessions assembled (partitions.by: hour).",
        ))
    return jobs
