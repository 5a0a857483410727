"""Fault-test fixtures: a world over a copy of the fault drop, on SQLite or PostgreSQL, reference outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_world import World, first_escalation, make_world, output_tree, run_stages, throwaway_postgres, write_drop


@pytest.fixture(scope="session")
def fault_drop(tmp_path_factory) -> Path:
    """A one-day drop of 12 sessions (seed 11: two escalations, 22 tasks): the subject of a fault test is what
    a run survives, not the volume, and a command on it takes about half the time it takes on the demo's 40
    sessions over two days (170 s against 386 s for `run --all` on a loaded 2-core machine)."""
    return write_drop(tmp_path_factory.mktemp("fault"), sessions=12, days=1)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    """(store URL, raw-zone URL) on a fresh SQLite pair or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/store/store.db", f"sqlite:///{tmp_path}/store/raw.db"
        return
    with throwaway_postgres() as url:
        yield url, url


@pytest.fixture
def workspace(tmp_path, fault_drop, backend) -> World:
    url, raw_url = backend
    return make_world(tmp_path / "ws", drop=fault_drop, store_url=url, raw_url=raw_url)


@pytest.fixture(scope="session")
def reference(tmp_path_factory, fault_drop) -> dict[str, dict[str, bytes]]:
    """Uninterrupted runs on SQLite: the nightly output, then the output after the on-call path too.
    Both come from the stages in this process: the nightly is byte for byte what `trace2task run --all`
    writes (DEMO_OUTPUT_SHA256 checks both), and the fault tests that compare with `with_incident` run
    `trace2task incident` themselves, so they also check the command against the stages."""
    root = tmp_path_factory.mktemp("reference")
    ws = make_world(root, drop=fault_drop, store_url=f"sqlite:///{root}/store.db", raw_url=f"sqlite:///{root}/raw.db")
    run_stages(ws.config).store.dispose()
    nightly = output_tree(ws.out)
    run_stages(ws.config, incident_id=first_escalation(ws.drop)).store.dispose()
    return {"nightly": nightly, "with_incident": output_tree(ws.out)}
