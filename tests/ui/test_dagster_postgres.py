"""Dagster and the task store on PostgreSQL, with the documented docs/dagster-postgres.yaml.

The demo drop runs through the command with the Dagster instance and the task store (and raw
landing zone) in a fresh PostgreSQL database. The runs must be recorded in PostgreSQL and the
output must be byte for byte the SQLite run's: `DEMO_OUTPUT_SHA256`, the digest the command's
SQLite run gives (`test_pipeline_nightly.py`). On a difference, the same drop runs through the
stages on SQLite in this process to show which files differ and how.
"""

from __future__ import annotations

import difflib
import socket
from pathlib import Path

import psycopg2
import pytest

from demo_world import DEMO_OUTPUT_SHA256, PROJECT_ROOT, make_world, output_digest, ran_world, run_stages, throwaway_postgres

PG_HOST, PG_PORT, PG_USER = "127.0.0.1", 5432, "root"
DAGSTER_POSTGRES_YAML = PROJECT_ROOT / "docs" / "dagster-postgres.yaml"


def _postgres_answers() -> bool:
    try:
        with socket.create_connection((PG_HOST, PG_PORT), timeout=2):
            return True
    except OSError:
        return False


pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.xdist_group("ui_postgres"),
    pytest.mark.skipif(not _postgres_answers(), reason=f"no PostgreSQL server answers at {PG_HOST}:{PG_PORT}"),
]


@pytest.fixture(scope="module")
def database():
    """A fresh database on the server (its name), dropped afterwards."""
    with throwaway_postgres() as url:
        yield url.rsplit("/", 1)[1]


def _query(database: str, sql: str) -> list[tuple]:
    with psycopg2.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=database) as connection:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall()


def _files(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def _differences(expected: Path, actual: Path) -> str:
    """Empty when both folders hold the same files byte for byte; else which differ, and how the first does."""
    want, got = _files(expected), _files(actual)
    differing = sorted(name for name in want.keys() | got.keys() if want.get(name) != got.get(name))
    if not differing:
        return ""
    first = differing[0]
    diff = difflib.unified_diff(
        want.get(first, b"").decode().splitlines(), got.get(first, b"").decode().splitlines(), "sqlite", "postgres", lineterm=""
    )
    return f"{len(differing)} files differ: {differing[:10]}\n" + "\n".join(list(diff)[:60])


@pytest.fixture(scope="module")
def on_postgres(tmp_path_factory, database, demo_drop):
    url = f"postgresql+psycopg2://{PG_USER}@{PG_HOST}:{PG_PORT}/{database}"
    return ran_world(
        tmp_path_factory.mktemp("postgres"),
        demo_drop,
        store_url=url,
        raw_url=url,
        dagster_yaml=DAGSTER_POSTGRES_YAML,
        env={"DAGSTER_POSTGRES_URL": url},
    )


def test_the_runs_are_recorded_in_postgres(on_postgres, database):
    statuses = _query(database, "SELECT status FROM runs")
    days = _query(database, "SELECT DISTINCT value FROM run_tags WHERE key = 'dagster/partition' ORDER BY value")
    assert statuses and {status for (status,) in statuses} == {"SUCCESS"}
    assert {"2026-11-16", "2026-11-17"} <= {day for (day,) in days}  # late tickets add later days
    assert _query(database, "SELECT count(*) FROM event_logs WHERE dagster_event_type = 'ASSET_MATERIALIZATION'")[0][0] > 0
    assert not (on_postgres.dagster_home / "history").exists(), "run history was written to SQLite"


def test_the_task_store_is_on_the_same_server(on_postgres, database):
    tasks_in_store = _query(database, "SELECT count(*) FROM task")[0][0]
    assert tasks_in_store and tasks_in_store == len(list((on_postgres.out / "tasks").rglob("*.json")))
    assert _query(database, "SELECT count(*) FROM raw_record")[0][0] > 0


def test_the_outputs_are_byte_identical_to_the_sqlite_run(on_postgres, demo_drop, tmp_path):
    assert _files(on_postgres.out / "tasks"), "the PostgreSQL run wrote no tasks"
    if output_digest(on_postgres.out) == DEMO_OUTPUT_SHA256:
        return
    on_sqlite = make_world(tmp_path / "sqlite", drop=demo_drop)
    run_stages(on_sqlite.config).store.dispose()
    differences = [_differences(on_sqlite.out / folder, on_postgres.out / folder) for folder in ("tasks", "seeds")]
    manifests = (on_postgres.out / "manifest.json").read_bytes() == (on_sqlite.out / "manifest.json").read_bytes()
    if not any(differences) and manifests:
        pytest.fail("the PostgreSQL run's output is the SQLite stages' output, but not DEMO_OUTPUT_SHA256: is the digest stale?")
    pytest.fail("the PostgreSQL run's output is not the SQLite run's:\n"
                + "\n".join(filter(None, differences)) + ("" if manifests else "\nmanifest.json differs"))
