"""The Dagster definitions: one asset graph for the schedule, the sensor, the UI and the CLI.

`dagster dev` in the project root finds this module through workspace.yaml and
`[tool.dagster]`. The configuration file is `trace2task.yaml` in the working folder unless a
run's config names another (`resources.settings.config.config_path`).
"""


from datetime import datetime, timedelta, timezone

from dagster import (
    AssetSelection,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    Definitions,
    RunRequest,
    ScheduleEvaluationContext,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    define_asset_job,
    multi_or_in_process_executor,
    schedule,
    sensor,
)

from pipelines.defs.assets import PIPELINE_ASSETS
from pipelines.config import DEFAULT_CONFIG_FILE, ConfigError, load_config
from pipelines.stages.deploy_events import new_deploy_events
from pipelines.defs.resources import DropFolderSource, MappedStateDatabase, RunScope, SettingsResource, StoreResource

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


def _schedule_settings() -> tuple[str, str]:
    """Cron and timezone from trace2task.yaml in the working folder, else the documented defaults."""
    try:
        schedule = load_config(DEFAULT_CONFIG_FILE).schedule
    except ConfigError:
        return "0 2 * * *", "UTC"
    return schedule.cron, schedule.timezone


_CRON, _TIMEZONE = _schedule_settings()


@schedule(
    job=nightly_refresh,
    cron_schedule=_CRON,
    execution_timezone=_TIMEZONE,
    name="nightly_refresh_schedule",
    default_status=DefaultScheduleStatus.STOPPED,
    description=f"Materializes yesterday's partition ({_CRON}, {_TIMEZONE}).",
)
def nightly_refresh_schedule(context: ScheduleEvaluationContext) -> RunRequest:
    scheduled = context.scheduled_execution_time or datetime.now(timezone.utc)
    yesterday = (scheduled.astimezone(timezone.utc) - timedelta(days=1)).date().isoformat()
    return RunRequest(run_key=f"nightly:{yesterday}", partition_key=yesterday)


@sensor(job=incident, minimum_interval_seconds=60, default_status=DefaultSensorStatus.STOPPED)
def deploy_events_sensor(context: SensorEvaluationContext, settings: SettingsResource):
    """A new rollback or hotfix event starts the incident path for the sessions it names."""
    config = settings.load()
    events, cursor = new_deploy_events(config.path(config.drop), config.ingest, context.cursor)
    if not events:
        return SkipReason("no new rollback or hotfix events")
    return SensorResult(
        run_requests=[
            RunRequest(
                run_key=f"deploy:{event.id}",
                partition_key=event.day,
                run_config={"resources": {"scope": {"config": {"incident_id": event.id}}}},
                tags={"trace2task/incident": event.id, "trace2task/deploy_kind": event.kind},
            )
            for event in events
        ],
        cursor=cursor,
    )


settings = SettingsResource.configure_at_launch()

defs = Definitions(
    assets=PIPELINE_ASSETS,
    jobs=[nightly_refresh, incident],
    schedules=[nightly_refresh_schedule],
    sensors=[deploy_events_sensor],
    resources={
        "settings": settings,
        "store": StoreResource(settings=settings),
        "incidents": DropFolderSource(settings=settings),
        "state": MappedStateDatabase(settings=settings),
        "scope": RunScope.configure_at_launch(),
    },
    # Multiprocess by default (UI, schedule, sensor); the CLI picks in_process per run.
    executor=multi_or_in_process_executor,
)


def nightly_refresh_job():
    """The resolved nightly job, reconstructable from this module (for `execute_job`)."""
    return defs.resolve_job_def("nightly_refresh")


def incident_job():
    return defs.resolve_job_def("incident")
