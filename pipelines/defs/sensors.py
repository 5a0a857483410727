"""The deploy sensor: a new rollback or hotfix starts the on-call path for the sessions it names."""

from dagster import DefaultSensorStatus, RunRequest, SensorEvaluationContext, SensorResult, SkipReason, sensor

from pipelines.defs.resources import SettingsResource
from pipelines.stages.deploy_events import new_deploy_events


def _first_partition(context: SensorEvaluationContext) -> str | None:
    """The incident job's first partition in the loaded code location (None outside one)."""
    repository = context.repository_def
    partitions = repository.get_job("incident").partitions_def if repository is not None else None
    return partitions.get_first_partition_key() if partitions is not None else None


@sensor(job_name="incident", minimum_interval_seconds=60, default_status=DefaultSensorStatus.STOPPED)
def deploy_events_sensor(context: SensorEvaluationContext, settings: SettingsResource):
    """A new rollback or hotfix event starts the incident path for the sessions it names."""
    config = settings.load()
    events, cursor = new_deploy_events(config.path(config.drop), config.ingest, context.cursor)
    first = _first_partition(context)
    for event in [e for e in events if first and e.day < first]:  # landing quarantines its record too
        context.log.warning(f"deploy event {event.id} is dated {event.day}, before the first partition {first}: not run")
    events = [event for event in events if not (first and event.day < first)]
    if not events:
        return SensorResult(skip_reason=SkipReason("no new rollback or hotfix events"), cursor=cursor)
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
