"""A small demo world for pipeline tests: a drop, a config file, a secret, and the CLI to run."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from ingest.demo import generate_drop

CLI = [sys.executable, "-m", "pipelines"]
SECRET = "pipeline-test-secret-of-32-bytes-or-more"
DEMO_OUTPUT_SHA256 = "01e2b5f854215006f1095b2405cf33a4b4e6a9b14281a9f6c31b7dd9c406f907"
"""Every task, seed and the manifest of the default world (40 sessions, 2 days, seed 11) run with
SECRET. A change meant to change the output updates it, and says so in its commit message."""


@dataclass
class World:
    root: Path
    config: Path

    @property
    def drop(self) -> Path:
        return self.root / "drop"

    @property
    def out(self) -> Path:
        return self.root / "out"

    def cli(self, *args: str, secret: str | None = SECRET, timeout: int = 600) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k != "TRACE2TASK_SECRET"}
        if secret is not None:
            env["TRACE2TASK_SECRET"] = secret
        return subprocess.run(
            [*CLI, *args], cwd=self.root, env=env, capture_output=True, text=True, timeout=timeout
        )


def make_world(
    root: Path, *, sessions: int = 40, days: int = 2, seed: int = 11, store_url: str | None = None,
    raw_url: str | None = None,
) -> World:
    root.mkdir(parents=True, exist_ok=True)
    generate_drop(root / "drop", sessions=sessions, days=days, seed=seed, start=date(2026, 11, 16))
    store = {"url": store_url or "sqlite:///.trace2task/store.db", "raw_url": raw_url or "sqlite:///.trace2task/raw.db"}
    config = {
        "drop": "drop",
        "state": {"location": "sqlite:///drop/state/shop.db", "mapping": "drop/state/mapping.yaml"},
        "store": store,
        "output": "out",
        "dagster_home": ".dagster_home",
        "secret": {"env": "TRACE2TASK_SECRET", "file": None},
    }
    path = root / "trace2task.yaml"
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")  # JSON is YAML
    return World(root=root, config=path)


def output_digest(out: Path) -> str:
    """sha256 over the output's files (path and bytes), leaving out the run summary (it names folders)."""
    digest = hashlib.sha256()
    for path in sorted(out.rglob("*")):
        if path.is_file() and path.name != "run-summary.json" and not path.name.startswith("."):
            digest.update(path.relative_to(out).as_posix().encode("utf-8") + b"\0" + path.read_bytes())
    return digest.hexdigest()


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def planted_values(drop: Path) -> list[tuple[str, str]]:
    """The personal values the generator planted, minus lone first/last names (stand-ins share them)."""
    document = json.loads((drop / "planted_pii.json").read_text(encoding="utf-8"))
    return [
        (v["type"], v["value"])
        for v in document["values"]
        if v["type"] not in ("FIRST_NAME", "LAST_NAME") and len(v["value"]) >= 5
    ]


def find_planted(values: list[tuple[str, str]], texts: dict[str, str]) -> dict[str, list[str]]:
    """Where each planted value appears as a whole word: {entity type: [places]} (values never returned)."""
    found: dict[str, list[str]] = {}
    for entity, value in values:
        pattern = re.compile(r"(?<![\w@.])" + re.escape(value) + r"(?![\w@])", re.IGNORECASE)
        for where, text in texts.items():
            if pattern.search(text):
                found.setdefault(entity, []).append(where)
                break
    return found
