import pytest
from demo_world import make_world


@pytest.fixture(scope="module")
def world(tmp_path_factory, demo_drop):
    """A copy of the demo drop with its config; each test module gets its own."""
    return make_world(tmp_path_factory.mktemp("world"), drop=demo_drop)
