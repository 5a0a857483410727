"""Assembly a chunk of sessions at a time gives the sessions one assembly of everything gives."""

from datetime import date

import pytest

from ingest.assemble import (
    assemble_in_chunks,
    assemble_sessions,
    assign_templates,
    continued_runs,
    error_messages,
    unclaimed_records,
)
from ingest.demo import generate_drop
from ingest.error_templates import templates_for
from ingest.models import RawRecord

from test_ingest_assemble import build_drop, read_drop


class Index:
    """What the raw zone's per-session query returns: a session's records, their traces' records,
    the deploys naming it and its tickets' threads (comments name their ticket, not the session)."""

    def __init__(self, records: list[RawRecord], continued: dict[str, str]):
        self.records, self.continued = records, continued
        self.calls: list[list[str]] = []

    def __call__(self, ids: list[str]) -> list[RawRecord]:
        self.calls.append(ids)
        wanted = set(ids)
        found = {r.sha256: r for r in self.records if r.session_id in wanted
                 or (r.kind == "deploy" and wanted & set(r.payload["session_ids"]))}
        traces = {r.trace_id for r in found.values() if r.trace_id}
        traces |= {trace for trace, session in self.continued.items() if session in wanted}
        found |= {r.sha256: r for r in self.records if r.trace_id in traces}
        tickets = {r.external_id for r in found.values() if r.kind == "ticket"}
        found |= {r.sha256: r for r in self.records if r.source == "tickets" and
                  (r.external_id in tickets or str(r.payload.get("ticket_id")) in tickets)}
        return list(found.values())


def _chunked(records, config, chunk):
    continued = continued_runs(records)
    whole = assemble_sessions(records, config, templates=False)
    index = Index(records, continued)
    sessions = list(assemble_in_chunks([s.session_id for s in whole.sessions], index, config, chunk=chunk,
                                       continued=continued))
    assign_templates(sessions, templates_for(error_messages(sessions)))
    return sessions, index


@pytest.fixture(scope="module")
def demo_records(tmp_path_factory):
    from ingest.config import IngestConfig

    root = tmp_path_factory.mktemp("drop")
    generate_drop(root, sessions=60, days=2, seed=5, start=date(2026, 11, 16))
    return read_drop(root, IngestConfig())


@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_chunks_of_a_demo_drop_give_the_whole_assembly(demo_records, config, chunk):
    expected = assemble_sessions(demo_records, config)
    sessions, index = _chunked(demo_records, config, chunk)
    assert [s.model_dump_json() for s in sessions] == [s.model_dump_json() for s in expected.sessions]
    assert max(len(ids) for ids in index.calls) <= chunk  # no chunk asked for more sessions than its size
    assert any(e.template != e.message for s in sessions for e in s.signals.errors)  # templates were mined


def test_chunks_of_the_hand_built_drop_and_its_unclaimed_records(tmp_path, config):
    build_drop(tmp_path)
    records = read_drop(tmp_path, config)
    expected = assemble_sessions(records, config)
    sessions, _ = _chunked(records, config, 1)
    assert [s.model_dump_json() for s in sessions] == [s.model_dump_json() for s in expected.sessions]
    sessionless = [r for r in records if r.session_id is None and r.kind != "span"]
    context = [r for r in records if r.kind in ("span", "ticket")]
    assert unclaimed_records(sessionless + context) == expected.quarantined


def test_a_trace_no_conversation_id_names_joins_the_run_it_continues_in_its_chunk(tmp_path, config):
    """The OpenAI Agents SDK runs each user turn as a trace of its own and names no conversation:
    the traces are resolved once (`continued_runs`) and fetched with the session they continue."""
    import importlib.util
    import subprocess
    import sys
    from pathlib import Path

    if importlib.util.find_spec("openinference.instrumentation.openai_agents") is None:
        pytest.skip("the conformance extra is not installed")
    drive = Path(__file__).resolve().parents[1] / "conformance" / "producers" / "drive.py"
    completed = subprocess.run(
        [sys.executable, str(drive), "agents-openinference", str(tmp_path / "traces")], capture_output=True, text=True,
        timeout=300, env={"PATH": "/usr/bin:/bin", "OTEL_SDK_DISABLED": "false", "OPENAI_AGENTS_DISABLE_TRACING": "0"},
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    records = read_drop(tmp_path, config)
    expected = assemble_sessions(records, config)
    assert len(expected.sessions) == 1 and len(expected.sessions[0].trace_ids) == 2
    continued = continued_runs(records)
    assert sorted(continued) == expected.sessions[0].trace_ids  # both runs unnamed, one session
    sessions, _ = _chunked(records, config, 1)
    assert [s.model_dump_json() for s in sessions] == [s.model_dump_json() for s in expected.sessions]
