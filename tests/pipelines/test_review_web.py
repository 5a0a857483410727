"""The review page (`trace2task review serve`), request by request on a real run's outputs.

A 40-session, 2-day demo drop goes through the stages (`demo_world.run_stages`: what `trace2task
run --all` writes, without Dagster; the run test_pipeline_stages.py checks, `demo_stages_run`); the
page is the Starlette app the command serves, driven with Starlette's TestClient at the bound
address. Its decisions must leave the task files and the store's review_event mirror exactly as
the same review CLI commands leave a copy of the same run.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from demo_world import DEMO_STAGES_RUN_GROUP, find_planted, planted_values, run_stages
from starlette.testclient import TestClient

from pipelines.cli.review import Workspace
from pipelines.cli.review_web.app import create_app
from pipelines.store.rows import RawRecordRow, RawSessionRow, ReviewEventRow, ScrubbedSessionRow, TaskRunRow
from taskgen import decisions
from taskgen.domains import get_domain
from taskgen.output import find_task_file, load_seed, load_task, load_tasks
from taskgen.validate import validate_task

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(DEMO_STAGES_RUN_GROUP)]

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
REVIEWER = "alice"
DAGSTER = "http://127.0.0.1:3999"


@pytest.fixture(scope="module")
def ran(demo_stages_run):
    """The stages' run (the CLI's output and store rows, without Dagster), as it was when they finished:
    the world and its folder, which every test copies before it changes anything."""
    _, stages, pristine = demo_stages_run
    assert stages.written > 0
    return pristine, pristine.root


def _client(config: Path) -> TestClient:
    workspace = Workspace(config, None)
    return TestClient(create_app(workspace, reviewer=REVIEWER, port=PORT, dagster_url=DAGSTER), base_url=BASE)


@pytest.fixture()
def site(ran, tmp_path):
    """A fresh copy of the run for each test, and the page serving it."""
    world, pristine = ran
    root = tmp_path / "run"
    shutil.copytree(pristine, root)
    return root, _client(root / "trace2task.yaml")


def _tasks(root: Path):
    return {task.task_id: task for task in load_tasks(root / "out" / "tasks")}


def _listed(html: str) -> list[str]:
    return re.findall(r'<tr data-task="([^"]+)">', html)


def _store(root: Path):
    return Workspace(root / "trace2task.yaml", None).store()


def _mirror(root: Path) -> list[dict]:
    """The review_event table, each event's time left out (the page and the CLI act at different times)."""
    rows = _store(root).rows(ReviewEventRow)
    events = []
    for row in sorted(rows, key=lambda r: (r.task_id, r.kind, r.seq)):
        body = json.loads(row.body)
        body.pop("at", None)
        events.append({"task_id": row.task_id, "kind": row.kind, "seq": row.seq, "version": row.version, "body": body})
    return events


def _task_file(root: Path, task_id: str) -> dict:
    document = json.loads(find_task_file(root / "out", task_id).read_text(encoding="utf-8"))
    for item in [*document["reviews"], *document["edits"]]:
        item.pop("at", None)
    return document


def test_the_list_filters_by_each_field(site):
    root, client = site
    tasks = _tasks(root)
    everything = client.get("/")
    assert everything.status_code == 200
    assert sorted(_listed(everything.text)) == sorted(tasks)
    for name, field in (("set", "set"), ("intent", "intent"), ("outcome", "outcome"), ("status", "status")):
        for value in sorted({getattr(task, field) for task in tasks.values()}):
            page = client.get("/", params={name: value})
            assert page.status_code == 200
            assert sorted(_listed(page.text)) == sorted(t for t, task in tasks.items() if getattr(task, field) == value), (name, value)
    out = root / "out"
    flagged = sorted(t for t, task in tasks.items() if validate_task(task, load_seed(out, task.seed_id), get_domain(task.domain)))
    assert flagged, "the demo run drafts tasks with validation issues"
    assert sorted(_listed(client.get("/", params={"issues": "yes"}).text)) == flagged
    assert sorted(_listed(client.get("/", params={"issues": "no"}).text)) == sorted(set(tasks) - set(flagged))
    assert _listed(client.get("/", params={"changed": "yes"}).text) == []
    both = client.get("/", params={"set": "capability", "issues": "yes"})
    assert sorted(_listed(both.text)) == sorted(t for t in flagged if tasks[t].set == "capability")


