"""The on-call path: one incident to a task and its negative stub, recorded in the same instance."""

import json

import pytest
from dagster import DagsterInstance

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("incident")]


def _planted(world):
    return json.loads((world.drop / "planted_ids.json").read_text())["sessions"]


def test_incident_by_ticket_id_writes_a_pair_and_records_the_run(world):
    session_id, facts = next((sid, f) for sid, f in sorted(_planted(world).items()) if f.get("ticket_id"))
    result = world.cli("incident", str(facts["ticket_id"]), "--config", str(world.config))
    assert result.returncode == 0, result.stderr[-2000:]
    printed = [line.split() for line in result.stdout.splitlines() if line.startswith(("positive", "negative"))]
    assert sorted(p[0] for p in printed) == ["negative", "positive"]
    for _, path in printed:
        task = json.loads(open(path).read())
        assert session_id in task["provenance"]["session_ids"]
    runs = DagsterInstance.from_config(str(world.root / ".dagster_home")).get_runs()
    assert [r.tags.get("trace2task/incident") for r in runs if r.job_name == "incident"] == [str(facts["ticket_id"])]


def test_incident_by_deploy_id_drafts_its_regression_sessions(world):
    deploy_id = next(f["deploy_id"] for _, f in sorted(_planted(world).items()) if f.get("deploy_id"))
    result = world.cli("incident", deploy_id, "--config", str(world.config))
    assert result.returncode == 0, result.stderr[-2000:]
    paths = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("positive")]
    assert paths
    assert all(json.loads(open(p).read())["set"] == "regression" for p in paths)


def test_unknown_incident_is_one_line_and_exit_2(world):
    result = world.cli("incident", "no-such-incident", "--config", str(world.config))
    assert result.returncode == 2
    assert "not found" in result.stderr and "Traceback" not in result.stderr
