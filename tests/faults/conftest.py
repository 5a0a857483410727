"""Fault-test fixtures: a world over a copy of the demo drop, on SQLite or PostgreSQL, reference outputs."""

from __future__ import annotations

import pytest
from demo_world import World, first_escalation, make_world, output_tree, run_stages, throwaway_postgres


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    """(store URL, raw-zone URL) on a fresh SQLite pair or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/store/store.db", f"sqlite:///{tmp_path}/store/raw.db"
        return
    with throwaway_postgres() as url:
        yield url, url


@pytest.fixture
def workspace(tmp_path, demo_drop, backend) -> World:
    url, raw_url = backend
    return make_world(tmp_path / "ws", drop=demo_drop, store_url=url, raw_url=raw_url)


@pytest.fixture(scope="session")
def reference(tmp_path_factory, demo_drop) -> dict[str, dict[str, bytes]]:
    """Uninterrupted runs on SQLite: the nightly output, then the output after the on-call path too.
    Both come from the stages in this process: the nightly is byte for byte what `trace2task run --all`
    writes (DEMO_OUTPUT_SHA256 checks both), and the fault tests that compare with `with_incident` run
    `trace2task incident` themselves, so they also check the command against the stages."""
    root = tmp_path_factory.mktemp("reference")
    ws = make_world(root, drop=demo_drop, store_url=f"sqlite:///{root}/store.db", raw_url=f"sqlite:///{root}/raw.db")
    run_stages(ws.config).store.dispose()
    nightly = output_tree(ws.out)
    run_stages(ws.config, incident_id=first_escalation(ws.drop)).store.dispose()
    return {"nightly": nightly, "with_incident": output_tree(ws.out)}
