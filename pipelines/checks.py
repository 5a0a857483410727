"""Asset checks, beside the assets they check. Metadata carries counts and types, never values."""


import json

from dagster import AssetCheckExecutionContext, AssetCheckResult, AssetCheckSeverity, asset_check

from ingest.models import SOURCES

from . import stages
from .assets import RAW_ASSETS, draft_tasks, scrubbed_sessions, stratified_sample, task_validation
from .resources import RunScope, SettingsResource, StateDatabase, StoreResource
from .store import TaskRow
from .telemetry import stage_span


def _quarantine_check(source: str, raw_asset):
    @asset_check(asset=raw_asset, name="quarantine_below_limit", blocking=False)
    def _check(
        context: AssetCheckExecutionContext, settings: SettingsResource, store: StoreResource
    ) -> AssetCheckResult:
        limit = settings.load().quarantine_max_share
        accepted, quarantined = stages.quarantine_share(store.get(), source, context.partition_key)
        total = accepted + quarantined
        share = quarantined / total if total else 0.0
        return AssetCheckResult(
            passed=share <= limit,
            metadata={"accepted": accepted, "quarantined": quarantined, "share": round(share, 4), "limit": limit},
        )

    return _check


QUARANTINE_CHECKS = [_quarantine_check(source, raw) for source, raw in zip(SOURCES, RAW_ASSETS)]


@asset_check(asset=stratified_sample, name="every_intent_covered", blocking=False)
def every_intent_covered(
    context: AssetCheckExecutionContext, store: StoreResource, scope: RunScope
) -> AssetCheckResult:
    sample = stages._sample(store.get(), context.partition_key, scope.name)
    missing = sample.missing_intents if sample else []
    return AssetCheckResult(passed=not missing, metadata={"missing_intents": ", ".join(missing) or "none"})


@asset_check(asset=scrubbed_sessions, name="no_personal_data_residue", blocking=True)
def no_personal_data_residue(
    context: AssetCheckExecutionContext,
    settings: SettingsResource,
    store: StoreResource,
    state: StateDatabase,
    scope: RunScope,
) -> AssetCheckResult:
    """Searches the scrubbed sessions for every value the raw side knows from structured fields."""
    with stage_span("residue_check", partition=context.partition_key):
        residue = stages.residue_day(store.get(), settings.load(), state, context.partition_key, scope=scope.name)
    return AssetCheckResult(
        passed=not residue.leaks,
        severity=AssetCheckSeverity.ERROR,
        metadata={"sessions_checked": residue.checked, "values_checked": residue.values,
                  "leaks_by_type": json.dumps(residue.leaks, sort_keys=True)},
    )


@asset_check(asset=task_validation, name="tasks_pass_set_validation", blocking=False)
def tasks_pass_set_validation(context: AssetCheckExecutionContext, store: StoreResource) -> AssetCheckResult:
    rows = store.get().rows(TaskRow, TaskRow.day == context.partition_key)
    flagged = sorted(r.task_id for r in rows if json.loads(r.issues))
    return AssetCheckResult(
        passed=not flagged, metadata={"tasks": len(rows), "flagged": len(flagged), "first_flagged": ", ".join(flagged[:10])}
    )


@asset_check(asset=task_validation, name="reference_passes_every_task", blocking=False)
def reference_passes_every_task(context: AssetCheckExecutionContext, store: StoreResource) -> AssetCheckResult:
    rows = store.get().rows(TaskRow, TaskRow.day == context.partition_key)
    failed = sorted(r.task_id for r in rows if not json.loads(r.health or "{}").get("reference_passed", False))
    return AssetCheckResult(
        passed=not failed, metadata={"tasks": len(rows), "reference_failures": len(failed),
                                     "first_failures": ", ".join(failed[:10])}
    )


@asset_check(asset=draft_tasks, name="every_positive_has_a_negative", blocking=False)
def every_positive_has_a_negative(context: AssetCheckExecutionContext, store: StoreResource) -> AssetCheckResult:
    rows = store.get().rows(TaskRow, TaskRow.day == context.partition_key)
    pairs: dict[str, set[str]] = {}
    for row in rows:
        pairs.setdefault(row.pair_id, set()).add(row.polarity)
    unpaired = sorted(pid for pid, pols in pairs.items() if pols != {"positive", "negative"})
    return AssetCheckResult(passed=not unpaired, metadata={"pairs": len(pairs), "unpaired": len(unpaired)})


ASSET_CHECKS = [
    *QUARANTINE_CHECKS,
    every_intent_covered,
    no_personal_data_residue,
    every_positive_has_a_negative,
    tasks_pass_set_validation,
    reference_passes_every_task,
]
