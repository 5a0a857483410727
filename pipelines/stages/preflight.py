"""Before any run: the configured folders and databases usable, every source landed once.

A command checks these once, not each run it launches: a bad path fails in one line before
any Dagster run starts.
"""

from __future__ import annotations

from datetime import datetime, timezone

from ingest.models import SOURCES
from ingest.state import StateMapping, open_state

from pipelines.config import AppConfig, ConfigError
from pipelines.stages.context import RunContext
from pipelines.stages.land import land_source
from pipelines.stages.partition import configured_first_day
from pipelines.store.repository import Store
from pipelines.store.rows import RawRecordRow
from pipelines.telemetry import configure


def check_sources(config: AppConfig, hint: str) -> None:
    drop = config.path(config.drop)
    if not drop.is_dir():
        raise ConfigError(f"sources folder not found: {drop} ({hint})")


def check_reachable(run: RunContext) -> None:
    """Fail once, before any run, when the state database or the output folder is unusable, or
    the mapping does not say where the domain's concepts live."""
    config = run.config
    try:
        mapping = StateMapping.from_yaml(config.path(config.state.mapping))
        state = open_state(config.state_location(), mapping)
        run.seed_schema  # a mapping whose domain roles do not resolve fails here
        kind = sorted(mapping.kinds)[0]
        state.get(kind, "trace2task-reachability-probe")
    except OSError as exc:
        raise ConfigError(f"state mapping not readable: {config.path(config.state.mapping)} ({exc.strerror})") from None
    output = config.path(config.output)
    try:
        output.mkdir(parents=True, exist_ok=True)
        probe = output / ".trace2task-write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise ConfigError(f"output folder not writable: {output} ({exc.strerror or exc})") from None


def check_partitions(days: list[str], first_day: str) -> None:
    """A day before the first partition is one line, not Dagster's internal error."""
    early = [day for day in days if day < first_day]
    if early:
        raise ConfigError(
            f"{early[0]} is before the first partition {first_day}"
            + (f" ({len(early)} such days)" if len(early) > 1 else "")
            + ": the partitions start at `partitions.start` in the configuration, else at the earliest record landed"
        )


def land_everything(store: Store, config: AppConfig) -> None:
    """Land every source's new records (idempotent; the raw assets do the same in the run), each
    source in a `land` span when telemetry is configured."""
    configure(config.telemetry, config.base_dir)
    today = datetime.now(timezone.utc).date().isoformat()
    for source in SOURCES:
        land_source(store, config.path(config.drop), source, config.ingest, run_id="cli-lookup", default_day=today,
                    first_day=configured_first_day(config))


def landed_days(store: Store) -> list[str]:
    """Every day the landed records cover (the demo runs them all)."""
    return store.distinct(RawRecordRow.day, RawRecordRow.day.is_not(None))
