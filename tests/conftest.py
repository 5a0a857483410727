"""Fixtures every test folder shares: the demo drop the end-to-end tests start from, a throwaway PostgreSQL database."""

import subprocess
from pathlib import Path

import pytest
from demo_world import World, make_world, throwaway_postgres, write_drop


@pytest.fixture(scope="session")
def demo_drop(tmp_path_factory) -> Path:
    """The demo drop (40 sessions over 2 days, seed 11); a world copies it before changing it."""
    return write_drop(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="session")
def demo_cli_run(tmp_path_factory, demo_drop) -> tuple[World, subprocess.CompletedProcess]:
    """The demo drop run through `trace2task run --all` (the installed command, Dagster and SQLite), once
    per worker for the modules that read such a run: the world and the command's result. Read it, never
    change it; a test that changes or serves it works on a copy (`demo_world.copy_world`). Every module
    that uses it is in the xdist group `DEMO_CLI_RUN_GROUP`, so the run is made once, on one worker."""
    world = make_world(tmp_path_factory.mktemp("demo-cli-run") / "run", drop=demo_drop)
    result = world.cli("run", "--config", str(world.config), "--all")
    assert result.returncode == 0, f"trace2task run failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return world, result


@pytest.fixture
def postgres_url() -> str:
    """The SQLAlchemy URL of a new, empty PostgreSQL database, dropped after the test (skipped when
    the server does not answer)."""
    with throwaway_postgres() as url:
        yield url
