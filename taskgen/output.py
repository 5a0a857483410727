"""Task, seed and manifest files: stable pretty JSON, atomic writes, byte-identical reruns."""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ingest.models import sha256_hex
from taskgen.seeds import Seed
from taskgen.task import DraftTask


def pretty_json(value: Any) -> str:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def atomic_write(path: Path, text: str) -> Path:
    """Write via a temp file in the same folder and os.replace: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as temp:
            temp.write(text)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return path


def task_path(out: Path, task: DraftTask) -> Path:
    return Path(out) / "tasks" / task.set / f"{task.task_id}.json"


def find_task_file(out: Path, task_id: str) -> Path | None:
    """The file of `task_id` under any set's folder (a re-draft may have moved it to another set)."""
    found = sorted(Path(out).glob(f"tasks/*/{task_id}.json"))
    return found[0] if found else None


@contextmanager
def task_lock(out: Path) -> Iterator[None]:
    """Held while a task file is read, changed and written back (a re-draft, a reviewer's verdict):
    a reviewer acting during a nightly run never loses the decision, the run never loses its draft."""
    folder = Path(out) / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def write_task(out: Path, task: DraftTask) -> Path:
    return atomic_write(task_path(out, task), pretty_json(task))


def write_seed(out: Path, seed: Seed) -> Path:
    return atomic_write(Path(out) / "seeds" / f"{seed.seed_id}.json", pretty_json(seed))


def load_task(path: Path) -> DraftTask:
    return DraftTask.model_validate_json(Path(path).read_text(encoding="utf-8"))


def load_tasks(directory: Path) -> list[DraftTask]:
    """Every task file under `directory` (e.g. <out>/tasks), sorted by task id."""
    return sorted((load_task(path) for path in Path(directory).rglob("*.json")), key=lambda task: task.task_id)


def load_seed(out: Path, seed_id: str) -> Seed:
    return Seed.model_validate_json((Path(out) / "seeds" / f"{seed_id}.json").read_text(encoding="utf-8"))


def manifest_for(out: Path, version: str, tasks: Sequence[DraftTask], notes: str | None = None) -> dict[str, Any]:
    entries = {
        task.task_id: {
            "path": task_path(Path("."), task).as_posix(),
            "sha256": sha256_hex(task_path(out, task).read_bytes()),
            "version": task.version,
        }
        for task in sorted(tasks, key=lambda task: task.task_id)
    }
    counts = {
        label: dict(sorted(Counter(getattr(task, label) for task in tasks).items()))
        for label in ("set", "intent", "polarity", "status", "split")
    }
    manifest: dict[str, Any] = {"version": version, "tasks": entries, "counts": counts, "total": len(entries)}
    if notes is not None:
        manifest["notes"] = notes
    return manifest


def write_manifest(out: Path, version: str, tasks: Sequence[DraftTask], notes: str | None = None) -> Path:
    """<out>/manifest.json: each task's file hash and counts per set, intent and polarity."""
    return atomic_write(Path(out) / "manifest.json", pretty_json(manifest_for(out, version, tasks, notes)))


@contextmanager
def _manifest_lock(out: Path) -> Iterator[None]:
    """An exclusive lock on the output folder itself (no lock file among the outputs)."""
    Path(out).mkdir(parents=True, exist_ok=True)
    folder = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)  # releases the lock


def refresh_manifest(out: Path, version: str) -> Path:
    """The manifest of every task file under <out>/tasks, read and written under a lock.

    Writers that run at once (partitions in parallel, the on-call path, a reviewer) each write
    their task files before refreshing, so the last manifest written lists them all.
    """
    with _manifest_lock(out):
        return write_manifest(out, version, load_tasks(Path(out) / "tasks"))


def write_all(out: Path, version: str, tasks: Sequence[DraftTask], seeds: Sequence[Seed]) -> Path:
    for seed in sorted({seed.seed_id: seed for seed in seeds}.values(), key=lambda seed: seed.seed_id):
        write_seed(out, seed)
    for task in tasks:
        write_task(out, task)
    return write_manifest(out, version, tasks)


def task_json_schema() -> dict[str, Any]:
    """The JSON Schema of a task file (docs/schemas/task.schema.json is this, written with pretty_json)."""
    schema = DraftTask.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://trace2task.local/schemas/task.schema.json"
    return schema
