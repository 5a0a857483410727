"""Fault-test fixtures: a world over a copy of the demo drop, on SQLite or PostgreSQL, reference outputs."""

from __future__ import annotations

import uuid

import pytest
from demo_world import PG_ADMIN, World, first_escalation, make_world, output_tree, run_stages


def _postgres_database():
    psycopg2 = pytest.importorskip("psycopg2", reason="psycopg2 is not installed")
    try:
        admin = psycopg2.connect(**PG_ADMIN)
    except psycopg2.OperationalError as exc:
        pytest.skip(f"PostgreSQL at 127.0.0.1:5432 does not answer: {str(exc).strip().splitlines()[0]}")
    admin.autocommit = True
    name = f"t2t_{uuid.uuid4().hex[:12]}"
    with admin.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {name}")
    return admin, name


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    """(store URL, raw-zone URL) on a fresh SQLite pair or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/store/store.db", f"sqlite:///{tmp_path}/store/raw.db"
        return
    admin, name = _postgres_database()
    url = f"postgresql+psycopg2://root@127.0.0.1:5432/{name}"
    try:
        yield url, url
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


@pytest.fixture
def workspace(tmp_path, demo_drop, backend) -> World:
    url, raw_url = backend
    return make_world(tmp_path / "ws", drop=demo_drop, store_url=url, raw_url=raw_url)


@pytest.fixture(scope="session")
def reference(tmp_path_factory, demo_drop) -> dict[str, dict[str, bytes]]:
    """Uninterrupted runs on SQLite: the nightly output, then the output after the on-call path too.
    The nightly one comes from the stages in this process, byte for byte what `trace2task run --all`
    writes (DEMO_OUTPUT_SHA256 checks both); the incident runs through the installed command."""
    root = tmp_path_factory.mktemp("reference")
    ws = make_world(root, drop=demo_drop, store_url=f"sqlite:///{root}/store.db", raw_url=f"sqlite:///{root}/raw.db")
    run_stages(ws.config).store.dispose()
    nightly = output_tree(ws.out)
    result = ws.cli("incident", first_escalation(ws.drop), "--config", str(ws.config))
    assert result.returncode == 0, result.stderr[-2000:]
    return {"nightly": nightly, "with_incident": output_tree(ws.out)}
