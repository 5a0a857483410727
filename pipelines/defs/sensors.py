"""The deploy sensor: a new rollback or hotfix starts the on-call path for the sessions it names."""

from dagster import DefaultSensorStatus, RunRequest, SensorEvaluationContext, SensorResult, SkipReason, sensor

from pipelines.defs.resources import SettingsResource
from pipelines.stages.deploy_events import new_deploy_events


@sensor(job_name="incident", minimum_interval_seconds=60, default_status=DefaultSensorStatus.STOPPED)
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
