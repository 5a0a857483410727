"""The asset checks run inside their assets' steps; the residue check still blocks the day."""

import pytest
from dagster import AssetKey, DagsterInstance, materialize
from demo_world import SECRET, landed_assets

from pipelines.defs.resources import resources_for
from scrubbers import Scrubber
from scrubbers.scrubber import ScrubReport, ScrubResult

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("checks")]

CHECKS = {
    ("raw_tickets", "quarantine_below_limit"),
    ("raw_traces", "quarantine_below_limit"),
    ("raw_error_logs", "quarantine_below_limit"),
    ("raw_escalations", "quarantine_below_limit"),
    ("raw_deploys", "quarantine_below_limit"),
    ("stratified_sample", "every_intent_covered"),
    ("scrubbed_sessions", "no_personal_data_residue"),
    ("draft_tasks", "every_positive_has_a_negative"),
    ("task_validation", "tasks_pass_set_validation"),
    ("task_validation", "reference_passes_every_task"),
}


def _materialize(world, day: str):
    return materialize(
        landed_assets(world.config),
        resources=resources_for(str(world.config)),
        partition_key=day,
        instance=DagsterInstance.ephemeral(),
        raise_on_error=False,
    )


def _evaluations(result) -> dict[tuple[str, str], bool]:
    return {
        (e.asset_key.to_user_string(), e.check_name): e.passed for e in result.get_asset_check_evaluations()
    }


def test_every_check_is_evaluated_once_in_one_step_per_asset(world, monkeypatch):
    monkeypatch.setenv("TRACE2TASK_SECRET", SECRET)
    result = _materialize(world, "2026-11-16")
    assert result.success
    evaluations = result.get_asset_check_evaluations()
    assert len(evaluations) == len(CHECKS) and set(_evaluations(result)) == CHECKS
    assert _evaluations(result)[("scrubbed_sessions", "no_personal_data_residue")] is True
    steps = {e.step_key for e in result.all_events if e.is_step_success}
    assert len(steps) == 8  # the five raw assets are one step; no check has a step of its own


def test_a_residue_fails_the_day_before_any_seed_or_task(world, monkeypatch):
    """A scrubber that lets every value through (and says it passed): the residue check, looking
    from the raw side, fails, and the blocking check keeps seeds and tasks from being written."""
    monkeypatch.setenv("TRACE2TASK_SECRET", SECRET)

    def leaky(self, items, pii_fields=None, real_people=frozenset()):
        return [
            ScrubResult(session=session, state=state,
                        report=ScrubReport(session_id=session.session_id, counts={}, leak_passed=True, leak_types=[]))
            for session, state in items
        ]

    monkeypatch.setattr(Scrubber, "scrub_sessions", leaky)
    files_before = _output_files(world)
    result = _materialize(world, "2026-11-17")

    assert not result.success
    assert _evaluations(result)[("scrubbed_sessions", "no_personal_data_residue")] is False
    materialized = {e.asset_key for e in result.get_asset_materialization_events()}
    assert AssetKey("scrubbed_sessions") in materialized
    assert not materialized & {AssetKey("seeds"), AssetKey("draft_tasks"), AssetKey("task_validation")}
    assert _output_files(world) == files_before


def _output_files(world) -> set[str]:
    return {str(p.relative_to(world.out)) for p in world.out.rglob("*.json")} if world.out.exists() else set()


def test_task_checks_judge_the_tasks_their_run_validated_not_another_runs_drafts(world, monkeypatch):
    """Another run drafting the same day at once has written a task row not validated yet: this
    run's reference check does not count it as a failure (it is not among the tasks it judged)."""
    from pipelines.config import load_config
    from pipelines.store.repository import Store
    from pipelines.store.rows import TaskRow

    monkeypatch.setenv("TRACE2TASK_SECRET", SECRET)
    config = load_config(world.config)
    store = Store(config.sqlalchemy_url(config.store.url), config.sqlalchemy_url(config.store.raw_url))
    store.upsert(TaskRow, [dict(task_id="other-run-pos", day="2026-11-16", session_id="other-run", task_set="capability",
                                polarity="positive", pair_id="pair-other", seed_id="s", path="tasks/capability/not-yet.json",
                                sha256="-", issues="[]", health="{}", scope="incident")])
    try:
        result = _materialize(world, "2026-11-16")
    finally:
        store.delete(TaskRow, TaskRow.task_id == "other-run-pos")
    assert result.success
    assert _evaluations(result)[("task_validation", "reference_passes_every_task")] is True


def test_the_reference_check_leaves_stubs_to_a_person_and_fails_on_any_other_task():
    import json

    from pipelines.defs.checks import reference_passes_every_task
    from pipelines.store.rows import TaskRow

    def row(task_id, **health):
        return TaskRow(task_id=task_id, day="2026-11-16", session_id="s", task_set="capability", polarity="negative", pair_id="p",
                       seed_id="seed", path=f"tasks/{task_id}.json", sha256="0", issues="[]", health=json.dumps(health))

    stub = row("stub-neg", reference_passed=False, stub=True)
    assert reference_passes_every_task([row("a-pos", reference_passed=True), stub]).passed
    failed = reference_passes_every_task([row("a-pos", reference_passed=True), stub, row("b-neg", reference_passed=False)])
    assert not failed.passed and failed.metadata["first_failures"].value == "b-neg"
    assert not reference_passes_every_task([row("unchecked")]).passed
