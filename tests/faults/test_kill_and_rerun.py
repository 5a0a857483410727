"""A nightly run killed hard mid-way, then rerun, ends with exactly the tasks of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import time

import pytest

from demo_world import leftover_temp_files, output_tree

pytestmark = pytest.mark.xdist_group("faults")


def _kill_when_tasks_appear(process, out, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the run ended (exit {process.returncode}) before any task was written to kill it")
        if any((out / "tasks").rglob("*.json")):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    pytest.fail("no task was written within the timeout")


def test_killed_run_then_rerun_matches_an_uninterrupted_run(workspace, reference):
    process = workspace.popen("run", "--all", "--config", str(workspace.config), "--workers", "2")
    _kill_when_tasks_appear(process, workspace.out)
    assert process.returncode == -signal.SIGKILL
    partial = output_tree(workspace.out)
    assert partial != reference["nightly"], "the kill came after the run had finished its work"

    rerun = workspace.run_all()

    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert output_tree(workspace.out) == reference["nightly"]
    assert not [name for name in leftover_temp_files(workspace.out) if name.endswith(".json")]
