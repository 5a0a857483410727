"""The two jobs over the one asset graph: the nightly refresh and the on-call path."""

from dagster import AssetSelection, define_asset_job

nightly_refresh = define_asset_job(
    "nightly_refresh",
    selection=AssetSelection.all(),
    description="Every source through to validated draft tasks, for one day.",
)

incident = define_asset_job(
    "incident",
    selection=AssetSelection.all(),
    description=(
        "The on-call path: the same assets for one incident. Set resources.scope.config.incident_id "
        "to a ticket, escalation or deploy id, a trace id or a session id."
    ),
)
