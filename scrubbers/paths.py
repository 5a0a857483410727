"""`trace2task scrub PATH`: scrub a text, JSON or JSON Lines file, a folder tree, or stdin."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrubbers.scrubber import Scrubber
from scrubbers.structured import dump_like

JSON_SUFFIXES = frozenset({".json"})
JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})


@dataclass(frozen=True)
class ScrubPathResult:
    counts: dict[str, int]
    """entity type -> values replaced, over every file."""
    files_written: int
    files_skipped: int
    """files that are not UTF-8 text (not copied: they could hold anything)."""
    output: str
    """where the scrubbed copy went: a file, a folder, or '-' for stdout."""


@dataclass
class _Unit:
    kind: str  # "json", "jsonl" or "text"
    original: str
    value: Any


def _parse(text: str, suffix: str) -> _Unit:
    if suffix in JSONL_SUFFIXES:
        lines = []
        for line in text.splitlines():
            try:
                lines.append(json.loads(line) if line.strip() else line)
            except ValueError:
                lines.append(line)
        return _Unit("jsonl", text, lines)
    if suffix in JSON_SUFFIXES or (suffix == "" and text.strip()[:1] in "{["):
        try:
            return _Unit("json", text, json.loads(text))
        except ValueError:
            pass
    return _Unit("text", text, text)


def _render(unit: _Unit, value: Any) -> str:
    if unit.kind == "json":
        return dump_like(unit.original, value)
    if unit.kind == "jsonl":
        lines = [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in value]
        return "\n".join(lines) + ("\n" if unit.original.endswith("\n") else "")
    return value


def _default_output(path: Path) -> Path:
    if path.is_dir():
        return path.with_name(path.name + ".scrubbed")
    return path.with_name(f"{path.stem}.scrubbed{path.suffix}")


def scrub_path(path: Path | str, out: Path | None, scrubber: Scrubber) -> ScrubPathResult:
    """Scrub `path` into `out` (default: a `.scrubbed` sibling); '-' reads stdin and writes stdout.

    A folder is scrubbed in one batch (one consistency map), its tree copied file by file.
    """
    if str(path) == "-":
        unit = _parse(sys.stdin.read(), "")
        (value,), counts = scrubber.scrub_json([unit.value])
        sys.stdout.write(_render(unit, value))
        return ScrubPathResult(counts=counts, files_written=1, files_skipped=0, output="-")
    source = Path(path)
    target = out or _default_output(source)
    files = sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else [source]
    units: dict[Path, _Unit] = {}
    skipped = 0
    for file in files:
        try:
            units[file] = _parse(file.read_text(encoding="utf-8"), file.suffix.lower())
        except UnicodeDecodeError:
            skipped += 1
    values, counts = scrubber.scrub_json([unit.value for unit in units.values()])
    for (file, unit), value in zip(units.items(), values):
        destination = target / file.relative_to(source) if source.is_dir() else target
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(_render(unit, value), encoding="utf-8")
    return ScrubPathResult(counts=counts, files_written=len(units), files_skipped=skipped, output=str(target))
