import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from pipelines.cli.review import review_app
from taskgen import review
from taskgen.output import load_tasks, pretty_json, refresh_manifest, task_json_schema, write_all, write_task

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "schemas" / "task.schema.json"


def _everything(drafted):
    tasks = [task for row in drafted for task in (row[3].positive, row[3].negative)]
    seeds = [row[2] for row in drafted] + [row[3].negative_seed for row in drafted]
    return tasks, seeds


def _snapshot(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_output_is_byte_identical_across_runs(drafted, tmp_path):
    tasks, seeds = _everything(drafted)
    write_all(tmp_path / "a", "0.1.0", tasks, seeds)
    write_all(tmp_path / "b", "0.1.0", list(reversed(tasks)), list(reversed(seeds)))
    first, second = _snapshot(tmp_path / "a"), _snapshot(tmp_path / "b")
    assert first == second
    assert "tasks/regression/refund-" in " ".join(first) and all(not name.endswith(".tmp") for name in first)
    manifest = json.loads(first["manifest.json"])
    assert manifest["total"] == 16 and manifest["counts"]["polarity"] == {"negative": 8, "positive": 8}
    # one shared positive seed + five boundary seeds; the negatives that change only the words (no boundary,
    # and the address change's unverified requester) reuse the shared one
    assert len([name for name in first if name.startswith("seeds/")]) == 6
    assert load_tasks(tmp_path / "a" / "tasks") == sorted(tasks, key=lambda task: task.task_id)


def test_a_manifest_refresh_waiting_on_another_lists_the_tasks_written_meanwhile(drafted, tmp_path):
    """Two writers at once (partitions in parallel, a reviewer): the one that refreshes last
    lists the task files the other wrote while it waited, so no manifest misses them."""
    import threading

    from taskgen.output import _manifest_lock

    tasks, seeds = _everything(drafted)
    out = tmp_path / "out"
    write_all(out, "0.1.0", tasks[:4], seeds)
    waiting = threading.Thread(target=refresh_manifest, args=(out, "0.1.0"))
    with _manifest_lock(out):  # another writer holds the manifest
        waiting.start()
        waiting.join(timeout=0.5)
        assert waiting.is_alive()  # the refresh waits for it
        for task in tasks[4:]:
            write_task(out, task)
    waiting.join(timeout=30)
    assert json.loads((out / "manifest.json").read_text())["total"] == len(tasks)
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "seeds", "tasks"]