def test_status_and_changed_filters_follow_the_task_files(site):
    root, client = site
    first, second = sorted(_tasks(root))[:2]
    client.post(f"/task/{first}/retire", data={"reason": "duplicate"})
    assert _listed(client.get("/", params={"status": "retired"}).text) == [first]
    # what a re-draft writes when a reviewed task's drafted content changes
    path = find_task_file(root / "out", second)
    document = json.loads(path.read_text(encoding="utf-8"))
    document["changed_since_review"] = [{"field": "budget", "before": {"turns": 4}, "after": {"turns": 6}}]
    path.write_text(json.dumps(document), encoding="utf-8")
    assert _listed(client.get("/", params={"changed": "yes"}).text) == [second]
    assert second not in _listed(client.get("/", params={"changed": "no"}).text)
    assert "budget: " in client.get(f"/pair/{second}", follow_redirects=True).text


@pytest.mark.parametrize("query", [{"status": "bogus"}, {"intent": "no_such_intent"}, {"set": "nightly"},
                                   {"outcome": "fine"}, {"changed": "maybe"}, {"issues": "1"}, {"colour": "red"}])
def test_an_unknown_filter_value_is_a_400_saying_which(site, query):
    _, client = site
    page = client.get("/", params=query)
    assert page.status_code == 400
    (name, value), = query.items()
    assert name in page.text and _listed(page.text) == []


def test_a_foreign_host_gets_403_and_a_foreign_origin_cannot_post(site):
    root, client = site
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 403
    assert client.get("/", headers={"Host": f"localhost:{PORT}"}).status_code == 403
    assert client.get("/", headers={"Host": f"127.0.0.1:{PORT + 1}"}).status_code == 403
    task_id = sorted(_tasks(root))[0]
    before = find_task_file(root / "out", task_id).read_bytes()
    refused = client.post(f"/task/{task_id}/retire", data={"reason": "x"}, headers={"Origin": "http://evil.example"})
    assert refused.status_code == 403
    sandboxed = client.post(f"/task/{task_id}/retire", data={"reason": "x"}, headers={"Origin": "null"})
    assert sandboxed.status_code == 403
    rebound = client.post(f"/task/{task_id}/retire", data={"reason": "x"}, headers={"Host": "evil.example"})
    assert rebound.status_code == 403
    assert find_task_file(root / "out", task_id).read_bytes() == before
    same_origin = client.post(f"/task/{task_id}/retire", data={"reason": "x"}, headers={"Origin": BASE})
    assert same_origin.status_code == 200 and load_task(find_task_file(root / "out", task_id)).status == "retired"


def test_the_pair_page_shows_the_whole_pair_on_one_screen(site):
    root, client = site
    tasks = _tasks(root)
    store = _store(root)
    positive = next(task for task in sorted(tasks.values(), key=lambda t: t.task_id)
                    if task.polarity == "positive" and any(t.pair_id == task.pair_id and t.polarity == "negative" and t.seed_id != task.seed_id for t in tasks.values()))
    negative = next(t for t in tasks.values() if t.pair_id == positive.pair_id and t.polarity == "negative")
    page = client.get(f"/pair/{positive.pair_id}")
    assert page.status_code == 200
    html = page.text
    for task in (positive, negative):
        assert f'id="{task.task_id}"' in html
        assert _escaped(task.prompt.splitlines()[0]) in html
        assert task.seed_id in html
        for item in task.expectations:
            assert _escaped(item.describe()) in html
        for question in task.review_questions:
            assert _escaped(question) in html
    # the seed difference, highlighted: one marked row per differing field
    seeds = load_seed(root / "out", positive.seed_id), load_seed(root / "out", negative.seed_id)
    assert seeds[0].state != seeds[1].state or seeds[0].clock != seeds[1].clock
    section = html.split('id="seed-difference"')[1]
    marked = section.split("<details>")[0].count('<tr class="diff">')
    assert marked >= 1 and f"({marked} field" in section
    # health verdicts and validation
    assert html.count('class="health"') == 2
    # provenance: the Dagster runs from the task_run table, each linked to the UI; the source records
    runs = {row.run_id for row in store.rows(TaskRunRow, TaskRunRow.task_id.in_([positive.task_id, negative.task_id]))}
    assert runs
    for run_id in runs:
        assert f'href="{DAGSTER}/runs/{run_id}"' in html
    session_id = positive.provenance.session_ids[0]
    scrubbed = json.loads(store.rows(ScrubbedSessionRow, ScrubbedSessionRow.session_id == session_id)[0].session)
    for record in scrubbed["provenance"]:
        assert record["external_id"] in html
    # the scrubbed transcript with its tool calls
    user_turns = [turn["text"] for turn in scrubbed["turns"] if turn["role"] == "user"]
    assert user_turns and all(_escaped(text) in html for text in user_turns)
    for call in scrubbed["tool_calls"]:
        assert f"{call['name']}(" in html
    # a task id leads to its pair; an unknown one is a 404
    assert client.get(f"/pair/{negative.task_id}", follow_redirects=False).headers["location"].startswith(f"/pair/{positive.pair_id}")
    assert client.get("/pair/no-such-pair").status_code == 404


