"""The Dagster definitions: one asset graph for the schedule, the sensor, the UI and the CLI.

`dagster dev` finds `defs` through workspace.yaml and `[tool.dagster]`; it is loaded when the
code location loads, not when this module is imported. A run names its configuration file in
`resources.settings.config.config_path` (default: `trace2task.yaml` in the working folder).
The executor is the configuration's (`pipelines.defs.engines`), never an edit of this file.
"""

import dagster as dg

from pipelines.config import DEFAULT_CONFIG_FILE, AppConfig, ConfigError, ExecutorConfig, ScheduleConfig, load_config
from pipelines.defs.assets import PIPELINE_ASSETS
from pipelines.defs.engines import executor_for
from pipelines.defs.jobs import incident, nightly_refresh
from pipelines.defs.resources import pipeline_resources
from pipelines.defs.schedules import nightly_refresh_schedule
from pipelines.defs.sensors import deploy_events_sensor


def pipeline_definitions(config: AppConfig | None, executor: str = "") -> dg.Definitions:
    """The definitions of one configuration: its schedule and its executor (`executor: {name,
    config}`; `executor` here, a command's --executor, overrides the name)."""
    return dg.Definitions(
        assets=PIPELINE_ASSETS,
        jobs=[nightly_refresh, incident],
        schedules=[nightly_refresh_schedule(config.schedule if config else ScheduleConfig())],
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
    """The configuration is trace2task.yaml in the working folder: the schedule runs at the time it
    sets (else 02:00 UTC), the steps on the executor it names (else in process)."""
    try:
        config = load_config(DEFAULT_CONFIG_FILE)
    except ConfigError:
        config = None
    return pipeline_definitions(config)
