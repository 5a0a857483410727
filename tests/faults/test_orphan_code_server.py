"""The command's code server (`dagster api grpc`, pipelines.defs.launch) dies with the command: the CLI
process alone killed hard (SIGKILL: no `finally` runs) while a run is going leaves no server behind."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from demo_world import make_world

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("faults"),
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")]


def _descendants(pid: int) -> list[int]:
    """The process's descendants, from each process's parent in /proc/<pid>/stat."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        children = [child for child, of in parents.items() if of == parent]
        found += children
        todo += children
    return found


def _command(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def _wait(condition, what: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout:.0f} s")
        time.sleep(0.1)


def test_the_code_server_dies_when_the_cli_process_alone_is_killed(tmp_path):
    world = make_world(tmp_path / "world", sessions=4, days=1)
    process = world.popen("run", "--all", "--config", str(world.config), "--workers", "1")
    servers: list[int] = []
    try:
        def serving_a_run() -> bool:
            if process.poll() is not None:
                pytest.fail(f"the run ended (exit {process.returncode}) before its code server was seen serving")
            servers[:] = [pid for pid in _descendants(process.pid) if {"api", "grpc"} <= set(_command(pid))]
            # a run: the server's child process (multiprocessing's spawn), not its resource tracker
            return any("spawn_main" in " ".join(_command(pid)) for server in servers for pid in _descendants(server))

        _wait(serving_a_run, "no code server started a run")
        os.kill(process.pid, signal.SIGKILL)  # the CLI alone, not its process group
        process.wait()
        _wait(lambda: not any(_alive(pid) for pid in servers), "the code server outlived the CLI", timeout=120)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        try:
            os.killpg(process.pid, signal.SIGKILL)  # whatever else the command started (run workers)
        except ProcessLookupError:
            pass
        process.wait()
