"""Workspaces for the fault tests: a config over a copy of a drop, the CLI in a subprocess, output trees."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


TRACE2TASK = str(Path(sys.executable).with_name("trace2task"))
SECRET = "faults-secret-of-32-bytes-or-more-0000"
PG_ADMIN = dict(host="127.0.0.1", port=5432, dbname="test", user="root", connect_timeout=3)
RUN_TIMEOUT = 600


@dataclass
class Workspace:
    """A configuration file, its store, output folder and Dagster home, over a copy of the drop."""

    root: Path
    config: Path
    drop: Path
    out: Path

    def cli(self, *args: str, timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess:
        return subprocess.run(
            [TRACE2TASK, *args], cwd=self.root, env=cli_env(), capture_output=True, text=True, timeout=timeout
        )

    def run_all(self, *extra: str) -> subprocess.CompletedProcess:
        return self.cli("run", "--all", "--config", str(self.config), "--workers", "1", *extra)

    def popen(self, *args: str) -> subprocess.Popen:
        """The CLI in its own process group, so a hard kill takes its worker processes too."""
        return subprocess.Popen(
            [TRACE2TASK, *args], cwd=self.root, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True,
        )


def cli_env() -> dict[str, str]:
    return dict(os.environ, TRACE2TASK_SECRET=SECRET, COLUMNS="200")


def write_config(root: Path, drop: Path, *, url: str, raw_url: str, output: str = "out", state: str | None = None) -> Path:
    config = root / "trace2task.yaml"
    config.write_text(
        f"drop: {drop}\n"
        f"state:\n  location: {state or f'sqlite:///{drop}/state/shop.db'}\n  mapping: {drop}/state/mapping.yaml\n"
        f"store:\n  url: {url}\n  raw_url: {raw_url}\n"
        f"output: {output}\n"
        "dagster_home: dagster_home\n",
        encoding="utf-8",
    )
    return config


def output_tree(out: Path) -> dict[str, bytes]:
    """Every task, seed and the manifest, by relative path (a writer's hidden temp files are not output)."""
    files = [out / "manifest.json"] if (out / "manifest.json").exists() else []
    for folder in ("tasks", "seeds"):
        files += [p for p in (out / folder).rglob("*") if p.is_file() and not p.name.startswith(".")]
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(files)}


def leftover_temp_files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*.tmp"))


def one_line_error(result: subprocess.CompletedProcess) -> str:
    """The failure as a person sees it: exit 1 or 2, no traceback, every stderr line an error line."""
    assert result.returncode in (1, 2), (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def make_workspace(root: Path, drop_template: Path, url: str, raw_url: str, **config) -> Workspace:
    root.mkdir(parents=True, exist_ok=True)
    drop = root / "drop"
    shutil.copytree(drop_template, drop)
    path = write_config(root, drop, url=url, raw_url=raw_url, **config)
    return Workspace(root=root, config=path, drop=drop, out=root / config.get("output", "out"))


def first_escalation(drop: Path) -> str:
    first = sorted((drop / "escalations").glob("*.jsonl"))[0]
    return json.loads(first.read_text(encoding="utf-8").splitlines()[0])["id"]


