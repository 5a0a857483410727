"""The nightly run and the on-call path at once, on the same store and output folder."""

from __future__ import annotations

import pytest

from demo_world import RUN_TIMEOUT, first_escalation, output_tree

pytestmark = pytest.mark.xdist_group("faults")


def test_nightly_and_incident_together_lose_and_duplicate_nothing(workspace, reference):
    nightly = workspace.popen("run", "--all", "--config", str(workspace.config), "--workers", "1")
    incident = workspace.popen("incident", first_escalation(workspace.drop), "--config", str(workspace.config))
    _, nightly_err = nightly.communicate(timeout=RUN_TIMEOUT)
    _, incident_err = incident.communicate(timeout=RUN_TIMEOUT)

    assert nightly.returncode == 0, nightly_err[-2000:]
    assert incident.returncode == 0, incident_err[-2000:]
    got = output_tree(workspace.out)
    missing = sorted(set(reference["with_incident"]) - set(got))
    extra = sorted(set(got) - set(reference["with_incident"]))
    assert (missing, extra) == ([], [])
    assert got == reference["with_incident"]
