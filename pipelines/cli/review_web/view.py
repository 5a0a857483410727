"""What the pair page shows, gathered as plain values: one task's review facts, the difference
between the positive's and the negative's seeds, and the scrubbed session with its provenance.

Reads the task files and seeds (scrubbed outputs) and, from the store, only the scrubbed sessions
and the task_run table: never the raw zone.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from taskgen import decisions
from taskgen.health import HealthResult
from taskgen.seeds import Seed
from taskgen.task import DraftTask
from taskgen.validate import validate_task

MISSING = object()


def pair_view(task: DraftTask, seed: Seed, health: HealthResult, domain, blockers: list[str]) -> dict[str, Any]:
    """One task's column on the pair page."""
    answered = decisions.answers(task)
    return {
        "task": task,
        "seed": seed,
        "seed_counts": {kind: len(rows) for kind, rows in sorted(seed.state.items())},
        "issues": validate_task(task, seed, domain),
        "health": health,
        "questions": [
            {"number": n, "text": question, "answer": answered.get(question)}
            for n, question in enumerate(task.review_questions, 1)
        ],
        "blockers": blockers,
        "expectations_json": json.dumps([item.model_dump(mode="json") for item in task.expectations], indent=2, sort_keys=True),
        "verdicts": decisions.verdicts_by_reviewer(task),
        "disagreement": decisions.disagreement(task),
        "changes": [decisions.describe_change(change) for change in task.changed_since_review],
        "edits": [edit for edit in task.edits if edit.field != "answer"],
    }


def _cells(seed: Seed) -> dict[tuple[str, str, str], Any]:
    cells: dict[tuple[str, str, str], Any] = {("clock", "", ""): seed.clock}
    for kind, rows in seed.state.items():
        for row_id, row in rows.items():
            for field, value in row.items():
                cells[(kind, str(row_id), field)] = value
    return cells


def seed_difference(positive: Seed, negative: Seed) -> dict[str, Any]:
    """The two seeds row by row: every (kind, row, field) with both values, the differing ones
    marked; rows only one seed has count as differing in every field."""
    left, right = _cells(positive), _cells(negative)
    rows = []
    for key in sorted(set(left) | set(right), key=lambda key: (key[0] != "clock", key)):
        before, after = left.get(key, MISSING), right.get(key, MISSING)
        rows.append({
            "kind": key[0], "row": key[1], "field": key[2],
            "positive": "(absent)" if before is MISSING else _show(before),
            "negative": "(absent)" if after is MISSING else _show(after),
            "differs": before is MISSING or after is MISSING or _show(before) != _show(after),
        })
    return {"positive": positive.seed_id, "negative": negative.seed_id, "rows": rows,
            "differences": sum(row["differs"] for row in rows)}


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _utc(moment: datetime | None) -> datetime:
    if moment is None:
        return datetime.min.replace(tzinfo=UTC)
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def transcript_and_provenance(store, pair: list[DraftTask], dagster_url: str) -> dict[str, Any]:
    """Where the pair comes from (the id asked for, the Dagster runs with their UI links, the
    source records) and the scrubbed session, turns and tool calls in time order."""
    provenance = pair[0].provenance
    story: dict[str, Any] = {
        "incident_id": provenance.incident_id, "session_ids": provenance.session_ids, "trace_ids": provenance.trace_ids,
        "runs": [], "records": [], "record_ids": provenance.source_record_ids, "events": None, "session_id": None,
    }
    if store is None:
        return story
    from pipelines.store.rows import ScrubbedSessionRow, TaskRunRow

    runs = store.rows(TaskRunRow, TaskRunRow.task_id.in_([task.task_id for task in pair]))
    seen: set[str] = set()
    for run in sorted(runs, key=lambda r: (r.drafted_at, r.run_id)):
        if run.run_id in seen:
            continue
        seen.add(run.run_id)
        story["runs"].append({
            "run_id": run.run_id, "asked": "the nightly refresh" if run.scope == "nightly" else f"trace2task incident {run.scope}",
            "scope": run.scope, "day": run.day, "version": run.version, "url": f"{dagster_url}/runs/{run.run_id}",
        })
    session_id = runs[0].session_id if runs else provenance.session_ids[0]
    story["session_id"] = session_id
    scrubbed = store.rows(ScrubbedSessionRow, ScrubbedSessionRow.session_id == session_id)
    if not scrubbed:
        return story
    from ingest.models import Session

    session = Session.model_validate_json(scrubbed[0].session)
    story["records"] = [
        {"source": record.source, "external_id": record.external_id, "file": record.file, "position": record.position}
        for record in session.provenance
    ]
    events = [(turn.at, 0, {"kind": "turn", "role": turn.role, "text": turn.text, "at": turn.at}) for turn in session.turns]
    events += [
        (call.at, 1, {"kind": "call", "name": call.name, "at": call.at, "status": call.status, "error": call.error,
                      "arguments": json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)})
        for call in session.tool_calls
    ]
    story["events"] = [event for _, _, event in sorted(events, key=lambda e: (e[0] is None, _utc(e[0]), e[1]))]
    return story
