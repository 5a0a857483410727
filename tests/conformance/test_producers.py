"""Conformance: what the real trace producers emit becomes one complete session.

Each producer's released package (the `conformance` extra, pinned) is driven live against
the scripted model (producers/scripted_model.py) in a process of its own and exported with
the OTLP JSON file exporter; OpenLLMetry 0.40, which cannot share the environment, is read
from the sample `make conformance-samples` generated. The drop is then read as a new user
would read it, with `ingest.check.check_drop`.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.check import check_drop
from ingest.config import IngestConfig
from ingest.models import Session

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "producers"))

from drive import CONVERSATION_ID, USER_TURNS  # noqa: E402
from scripted_model import ANSWERS, ORDER_ID, USAGE  # noqa: E402

LIVE = {
    # producer: (modules it needs, it names the conversation, it records the failing tool as an error)
    "agents-openinference": (("agents", "openinference.instrumentation.openai_agents"), False, True),
    "agents-openinference-chat": (("agents", "openinference.instrumentation.openai_agents"), False, True),
    "agents-otel-v2": (("agents", "opentelemetry.instrumentation.openai_agents"), False, True),
    "agents-otel-v2-chat": (("agents", "opentelemetry.instrumentation.openai_agents"), False, True),
    "langgraph-openinference": (("langgraph", "openinference.instrumentation.langchain"), True, True),
    "openllmetry": (("opentelemetry.instrumentation.openai",), True, False),
    "openllmetry-responses": (("opentelemetry.instrumentation.openai",), True, False),
    "openai-v2": (("opentelemetry.instrumentation.openai_v2",), True, False),
}
SAMPLES = HERE / "samples"


def _installed(modules: tuple[str, ...]) -> bool:
    try:
        return all(importlib.util.find_spec(module) is not None for module in modules)
    except ModuleNotFoundError:
        return False


def drive(producer: str, drop: Path) -> Path:
    """The producer's export files, written into DROP/traces/."""
    modules = LIVE[producer][0]
    if not _installed(modules):
        pytest.skip(f"{producer}: its packages are not installed (pip install -e '.[conformance]')")
    out = drop / "traces"
    completed = subprocess.run(
        [sys.executable, str(HERE / "producers" / "drive.py"), producer, str(out)],
        capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
             "OTEL_SDK_DISABLED": "false", "OPENAI_AGENTS_DISABLE_TRACING": "0"},
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return out


def the_session(drop: Path, config: IngestConfig | None = None) -> Session:
    checked = check_drop(drop, config or IngestConfig())
    assert checked.quarantined == []
    assert len(checked.sessions) == 1, [s.session_id for s in checked.sessions]
    return checked.sessions[0]


def assert_conversation(session: Session, *, names_conversation: bool, records_tool_error: bool) -> None:
    if names_conversation:
        assert session.session_id == CONVERSATION_ID
    else:  # the first run's trace id: the second run is joined to it by its history
        assert len(session.trace_ids) == 2 and session.session_id in session.trace_ids
    said = [(t.role, t.text) for t in session.turns if t.role != "system"]
    assert said == [("user", USER_TURNS[0]), ("agent", ANSWERS[0]), ("user", USER_TURNS[1]), ("agent", ANSWERS[1])]
    assert [t.at for t in session.turns] == sorted(t.at for t in session.turns)
    looked_up, refund = session.tool_calls
    assert (looked_up.name, refund.name) == ("get_order_details", "refund_order")
    assert looked_up.arguments == refund.arguments == {"order_id": ORDER_ID}
    assert looked_up.call_id and refund.call_id and looked_up.call_id != refund.call_id
    assert isinstance(looked_up.result, dict) and looked_up.result["status"] == "delivered"
    assert looked_up.status == "ok"
    assert refund.result is not None
    assert refund.status == ("error" if records_tool_error else "ok")
    if records_tool_error:
        assert refund.error and session.signals.span_errors == 1
    assert session.usage.input_tokens == len(USER_TURNS) * (USAGE["tool_call"][0] + USAGE["answer"][0])
    assert session.usage.output_tokens == len(USER_TURNS) * (USAGE["tool_call"][1] + USAGE["answer"][1])
    assert session.usage.agent_turns == len(ANSWERS)
    assert session.entity_ids.get("order") == [ORDER_ID]


