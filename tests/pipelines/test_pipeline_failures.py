"""A failed asset check shows: `run` exits 1 and names the check, its asset, its day and figures."""

import json
import re

import pytest
from demo_world import make_world

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("failures")]


def test_a_drop_of_mostly_garbage_escalations_fails_the_run_naming_the_check(tmp_path):
    world = make_world(tmp_path / "world", sessions=12, days=1)
    escalations = sorted((world.drop / "escalations").glob("*.jsonl"))[0]
    day = escalations.stem
    lines = escalations.read_text(encoding="utf-8").splitlines()
    garbage = ["{not json" for _ in range(4 * len(lines) + 4)]
    escalations.write_text("\n".join([*lines, *garbage]) + "\n", encoding="utf-8")

    result = world.cli("run", "--all", "--config", str(world.config), "--workers", "1")

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

    again = world.cli("run", "--all", "--config", str(world.config), "--workers", "1")
    assert "skipped" in again.stdout  # nothing changed: the day is not run again, its failure still shows
    assert again.returncode == 1 and any("quarantine_below_limit" in line and day in line for line in again.stderr.splitlines())
