"""A small demo production drop run through the real `trace2task` command, in a folder of its own.

The folder holds the drop, a `trace2task.yaml` pointing at it, the task store (SQLite unless
other URLs are given), the Dagster home and the outputs, so a test can open the UI on it or
compare its outputs with another run's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = PROJECT_ROOT / "tests" / "artifacts"
TRACE2TASK = str(Path(sys.executable).with_name("trace2task"))
DEMO_SECRET = "ui-test-secret-of-32-bytes-or-more-00"


@dataclass(frozen=True)
class DemoRun:
    folder: Path

    @property
    def config(self) -> Path:
        return self.folder / "trace2task.yaml"

    @property
    def dagster_home(self) -> Path:
        return self.folder / "dagster_home"

    @property
    def output(self) -> Path:
        return self.folder / "out"


def trace2task(*args: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    """Run the command line; a failure shows its output in the test report."""
    result = subprocess.run(
        [TRACE2TASK, *args],
        cwd=cwd,
        env={**os.environ, "TRACE2TASK_SECRET": DEMO_SECRET, **(env or {})},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, f"trace2task {args[0]} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"


def write_drop(folder: Path, *, sessions: int, days: int) -> Path:
    drop = folder / "drop"
    trace2task("demo-data", "--out", str(drop), "--sessions", str(sessions), "--days", str(days), cwd=folder)
    return drop


def run_demo(
    folder: Path,
    drop: Path,
    *,
    store_url: str = "sqlite:///store/store.db",
    raw_url: str = "sqlite:///store/raw.db",
    dagster_yaml: Path | None = None,
    env: dict[str, str] | None = None,
) -> DemoRun:
    """Write the config for `drop`, optionally seed the Dagster home's dagster.yaml, run every day."""
    run = DemoRun(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "store").mkdir(exist_ok=True)
    config = {
        "drop": str(drop),
        "state": {"location": f"sqlite:///{drop}/state/shop.db", "mapping": str(drop / "state" / "mapping.yaml")},
        "store": {"url": store_url, "raw_url": raw_url},
        "output": "out",
        "dagster_home": "dagster_home",
    }
    run.config.write_text(yaml.safe_dump(config, sort_keys=True))
    if dagster_yaml is not None:
        run.dagster_home.mkdir()
        (run.dagster_home / "dagster.yaml").write_bytes(dagster_yaml.read_bytes())
    trace2task("run", "--config", str(run.config), "--all", cwd=folder, env=env)
    return run
