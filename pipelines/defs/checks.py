"""The asset checks' verdicts. Metadata carries counts and types, never values.

Each check is declared in its asset's `check_specs` (assets.py) and judged here from what the
asset just wrote, inside the asset's own step.

Severity says what a failure means for the command: ERROR (the day's data or tasks are not
fit: quarantine share, personal-data residue, an unpaired positive, a task its own reference
fails) makes `run` and `incident` exit 1; WARN (tasks flagged for the reviewer by set
validation, an intent the day's sample misses) is listed in the summary and the exit stays 0.
"""

import json
from collections.abc import Sequence

from dagster import AssetCheckKey, AssetCheckResult, AssetCheckSeverity, AssetExecutionContext, AssetKey

from taskgen.sample import StratifiedSample

from pipelines.stages.residue import ResidueResult
from pipelines.store.rows import TaskRow
from pipelines.store.repository import Store

QUARANTINE_BELOW_LIMIT = "quarantine_below_limit"
QUARANTINE_DESCRIPTION = (
    "The share of this source's records of the day quarantined at landing is at most `quarantine_max_share` "
    "(assembly's dangling links are not counted: by hour, they would reach the check of a later hour)."
)
EVERY_INTENT_COVERED = "every_intent_covered"
NO_PERSONAL_DATA_RESIDUE = "no_personal_data_residue"
RESIDUE_DESCRIPTION = (
    "Searches the scrubbed sessions for every value the raw side knows from structured fields; "
    "blocking: a leak stops the run before any seed or task is written."
)
EVERY_POSITIVE_HAS_A_NEGATIVE = "every_positive_has_a_negative"
TASKS_PASS_SET_VALIDATION = "tasks_pass_set_validation"
REFERENCE_PASSES_EVERY_TASK = "reference_passes_every_task"


def selected(context: AssetExecutionContext, results: Sequence[AssetCheckResult]) -> list[AssetCheckResult]:
    """The results of the checks this run selected (a run may materialize an asset without them)."""
    keys = context.selected_asset_check_keys
    return [r for r in results if AssetCheckKey(r.asset_key, r.check_name) in keys]


QUARANTINE_GRACE = 1
"""Quarantined records a source's day may hold whatever its share: one malformed line among a
quiet day's three is not a broken feed; two are judged by the share."""


def quarantine_below_limit(asset_key: AssetKey, accepted: int, quarantined: int, limit: float) -> AssetCheckResult:
    total = accepted + quarantined
    share = quarantined / total if total else 0.0
    return AssetCheckResult(
        asset_key=asset_key,
        check_name=QUARANTINE_BELOW_LIMIT,
        passed=quarantined <= QUARANTINE_GRACE or share <= limit,
        severity=AssetCheckSeverity.ERROR,
        metadata={"accepted": accepted, "quarantined": quarantined, "share": round(share, 4), "limit": limit},
    )


def every_intent_covered(sample: StratifiedSample) -> AssetCheckResult:
    missing = sample.missing_intents
    return AssetCheckResult(
        asset_key=AssetKey("stratified_sample"),
        check_name=EVERY_INTENT_COVERED,
        passed=not missing,
        severity=AssetCheckSeverity.WARN,
        metadata={"missing_intents": ", ".join(missing) or "none"},
    )


def no_personal_data_residue(residue: ResidueResult) -> AssetCheckResult:
    return AssetCheckResult(
        asset_key=AssetKey("scrubbed_sessions"),
        check_name=NO_PERSONAL_DATA_RESIDUE,
        passed=not residue.leaks,
        severity=AssetCheckSeverity.ERROR,
        metadata={"sessions_checked": residue.checked, "values_checked": residue.values,
                  "leaks_by_type": json.dumps(residue.leaks, sort_keys=True)},
    )


def day_task_rows(store: Store, day: str) -> list[TaskRow]:
    return store.rows(TaskRow, TaskRow.day == day)


def task_rows(store: Store, task_ids: Sequence[str]) -> list[TaskRow]:
    """The rows of the tasks a run validated: what its checks judge."""
    return store.rows(TaskRow, TaskRow.task_id.in_(list(task_ids))) if task_ids else []


def every_positive_has_a_negative(rows: Sequence[TaskRow]) -> AssetCheckResult:
    pairs: dict[str, set[str]] = {}
    for row in rows:
        pairs.setdefault(row.pair_id, set()).add(row.polarity)
    unpaired = sorted(pid for pid, pols in pairs.items() if pols != {"positive", "negative"})
    return AssetCheckResult(
        asset_key=AssetKey("draft_tasks"),
        check_name=EVERY_POSITIVE_HAS_A_NEGATIVE,
        passed=not unpaired,
        severity=AssetCheckSeverity.ERROR,
        metadata={"pairs": len(pairs), "unpaired": len(unpaired)},
    )


def tasks_pass_set_validation(rows: Sequence[TaskRow]) -> AssetCheckResult:
    flagged = sorted(r.task_id for r in rows if json.loads(r.issues))
    return AssetCheckResult(
        asset_key=AssetKey("task_validation"),
        check_name=TASKS_PASS_SET_VALIDATION,
        passed=not flagged,
        severity=AssetCheckSeverity.WARN,
        metadata={"tasks": len(rows), "flagged": len(flagged), "first_flagged": ", ".join(flagged[:10])},
    )


def reference_passes_every_task(rows: Sequence[TaskRow]) -> AssetCheckResult:
    health = {r.task_id: json.loads(r.health or "{}") for r in rows}
    # A stub negative ('boundary: none') is not a task yet: a person writes it; it is counted apart.
    failed = sorted(task_id for task_id, h in health.items() if not h.get("stub") and not h.get("reference_passed", False))
    return AssetCheckResult(
        asset_key=AssetKey("task_validation"),
        check_name=REFERENCE_PASSES_EVERY_TASK,
        passed=not failed,
        severity=AssetCheckSeverity.ERROR,
        metadata={"tasks": len(rows), "reference_failures": len(failed), "first_failures": ", ".join(failed[:10])},
    )
