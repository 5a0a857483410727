"""The nightly schedule: yesterday's partition, at the configured time; with `partitions.by:
hour`, the hourly schedule: the last hour's landing and assembly, five minutes past each hour."""

from datetime import datetime, timedelta, timezone

from dagster import DefaultScheduleStatus, RunRequest, ScheduleDefinition, ScheduleEvaluationContext, schedule

from pipelines.config import ScheduleConfig
from pipelines.stages.windows import HOUR_KEY


def nightly_refresh_schedule(settings: ScheduleConfig) -> ScheduleDefinition:
    @schedule(
        job_name="nightly_refresh",
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


def sessions_by_hour_schedule() -> ScheduleDefinition:
    @schedule(
        job_name="sessions_by_hour",
        cron_schedule="5 * * * *",
        execution_timezone="UTC",
        name="sessions_by_hour_schedule",
        default_status=DefaultScheduleStatus.STOPPED,
        description="Lands and assembles the last hour (partitions.by: hour); the nightly schedule makes the day's tasks.",
    )
    def _schedule(context: ScheduleEvaluationContext) -> RunRequest:
        scheduled = context.scheduled_execution_time or datetime.now(timezone.utc)
        hour = (scheduled.astimezone(timezone.utc) - timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
        key = hour.strftime(HOUR_KEY)
        return RunRequest(run_key=f"hour:{key}", partition_key=key)

    return _schedule
