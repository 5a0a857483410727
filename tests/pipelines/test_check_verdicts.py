"""Each check's verdict can fail, and its severity says whether the command fails with it."""

from dagster import AssetCheckSeverity, AssetKey

from pipelines.defs import checks
from pipelines.store.rows import TaskRow


def _row(task_id: str, polarity: str, pair: str, issues: str = "[]", reference: bool = True) -> TaskRow:
    return TaskRow(task_id=task_id, day="2026-11-16", session_id=pair, task_set="capability", polarity=polarity, pair_id=pair,
                   seed_id="s", path="p", sha256="h", issues=issues, health=f'{{"reference_passed": {str(reference).lower()}}}')


def test_quarantine_share_fails_above_the_limit_with_one_record_of_grace():
    key = AssetKey("raw_escalations")
    assert checks.quarantine_below_limit(key, accepted=2, quarantined=1, limit=0.05).passed  # one bad line on a quiet day
    failed = checks.quarantine_below_limit(key, accepted=8, quarantined=2, limit=0.05)
    assert not failed.passed and failed.severity == AssetCheckSeverity.ERROR
    assert checks.quarantine_below_limit(key, accepted=98, quarantined=2, limit=0.05).passed


def test_pairing_and_reference_fail_the_run_validation_flags_warn():
    paired = [_row("a-pos", "positive", "p1"), _row("a-neg", "negative", "p1")]
    assert checks.every_positive_has_a_negative(paired).passed
    lone = checks.every_positive_has_a_negative(paired[:1])
    assert not lone.passed and lone.severity == AssetCheckSeverity.ERROR
    broken = checks.reference_passes_every_task([_row("a-pos", "positive", "p1", reference=False)])
    assert not broken.passed and broken.severity == AssetCheckSeverity.ERROR
    flagged = checks.tasks_pass_set_validation([_row("a-pos", "positive", "p1", issues='[{"code": "x"}]')])
    assert not flagged.passed and flagged.severity == AssetCheckSeverity.WARN
