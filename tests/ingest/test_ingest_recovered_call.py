"""A tool call that fails and is retried with success, as OTLP spans carry it: the failed span is a span error and an
error from the traces as well as a failed call, and all three are the one error the retry made good (issue 13,
`taskgen/calls.py`)."""

import json

import ingest_builders as b
from ingest.assemble import assemble_sessions
from ingest.models import SOURCES
from ingest.readers import list_source_files, read_file
from taskgen.classify import classify
from taskgen.domains import get_domain
from taskgen.taxonomy import Taxonomy


def _refund(span_id, start, end, error=None):
    return b.span(span_id, "execute_tool refund_order", start, end, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "refund_order", "gen_ai.tool.call.id": f"call_{span_id[-1]}",
        "gen_ai.tool.call.arguments": json.dumps({"order_id": "#W2611340"})}, parent="a000000000000001", error=error)


def _session(tmp_path, config, retried):
    spans = b.conversation_spans()
    spans[3] = _refund("a000000000000004", "2026-11-20T10:15:06Z", "2026-11-20T10:15:07Z", "gateway timeout, try again")
    if retried:
        spans.append(_refund("a000000000000006", "2026-11-20T10:15:11Z", "2026-11-20T10:15:12Z"))
    b.write(tmp_path / "traces" / "otel.jsonl", b.spans_line(*spans) + "\n")
    records = [item for source in SOURCES for path in list_source_files(tmp_path, source)
               for item, _ in read_file(source, path, tmp_path, config)]
    (session,) = assemble_sessions(records, config).sessions
    return session


def test_a_retried_tool_call_from_spans_is_a_recovered_error(tmp_path, config):
    taxonomy = Taxonomy.from_yaml(get_domain("retail").taxonomy_path()).model_copy(update={"examples": {}})
    failed_only = _session(tmp_path / "once", config, retried=False)
    assert failed_only.signals.span_errors == 1 and [e.source for e in failed_only.signals.errors] == ["traces"]
    assert classify(failed_only, taxonomy).outcome == "errored"
    retried = _session(tmp_path / "twice", config, retried=True)
    assert [(c.name, c.status) for c in retried.tool_calls] == [
        ("get_order_details", "ok"), ("refund_order", "error"), ("refund_order", "ok")]
    assert retried.signals.span_errors == 1  # the failed span is still counted where it lands
    c = classify(retried, taxonomy)
    assert c.outcome == "resolved", c.signals
    assert "traces:calls:2->3:recovered_error" in c.evidence
