"""The Inspect AI export of a pinned release: files, determinism, and a real `inspect eval` run offline."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from taskgen import review
from taskgen.exports.inspect import export_inspect
from taskgen.exports.release import ExportError, load_release_split
from retail_fixtures import fixed_splits
from taskgen.output import write_all

INSPECT = Path(sys.executable).with_name("inspect")


def _snapshot(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.fixture()
def released(drafted, tmp_path):
    """Out folder with every fixture pair approved but one, released as 1.0.0; that one approved afterwards."""
    tasks = fixed_splits([task for row in drafted for task in (row[3].positive, row[3].negative)])
    seeds = [row[2] for row in drafted] + [row[3].negative_seed for row in drafted]
    out = tmp_path / "out"
    write_all(out, "0.1.0-draft", tasks, seeds)
    late = tasks[-2:]
    for task in tasks[:-2]:
        review.set_status(out, task.task_id, "approved", force=True)
    review.release(out, "1.0.0", "first pinned set")
    for task in late:
        review.set_status(out, task.task_id, "approved", force=True)
    return out, tasks, late


def test_export_reads_the_pinned_release_split_only(released, domain, tmp_path):
    out, tasks, late = released
    dev = load_release_split(out, "1.0.0", "dev")
    heldout = load_release_split(out, "1.0.0", "held-out")
    released_ids = {task.task_id for task in tasks} - {task.task_id for task in late}
    assert {task.task_id for task in dev.tasks} | {task.task_id for task in heldout.tasks} == released_ids
    assert {task.split for task in dev.tasks} == {"dev"} and {task.split for task in heldout.tasks} == {"heldout"}

    summary = json.loads(export_inspect(dev, tmp_path / "a", domain).read_text())
    assert summary["release"] == "1.0.0" and summary["split"] == "dev" and summary["notes"] == "first pinned set"
    assert summary["counts"]["total"] == len(dev.tasks)
    assert summary["counts"]["by_polarity"] == {"negative": len(dev.tasks) // 2, "positive": len(dev.tasks) // 2}
    samples = [json.loads(line) for line in (tmp_path / "a" / "samples.jsonl").read_text().splitlines()]
    assert [sample["id"] for sample in samples] == sorted(task.task_id for task in dev.tasks)
    for sample in samples:
        metadata = sample["metadata"]
        assert metadata["release"] == "1.0.0" and metadata["pair_id"] and metadata["provenance"]["session_ids"]
        assert metadata["seed"]["seed_id"] == metadata["task"]["seed_id"] and metadata["budget"]["turns"] >= 1
    negatives = [sample for sample in samples if sample["metadata"]["polarity"] == "negative"]
    assert any(sample["metadata"]["rubric"] and sample["metadata"]["boundary"] for sample in negatives)

    export_inspect(load_release_split(out, "1.0.0", "dev"), tmp_path / "b", domain)
    assert _snapshot(tmp_path / "a") == _snapshot(tmp_path / "b")


def test_export_refuses_what_is_not_a_pinned_release(released):
    out, tasks, _ = released
    with pytest.raises(ExportError, match="no release 2.0.0"):
        load_release_split(out, "2.0.0", "dev")
    with pytest.raises(ExportError, match="unknown split"):
        load_release_split(out, "1.0.0", "test")
    pinned = next((out / "releases" / "1.0.0" / "tasks").rglob("*.json"))
    pinned.write_text(pinned.read_text().replace('"approved"', '"draft"'))
    with pytest.raises(ExportError, match="changed since the release"):
        load_release_split(out, "1.0.0", "dev")


def _eval_log(task_file: Path, behaviour: str, log_dir: Path) -> dict:
    """`inspect eval DIR/task.py` as a user runs it, with no network: an empty tiktoken cache and a
    proxy that answers nothing make any tokenizer download fail the run."""
    environment = {**os.environ, "TIKTOKEN_CACHE_DIR": str(log_dir / "no-tiktoken"), "INSPECT_LOG_DIR": str(log_dir),
                   "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}
    result = subprocess.run(
        [str(INSPECT), "eval", f"{task_file.parent.name}/{task_file.name}", "--model", "mockllm/model", "-T", f"behaviour={behaviour}",
         "--log-format", "json", "--log-dir", str(log_dir), "--display", "none"],
        capture_output=True, text=True, env=environment, cwd=task_file.parent.parent, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (log_file,) = log_dir.glob("*.json")
    return json.loads(log_file.read_text())


def test_inspect_eval_scores_the_reference_1_and_do_nothing_and_the_mock_model_0(released, domain, tmp_path):
    out, _, _ = released
    export_inspect(load_release_split(out, "1.0.0", "dev"), tmp_path / "export", domain)
    task_file = tmp_path / "export" / "task.py"
    for behaviour, expected in (("reference", "C"), ("do_nothing", "I"), ("model", "I")):
        log = _eval_log(task_file, behaviour, tmp_path / f"logs-{behaviour}")
        assert log["status"] == "success"
        scores = {sample["id"]: sample["scores"]["end_state"] for sample in log["samples"]}
        assert len(scores) == len(log["samples"]) > 0
        assert {score["value"] for score in scores.values()} == {expected}, {key: score["explanation"] for key, score in scores.items()}
        if behaviour == "model":  # mockllm's default output acts on nothing, and it ran with no tokenizer file
            assert all(score["answer"] == "Default output from mockllm/model" for score in scores.values())
        if behaviour == "reference":
            # the calls went through Inspect's tool machinery and the grader saw them
            assert all(score["metadata"]["code_checks"]["calls"] for score in scores.values())
            assert any(score["metadata"]["rubric"]["items"] for score in scores.values())


def _scripted_model(calls, usage_tokens: int):
    """mockllm with the given tool calls then a closing reply, each output carrying its usage, so
    Inspect never counts tokens with a tokenizer (nothing downloaded)."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    outputs = [ModelOutput.for_tool_call("mockllm/model", call.name, call.arguments, tool_call_id=f"c{number}")
               for number, call in enumerate(calls)]
    outputs.append(ModelOutput.from_content("mockllm/model", "Done."))
    for output in outputs:
        output.usage = ModelUsage(input_tokens=usage_tokens, output_tokens=0, total_tokens=usage_tokens)
    return get_model("mockllm/model", custom_outputs=outputs)


