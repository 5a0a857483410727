"""A demo drop whose last day is held back, so a later run sees a real append.

An independently generated second drop (a later `--start`) would reuse ticket ids, comment file
names and state-database keys (`cus_000001`, ...), so copying it in would alias or overwrite the
first drop's records. Instead one drop of `days + 1` days is generated and its last day is taken
out: that day's per-day files, its deploy events (lines of `deploys/deploys.jsonl`) and its tickets
(a second export page plus their comment files). Putting them back appends lines to an existing
file and adds new files, as production does overnight. The state database keeps every row: it is
the product's database, and snapshots are taken as of each incident.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from ingest.demo import generate_drop

HELD_PAGE = "export-9999.json"


@dataclass(frozen=True)
class BenchDrop:
    drop: Path
    held: Path
    held_day: str


def _held_files(drop: Path, day: str) -> list[Path]:
    return sorted(p for p in drop.rglob(f"*{day}*") if p.is_file() and p.parent.name != "state")


def make_drop(root: Path, *, sessions: int, days: int, seed: int, start: date) -> BenchDrop:
    """`sessions` over `days` days in `root/drop`, plus one more day's records in `root/held`."""
    drop, held = root / "drop", root / "held"
    total = sessions + max(1, sessions // days)
    generate_drop(drop, sessions=total, days=days + 1, seed=seed, start=start)
    day = (start + timedelta(days=days)).isoformat()
    for path in _held_files(drop, day):
        target = held / path.relative_to(drop)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)
    _split_lines(drop / "deploys" / "deploys.jsonl", held / "deploys" / "deploys.jsonl", day)
    _split_tickets(drop / "tickets", held / "tickets", day)
    return BenchDrop(drop=drop, held=held, held_day=day)


def _split_lines(path: Path, target: Path, day: str) -> None:
    kept, moved = [], []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        (moved if json.loads(line).get("at", "").startswith(day) else kept).append(line)
    path.write_text("".join(kept), encoding="utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(moved), encoding="utf-8")


def _split_tickets(folder: Path, target: Path, day: str) -> None:
    """Tickets created on `day` move to a page of their own, with their comment files."""
    (target / "comments").mkdir(parents=True, exist_ok=True)
    moved_tickets: list[dict] = []
    users: dict = {}
    for page_path in sorted(folder.glob("export-*.json")):
        page = json.loads(page_path.read_text(encoding="utf-8"))
        moved = [t for t in page["tickets"] if str(t.get("created_at", "")).startswith(day)]
        page["tickets"] = [t for t in page["tickets"] if t not in moved]
        page["count"] = len(page["tickets"])
        page_path.write_text(json.dumps(page, separators=(",", ":")), encoding="utf-8")
        moved_tickets += moved
        users.update((u["id"], u) for u in page.get("users", []))
    wanted = sorted({t.get(k) for t in moved_tickets for k in ("requester_id", "assignee_id")} - {None})
    held_page = {
        "tickets": moved_tickets, "users": [users[i] for i in wanted if i in users],
        "count": len(moved_tickets), "next_page": None, "end_of_stream": True,
    }
    (target / HELD_PAGE).write_text(json.dumps(held_page, separators=(",", ":")), encoding="utf-8")
    for ticket in moved_tickets:
        comments = folder / "comments" / f"{ticket['id']}.json"
        if comments.exists():
            shutil.move(comments, target / "comments" / comments.name)


def append_held_day(bench_drop: BenchDrop) -> None:
    """Put the held-back day into the drop: lines appended to existing files, new files added."""
    for path in sorted(p for p in bench_drop.held.rglob("*") if p.is_file()):
        target = bench_drop.drop / path.relative_to(bench_drop.held)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            with target.open("a", encoding="utf-8") as fh:
                fh.write(path.read_text(encoding="utf-8"))
        else:
            shutil.copyfile(path, target)