@pytest.mark.parametrize("producer", sorted(LIVE))
def test_live_producer_gives_one_complete_session(producer, tmp_path):
    _, names_conversation, records_tool_error = LIVE[producer]
    drive(producer, tmp_path)
    session = the_session(tmp_path)
    assert_conversation(session, names_conversation=names_conversation, records_tool_error=records_tool_error)


def test_openllmetry_040_sample_older_attribute_names(tmp_path):
    """gen_ai.prompt.N / gen_ai.completion.N with their tool calls, gen_ai.usage.prompt_tokens."""
    sample = SAMPLES / "openllmetry-0.40" / "traces.jsonl"
    text = sample.read_text(encoding="utf-8")
    assert "gen_ai.prompt.0.content" in text and "gen_ai.usage.prompt_tokens" in text and "gen_ai.input.messages" not in text
    shutil.copytree(sample.parent, tmp_path / "traces")
    assert_conversation(the_session(tmp_path), names_conversation=True, records_tool_error=False)


def test_openai_v2_messages_in_error_logs_are_events_not_quarantined(tmp_path):
    """Its messages are log records without severity: dropped beside the error logs they are
    still the conversation's events, not quarantined errors."""
    out = drive("openai-v2", tmp_path)
    (tmp_path / "error_logs").mkdir()
    shutil.move(out / "logs.jsonl", tmp_path / "error_logs" / "genai-events.jsonl")
    checked = check_drop(tmp_path, IngestConfig())
    assert checked.sources["error_logs"].quarantined == 0 and checked.sources["error_logs"].accepted == 24
    assert_conversation(checked.sessions[0], names_conversation=True, records_tool_error=False)


def test_the_session_id_comes_from_the_configured_attribute(tmp_path):
    """Without Traceloop's attribute among the configured ones, the app's two turns (a trace
    each) are still one session, joined by the history the second repeats, named by the first trace."""
    shutil.copytree(SAMPLES / "openllmetry-0.40", tmp_path / "traces")
    checked = check_drop(tmp_path, IngestConfig(session_attributes=["gen_ai.conversation.id"]))
    assert [len(s.trace_ids) for s in checked.sessions] == [2]
    assert checked.sessions[0].session_id in checked.sessions[0].trace_ids
    assert checked.sessions[0].session_id != CONVERSATION_ID


TAU2 = HERE.parents[2] / "shared" / "data" / "tau2-bench-retail"


@pytest.mark.skipif(not TAU2.is_dir(), reason="tau2-bench retail data not present in ../shared/data/tau2-bench-retail")
def test_tau2_tasks_traced_by_openllmetry_give_their_gold_actions_in_order(tmp_path):
    """Conversations nobody here wrote (tau2-bench's tasks and state), traced by a real producer."""
    if not _installed(LIVE["openllmetry"][0]):
        pytest.skip("openllmetry: its packages are not installed (pip install -e '.[conformance]')")
    completed = subprocess.run(
        [sys.executable, str(HERE / "producers" / "tau_day.py"), str(TAU2 / "tasks.json"), str(TAU2), str(tmp_path),
         "--count", "12"], capture_output=True, text=True, timeout=300, env={"PATH": "/usr/bin:/bin"})
    assert completed.returncode == 0, completed.stderr[-2000:]
    tasks = {t["id"]: t for t in json.loads((TAU2 / "tasks.json").read_text(encoding="utf-8"))[:12]}
    checked = check_drop(tmp_path, IngestConfig())
    assert checked.quarantined == [] and len(checked.sessions) == len(tasks)
    for session in checked.sessions:
        gold = tasks[session.session_id.removeprefix("tau-")]["evaluation_criteria"]["actions"]
        assert [(c.name, c.arguments) for c in session.tool_calls] == [(a["name"], a["arguments"]) for a in gold]
        assert [t.role for t in session.turns] == ["system", "user", "agent"]
