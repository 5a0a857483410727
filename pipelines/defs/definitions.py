"""The Dagster definitions: one asset graph for the schedule, the sensor, the UI and the CLI.

`dagster dev` finds `defs` through workspace.yaml and `[tool.dagster]`; it is loaded when the
code location loads, not when this module is imported. A run names its configuration file in
`resources.settings.config.config_path` (default: `trace2task.yaml` in the working folder).
The executor is the configuration's (`pipelines.defs.engines`), never an edit of this file.
"""

import os

import dagster as dg

from pipelines.config import (
    CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE, EXECUTOR_ENV, AppConfig, ConfigError, ExecutorConfig, ScheduleConfig, load_config,
)
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


@dg.definitions
def defs() -> dg.Definitions:
    """The configuration (TRACE2TASK_CONFIG, else trace2task.yaml in the working folder, read when the
    code location loads): the schedule runs at the time it sets (else 02:00 UTC), the partitions
    start where it says (else at the earliest record landed), the steps run on the executor it names
    (else in process) or the one TRACE2TASK_EXECUTOR names (the CLI sets it for `--executor`)."""
    try:
        config = load_config(os.environ.get(CONFIG_FILE_ENV) or DEFAULT_CONFIG_FILE)
    except ConfigError:
        config = None
    return pipeline_definitions(config, os.environ.get(EXECUTOR_ENV, ""))
