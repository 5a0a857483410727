"""Fixtures every test folder shares: the demo drop the end-to-end tests start from, a throwaway PostgreSQL database."""

from pathlib import Path

import pytest
from demo_world import throwaway_postgres, write_drop


@pytest.fixture(scope="session")
def demo_drop(tmp_path_factory) -> Path:
    """The demo drop (40 sessions over 2 days, seed 11); a world copies it before changing it."""
    return write_drop(tmp_path_factory.mktemp("demo"))


@pytest.fixture
def postgres_url() -> str:
    """The SQLAlchemy URL of a new, empty PostgreSQL database, dropped after the test (skipped when
    the server does not answer)."""
    with throwaway_postgres() as url:
        yield url