def test_a_pair_with_validation_issues_shows_them(site):
    root, client = site
    out = root / "out"
    flagged = next(task for task in sorted(_tasks(root).values(), key=lambda t: t.task_id)
                   if validate_task(task, load_seed(out, task.seed_id), get_domain(task.domain)))
    issues = validate_task(flagged, load_seed(out, flagged.seed_id), get_domain(flagged.domain))
    html = client.get(f"/pair/{flagged.pair_id}").text
    for issue in issues:
        assert f"{issue.code}: {_escaped(issue.message)}" in html


def _escaped(text: str) -> str:
    from markupsafe import escape

    return str(escape(text))


def _with_questions(tasks, polarity):
    return next(task for task in sorted(tasks.values(), key=lambda t: t.task_id)
                if task.polarity == polarity and task.review_questions)


def test_approving_over_open_questions_needs_the_confirmation_and_records_it(site):
    root, client = site
    task = _with_questions(_tasks(root), "positive")
    before = find_task_file(root / "out", task.task_id).read_bytes()
    refused = client.post(f"/task/{task.task_id}/approve", data={})
    assert refused.status_code == 409 and "open review question" in refused.text
    assert f'id="force-{task.task_id}"' in refused.text
    assert find_task_file(root / "out", task.task_id).read_bytes() == before
    done = client.post(f"/task/{task.task_id}/approve", data={"force": "yes"})
    assert done.status_code == 200 and f"{task.task_id}: approved" in done.text
    approved = load_task(find_task_file(root / "out", task.task_id))
    assert approved.status == "approved"
    assert approved.reviews[-1].reviewer == REVIEWER
    assert any("open review question" in item for item in approved.reviews[-1].forced)


def test_a_rejection_needs_a_reason_and_keeps_it(site):
    root, client = site
    task = sorted(_tasks(root).values(), key=lambda t: t.task_id)[0]
    assert client.post(f"/task/{task.task_id}/reject", data={"reason": "  "}).status_code == 400
    assert load_task(find_task_file(root / "out", task.task_id)).status == task.status
    client.post(f"/task/{task.task_id}/reject", data={"reason": "the refund amount is wrong"})
    rejected = load_task(find_task_file(root / "out", task.task_id))
    assert (rejected.status, rejected.reviews[-1].reason, rejected.reviews[-1].reviewer) == ("rejected", "the refund amount is wrong", REVIEWER)


def test_bad_edits_are_400_and_change_nothing(site):
    root, client = site
    task = _with_questions(_tasks(root), "negative")
    before = find_task_file(root / "out", task.task_id).read_bytes()
    assert client.post(f"/task/{task.task_id}/expectations", data={"expectations": "not json"}).status_code == 400
    assert client.post(f"/task/{task.task_id}/answer", data={"question": "99", "answer": "yes"}).status_code == 400
    assert client.post(f"/task/{task.task_id}/answer", data={"question": "1", "answer": ""}).status_code == 400
    assert client.post(f"/task/{task.task_id}/tools", data={"required_tools": ", ".join(task.required_tools),
                                                            "forbidden_tools": ", ".join(task.forbidden_tools)}).status_code == 400
    assert client.post("/task/no-such-task/approve", data={}).status_code == 404
    assert find_task_file(root / "out", task.task_id).read_bytes() == before


