"""A day run hour by hour (`partitions.by: hour`) with the multiprocess executor, the task store,
the raw zone and the Dagster instance on PostgreSQL, makes the tasks the daily run makes.

The daily reference runs on SQLite, in process; by hour, each hour holding landed records is a
`sessions_by_hour` run (two at a time) that assembles the sessions that started in it (an hour
without records is not launched), then the day's run classifies, samples, scrubs and drafts them.
Both ask for the same one-day demo drop, then the on-call path for the same incident. The drop is
small (12 sessions, spread over the day's hours, with errors whose templates are mined over every
hour's messages): the subject is the split by hour, not the volume. Both run with the default
quarantine limit: an hour's check counts landing's quarantine, not what earlier hours' assembly
quarantined."""

from __future__ import annotations

import json

import psycopg2
import pytest

from demo_world import PROJECT_ROOT, first_escalation, make_world, output_tree, write_drop

DAY = "2026-11-16"
DAGSTER_POSTGRES_YAML = PROJECT_ROOT / "docs" / "dagster-postgres.yaml"
pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.hourly, pytest.mark.xdist_group("hourly_postgres")]
"""`hourly`: left out of `make test` for its length (README, Tests); `make test-hourly` runs it."""


def _query(url: str, sql: str) -> list[tuple]:
    with psycopg2.connect(url.replace("postgresql+psycopg2://", "postgresql://")) as connection:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall()


@pytest.fixture
def demo_drop(tmp_path):
    """One day of 12 sessions."""
    return write_drop(tmp_path / "demo", sessions=12, days=1)


def test_an_hourly_multiprocess_run_on_postgres_makes_the_daily_runs_tasks(tmp_path, demo_drop, postgres_url):
    daily = make_world(tmp_path / "daily", drop=demo_drop)
    result = daily.cli("run", "--date", DAY, "--config", str(daily.config), "--workers", "1")
    assert result.returncode == 0, result.stderr[-3000:]

    hourly = make_world(tmp_path / "hourly", drop=demo_drop, store_url=postgres_url, raw_url=postgres_url,
                        dagster_yaml=DAGSTER_POSTGRES_YAML)
    with hourly.config.open("a", encoding="utf-8") as fh:
        # forkserver with the definitions preloaded: each step's process starts without importing them again
        fh.write("partitions: {by: hour}\nexecutor: {name: multiprocess, config: {max_concurrent: 2, start_method: "
                 "{forkserver: {preload_modules: [pipelines.defs.definitions]}}}}\n")
    result = hourly.cli("run", "--date", DAY, "--config", str(hourly.config), "--workers", "2",
                        env={"DAGSTER_POSTGRES_URL": postgres_url})
    assert result.returncode == 0, result.stderr[-3000:]

    want, got = output_tree(daily.out), output_tree(hourly.out)
    assert any(name.startswith("tasks/") for name in want)
    assert sorted(set(want) ^ set(got)) == []
    assert [name for name in want if want[name] != got[name]] == []

    # the runs are Dagster's, recorded in PostgreSQL: the hours holding records and the day, each
    # step in its own process
    landed = _query(postgres_url, "SELECT DISTINCT to_char(occurred_at, 'YYYY-MM-DD-HH24:00') FROM raw_record "
                              f"WHERE day = '{DAY}'")
    assert 1 < len(landed) < 24  # some hours hold none: they are not launched
    runs = _query(postgres_url, "SELECT pipeline_name, status, count(*) FROM runs GROUP BY pipeline_name, status")
    assert sorted(runs) == [("nightly_refresh", "SUCCESS", 1), ("sessions_by_hour", "SUCCESS", len(landed))]
    hours = _query(postgres_url, "SELECT DISTINCT value FROM run_tags WHERE key = 'dagster/partition' AND value LIKE '%:00'")
    assert sorted(hours) == sorted(landed)
    workers = _query(postgres_url, "SELECT count(*) FROM event_logs WHERE dagster_event_type = 'STEP_WORKER_STARTED'")[0][0]
    assert workers == len(landed) * 2 + 6  # landing and assembly per hour, the day's six steps

    # the on-call path: by hour, the incident job (the day's assets) lands and assembles the incident itself
    escalation = first_escalation(demo_drop)
    for world, env in ((daily, None), (hourly, {"DAGSTER_POSTGRES_URL": postgres_url})):
        result = world.cli("incident", escalation, "--config", str(world.config), env=env)
        assert result.returncode == 0, result.stderr[-3000:]
    assert output_tree(hourly.out) == output_tree(daily.out)
    summaries = [json.loads((world.out / "incidents" / f"{escalation}.json").read_text()) for world in (daily, hourly)]
    for summary in summaries:
        del summary["output"], summary["run_ids"]  # the folder and Dagster's run ids are the world's own
    assert summaries[0] == summaries[1]
    assert summaries[0]["tasks"] == {"positive": 1, "negative": 1}