def test_schema_file_is_current_and_tasks_validate(drafted):
    assert SCHEMA_FILE.read_text(encoding="utf-8") == pretty_json(task_json_schema())
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    for task in _everything(drafted)[0]:
        jsonschema.validate(task.model_dump(mode="json"), schema)
    broken = _everything(drafted)[0][0].model_dump(mode="json") | {"polarity": "sideways"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def split_of(task) -> str:
    return "held-out" if task.split == "heldout" else "dev"


def test_review_release_export_round_trip(drafted, tmp_path):
    tasks, seeds = _everything(drafted)
    write_all(tmp_path, "0.1.0-draft", tasks, seeds)
    runner = CliRunner()
    positive, negative = tasks[0], tasks[1]
    out = ["--out", str(tmp_path)]
    assert runner.invoke(review_app, ["approve", positive.task_id, *out]).exit_code == 0
    refused = runner.invoke(review_app, ["approve", negative.task_id, *out])  # the negative's boundary question is open
    assert refused.exit_code == 1 and "--force" in refused.output and review.find_task(tmp_path, negative.task_id).status == "draft"
    forced = runner.invoke(review_app, ["approve", negative.task_id, "--force", "--reviewer", "ana", *out])
    assert forced.exit_code == 0 and "forced over" in forced.output
    assert review.find_task(tmp_path, negative.task_id).reviews[-1].forced == ["1 open review question(s)"]
    rejected = tasks[2].task_id
    result = runner.invoke(review_app, ["reject", rejected, "--reason", "expectation unclear", *out])
    assert result.exit_code == 0 and "rejected" in result.output
    stored = review.find_task(tmp_path, rejected)
    assert stored.status == "rejected" and stored.reviews[-1].reason == "expectation unclear"

    shown = runner.invoke(review_app, ["show", positive.task_id, *out], env={"COLUMNS": "240"})
    assert shown.exit_code == 0 and "works" in shown.output and negative.task_id in shown.output
    listed = runner.invoke(review_app, ["list", *out, "--status", "approved"], env={"COLUMNS": "200"})
    assert positive.task_id in listed.output and rejected not in listed.output and "0.1.0-draft" in listed.output

    released = runner.invoke(review_app, ["release", "1.0.0", "--notes", "first pinned set", *out])
    assert released.exit_code == 0
    release_dir = tmp_path / "releases" / "1.0.0"
    manifest = json.loads((release_dir / "manifest.json").read_text())
    assert manifest["version"] == "1.0.0" and manifest["notes"] == "first pinned set"
    assert sorted(manifest["tasks"]) == sorted([positive.task_id, negative.task_id])
    assert (release_dir / "seeds" / f"{positive.seed_id}.json").exists()
    assert runner.invoke(review_app, ["release", "1.0.0", "--notes", "again", *out]).exit_code == 1

    # a task approved after the release is not in its export
    assert runner.invoke(review_app, ["approve", tasks[3].task_id, "--force", *out]).exit_code == 0
    export_dir = tmp_path / "export"
    exported = runner.invoke(review_app, ["export", "--format", "inspect", "--version", "1.0.0", "--split", split_of(positive),
                                          "--out", str(export_dir), "--from", str(tmp_path), "--config", str(tmp_path / "none.yaml")])
    assert exported.exit_code == 0, exported.output
    assert "1.0.0" in exported.output and "2 tasks" in exported.output
    samples = [json.loads(line) for line in (export_dir / "samples.jsonl").read_text().splitlines()]
    assert [sample["id"] for sample in samples] == sorted([positive.task_id, negative.task_id])
    assert {sample["metadata"]["seed"]["seed_id"] for sample in samples} == {positive.seed_id, negative.seed_id}
    assert {sample["metadata"]["release"] for sample in samples} == {"1.0.0"}
    refused = runner.invoke(review_app, ["export", "--format", "inspect", "--version", "9.9", "--out", str(export_dir),
                                         "--from", str(tmp_path), "--config", str(tmp_path / "none.yaml")])
    assert refused.exit_code == 1 and "no release 9.9" in refused.output

    assert runner.invoke(review_app, ["retire", positive.task_id, *out]).exit_code == 0
    assert review.find_task(tmp_path, positive.task_id).status == "retired"
    assert runner.invoke(review_app, ["approve", "no-such-task", *out]).exit_code == 1


def test_review_cli_refuses_what_it_cannot_do_in_one_line(drafted, tmp_path, monkeypatch):
    tasks, seeds = _everything(drafted)
    write_all(tmp_path / "out", "0.1.0-draft", tasks, seeds)
    runner, out = CliRunner(), ["--out", str(tmp_path / "out")]
    assert runner.invoke(review_app, ["list", "--status", "bogus", *out]).exit_code == 2
    bad = runner.invoke(review_app, ["release", "first", "--notes", "n", *out])
    assert bad.exit_code == 1 and len(bad.output.strip().splitlines()) == 1 and "1.2.0" in bad.output
    monkeypatch.chdir(tmp_path)  # no trace2task.yaml here
    lost = runner.invoke(review_app, ["list"])
    assert lost.exit_code == 2 and "--config" in lost.output
    assert runner.invoke(review_app, ["list", "--out", str(tmp_path)]).exit_code == 2  # no tasks/ there


def test_review_list_shows_whole_ids_on_a_narrow_terminal_and_show_takes_a_pair_id(drafted, tmp_path):
    tasks, seeds = _everything(drafted)
    write_all(tmp_path, "0.1.0-draft", tasks, seeds)
    runner = CliRunner()
    listed = runner.invoke(review_app, ["list", "--out", str(tmp_path)], env={"COLUMNS": "60"})
    assert listed.exit_code == 0 and all(task.task_id in listed.output for task in tasks)
    shown = runner.invoke(review_app, ["show", tasks[0].pair_id, "--out", str(tmp_path)], env={"COLUMNS": "240"})
    assert shown.exit_code == 0 and tasks[0].task_id in shown.output and tasks[1].task_id in shown.output