def test_every_decision_lands_exactly_as_the_cli_makes_it(ran, tmp_path):
    """The same decisions, once from the page and once from the review CLI on a copy of the same
    run: the task files and the review_event mirror are the same, times apart."""
    world, pristine = ran
    by_page, by_cli = tmp_path / "page", tmp_path / "cli"
    shutil.copytree(pristine, by_page)
    shutil.copytree(pristine, by_cli)
    tasks = _tasks(by_page)
    ordered = sorted(tasks.values(), key=lambda t: t.task_id)
    approve, answer = _with_questions(tasks, "positive"), _with_questions(tasks, "negative")
    reject, retire, confirm, tools = [t for t in ordered if t.task_id not in (approve.task_id, answer.task_id)][:4]
    new_expectations = [item.model_dump(mode="json") for item in confirm.expectations][:1]

    client = _client(by_page / "trace2task.yaml")
    for path, data in (
        (f"/task/{approve.task_id}/approve", {"force": "yes"}),
        (f"/task/{reject.task_id}/reject", {"reason": "wrong order id"}),
        (f"/task/{retire.task_id}/retire", {"reason": ""}),
        (f"/task/{confirm.task_id}/expectations", {"expectations": json.dumps(new_expectations)}),
        (f"/task/{answer.task_id}/answer", {"question": "1", "answer": "day 30 is inside"}),
        (f"/task/{tools.task_id}/tools", {"required_tools": "get_order, escalate_to_human",
                                          "forbidden_tools": ", ".join(tools.forbidden_tools)}),
    ):
        assert client.post(path, data=data).status_code == 200, path

    config = str(by_cli / "trace2task.yaml")
    for args in (
        ("approve", approve.task_id, "--force"),
        ("reject", reject.task_id, "--reason", "wrong order id"),
        ("retire", retire.task_id),
        ("edit", confirm.task_id, "--expectations", json.dumps(new_expectations)),
        ("edit", answer.task_id, "--question", "1", "--answer", "day 30 is inside"),
        ("edit", tools.task_id, "--required-tools", "get_order, escalate_to_human"),
    ):
        result = world.cli_in_process("review", *args, "--config", config, "--reviewer", REVIEWER)
        assert result.returncode == 0, (args, result.stderr)

    touched = [approve, reject, retire, confirm, answer, tools]
    for task in touched:
        assert _task_file(by_page, task.task_id) == _task_file(by_cli, task.task_id), task.task_id
    mirror = _mirror(by_page)
    assert mirror == _mirror(by_cli)
    assert {event["task_id"] for event in mirror} == {task.task_id for task in touched}
    for task in touched:
        on_file = load_task(find_task_file(by_page / "out", task.task_id))
        rows = [event for event in mirror if event["task_id"] == task.task_id]
        assert len(rows) == len(decisions.events(on_file))


def test_no_raw_value_reaches_any_page(site):
    """A value planted in the raw zone (the raw records and the raw session of every drafted
    session) and the drop's own personal values appear on no page."""
    root, client = site
    canary = "RAWZONE-CANARY-7f3a9c"
    store = _store(root)
    tasks = _tasks(root)
    sessions = {sid for task in tasks.values() for sid in task.provenance.session_ids}
    records = store.rows(RawRecordRow, RawRecordRow.session_id.in_(sorted(sessions)))
    store.upsert(RawRecordRow, [dict(row.model_dump(), payload=json.dumps(_plant(json.loads(row.payload), canary)))
                                for row in records])
    raw_sessions = store.rows(RawSessionRow, RawSessionRow.session_id.in_(sorted(sessions)))
    store.upsert(RawSessionRow, [dict(row.model_dump(), body=json.dumps(_plant(json.loads(row.body), canary)))
                                 for row in raw_sessions])
    planted = store.count(RawRecordRow, RawRecordRow.payload.contains(canary))
    assert planted > 0
    pages = {"/": client.get("/").text}
    for pair_id in sorted({task.pair_id for task in tasks.values()}):
        page = client.get(f"/pair/{pair_id}")
        assert page.status_code == 200
        pages[pair_id] = page.text
    assert [where for where, html in pages.items() if canary in html] == []
    assert find_planted(planted_values(root / "drop"), pages) == {}


def _plant(value, canary: str):
    """Every free-text string (one with a space: not an id, a time or a role) in a raw document with the canary added."""
    if isinstance(value, dict):
        return {key: _plant(item, canary) for key, item in value.items()}
    if isinstance(value, list):
        return [_plant(item, canary) for item in value]
    return f"{value} {canary}" if isinstance(value, str) and " " in value else value


@pytest.mark.postgres
def test_the_page_on_a_postgresql_store(tmp_path, postgres_url):
    """The same page on a run whose store and raw zone are PostgreSQL: provenance from its task_run
    table, a decision mirrored into its review_event table."""
    from demo_world import make_world

    world = make_world(tmp_path / "pg", sessions=12, days=1, store_url=postgres_url, raw_url=postgres_url)
    run_stages(world.config).store.dispose()
    client = _client(world.config)
    task = sorted(_tasks(world.root).values(), key=lambda t: t.task_id)[0]
    store = _store(world.root)
    run_ids = {row.run_id for row in store.rows(TaskRunRow, TaskRunRow.task_id == task.task_id)}
    html = client.get(f"/pair/{task.pair_id}").text
    assert run_ids and all(f'href="{DAGSTER}/runs/{run_id}"' in html for run_id in run_ids)
    assert client.post(f"/task/{task.task_id}/retire", data={"reason": "duplicate"}).status_code == 200
    rows = store.rows(ReviewEventRow, ReviewEventRow.task_id == task.task_id)
    assert [(row.kind, json.loads(row.body)["status"], json.loads(row.body)["reviewer"]) for row in rows] == [
        ("verdict", "retired", REVIEWER)]
    store.dispose()


