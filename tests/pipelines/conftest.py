import pytest
from demo_world import copy_world, make_world, run_stages


@pytest.fixture(scope="module")
def world(tmp_path_factory, demo_drop):
    """A copy of the demo drop with its config; each test module gets its own."""
    return make_world(tmp_path_factory.mktemp("world"), drop=demo_drop)


@pytest.fixture(scope="session")
def demo_stages_run(tmp_path_factory, demo_drop):
    """The demo drop through every stage in this process (`run_stages`: what `trace2task run --all`
    writes, without Dagster), once per worker for the modules that start from such a run: (the world,
    its `StagesRun` with the store still open, a copy of the world taken right after the run). The
    world is test_pipeline_stages.py's to change; the copy is never changed (a test copies it again).
    Every module that uses it is in the xdist group `DEMO_STAGES_RUN_GROUP`."""
    world = make_world(tmp_path_factory.mktemp("stages") / "world", drop=demo_drop)
    stages = run_stages(world.config)
    stages.store.dispose()  # every connection closed (and the SQLite write-ahead log folded in) before the copy
    pristine = copy_world(world, tmp_path_factory.mktemp("stages-pristine") / "world")
    return world, stages, pristine
