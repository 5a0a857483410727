"""A run the CLI started is one of the workspace's runs: listed with its code location (the
Overview timeline groups runs by it) and re-executed from the UI the way its Re-execute button does.

`trace2task run --all` runs each day of the demo drop and prints each run's id and UI link (the run
the nightly and on-call tests read too, `demo_cli_run`); `dagster dev` (webserver and daemon, as
`make ui` starts them) opens a copy of the same Dagster home; the webserver's
GraphQL lists the run with its code location and re-executes it (`launchRunReexecution`, what the
UI's "Re-execute all" sends); the new run, started by the daemon, succeeds.
"""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from dagster import DagsterInstance

from demo_world import DEMO_CLI_RUN_GROUP, SECRET, copy_world
from headless_chromium import wait_until
from webserver_process import dagster_webserver

LOCATION = "pipelines.defs.definitions"

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(DEMO_CLI_RUN_GROUP)]

RUN = """query Run($runId: ID!) {
  runOrError(runId: $runId) {
    __typename
    ... on Run { runId status parentRunId tags { key value } repositoryOrigin { repositoryLocationName repositoryName } }
  }
}"""

RUNS = """query Runs { runsOrError { ... on Runs { results { runId repositoryOrigin { repositoryLocationName } } } } }"""

REEXECUTE = """mutation Reexecute($parentRunId: String!) {
  launchRunReexecution(reexecutionParams: {parentRunId: $parentRunId, strategy: ALL_STEPS}) {
    __typename
    ... on LaunchRunSuccess { run { runId } }
    ... on PythonError { message }
    ... on RunConfigValidationInvalid { errors { message } }
  }
}"""


def graphql(base_url: str, query: str, **variables) -> dict:
    request = urllib.request.Request(
        f"{base_url}/graphql", data=json.dumps({"query": query, "variables": variables}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        body = json.loads(response.read())
    assert "errors" not in body, body["errors"]
    return body["data"]


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory, demo_cli_run):
    """The days run by the CLI (a copy of its world: the UI re-executes a run in it) and the run id
    and link it printed for 2026-11-16."""
    ran, result = demo_cli_run
    world = copy_world(ran, tmp_path_factory.mktemp("cli-run") / "run")
    printed = re.search(r"2026-11-16: run (\S+) succeeded: (\S+)", result.stdout)
    assert printed, result.stdout[-2000:]
    return world, printed.group(1), printed.group(2)


def test_the_cli_prints_the_run_id_and_its_page_in_the_ui(cli_run):
    _, run_id, url = cli_run
    assert url == f"http://127.0.0.1:3000/runs/{run_id}"


def test_the_cli_run_carries_the_workspace_code_location(cli_run):
    world, run_id, _ = cli_run
    instance = DagsterInstance.from_config(str(world.dagster_home))
    run = instance.get_run_by_id(run_id)
    assert run is not None and run.is_success
    origin = run.remote_job_origin
    assert origin is not None, "a run without a remote job origin cannot be re-executed from the UI"
    assert origin.location_name == LOCATION and run.job_name == "nightly_refresh"
    assert run.tags["dagster/partition"] == "2026-11-16"


def test_the_ui_lists_the_cli_run_and_reexecutes_it(cli_run, tmp_path):
    world, run_id, _ = cli_run
    dev = dict(log_path=tmp_path / "dagster-dev.log", with_daemon=True, env={"TRACE2TASK_SECRET": SECRET})
    with dagster_webserver(world, **dev) as base_url:
        listed = graphql(base_url, RUNS)["runsOrError"]["results"]
        assert {"runId": run_id, "repositoryOrigin": {"repositoryLocationName": LOCATION}} in listed

        launched = graphql(base_url, REEXECUTE, parentRunId=run_id)["launchRunReexecution"]
        assert launched["__typename"] == "LaunchRunSuccess", launched
        child_id = launched["run"]["runId"]

        def finished() -> dict | None:
            run = graphql(base_url, RUN, runId=child_id)["runOrError"]
            return run if run["status"] in {"SUCCESS", "FAILURE", "CANCELED"} else None

        child = wait_until(finished, timeout=900, interval=2)
        assert child, f"the re-execution did not finish; see {tmp_path / 'dagster-dev.log'}"
        assert child["status"] == "SUCCESS", child
        assert child["parentRunId"] == run_id
        assert child["repositoryOrigin"]["repositoryLocationName"] == LOCATION
        assert {"key": "dagster/partition", "value": "2026-11-16"} in child["tags"]
