import pytest

from scrubbers import ScrubConfig, Scrubber
from scrubbers.engine import Detector, get_detector


@pytest.fixture(scope="session")
def secret() -> bytes:
    return b"tests-only-pseudonym-secret"


@pytest.fixture(scope="session")
def config() -> ScrubConfig:
    return ScrubConfig()


@pytest.fixture(scope="session")
def detector(config: ScrubConfig) -> Detector:
    return get_detector(config)


@pytest.fixture(scope="session")
def scrubber(config: ScrubConfig, detector: Detector, secret: bytes) -> Scrubber:
    return Scrubber(config, secret)