def _model_trial(folder: Path, sample_id: str, model, log_dir: Path) -> dict:
    from inspect_ai import eval as inspect_eval

    from taskgen.exports.inspect_runtime import release_task

    (log,) = inspect_eval(release_task(folder), model=model, sample_id=sample_id, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    (sample,) = log.samples
    return sample.scores["end_state"]


def test_the_model_acts_through_the_tools_within_its_budget(released, domain, tmp_path):
    from taskgen.seeds import Seed
    from taskgen.task import AgentView

    out, _, _ = released
    release = load_release_split(out, "1.0.0", "dev")
    export_inspect(release, tmp_path / "export", domain)
    task = next(task for task in release.tasks if task.intent == "cancellation" and task.polarity == "positive")
    scratch = domain.environment(Seed.model_validate(release.seeds[task.seed_id].model_dump()))
    domain.agents()["reference"](AgentView(prompt=task.prompt, intent=task.intent, actor=task.actor, clock=task.clock), scratch)
    assert [call.name for call in scratch.calls] == ["get_order", "cancel_order", "send_reply"]

    passed = _model_trial(tmp_path / "export", task.task_id, _scripted_model(scratch.calls, 100), tmp_path / "logs-ok")
    assert passed.value == "C", passed.explanation

    over_tokens = _scripted_model(scratch.calls, task.budget.tokens)
    failed = _model_trial(tmp_path / "export", task.task_id, over_tokens, tmp_path / "logs-tokens")
    assert failed.value == "I" and "budget exceeded: token" in failed.explanation

    too_many_turns = _scripted_model([scratch.calls[0]] * task.budget.turns + scratch.calls[1:], 10)
    failed = _model_trial(tmp_path / "export", task.task_id, too_many_turns, tmp_path / "logs-turns")
    assert failed.value == "I" and "budget exceeded: turn" in failed.explanation

    skipped_cancel = _scripted_model([scratch.calls[0], scratch.calls[2]], 10)
    failed = _model_trial(tmp_path / "export", task.task_id, skipped_cancel, tmp_path / "logs-wrong")
    assert failed.value == "I" and "cancel_order" in failed.explanation


def test_every_domain_tool_reaches_the_model_described(drafted, domain):
    from taskgen.exports.inspect_runtime import domain_tools

    task = drafted[0][3].positive
    tools = {tool.name: tool for tool in domain_tools(domain, task)}
    assert set(tools) == set(domain.tools)
    for tool in tools.values():
        assert tool.description and not tool.description.startswith("Args")
        schema = tool.parameters.model_dump(exclude_none=True)
        assert schema["required"] and all(prop.get("description") and prop.get("type") for prop in schema["properties"].values())
    assert tools["refund_order"].parameters.properties["amount_cents"].type == "integer"
