"""Draft: a task and its paired negative per scrubbed session, written as JSON files for review."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ingest.errors import UserFacingError
from ingest.models import Session
from taskgen import decisions
from taskgen.draft import draft_pair, pair_id_for
from taskgen.output import load_task, task_path, write_seed

from pipelines.stages.context import RunContext
from pipelines.stages.partition import CHUNK, classifications, day_sample, frozen_seeds, home_day, scrubbed_rows
from pipelines.store.rows import ReviewEventRow, SeedRow, TaskRow, TaskRunRow
from pipelines.store.repository import Store


class SeedNotFrozen(UserFacingError):
    """Drafting a session the freeze stage has not frozen (the message holds the session id only)."""


@dataclass
class DraftResult:
    positives: int = 0
    negatives: int = 0
    written: int = 0
    withdrawn: int = 0
    by_set: dict[str, int] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)  # task id -> path under the output folder


def draft_day(store: Store, run: RunContext, day: str, *, scope: str, run_id: str = "") -> DraftResult:
    """Draft the day's pairs over what is on file: reviewers' verdicts and edits are kept
    (taskgen.decisions), and mirrored in the store."""
    out = run.output
    sample = day_sample(store, day, scope)
    classified = classifications(store, day, sample.selected if sample else None)
    result, by_set, rows, mirror, runs = DraftResult(), Counter(), [], [], []
    now = datetime.now(timezone.utc)
    scrubbed = scrubbed_rows(store, day, scope)
    on_file = _tasks_on_file(store, [row.session_id for row in scrubbed])
    seeds = frozen_seeds(store, [row.session_id for row in scrubbed])
    for row in scrubbed:
        session = Session.model_validate_json(row.session)
        seed = seeds.get(session.session_id)
        if seed is None:
            raise SeedNotFrozen(f"session {session.session_id} has no frozen seed: materialize seeds for {day} first")
        members = (sample.members.get(session.session_id) if sample else None) or [session.session_id]
        pair = draft_pair(
            session, classified[session.session_id], seed, run.domain, members=members, config=run.config.taskgen
        )
        write_seed(out, pair.negative_seed)
        store.upsert(SeedRow, [dict(seed_id=pair.negative_seed.seed_id, body=pair.negative_seed.model_dump_json())])
        for drafted in (pair.positive, pair.negative):
            earlier, mirrored = on_file.get((drafted.pair_id, drafted.polarity), ([], []))
            candidates = [*(out / path for path in earlier), *(task_path(out, drafted.model_copy(update={"set": name}))
                                                               for name in ("capability", "regression"))]
            task, path = decisions.write_redraft(out, drafted, candidates, mirrored, keep_members=scope != "nightly")
            mirror += decisions.events(task)
            by_set[task.set] += 1
            result.paths[task.task_id] = str(path.relative_to(out))
            if run_id:
                runs.append(dict(task_id=task.task_id, run_id=run_id, scope=scope, day=day, session_id=session.session_id,
                                 version=task.version, drafted_at=now))
            rows.append(
                dict(task_id=task.task_id, day=home_day(session, day), session_id=session.session_id, task_set=task.set,
                     polarity=task.polarity, pair_id=task.pair_id, seed_id=task.seed_id,
                     path=str(path.relative_to(out)), sha256=_sha256_file(path), issues="[]", health="{}",
                     scope=scope)
            )
        result.positives += 1
        result.negatives += 1
        result.written += 2
    superseded = {(r["pair_id"], r["polarity"]): r["task_id"] for r in rows}
    gone = [old.task_id for old in store.rows(TaskRow, TaskRow.session_id.in_(sorted({r["session_id"] for r in rows})))
            if superseded.get((old.pair_id, old.polarity), old.task_id) != old.task_id]
    if gone:  # an earlier draft of the same pair under another id (the intent changed)
        store.delete(TaskRow, TaskRow.task_id.in_(gone))
    store.upsert(TaskRow, rows)
    if mirror:
        store.upsert(ReviewEventRow, mirror)
    if runs:
        store.upsert(TaskRunRow, runs)
    if scope == "nightly" and sample is not None:
        result.withdrawn = _withdraw_stale_drafts(store, out, day, set(sample.selected))
    result.by_set = dict(by_set)
    return result


def _tasks_on_file(store: Store, session_ids: list[str]) -> dict[tuple[str, str], tuple[list[str], list[dict]]]:
    """For each (pair, polarity) of these sessions: the paths earlier runs wrote its tasks to, and
    the decisions the store mirrors for it."""
    found: dict[tuple[str, str], tuple[list[str], list[dict]]] = {}
    for start in range(0, len(session_ids), CHUNK):
        for row in store.rows(TaskRow, TaskRow.session_id.in_(session_ids[start : start + CHUNK])):
            found.setdefault((row.pair_id, row.polarity), ([], []))[0].append(row.path)
    pair_ids = sorted({pair_id for pair_id, _ in found} | {pair_id_for(sid) for sid in session_ids})
    for start in range(0, len(pair_ids), CHUNK):
        for event in store.rows(ReviewEventRow, ReviewEventRow.pair_id.in_(pair_ids[start : start + CHUNK])):
            found.setdefault((event.pair_id, event.polarity), ([], []))[1].append(event.model_dump())
    return found


def _withdraw_stale_drafts(store: Store, out: Path, day: str, selected: set[str]) -> int:
    """Drafts of this day's earlier nightly runs whose session is no longer sampled (late records
    changed the sample): their files and rows go, so a rerun equals a clean run. Reviewed tasks stay."""
    stale = [
        row for row in store.rows(TaskRow, TaskRow.day == day, TaskRow.scope == "nightly")
        if row.session_id not in selected
    ]
    withdrawn = []
    for row in stale:
        path = out / row.path
        if path.is_file() and decisions.reviewed(load_task(path)):
            continue
        path.unlink(missing_ok=True)
        withdrawn.append(row.task_id)
    if withdrawn:
        store.delete(TaskRow, TaskRow.task_id.in_(withdrawn))
    return len(withdrawn)


def _sha256_file(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()
