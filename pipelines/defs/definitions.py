"""The Dagster definitions: one asset graph for the schedule, the sensor, the UI and the CLI.

`dagster dev` finds `defs` through workspace.yaml and `[tool.dagster]`; it is loaded when the
code location loads, not when this module is imported. A run names its configuration file in
`resources.settings.config.config_path` (default: `trace2task.yaml` in the working folder).
"""

import os

import dagster as dg

from pipelines.config import CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE, AppConfig, ConfigError, ScheduleConfig, load_config
from pipelines.defs.assets import pipeline_assets
from pipelines.defs.jobs import incident, nightly_refresh
from pipelines.defs.partitions import partitions_for
from pipelines.defs.resources import pipeline_resources
from pipelines.defs.schedules import nightly_refresh_schedule
from pipelines.defs.sensors import deploy_events_sensor


def pipeline_definitions(config: AppConfig | None) -> dg.Definitions:
    """The definitions of one configuration: its schedule and where its partitions start."""
    return dg.Definitions(
        assets=pipeline_assets(partitions_for(config)),
        jobs=[nightly_refresh, incident],
        schedules=[nightly_refresh_schedule(config.schedule if config else ScheduleConfig())],
        sensors=[deploy_events_sensor],
        resources=pipeline_resources(),
        # Multiprocess by default (UI, schedule, sensor); the CLI picks in_process per run.
        executor=dg.multi_or_in_process_executor,
    )


@dg.definitions
def defs() -> dg.Definitions:
    """The configuration (TRACE2TASK_CONFIG, else trace2task.yaml in the working folder, read when the
    code location loads): the schedule runs at the time it sets (else 02:00 UTC), the partitions
    start where it says (else at the earliest record landed)."""
    try:
        config = load_config(os.environ.get(CONFIG_FILE_ENV) or DEFAULT_CONFIG_FILE)
    except ConfigError:
        config = None
    return pipeline_definitions(config)
