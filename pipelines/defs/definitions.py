"""The Dagster definitions: one asset graph for the schedule, the sensor, the UI and the CLI.

`dagster dev` finds `defs` through workspace.yaml and `[tool.dagster]`; it is loaded when the
code location loads, not when this module is imported. A run names its configuration file in
`resources.settings.config.config_path` (default: `trace2task.yaml` in the working folder).
"""

import dagster as dg

from pipelines.config import DEFAULT_CONFIG_FILE, ConfigError, ScheduleConfig, load_config
from pipelines.defs.assets import PIPELINE_ASSETS
from pipelines.defs.jobs import incident, nightly_refresh
from pipelines.defs.resources import pipeline_resources
from pipelines.defs.schedules import nightly_refresh_schedule
from pipelines.defs.sensors import deploy_events_sensor


def pipeline_definitions(schedule: ScheduleConfig) -> dg.Definitions:
    return dg.Definitions(
        assets=PIPELINE_ASSETS,
        jobs=[nightly_refresh, incident],
        schedules=[nightly_refresh_schedule(schedule)],
        sensors=[deploy_events_sensor],
        resources=pipeline_resources(),
        # Multiprocess by default (UI, schedule, sensor); the CLI picks in_process per run.
        executor=dg.multi_or_in_process_executor,
    )


@dg.definitions
def defs() -> dg.Definitions:
    """The schedule runs at the time trace2task.yaml in the working folder sets (else 02:00 UTC)."""
    try:
        schedule = load_config(DEFAULT_CONFIG_FILE).schedule
    except ConfigError:
        schedule = ScheduleConfig()
    return pipeline_definitions(schedule)
