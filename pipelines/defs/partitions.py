"""The pipeline's partitions, made when the code location loads (never at import time).

One partition a day from the first day: `partitions.start` in the configuration, else the day
of the earliest record landed, else (nothing landed yet) the oldest day the raw zone keeps. The UI then shows the days the data covers, not
hundreds of empty ones before it; a record dated before a configured start is quarantined at
landing (file, line, reason), and a command asked for an earlier day says so in one line.
"""

from dagster import DailyPartitionsDefinition, HourlyPartitionsDefinition, PartitionsDefinition

from pipelines.config import AppConfig
from pipelines.stages.partition import first_day


def partitions_for(config: AppConfig | None) -> PartitionsDefinition:
    """The partitions of every asset, check and job of `config` (None: no configuration file)."""
    return DailyPartitionsDefinition(start_date=first_day(config), end_offset=1)


def hourly_partitions_for(config: AppConfig | None) -> PartitionsDefinition:
    """With `partitions.by: hour`, the partitions of landing and assembly: every hour from the
    first day's midnight (UTC), so one large day spreads over 24 runs."""
    return HourlyPartitionsDefinition(start_date=f"{first_day(config)}-00:00", end_offset=1)
