"""Fault-test fixtures: a small demo drop, a fresh store on SQLite or PostgreSQL, reference outputs."""

from __future__ import annotations

import uuid
from datetime import date
from pathlib import Path

import pytest
from fault_workspace import PG_ADMIN, Workspace, first_escalation, make_workspace, output_tree

from ingest.demo import generate_drop


@pytest.fixture(scope="session")
def drop_template(tmp_path_factory) -> Path:
    drop = tmp_path_factory.mktemp("drop") / "drop"
    generate_drop(drop, sessions=40, days=2, seed=5, start=date(2026, 11, 16))
    return drop


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
def workspace(tmp_path, drop_template, backend) -> Workspace:
    url, raw_url = backend
    return make_workspace(tmp_path / "ws", drop_template, url, raw_url)


@pytest.fixture(scope="session")
def reference(tmp_path_factory, drop_template) -> dict[str, dict[str, bytes]]:
    """Uninterrupted runs on SQLite: the nightly output, then the output after the on-call path too."""
    root = tmp_path_factory.mktemp("reference")
    ws = make_workspace(root, drop_template, f"sqlite:///{root}/store.db", f"sqlite:///{root}/raw.db")
    result = ws.run_all()
    assert result.returncode == 0, result.stderr[-2000:]
    nightly = output_tree(ws.out)
    result = ws.cli("incident", first_escalation(ws.drop), "--config", str(ws.config))
    assert result.returncode == 0, result.stderr[-2000:]
    return {"nightly": nightly, "with_incident": output_tree(ws.out)}
