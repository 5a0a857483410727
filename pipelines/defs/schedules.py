"""The nightly schedule: yesterday's partition, at the configured time."""

from datetime import datetime, timedelta, timezone

from dagster import DefaultScheduleStatus, RunRequest, ScheduleDefinition, ScheduleEvaluationContext, schedule

from pipelines.config import ScheduleConfig
from pipelines.defs.jobs import nightly_refresh


def nightly_refresh_schedule(settings: ScheduleConfig) -> ScheduleDefinition:
    @schedule(
        job=nightly_refresh,
        cron_schedule=settings.cron,
        execution_timezone=settings.timezone,
        name="nightly_refresh_schedule",
        default_status=DefaultScheduleStatus.STOPPED,
        description=f"Materializes yesterday's partition ({settings.cron}, {settings.timezone}).",
    )
    def _schedule(context: ScheduleEvaluationContext) -> RunRequest:
        scheduled = context.scheduled_execution_time or datetime.now(timezone.utc)
        yesterday = (scheduled.astimezone(timezone.utc) - timedelta(days=1)).date().isoformat()
        return RunRequest(run_key=f"nightly:{yesterday}", partition_key=yesterday)

    return _schedule
