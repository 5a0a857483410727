"""A pinned release read back for export: its manifest, the tasks of one split and their seeds."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ingest.models import sha256_hex
from taskgen.output import load_task
from taskgen.seeds import Seed
from taskgen.task import DraftTask

SPLITS: dict[str, str] = {"dev": "dev", "held-out": "heldout"}
"""The split as the command line names it -> as task files store it."""


class ExportError(Exception):
    """An export that cannot be made (unknown release or split, a release file changed); names ids only."""


@dataclass(frozen=True)
class ReleaseSplit:
    version: str
    split: str
    notes: str | None
    tasks: list[DraftTask]
    seeds: dict[str, Seed]

    def counts(self) -> dict[str, Any]:
        """Tasks per set and polarity, as both exports state them."""
        by_set: dict[str, Counter] = {}
        for task in self.tasks:
            by_set.setdefault(task.set, Counter())[task.polarity] += 1
        return {
            "total": len(self.tasks),
            "by_set": {name: dict(sorted(counter.items())) for name, counter in sorted(by_set.items())},
            "by_polarity": dict(sorted(Counter(task.polarity for task in self.tasks).items())),
        }


def load_release_split(out: Path, version: str, split: str) -> ReleaseSplit:
    """The tasks of `split` ('dev' or 'held-out') in release `version`, each file checked against the manifest."""
    if split not in SPLITS:
        raise ExportError(f"unknown split {split!r}; choose {' or '.join(SPLITS)}")
    release_dir = Path(out) / "releases" / version
    manifest_path = release_dir / "manifest.json"
    if not manifest_path.is_file():
        known = sorted(path.parent.name for path in (Path(out) / "releases").glob("*/manifest.json"))
        raise ExportError(f"no release {version} under {out}; released: {', '.join(known) or 'none'}")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    tasks: list[DraftTask] = []
    for task_id, entry in sorted(manifest["tasks"].items()):
        task_file = release_dir / entry["path"]
        if not task_file.is_file() or sha256_hex(task_file.read_bytes()) != entry["sha256"]:
            raise ExportError(f"release {version}: task file of {task_id} is missing or changed since the release was pinned")
        task = load_task(task_file)
        if task.split == SPLITS[split]:
            tasks.append(task)
    if not tasks:
        raise ExportError(f"release {version} holds no {split} tasks")
    seeds = {
        seed_id: Seed.model_validate_json((release_dir / "seeds" / f"{seed_id}.json").read_text(encoding="utf-8"))
        for seed_id in sorted({task.seed_id for task in tasks})
    }
    return ReleaseSplit(version=version, split=split, notes=manifest.get("notes"), tasks=tasks, seeds=seeds)