def _pair_with_blockers(root: Path) -> tuple[str, list]:
    """A pair one of whose tasks has validation issues or open questions (approving needs the confirmation)."""
    from taskgen import review

    tasks = _tasks(root)
    for pair_id in sorted({task.pair_id for task in tasks.values()}):
        members = sorted((t for t in tasks.values() if t.pair_id == pair_id), key=lambda t: t.polarity != "positive")
        if len(members) == 2 and any(review.approval_blockers(root / "out", task) for task in members):
            return pair_id, members
    raise AssertionError("the demo run drafts no pair that needs the confirmation")


def test_a_pair_is_approved_with_one_click_or_not_at_all(site):
    root, client = site
    pair_id, members = _pair_with_blockers(root)
    before = {task.task_id: find_task_file(root / "out", task.task_id).read_bytes() for task in members}
    refused = client.post(f"/pair/{pair_id}/approve", data={})
    assert refused.status_code == 409 and 'id="force-pair"' in refused.text
    assert {t: find_task_file(root / "out", t).read_bytes() for t in before} == before  # neither half approved
    assert _mirror(root) == []
    done = client.post(f"/pair/{pair_id}/approve", data={"force": "yes"})
    assert done.status_code == 200 and f"pair {pair_id}: approved" in done.text
    approved = [load_task(find_task_file(root / "out", task.task_id)) for task in members]
    assert [(t.polarity, t.status, t.reviews[-1].reviewer) for t in approved] == [
        ("positive", "approved", REVIEWER), ("negative", "approved", REVIEWER)]
    assert any(t.reviews[-1].forced for t in approved)
    assert {event["task_id"] for event in _mirror(root)} == set(before)


def test_a_pair_is_rejected_with_its_reason_and_retired_with_one_click(site):
    root, client = site
    pair_id, members = _pair_with_blockers(root)
    assert client.post(f"/pair/{pair_id}/reject", data={"reason": " "}).status_code == 400
    assert client.post(f"/pair/{members[0].task_id}/reject", data={"reason": "x"}).status_code == 404  # a pair id, not a task id
    assert client.post(f"/pair/{pair_id}/bogus", data={}).status_code == 404
    assert _mirror(root) == []
    rejected = client.post(f"/pair/{pair_id}/reject", data={"reason": "the boundary is not crossed"})
    assert rejected.status_code == 200 and f"pair {pair_id}: rejected" in rejected.text
    for task in members:
        on_file = load_task(find_task_file(root / "out", task.task_id))
        assert (on_file.status, on_file.reviews[-1].reason) == ("rejected", "the boundary is not crossed")
    assert client.post(f"/pair/{pair_id}/retire", data={"reason": ""}).status_code == 200
    assert {load_task(find_task_file(root / "out", task.task_id)).status for task in members} == {"retired"}


def test_pair_decisions_land_exactly_as_the_cli_makes_them(ran, tmp_path):
    world, pristine = ran
    by_page, by_cli = tmp_path / "page", tmp_path / "cli"
    shutil.copytree(pristine, by_page)
    shutil.copytree(pristine, by_cli)
    pair_id, members = _pair_with_blockers(by_page)
    client = _client(by_page / "trace2task.yaml")
    assert client.post(f"/pair/{pair_id}/approve", data={"force": "yes"}).status_code == 200
    assert client.post(f"/pair/{pair_id}/reject", data={"reason": "wrong order id"}).status_code == 200
    config = str(by_cli / "trace2task.yaml")
    refused = world.cli_in_process("review", "approve", pair_id, "--config", config, "--reviewer", REVIEWER)
    assert refused.returncode != 0 and _mirror(by_cli) == []  # the CLI leaves no pair half approved either
    for args in (("approve", pair_id, "--force"), ("reject", pair_id, "--reason", "wrong order id")):
        result = world.cli_in_process("review", *args, "--config", config, "--reviewer", REVIEWER)
        assert result.returncode == 0, (args, result.stderr)
    for task in members:
        assert _task_file(by_page, task.task_id) == _task_file(by_cli, task.task_id), task.task_id
    assert _mirror(by_page) == _mirror(by_cli)
