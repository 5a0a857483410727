"""A failed asset check shows: `run` exits 1 and names the check, its asset, its day and figures.

The day runs through Dagster's `materialize()` in this process (every asset and check of the
definitions), standing in for the runs `trace2task run` launches at a code server
(`pipelines.cli.runner.run_partitions`); the command itself runs in process around it. The
launch at a code server is test_pipeline_nightly.py's and test_pipeline_incident.py's.
"""

import json
import re

import pytest
from dagster import DagsterInstance, materialize
from demo_world import make_world

from pipelines.cli import runner
from pipelines.defs.assets import pipeline_assets
from pipelines.defs.partitions import partitions_for
from pipelines.defs.resources import resources_for
from pipelines.stages.plan import RunOutcome, failed_checks, step_failures

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("failures")]

QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
"""As the runner's runs: the command prints each failed step and check as one line, Dagster's log stays out."""


def _materialized_runs(ran: list[str]):
    """`run_partitions` with each day materialized in this process; `ran` lists the days run."""

    def run_partitions(config, config_path, days, *, workers, executor="", on_done=None):
        outcomes = []
        for day in days:
            result = materialize(pipeline_assets(partitions_for(config)), resources=resources_for(str(config_path)),
                                 partition_key=day, instance=DagsterInstance.ephemeral(), raise_on_error=False,
                                 run_config=QUIET)
            outcomes.append(RunOutcome(run_id=result.run_id, partition=day, success=result.success,
                                       failures=step_failures(result.all_events), failed_checks=failed_checks(result.all_events)))
            ran.append(day)
            if on_done:
                on_done(outcomes[-1])
        return outcomes

    return run_partitions


def test_a_drop_of_mostly_garbage_escalations_fails_the_run_naming_the_check(tmp_path, monkeypatch):
    world = make_world(tmp_path / "world", sessions=12, days=1)
    escalations = sorted((world.drop / "escalations").glob("*.jsonl"))[0]
    day = escalations.stem
    lines = escalations.read_text(encoding="utf-8").splitlines()
    garbage = ["{not json" for _ in range(4 * len(lines) + 4)]
    escalations.write_text("\n".join([*lines, *garbage]) + "\n", encoding="utf-8")
    ran: list[str] = []
    monkeypatch.setattr(runner, "run_partitions", _materialized_runs(ran))

    result = world.run_all_in_process()

    assert day in ran  # (and any later day the drop's late records land on)
    assert result.returncode == 1, result.stderr[-2000:]
    failed = [line for line in result.stderr.splitlines() if "quarantine_below_limit" in line]
    assert len(failed) == 1, result.stderr
    assert "raw_escalations" in failed[0] and day in failed[0]
    quarantined = int(re.search(r"quarantined (\d+)", failed[0]).group(1))
    assert quarantined >= len(garbage)  # the garbage, and any record the demo plants for the readers
    assert "Traceback" not in result.stderr
    summary = json.loads((world.out / "run-summary.json").read_text())
    assert [(c["check"], c["asset"], c["partition"]) for c in summary["failed_checks"]] == [
        ("quarantine_below_limit", "raw_escalations", day)
    ]

    runs = list(ran)
    again = world.run_all_in_process()
    assert ran == runs and "skipped" in again.stdout  # nothing changed: the day is not run again, its failure still shows
    assert again.returncode == 1 and any("quarantine_below_limit" in line and day in line for line in again.stderr.splitlines())
