"""The on-call path: one incident to a task and its negative stub, recorded in the same instance.

Incidents named by a ticket or a deploy event id run through the stages alone in
test_incident_stages.py; here the one path through the installed command and Dagster."""

import json

import pytest
from dagster import AssetKey, DagsterInstance
from demo_world import DEMO_CLI_RUN_GROUP, copy_world

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(DEMO_CLI_RUN_GROUP)]


@pytest.fixture(scope="module")
def world(tmp_path_factory, demo_cli_run):
    """A copy of the world `trace2task run --all` ran on (`demo_cli_run`, which checked the command's
    exit code): the on-call path starts after a nightly run, and lands nothing the nightly has not."""
    return copy_world(demo_cli_run[0], tmp_path_factory.mktemp("incident") / "world")


def _planted(world):
    return json.loads((world.drop / "planted_ids.json").read_text())["sessions"]


def test_unknown_incident_is_one_line_and_exit_2(world):
    result = world.cli_in_process("incident", "no-such-incident", "--config", str(world.config))
    assert result.returncode == 2
    assert "not found" in result.stderr and "Traceback" not in result.stderr


def test_an_incident_leads_back_from_its_tasks_and_leaves_the_nightly_record_alone(world):
    """Asked for by escalation id: the store names that id and the Dagster run beside each task,
    `review list --incident` and `review show` find them, the day's draft_tasks record stays
    whole, and the nightly run summary is not overwritten."""
    nightly_summary = (world.out / "run-summary.json").read_bytes()
    session_id, facts = next((sid, f) for sid, f in sorted(_planted(world).items()) if f.get("escalation_id"))
    escalation = str(facts["escalation_id"])
    result = world.cli("incident", escalation, "--config", str(world.config))
    assert result.returncode == 0, result.stderr[-2000:]
    assert (world.out / "run-summary.json").read_bytes() == nightly_summary
    incident_summary = json.loads((world.out / "incidents" / f"{escalation}.json").read_text())
    assert incident_summary["incident"] == escalation
    run_id = incident_summary["run_ids"][0]
    assert run_id in result.stdout
    task_ids = sorted(json.loads(open(line.split()[1]).read())["task_id"]
                      for line in result.stdout.splitlines() if line.startswith(("positive", "negative")))

    listed = world.cli_in_process("review", "list", "--incident", escalation, "--config", str(world.config))
    assert listed.returncode == 0 and all(task_id in listed.stdout for task_id in task_ids)
    shown = world.cli_in_process("review", "show", task_ids[0], "--config", str(world.config))
    assert shown.returncode == 0, shown.stderr
    assert run_id in shown.stdout and f"trace2task incident {escalation}" in shown.stdout
    assert session_id in shown.stdout and "user:" in shown.stdout and escalation in shown.stdout

    instance = DagsterInstance.from_config(str(world.root / ".dagster_home"))
    run = instance.get_run_by_id(run_id)
    assert [r.tags.get("trace2task/incident") for r in instance.get_runs() if r.job_name == "incident"] == [escalation]
    event = instance.get_latest_materialization_event(AssetKey("draft_tasks"))
    metadata = event.asset_materialization.metadata
    assert event.run_id == run_id and metadata["scope"].value == escalation
    assert all(task_id in metadata["task_files"].value for task_id in task_ids)
    assert event.asset_materialization.partition == run.tags["dagster/partition"]
    assert metadata["tasks_in_partition"].value > len(task_ids)  # the day's nightly tasks are counted too
