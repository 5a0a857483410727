"""The on-call path's stages without Dagster: an incident named by a ticket id or a deploy event id
drafts its own sessions' pairs, in this process (`demo_world.run_stages(..., incident_id=...)` runs
the stages the `incident` job's assets call, in their order). The path through the CLI and Dagster,
with its run recorded in the instance, is test_pipeline_incident.py's."""

import json

import pytest
from demo_world import make_world, run_stages

from pipelines.store.rows import TaskRow

pytestmark = [pytest.mark.xdist_group("incident_stages")]


@pytest.fixture(scope="module")
def world(tmp_path_factory, demo_drop):
    return make_world(tmp_path_factory.mktemp("incident_stages"), drop=demo_drop)


def _planted(world) -> dict:
    return json.loads((world.drop / "planted_ids.json").read_text())["sessions"]


def _incident_tasks(world, incident_id: str) -> list[dict]:
    """The task files drafted from the incident's sessions, after the stages ran on its path."""
    stages = run_stages(world.config, incident_id=incident_id)
    sessions = stages.store.resolve_incident(incident_id)
    rows = stages.store.rows(TaskRow, TaskRow.session_id.in_(sessions))
    stages.store.dispose()
    return [json.loads((world.out / row.path).read_text()) for row in rows]


def test_incident_by_ticket_id_writes_a_pair_of_its_session(world):
    session_id, facts = next((sid, f) for sid, f in sorted(_planted(world).items()) if f.get("ticket_id"))
    tasks = _incident_tasks(world, str(facts["ticket_id"]))
    assert sorted(task["polarity"] for task in tasks) == ["negative", "positive"]
    assert len({task["pair_id"] for task in tasks}) == 1
    assert all(session_id in task["provenance"]["session_ids"] for task in tasks)


def test_incident_by_deploy_id_drafts_its_regression_sessions(world):
    deploy_id = next(f["deploy_id"] for _, f in sorted(_planted(world).items()) if f.get("deploy_id"))
    positives = [task for task in _incident_tasks(world, deploy_id) if task["polarity"] == "positive"]
    assert positives
    assert all(task["set"] == "regression" for task in positives)
