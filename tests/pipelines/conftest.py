import pytest
from pipeline_env import make_world


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A 40-session, 2-day demo drop with its config; each test module gets its own."""
    return make_world(tmp_path_factory.mktemp("world"))
