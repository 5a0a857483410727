import json

import ingest_builders as b
from ingest.assemble import assemble_sessions
from ingest.models import RawRecord
from ingest.readers import list_source_files, read_file
from ingest.models import SOURCES


def build_drop(root):
    spans = b.conversation_spans()
    b.write(root / "traces" / "otel.jsonl", b.spans_line(*spans[:3]) + "\n" + b.spans_line(*spans[3:]) + "\n")
    b.write(root / "tickets" / "page-00001.json", b.ticket_page(
        [b.ticket(101, external_id=b.SESSION, requester_id=501)],
        [b.user(501, "Maria Lopez", "maria.lopez@example.com", "+1 415 555 0134")]))
    b.write(root / "tickets" / "comments" / "101.json", json.dumps({"comments": [
        {"id": 1, "author_id": 501, "body": "My order #W2611340 arrived broken and the bot refused my refund.",
         "public": True, "created_at": "2026-11-20T10:40:00Z"},
        {"id": 2, "author_id": 9001, "body": "Sorry about that, refund issued.", "public": True, "created_at": "2026-11-20T11:00:00Z"},
        {"id": 3, "author_id": 9001, "body": "internal: bot bug", "public": False, "created_at": "2026-11-20T11:01:00Z"},
    ], "next_page": None}))
    b.write(root / "tickets" / "comments" / "999.json", json.dumps({"comments": [
        {"id": 4, "author_id": 1, "body": "orphan", "public": True, "created_at": "2026-11-20T11:00:00Z"}], "next_page": None}))
    b.write(root / "error_logs" / "app.jsonl", b.log_line([
        b.log_record("payment gateway timeout after 3000 ms", 17, "2026-11-20T10:15:06Z", trace_id=b.TRACE),
        b.log_record("payment gateway timeout after 5000 ms", 17, "2026-11-20T10:15:07Z", attrs={"gen_ai.conversation.id": b.SESSION}),
        b.log_record("unrelated failure", 17, "2026-11-20T10:15:07Z", trace_id="ffffffffffffffffffffffffffffffff"),
    ]) + "\n")
    b.write(root / "escalations" / "e.jsonl", json.dumps({
        "id": "esc-1", "session_id": b.SESSION, "escalated_at": "2026-11-20T10:20:00Z", "reason": "refund refused", "queue": "tier2",
        "transcript": [
            {"role": "user", "text": "Hi, I'm Maria Lopez. Order #W2611340 arrived broken, I want a refund.", "at": "2026-11-20T10:15:01Z"},
            {"role": "human_agent", "text": "Taking over, one moment.", "at": "2026-11-20T10:21:00Z"}]}) + "\n")
    b.write(root / "deploys" / "d.jsonl", json.dumps({
        "id": "dep-1", "kind": "rollback", "at": "2026-11-20T12:00:00Z", "service": "support-agent", "from_version": "2.14.0",
        "to_version": "2.13.2", "reason": "refund bug", "session_ids": [b.SESSION, "sess-only-deploy"]}) + "\n")


def read_drop(root, config):
    return [item for source in SOURCES for path in list_source_files(root, source)
            for item, _ in read_file(source, path, root, config) if isinstance(item, RawRecord)]


def test_session_carries_everything_from_every_source(tmp_path, config):
    build_drop(tmp_path)
    result = assemble_sessions(read_drop(tmp_path, config), config)
    assert [s.session_id for s in result.sessions] == ["sess-7f3a", "sess-only-deploy"]
    session = result.sessions[0]
    assert [(t.role, t.source) for t in session.turns] == [
        ("system", "traces"), ("user", "traces"), ("agent", "traces"), ("agent", "traces"),
        ("human_agent", "escalations"), ("user", "tickets"), ("human_agent", "tickets"),
    ]
    assert [c.name for c in session.tool_calls] == ["get_order_details", "refund_order"]
    assert session.tool_calls[0].arguments == {"order_id": "#W2611340"}
    assert session.tool_calls[1].arguments == {"_unparsed": "{not json"}
    assert session.tool_calls[1].status == "error" and "amount exceeds" in session.tool_calls[1].error
    assert session.entity_ids == {"customer": ["maria_lopez_4521"], "order": ["#W2611340"]}
    assert session.people[0].email == "maria.lopez@example.com" and session.people[0].external_id == "501"
    assert (session.usage.input_tokens, session.usage.output_tokens, session.usage.agent_turns) == (420, 27, 2)
    assert session.usage.latency_ms == 6000.0  # two model calls and two tool calls, not the 20 s agent span
    assert session.signals.span_errors == 1
    assert [t.id for t in session.signals.tickets] == ["101"]
    assert [e.id for e in session.signals.escalations] == ["esc-1"]
    assert [d.id for d in session.signals.deploys] == ["dep-1"]
    log_errors = [e for e in session.signals.errors if e.source == "error_logs"]
    assert {e.template for e in log_errors} == {"payment gateway timeout after <NUM> ms"}
    assert session.trace_ids == [b.TRACE]
    assert {p.source for p in session.provenance} == set(SOURCES)
    assert session.started_at.isoformat() == "2026-11-20T10:15:00+00:00"
    assert sorted(q.reason for q in result.quarantined) == [
        "dangling link: comment for a ticket not seen", "dangling link: trace id not seen"]
    assert result.sessions[1].signals.deploys[0].kind == "rollback"


def test_assembly_is_deterministic_and_dedupes_reexports(tmp_path, config):
    build_drop(tmp_path)
    records = read_drop(tmp_path, config)
    once = assemble_sessions(records, config)
    twice = assemble_sessions(list(reversed(records)) + records, config)
    assert twice.duplicates == len(records)
    assert once.model_dump_json() == twice.model_dump_json().replace(f'"duplicates":{len(records)}', '"duplicates":0')


def test_the_agents_own_time_counts_overlapping_calls_once():
    from datetime import datetime, timedelta

    from ingest.conversation import _covered_ms

    at = datetime(2026, 11, 20, 10, 0)
    second = lambda n: at + timedelta(seconds=n)  # noqa: E731
    assert _covered_ms([(second(0), second(2)), (second(1), second(3)), (second(10), second(11))]) == 4000.0
    assert _covered_ms([(second(0), second(10)), (second(2), second(3))]) == 10000.0
    assert _covered_ms([]) == 0.0
