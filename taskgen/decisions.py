"""What a person decided about a task survives every re-draft.

A task file holds the drafted content plus the reviewers' record: verdicts (`reviews`, oldest
first; `status` is the latest), their own edits (`edits`), and the drafted fields that changed
since the last verdict (`changed_since_review`). Re-drafting goes through `redraft`, which keeps
that record whatever the drafter now says:

- the same drafted content: the task is returned unchanged (the file stays byte-identical);
- new drafted content: `version` goes up, the reviewers' edits are applied over it again, and a
  reviewed task keeps its status and lists what changed, field by field, until a person looks
  again (a release refuses it meanwhile).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ingest.models import canonical_json, sha256_hex
from taskgen.output import atomic_write, load_task, pretty_json, task_lock, task_path
from taskgen.task import DraftTask, FieldChange, ReviewEdit, ReviewRecord

REVIEW_FIELDS = frozenset(
    {"version", "status", "drafted_sha256", "reviews", "edits", "changed_since_review", "expectations_status"}
)
"""What the reviewers own; everything else in a task file is drafted content."""

EDITABLE = ("expectations", "required_tools", "forbidden_tools")


MEMBERS_EXCLUDED = {"provenance": {"session_ids"}}
"""The near-duplicates a task stands for are where it came from, not what it asks: a sample that
finds one more of them changes no version (`write_redraft` keeps them up to date)."""


def drafted_content(task: DraftTask) -> dict[str, Any]:
    content = task.model_dump(mode="json", exclude=dict.fromkeys(REVIEW_FIELDS, True) | MEMBERS_EXCLUDED)
    for field in ("may_change", "forbidden_calls"):
        if not content.get(field):
            # none is what a task drafted before the field existed said: its reviewed version stands
            content.pop(field, None)
    return content


def drafted_sha256(task: DraftTask) -> str:
    return sha256_hex(canonical_json(drafted_content(task)))


def reviewed(task: DraftTask) -> bool:
    return bool(task.reviews or task.edits) or task.status != "draft"


def _latest_edits(edits: Iterable[ReviewEdit]) -> dict[tuple[str, str | None], ReviewEdit]:
    latest: dict[tuple[str, str | None], ReviewEdit] = {}
    for edit in edits:
        latest[(edit.field, edit.question)] = edit
    return latest


def apply_edits(task: DraftTask, edits: Sequence[ReviewEdit]) -> DraftTask:
    """The task with each field a reviewer set replaced by their latest value for it."""
    update: dict[str, Any] = {"edits": list(edits)}
    for (field, _), edit in _latest_edits(edits).items():
        if field in EDITABLE:
            update[field] = edit.value
    if any(edit.field == "expectations" for edit in edits):
        update["expectations_status"] = "confirmed"
    return DraftTask.model_validate(task.model_dump() | {k: _dump(v) for k, v in update.items()})


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return [item.model_dump(mode="json") if hasattr(item, "model_dump") else item for item in value]
    return value


def open_questions(task: DraftTask) -> list[str]:
    """The review questions no reviewer has answered yet."""
    answered = {edit.question for edit in task.edits if edit.field == "answer"}
    return [question for question in task.review_questions if question not in answered]


def answers(task: DraftTask) -> dict[str, ReviewEdit]:
    return {question: edit for (field, question), edit in _latest_edits(task.edits).items() if field == "answer" and question}


def _drafted_before(previous: DraftTask) -> dict[str, Any]:
    """The previous drafted content: the file's fields, except where a reviewer's edit stands over
    the drafter's value (the edit keeps what the drafter had said)."""
    content = drafted_content(previous)
    for (field, _), edit in _latest_edits(previous.edits).items():
        if field in EDITABLE and edit.drafted is not None:
            content[field] = _dump(edit.drafted)
    return content


def _merge_changes(earlier: Sequence[FieldChange], now: Sequence[FieldChange]) -> list[FieldChange]:
    """Changes since the last verdict: the first `before` a reviewer saw, the latest `after`; a
    field back where the reviewer saw it is no longer a change."""
    merged = {change.field: change for change in earlier}
    for change in now:
        first = merged[change.field].before if change.field in merged else change.before
        merged[change.field] = FieldChange(field=change.field, before=first, after=change.after)
    return [change for _, change in sorted(merged.items()) if canonical_json(change.before) != canonical_json(change.after)]


def diff(before: dict[str, Any], after: dict[str, Any]) -> list[FieldChange]:
    fields = sorted(set(before) | set(after))
    return [
        FieldChange(field=field, before=before.get(field), after=after.get(field))
        for field in fields
        if canonical_json(before.get(field)) != canonical_json(after.get(field))
    ]


def redraft(previous: DraftTask | None, drafted: DraftTask) -> DraftTask:
    """The task to write for `drafted` when `previous` (same pair and polarity) is on file.

    A reviewed task keeps its id even when the drafter now names it otherwise (a changed
    intent): the verdicts belong to the incident's task, not to a label.
    """
    if previous is not None and reviewed(previous) and previous.task_id != drafted.task_id:
        drafted = drafted.model_copy(update={"task_id": previous.task_id})
    digest = drafted_sha256(drafted)
    if previous is None:
        return drafted.model_copy(update={"drafted_sha256": digest, "version": 1})
    previous_digest = previous.drafted_sha256 or drafted_sha256(previous)
    if previous_digest == digest:
        return previous
    task = apply_edits(drafted, previous.edits)
    update: dict[str, Any] = {
        "drafted_sha256": digest,
        "version": previous.version + 1,
        "status": previous.status,
        "reviews": previous.reviews,
    }
    if reviewed(previous):
        changes = diff(_drafted_before(previous), drafted_content(drafted))
        update["changed_since_review"] = _merge_changes(previous.changed_since_review, changes)
    return task.model_copy(update=update)


