"""The Dagster definitions: one asset graph for the schedule, the sensor, the UI and the CLI.

`dagster dev` finds `defs` through workspace.yaml and `[tool.dagster]`; it is loaded when the
code location loads, not when this module is imported. A run names its configuration file in
`resources.settings.config.config_path` (default: `trace2task.yaml` in the working folder).
The executor is the configuration's (`pipelines.defs.engines`), never an edit of this file.
"""

import dagster as dg

from pipelines.config import DEFAULT_CONFIG_FILE, AppConfig, ConfigError, ExecutorConfig, ScheduleConfig, load_config
from pipelines.defs.assets import pipeline_assets
from pipelines.defs.engines import executor_for
from pipelines.defs.jobs import pipeline_jobs
from pipelines.defs.partitions import hourly_partitions_for, partitions_for
from pipelines.defs.resources import pipeline_resources
from pipelines.defs.schedules import nightly_refresh_schedule, sessions_by_hour_schedule
from pipelines.defs.sensors import deploy_events_sensor


def pipeline_definitions(config: AppConfig | None, executor: str = "") -> dg.Definitions:
    """The definitions of one configuration: its schedule, where its partitions start and their
    span (`partitions`), its executor (`executor: {name, config}`; `executor` here, a command's
    --executor, overrides the name)."""
    hourly = config is not None and config.partitions.by == "hour"
    schedules = [nightly_refresh_schedule(config.schedule if config else ScheduleConfig())]
    return dg.Definitions(
        assets=pipeline_assets(partitions_for(config), hourly_partitions_for(config) if hourly else None),
        jobs=pipeline_jobs(hourly),
        schedules=schedules + ([sessions_by_hour_schedule()] if hourly else []),
        sensors=[deploy_events_sensor],
        resources=pipeline_resources(),
        executor=executor_for(config.executor if config else ExecutorConfig(), executor),
    )


def resolved_job(name: str, config_path: str, executor: str = "") -> dg.JobDefinition:
    """One job of the configuration's definitions (the runner reconstructs its runs' jobs with it,
    in the process of each step too)."""
    return pipeline_definitions(load_config(config_path), executor).resolve_job_def(name)


@dg.definitions
def defs() -> dg.Definitions:
    """The configuration is trace2task.yaml in the working folder: the schedule runs at the time
    it sets (else 02:00 UTC), the partitions start where it says (else at the earliest record), the
    steps run on the executor it names (else in process)."""
    try:
        config = load_config(DEFAULT_CONFIG_FILE)
    except ConfigError:
        config = None
    return pipeline_definitions(config)
