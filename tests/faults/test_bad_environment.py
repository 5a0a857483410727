"""Broken inputs and a hostile environment: a quarantine or one clear error line, never lost output.

Damaged files go through the stages in this process; the one-line errors come from the command's
entry point in this process (`World.run_all_in_process`), the full disk from the installed command."""

from __future__ import annotations

import json
import subprocess
import uuid

import pytest
from sqlalchemy import create_engine, text

from demo_world import make_world, one_line_error, output_tree, run_stages

pytestmark = pytest.mark.xdist_group("faults")

CLOSED_PORT_URL = "postgresql+psycopg2://root@127.0.0.1:1/test"


def _quarantine(url: str) -> list[dict]:
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(text("SELECT source, file, position, reason FROM quarantine"))]
    engine.dispose()
    return rows


def test_truncated_and_corrupt_files_are_quarantined_and_the_rest_lands(workspace, backend):
    traces = sorted((workspace.drop / "traces").glob("*.jsonl"))[0]
    data = traces.read_bytes()
    lines = data.splitlines(keepends=True)
    traces.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # cut mid-record, as a crashed writer leaves it
    page = sorted((workspace.drop / "tickets").glob("export-*.json"))[0]
    page.write_bytes(page.read_bytes()[:-40])  # a page cut short: the whole document is unreadable
    comments = sorted((workspace.drop / "tickets" / "comments").glob("*.json"))[0]
    comments.write_bytes(b"\x00\xff" * 30)

    run_stages(workspace.config).store.dispose()  # what the nightly run does, without Dagster: nothing raises

    quarantine = _quarantine(backend[0])
    by_file = {row["file"]: row for row in quarantine}
    trace_file = traces.relative_to(workspace.drop).as_posix()
    assert trace_file in by_file and by_file[trace_file]["position"] == len(lines)
    assert page.relative_to(workspace.drop).as_posix() in by_file
    assert comments.relative_to(workspace.drop).as_posix() in by_file
    assert all(row["reason"] and "{" not in row["reason"] for row in quarantine)
    assert list((workspace.out / "tasks").rglob("*.json")), "the readable records still became tasks"


def test_store_on_a_closed_port_is_one_line_error(tmp_path, demo_drop):
    ws = make_world(tmp_path / "ws", drop=demo_drop, store_url=CLOSED_PORT_URL, raw_url=CLOSED_PORT_URL)
    line = one_line_error(ws.run_all_in_process())
    assert "store" in line and "127.0.0.1:1" in line


def test_state_database_on_a_closed_port_is_one_line_error(tmp_path, demo_drop):
    ws = make_world(
        tmp_path / "ws", drop=demo_drop, store_url=f"sqlite:///{tmp_path}/store.db", raw_url=f"sqlite:///{tmp_path}/raw.db",
        state=CLOSED_PORT_URL,
    )
    one_line_error(ws.run_all_in_process())


def test_missing_state_sqlite_file_is_one_line_error_and_not_created(tmp_path, demo_drop):
    missing = tmp_path / "nowhere" / "shop.db"
    ws = make_world(
        tmp_path / "ws", drop=demo_drop, store_url=f"sqlite:///{tmp_path}/store.db", raw_url=f"sqlite:///{tmp_path}/raw.db",
        state=f"sqlite:///{missing}",
    )
    one_line_error(ws.run_all_in_process())
    assert not missing.exists()


def test_output_folder_under_a_file_is_one_line_error(tmp_path, demo_drop):
    (tmp_path / "blocker").write_text("a file, not a folder\n")
    ws = make_world(
        tmp_path / "ws", drop=demo_drop, store_url=f"sqlite:///{tmp_path}/store.db", raw_url=f"sqlite:///{tmp_path}/raw.db",
        output=str(tmp_path / "blocker" / "out"),
    )
    one_line_error(ws.run_all_in_process())


@pytest.fixture
def tiny_tmpfs(tmp_path):
    mount_point = tmp_path / f"full-{uuid.uuid4().hex[:6]}"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(mount_point)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root and mount permission) to simulate a full disk")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


@pytest.mark.xdist_group("faults_disk")  # apart from the other fault tests: it needs no `reference`
def test_full_disk_fails_cleanly_and_a_rerun_with_space_completes(tmp_path, tiny_tmpfs, fault_drop):
    """On the fault drop (the subject is the disk, not the volume), its uninterrupted output from the stages
    in this process."""
    uninterrupted = make_world(tmp_path / "reference", drop=fault_drop)
    run_stages(uninterrupted.config).store.dispose()
    ws = make_world(
        tmp_path / "ws", drop=uninterrupted.drop, store_url=f"sqlite:///{tmp_path}/store.db", raw_url=f"sqlite:///{tmp_path}/raw.db",
        output=str(tiny_tmpfs / "out"),
    )
    failed = ws.run_all()
    line = one_line_error(failed)
    assert "No space left" in line
    for path in (tiny_tmpfs / "out").rglob("*.json"):
        json.loads(path.read_bytes())  # whatever was written is whole

    subprocess.run(["mount", "-o", "remount,size=64m", str(tiny_tmpfs)], check=True)
    rerun = ws.run_all()

    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert output_tree(tiny_tmpfs / "out") == output_tree(uninterrupted.out)
