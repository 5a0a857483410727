"""Run a command in a subprocess and measure its wall time and the peak RSS of its process tree.

The tree (the command and every process it starts: Dagster's worker processes too) is sampled
from /proc every `interval` seconds; the peak is the largest sum of resident memory seen at once.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_rss_mb: float
    returncode: int
    stderr_tail: str


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def _rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def tree_rss_bytes(root: int) -> int:
    children, total, todo = _children_map(), 0, [root]
    while todo:
        pid = todo.pop()
        total += _rss_bytes(pid)
        todo += children.get(pid, [])
    return total


def run_measured(cmd: list[str], *, cwd: Path, env: dict[str, str], interval: float = 0.1) -> Measured:
    """Run `cmd` to completion; stdout is discarded, the last stderr lines are kept for failures."""
    peak = 0
    started = time.perf_counter()
    process = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss_bytes(process.pid))
            done.wait(interval)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = process.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    tail = "\n".join(stderr.strip().splitlines()[-3:])
    return Measured(seconds=seconds, peak_rss_mb=peak / 2**20, returncode=process.returncode, stderr_tail=tail)
