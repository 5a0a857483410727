"""The nightly refresh through the CLI and Dagster, end to end on a demo drop.

A rerun and a late record (what `run` finds unchanged and skips) are test_pipeline_stages.py's."""

import json
import sqlite3
import stat

import pytest
from dagster import DagsterInstance
from demo_world import DEMO_CLI_RUN_GROUP, DEMO_OUTPUT_SHA256, find_planted, output_digest, planted_values


pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(DEMO_CLI_RUN_GROUP)]


@pytest.fixture(scope="module")
def world(demo_cli_run):
    """The world `trace2task run --all` ran on (tests/conftest.py; the UI and on-call tests read copies of it)."""
    return demo_cli_run[0]


@pytest.fixture(scope="module")
def first_run(demo_cli_run):
    """The command's result (it exited 0)."""
    return demo_cli_run[1]


def _sqlite_texts(path, *, skip_prefix: str | None = None) -> dict[str, str]:
    con = sqlite3.connect(path)
    texts = {}
    for (name,) in con.execute("select name from sqlite_master where type='table'"):
        if skip_prefix and name.startswith(skip_prefix):
            continue
        texts[f"{path.name}:{name}"] = json.dumps(con.execute(f"select * from {name}").fetchall(), default=str)
    con.close()
    return texts


def test_run_writes_paired_tasks_and_a_summary(world, first_run):
    tasks = [json.loads(p.read_text()) for p in (world.out / "tasks").rglob("*.json")]
    assert tasks, "no task files were written"
    pairs = {}
    for task in tasks:
        pairs.setdefault(task["pair_id"], set()).add(task["polarity"])
        assert task["status"] == "draft"
        assert (world.out / "seeds" / f"{task['seed_id']}.json").is_file()
    assert all(polarities == {"positive", "negative"} for polarities in pairs.values())
    assert (world.out / "manifest.json").is_file()
    summary = json.loads((world.out / "run-summary.json").read_text())
    assert summary["records"]["traces"] > 0 and summary["sessions"] > 0
    assert summary["tasks"] == {"negative": len(pairs), "positive": len(pairs)}
    assert sum(summary["quarantined"].values()) >= 3  # the generator plants faulty lines
    assert "tasks written" in first_run.stdout and str(world.out) in first_run.stdout


def test_the_cli_writes_the_demo_output_of_the_stages(world, first_run):
    """Byte for byte what the stages alone write (test_pipeline_stages) and what main wrote before."""
    digest = output_digest(world.out)
    assert digest == DEMO_OUTPUT_SHA256, (
        f"the demo's tasks and seeds changed (now {digest}); if the change is meant, set DEMO_OUTPUT_SHA256 in tests/demo_world.py"
    )


def test_runs_are_recorded_in_the_dagster_home(world, first_run):
    instance = DagsterInstance.from_config(str(world.root / ".dagster_home"))
    runs = instance.get_runs()
    assert {r.job_name for r in runs} == {"nightly_refresh"}
    assert {r.tags["dagster/partition"] for r in runs} >= {"2026-11-16", "2026-11-17"}
    assert all(r.is_success for r in runs)


def test_no_planted_personal_value_leaves_the_raw_zone(world, first_run):
    values = planted_values(world.drop)
    assert len(values) > 100
    texts = {str(p.relative_to(world.root)): p.read_text() for p in world.out.rglob("*") if p.is_file()}
    texts.update(_sqlite_texts(world.root / ".trace2task" / "store.db"))
    for path in (world.root / ".dagster_home").rglob("*"):
        if path.is_file():
            texts[str(path.relative_to(world.root))] = path.read_bytes().decode("utf-8", "ignore")
    leaks = find_planted(values, texts)
    assert leaks == {}, {entity: places[:3] for entity, places in leaks.items()}


def test_raw_zone_is_private_and_holds_the_raw_values(world, first_run):
    raw = world.root / ".trace2task" / "raw.db"
    assert stat.S_IMODE(raw.stat().st_mode) == 0o600
    values = planted_values(world.drop)
    found = find_planted(values, _sqlite_texts(raw))
    assert found, "the raw zone should hold the raw records"


def test_planted_order_ids_survive_into_their_seeds(world, first_run):
    planted = json.loads((world.drop / "planted_ids.json").read_text())["sessions"]
    checked = 0
    for path in (world.out / "tasks").rglob("*-pos.json"):
        task = json.loads(path.read_text())
        seed = json.loads((world.out / "seeds" / f"{task['seed_id']}.json").read_text())
        for session_id in task["provenance"]["session_ids"][:1]:
            for order_id in planted[session_id]["order_ids"]:
                if order_id in task["prompt"]:
                    assert order_id in seed["state"].get("order", {}), (task["task_id"], order_id)
                    checked += 1
    assert checked > 0


def test_validate_passes_the_written_set_and_flags_a_broken_task(world, first_run, tmp_path):
    import shutil

    result = world.cli_in_process("validate", str(world.out))
    assert "capability" in result.stdout and "regression" in result.stdout
    copy = tmp_path / "out"
    shutil.copytree(world.out, copy)
    path = next(p for p in (copy / "tasks").rglob("*-pos.json") if '"refund_exists"' in p.read_text())
    task = json.loads(path.read_text())
    for expectation in task["expectations"]:
        if expectation["check"] == "refund_exists":
            expectation["args"]["amount_cents"] += 1
    path.write_text(json.dumps(task))
    broken = world.cli_in_process("validate", str(copy))
    assert broken.returncode == 1
    assert task["task_id"] in broken.stdout
