import pytest

from ingest.config import IngestConfig


@pytest.fixture
def config() -> IngestConfig:
    return IngestConfig()
