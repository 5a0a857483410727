"""Where the partitions start: the configuration, else the earliest record landed, else today.

A record older than a configured start is quarantined at landing with its file, line and reason;
a day asked for before the start is one line, never Dagster's internal error.
"""

from datetime import date, datetime, timedelta, timezone

import yaml
from dagster import AssetKey

from demo_world import make_world, one_line_error
from ingest.models import SOURCES
from pipelines.config import load_config
from pipelines.defs.assets import pipeline_assets
from pipelines.defs.definitions import pipeline_definitions
from pipelines.defs.partitions import partitions_for
from pipelines.stages.land import land_source
from pipelines.store.repository import open_store
from pipelines.store.rows import QuarantineRow, RawRecordRow

TODAY = datetime.now(timezone.utc).date()


def _with_start(world, start: str):
    data = yaml.safe_load(world.config.read_text())
    data["partitions"] = {"start": start}
    world.config.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_config(world.config)


def _land(config):
    store = open_store(config)
    for source in SOURCES:
        land_source(store, config.path(config.drop), source, config.ingest, run_id="t", default_day="2026-11-18",
                    first_day=config.partitions.start and config.partitions.start.isoformat())
    return store


def _keys(config) -> list[str]:
    partitions = pipeline_definitions(config).resolve_asset_graph().get(AssetKey("sessions")).partitions_def
    return partitions.get_partition_keys()


def test_with_nothing_landed_the_partitions_start_at_the_raw_retention(tmp_path):
    world = make_world(tmp_path / "w", sessions=10, days=2)
    data = yaml.safe_load(world.config.read_text())
    data["store"]["raw_retention_days"] = 3
    world.config.write_text(yaml.safe_dump(data, sort_keys=False))
    assert partitions_for(load_config(world.config)).get_first_partition_key() == (TODAY - timedelta(days=3)).isoformat()
    assert partitions_for(None).get_first_partition_key() == (TODAY - timedelta(days=30)).isoformat()


def test_the_partitions_start_at_the_earliest_record_landed(world):
    config = load_config(world.config)
    _land(config)
    keys = _keys(config)
    assert keys[0] == "2026-11-16"  # the demo drop's first day, not a fixed date years before it
    assert keys[-1] == TODAY.isoformat() and len(keys) == (TODAY - date(2026, 11, 16)).days + 1  # nothing before the data


def test_a_configured_start_wins_and_every_asset_and_check_shares_it(tmp_path, demo_drop):
    world = make_world(tmp_path / "w", drop=demo_drop)
    config = _with_start(world, "2026-11-17")
    graph = pipeline_definitions(config).resolve_asset_graph()
    firsts = {graph.get(key).partitions_def.get_first_partition_key() for key in graph.get_all_asset_keys()}
    assert firsts == {"2026-11-17"}
    checks = [spec for assets in pipeline_assets(partitions_for(config)) for spec in assets.check_specs]
    assert len(checks) == 10 and {spec.partitions_def.get_first_partition_key() for spec in checks} == {"2026-11-17"}


def test_a_record_before_the_configured_start_is_quarantined_with_file_line_and_reason(tmp_path, demo_drop):
    world = make_world(tmp_path / "w", drop=demo_drop)
    store = _land(_with_start(world, "2026-11-17"))
    early = store.rows(QuarantineRow, QuarantineRow.reason.contains("before the first partition"))
    assert early and all(row.file and row.position > 0 for row in early)
    assert {row.reason for row in early} == {"dated 2026-11-16, before the first partition 2026-11-17 (partitions.start)"}
    assert store.count(RawRecordRow, RawRecordRow.day == "2026-11-16") == 0
    assert store.count(RawRecordRow, RawRecordRow.day == "2026-11-17") > 0


def test_a_day_before_the_configured_start_is_one_line(tmp_path, demo_drop):
    world = make_world(tmp_path / "w", drop=demo_drop)
    _with_start(world, "2026-11-17")
    result = world.cli_in_process("run", "--date", "2026-11-16", "--config", str(world.config))
    assert result.returncode == 2
    assert "2026-11-16 is before the first partition 2026-11-17" in one_line_error(result)
