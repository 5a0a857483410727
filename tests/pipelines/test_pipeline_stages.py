"""The stages as plain functions, without Dagster: a demo drop through every stage, day by day.

The output must be byte for byte the one the CLI's Dagster runs give (`DEMO_OUTPUT_SHA256`,
which test_pipeline_nightly checks on the CLI's output): one code path, two ways to call it.
"""

import json
import subprocess
import sys

import pytest
from demo_world import DEMO_OUTPUT_SHA256, DEMO_STAGES_RUN_GROUP, SECRET, output_digest, run_stages, tree_bytes

from pipelines.stages import day_records
from pipelines.stages.assemble import IncidentNotFound, scope_sessions
from pipelines.stages.draft import SeedNotFrozen, draft_day
from pipelines.stages.fingerprint import unchanged_partitions
from pipelines.stages.freeze import freeze_day
from pipelines.stages.preflight import land_everything, landed_days
from pipelines.store.rows import CursorRow, FrozenSeedRow, LedgerRow, SeedRow, TaskRow


pytestmark = [pytest.mark.xdist_group(DEMO_STAGES_RUN_GROUP)]


@pytest.fixture(scope="module")
def world(demo_stages_run):
    """The world the stages ran on (`demo_stages_run`; test_review_web.py starts from a copy taken before
    any test here changed it)."""
    return demo_stages_run[0]


@pytest.fixture(scope="module")
def stages_run(demo_stages_run):
    """Every landed day through every stage, in the order of the asset graph."""
    stages = demo_stages_run[1]
    assert stages.scrub_failures == 0 and stages.written > 0
    return stages.run, stages.store, stages.residues


def test_the_stages_import_no_dagster():
    probe = (
        "import sys, pkgutil, importlib, pipelines.stages as stages\n"
        "for module in pkgutil.iter_modules(stages.__path__):\n"
        "    importlib.import_module('pipelines.stages.' + module.name)\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'dagster'))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]"


def test_the_stages_alone_write_the_demo_output(world, stages_run):
    digest = output_digest(world.out)
    assert digest == DEMO_OUTPUT_SHA256, (
        f"the demo's tasks and seeds changed (now {digest}); if the change is meant, set DEMO_OUTPUT_SHA256 in tests/demo_world.py"
    )


def test_no_raw_value_survives_scrubbing(stages_run):
    _, _, residues = stages_run
    assert sum(residue.values for residue in residues.values()) > 0
    assert all(not residue.leaks for residue in residues.values())


def test_each_session_is_frozen_once_and_drafted_on_that_seed(stages_run):
    _, store, _ = stages_run
    frozen = {row.session_id: row.seed_id for row in store.rows(FrozenSeedRow)}
    positives = store.rows(TaskRow, TaskRow.polarity == "positive")
    assert positives and all(frozen[task.session_id] == task.seed_id for task in positives)
    assert set(frozen.values()) <= {row.seed_id for row in store.rows(SeedRow)}


def test_drafting_a_session_that_was_never_frozen_is_a_clear_error(stages_run):
    run, store, _ = stages_run
    task = store.rows(TaskRow)[0]
    day, session_id = task.day, task.session_id
    store.delete(FrozenSeedRow, FrozenSeedRow.session_id == session_id)
    with pytest.raises(SeedNotFrozen, match=f"session {session_id} has no frozen seed"):
        draft_day(store, run, day, scope="nightly")
    freeze_day(store, run, day, scope="nightly")  # put back what the test took away


def test_an_unknown_incident_names_its_id_only(stages_run):
    _, store, _ = stages_run
    with pytest.raises(IncidentNotFound, match="'no-such-incident'"):
        scope_sessions(store, "no-such-incident")
    assert scope_sessions(store, "") == []


def test_landing_again_reads_nothing_new_and_a_day_run_again_writes_identical_files(world, stages_run):
    run, store, _ = stages_run
    before = tree_bytes(world.out / "tasks"), tree_bytes(world.out / "seeds")
    ledger = store.count(LedgerRow)
    land_everything(store, run.config)
    assert store.count(LedgerRow) == ledger and store.count(CursorRow) > 0
    first_day = landed_days(store)[0]
    again = run_stages(world.config, days=[first_day])
    again.store.dispose()
    assert again.written > 0 and again.scrub_failures == 0  # the day's pairs drafted again, to the same bytes
    assert (tree_bytes(world.out / "tasks"), tree_bytes(world.out / "seeds")) == before


def test_a_late_record_changes_its_own_day_and_no_other(world, stages_run, monkeypatch):
    """Last in this module: it adds a record to the drop. What `trace2task run` skips as unchanged
    (`unchanged_partitions`, which the CLI's plan asks before it launches any run)."""
    run, store, _ = stages_run
    monkeypatch.setenv("TRACE2TASK_SECRET", SECRET)
    every_day = set(landed_days(store))
    assert len(every_day) >= 2 and unchanged_partitions(store, run, sorted(every_day)) == every_day
    first_file = sorted((world.drop / "escalations").glob("*.jsonl"))[0]
    escalation = json.loads(first_file.read_text().splitlines()[0])
    escalation["id"] = "esc-late-000001"
    (world.drop / "escalations" / f"{first_file.stem}-late.jsonl").write_text(json.dumps(escalation) + "\n")
    land_everything(store, run.config)
    others = every_day - {first_file.stem}
    assert unchanged_partitions(store, run, sorted(every_day)) == others

    # The days found unchanged by their fingerprint are noted as checked: the next command knows
    # them unchanged without reading any day's records again.
    def no_fingerprint(store, day, settings):
        raise AssertionError(f"{day}'s fingerprint was computed again")

    monkeypatch.setattr(day_records, "streamed_fingerprint", no_fingerprint)
    assert unchanged_partitions(store, run, sorted(others)) == others