def restore(drafted: DraftTask, reviews: Sequence[ReviewRecord], edits: Sequence[ReviewEdit], version: int) -> DraftTask:
    """A reviewed task whose file is gone, from the decisions the store mirrors: the verdicts and
    edits come back; if the drafted content is not the one last reviewed, it is marked changed."""
    digest = drafted_sha256(drafted)
    task = apply_edits(drafted, list(edits))
    seen = next((review.drafted_sha256 for review in reversed(reviews) if review.drafted_sha256), None)
    changes = [] if seen in (None, digest) else [FieldChange(field="drafted content", before=seen, after=digest)]
    status = reviews[-1].status if reviews else "draft"
    return task.model_copy(
        update={"drafted_sha256": digest, "version": version + (seen not in (None, digest)), "status": status,
                "reviews": list(reviews), "changed_since_review": changes}
    )


def record_verdict(task: DraftTask, verdict: ReviewRecord) -> DraftTask:
    """A verdict is added to the history; it becomes the status; a person has now looked again."""
    stamped = verdict.model_copy(update={"version": task.version, "drafted_sha256": task.drafted_sha256 or drafted_sha256(task)})
    return task.model_copy(update={"status": verdict.status, "reviews": [*task.reviews, stamped], "changed_since_review": []})


def record_edit(task: DraftTask, edit: ReviewEdit) -> DraftTask:
    """A reviewer's content; for a field, the drafter's value it replaces is kept beside it."""
    if edit.field in EDITABLE:
        drafted = getattr(task, edit.field)
        earlier = [e for e in task.edits if e.field == edit.field and e.drafted is not None]
        edit = edit.model_copy(update={"drafted": earlier[0].drafted if earlier else drafted})
    elif edit.field == "answer" and edit.question not in task.review_questions:
        raise ValueError("the task has no such review question")
    return apply_edits(task, [*task.edits, edit])


def verdicts_by_reviewer(task: DraftTask) -> dict[str, str]:
    latest: dict[str, str] = {}
    for review in task.reviews:
        latest[review.reviewer or "(unnamed)"] = review.status
    return latest


def disagreement(task: DraftTask) -> bool:
    """Reviewers whose latest verdicts differ."""
    return len(set(verdicts_by_reviewer(task).values())) > 1


def describe_change(change: FieldChange) -> str:
    return f"{change.field}: {json.dumps(change.before, sort_keys=True)} -> {json.dumps(change.after, sort_keys=True)}"


def events(task: DraftTask) -> list[dict[str, Any]]:
    """The task's verdicts and edits as rows for the store's mirror (one per event, numbered)."""
    rows = [
        {"task_id": task.task_id, "kind": "verdict", "seq": n, "pair_id": task.pair_id, "polarity": task.polarity,
         "version": task.version, "body": canonical_json(review.model_dump(mode="json"))}
        for n, review in enumerate(task.reviews)
    ]
    rows += [
        {"task_id": task.task_id, "kind": "edit", "seq": n, "pair_id": task.pair_id, "polarity": task.polarity,
         "version": task.version, "body": canonical_json(edit.model_dump(mode="json"))}
        for n, edit in enumerate(task.edits)
    ]
    return rows


def from_events(drafted: DraftTask, rows: Sequence[dict[str, Any]]) -> DraftTask | None:
    """`restore` from mirrored rows (as `events` made them), or None when there are none."""
    if not rows:
        return None
    ordered = sorted(rows, key=lambda row: (row["kind"], row["seq"]))
    reviews = [ReviewRecord.model_validate_json(row["body"]) for row in ordered if row["kind"] == "verdict"]
    edits = [ReviewEdit.model_validate_json(row["body"]) for row in ordered if row["kind"] == "edit"]
    task_ids = {row["task_id"] for row in ordered}
    if len(task_ids) == 1:
        drafted = drafted.model_copy(update={"task_id": task_ids.pop()})
    return restore(drafted, reviews, edits, max(row["version"] for row in ordered))


def write_redraft(out: Path, drafted: DraftTask, earlier: Sequence[Path], mirrored: Sequence[dict[str, Any]] = (),
                  *, keep_members: bool = False) -> tuple[DraftTask, Path]:
    """Write `drafted` over what is on file for its pair and polarity (`earlier`: the paths it may
    have been written to), keeping every decision; a superseded file of another id or set goes.

    The session ids of the provenance (the drafted session and its near-duplicates) are not drafted
    content: `drafted`'s replace those on file, except with `keep_members`, when `drafted` was made
    without the day's other sessions (the on-call path) and cannot know the near-duplicates the
    task also stands for: then the ids on file stay too. Read and written under the lock, the task
    is the same whichever of the nightly run and the on-call path writes last."""
    with task_lock(out):
        on_file = [path for path in dict.fromkeys(earlier) if path.is_file()]
        previous = _best(load_task(path) for path in on_file)
        members = set(drafted.provenance.session_ids)
        if keep_members and previous is not None:
            members |= set(previous.provenance.session_ids)
        if previous is None:
            previous = from_events(drafted, mirrored)
        task = redraft(previous, drafted)
        task = task.model_copy(update={"provenance": task.provenance.model_copy(update={"session_ids": sorted(members)})})
        path = task_path(out, task)
        if not path.is_file() or load_task(path) != task:
            atomic_write(path, pretty_json(task))
        for stale in on_file:
            if stale != path:
                stale.unlink(missing_ok=True)
    return task, path


def _best(tasks: Iterable[DraftTask]) -> DraftTask | None:
    """Of several files for one pair and polarity (left by an older run), the reviewed one."""
    ordered = sorted(tasks, key=lambda task: (not reviewed(task), -task.version, task.task_id))
    return ordered[0] if ordered else None
