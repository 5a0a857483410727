import json
from pathlib import Path

from ingest.config import IngestConfig
from ingest.models import QuarantinedRecord, RawRecord
from ingest.readers import ReadStats, list_source_files, read_file
import ingest_builders as b


def read_all(source: str, path: Path, root: Path, config: IngestConfig, **kwargs):
    stats = ReadStats()
    items = list(read_file(source, path, root, config, stats=stats, **kwargs))
    accepted = [item for item, _ in items if isinstance(item, RawRecord)]
    quarantined = [item for item, _ in items if isinstance(item, QuarantinedRecord)]
    return accepted, quarantined, stats, items


def test_spans_become_records_with_session_trace_and_utc_time(tmp_path, config):
    path = b.write(tmp_path / "traces" / "otel.jsonl", b.spans_line(*b.conversation_spans()) + "\n")
    accepted, quarantined, _, items = read_all("traces", path, tmp_path, config)
    assert quarantined == []
    assert [r.external_id for r in accepted][:2] == [f"{b.TRACE}/a000000000000001", f"{b.TRACE}/a000000000000002"]
    first = accepted[0]
    assert first.kind == "span" and first.file == "traces/otel.jsonl" and first.position == 1
    assert first.session_id == b.SESSION and first.trace_id == b.TRACE
    assert first.occurred_at.isoformat() == "2026-11-20T10:15:00+00:00"
    assert accepted[2].session_id is None  # tool spans carry no conversation id; assembly resolves it by trace
    assert {offset for _, offset in items} == {path.stat().st_size}


def test_span_sha256_is_stable_across_files(tmp_path, config):
    line = b.spans_line(*b.conversation_spans()) + "\n"
    one = read_all("traces", b.write(tmp_path / "traces" / "a.jsonl", line), tmp_path, config)[0]
    two = read_all("traces", b.write(tmp_path / "traces" / "b.jsonl", "\n" + line), tmp_path, config)[0]
    assert [r.sha256 for r in one] == [r.sha256 for r in two]
    assert two[0].position == 2


def test_malformed_trace_lines_are_quarantined_with_reasons(tmp_path):
    config = IngestConfig(max_record_bytes=4096)
    good = b.span("b000000000000001", "chat", "2026-11-20T10:00:00Z", "2026-11-20T10:00:01Z", {"session.id": "s-1"})
    no_trace = {**good, "traceId": ""}
    bad_time = {**good, "startTimeUnixNano": "yesterday"}
    lines = [
        "{not json",
        "[1, 2]",
        json.dumps({"resourceSpans": "nope"}),
        json.dumps({"resourceSpans": []}),
        b.spans_line(no_trace),
        b.spans_line(bad_time),
        "x" * 5000,
        b.spans_line(good),
    ]
    raw = "\n".join(lines).encode() + b"\n" + b'{"resourceSpans": "\xff\xfe"}\n'
    path = b.write(tmp_path / "traces" / "bad.jsonl", raw)
    accepted, quarantined, stats, _ = read_all("traces", path, tmp_path, config)
    assert [(q.position, q.reason) for q in quarantined] == [
        (1, "invalid JSON"),
        (2, "not a JSON object"),
        (3, "missing field 'resourceSpans'"),
        (4, "line holds no spans"),
        (5, "missing field 'traceId'"),
        (6, "invalid field 'startTimeUnixNano': invalid timestamp"),
        (7, "line over 4096 bytes"),
        (9, "invalid UTF-8"),
    ]
    assert [r.position for r in accepted] == [8]
    assert stats.accepted + stats.quarantined == 9


def test_resume_from_offset_yields_only_new_lines(tmp_path, config):
    spans = b.conversation_spans()
    path = b.write(tmp_path / "traces" / "otel.jsonl", b.spans_line(spans[0]) + "\n" + b.spans_line(spans[1]) + "\n")
    first = list(read_file("traces", path, tmp_path, config))
    offset, lines_read = first[-1][1], 2
    with path.open("a", encoding="utf-8") as handle:
        handle.write(b.spans_line(spans[2]) + "\n")
    resumed = list(read_file("traces", path, tmp_path, config, start_byte=offset, start_line=lines_read))
    assert [(r.external_id, r.position) for r, _ in resumed] == [(f"{b.TRACE}/a000000000000003", 3)]
    assert resumed[-1][1] == path.stat().st_size


def test_otlp_logs_keep_errors_and_count_lower_severities_as_skipped(tmp_path, config):
    records = [
        b.log_record("payment gateway timeout after 3000 ms", 17, "2026-11-20T10:15:06Z", trace_id=b.TRACE.upper()),
        b.log_record("refund request received", 9, "2026-11-20T10:15:05Z"),
        b.log_record("card declined for order #W2611340", 21, "2026-11-20T10:15:07Z", attrs={"session.id": "sess-x"}),
        {"severityNumber": 17, "timeUnixNano": "not-a-time", "body": {"stringValue": "boom"}},
    ]
    path = b.write(tmp_path / "error_logs" / "app.jsonl", b.log_line(records) + "\n")
    accepted, quarantined, stats, _ = read_all("error_logs", path, tmp_path, config)
    assert [(r.trace_id, r.session_id) for r in accepted] == [(b.TRACE, None), (None, "sess-x")]
    assert all(r.kind == "log" and len(r.external_id) == 16 for r in accepted)
    assert [q.reason for q in quarantined] == ["invalid log time: invalid timestamp"]
    assert stats.skipped == {"severity below 17": 1}
    assert stats.accepted + stats.quarantined + sum(stats.skipped.values()) == len(records)


def test_text_logs_parse_with_default_pattern(tmp_path, config):
    text = "\n".join([
        "2026-11-20T10:15:03.123Z ERROR [session=s-123 trace=ABCD1234] refund_order failed: amount exceeds total",
        "2026-11-20T10:15:04Z INFO [session=s-123] retrying",
        "2026-11-20 10:15:05 CRITICAL inventory service unreachable",
        "    at refund.py line 12",
        "2026-13-45T99:00:00Z ERROR [session=s-9] bad clock",
    ]) + "\n"
    path = b.write(tmp_path / "error_logs" / "app.log", text)
    accepted, quarantined, stats, _ = read_all("error_logs", path, tmp_path, config)
    assert [(r.session_id, r.trace_id, r.payload["fields"]["message"]) for r in accepted] == [
        ("s-123", "abcd1234", "refund_order failed: amount exceeds total"),
        (None, None, "inventory service unreachable\n    at refund.py line 12"),
    ]
    assert accepted[1].occurred_at.isoformat() == "2026-11-20T10:15:05+00:00"
    assert [(q.position, q.reason) for q in quarantined] == [
        (5, "invalid field 'timestamp': invalid timestamp"),
    ]
    assert stats.skipped == {"severity below 17": 1}


def test_stack_traces_join_their_first_line(tmp_path, config):
    text = "\n".join([
        "    at orphan.Frame(Orphan.java:1)",
        "2026-11-20T10:15:03Z ERROR [session=s-1] refund failed",
        "Traceback (most recent call last):",
        '  File "refund.py", line 12, in refund',
        "    raise RefundError(order_id)",
        "refunds.RefundError: #W2611340",
        "2026-11-20T10:15:04Z ERROR [session=s-2] label failed",
        "java.lang.IllegalStateException: carrier down",
        "\tat com.shop.Labels.create(Labels.java:88)",
        "Caused by: java.net.SocketTimeoutException: read timed out",
        "\t... 12 more",
        "this line is garbage",
        "2026-11-20T10:15:05Z INFO [session=s-3] fine",
        "  an indented note under an info line",
    ]) + "\n"
    path = b.write(tmp_path / "error_logs" / "app.log", text)
    accepted, quarantined, stats, items = read_all("error_logs", path, tmp_path, config)
    assert [(r.position, r.session_id, r.payload["fields"]["message"].splitlines()) for r in accepted] == [
        (2, "s-1", ["refund failed", "Traceback (most recent call last):", '  File "refund.py", line 12, in refund',
                    "    raise RefundError(order_id)", "refunds.RefundError: #W2611340"]),
        (7, "s-2", ["label failed", "java.lang.IllegalStateException: carrier down", "\tat com.shop.Labels.create(Labels.java:88)",
                    "Caused by: java.net.SocketTimeoutException: read timed out", "\t... 12 more"]),
    ]
    assert [(q.position, q.reason) for q in quarantined] == [
        (1, "line does not match the text log pattern"), (12, "line does not match the text log pattern")]
    assert stats.skipped == {"severity below 17": 1}
    label = next(offset for item, offset in items if getattr(item, "session_id", None) == "s-2")
    assert label == text.index("this line is garbage")  # resumes after the record's last line


def test_zendesk_page_and_comments(tmp_path):
    config = IngestConfig(ticket_session_field=360001)
    page = b.ticket_page(
        [
            b.ticket(101, external_id="sess-7f3a", requester_id=501),
            b.ticket(102, external_id=None, requester_id=502, custom=[{"id": 360001, "value": "sess-91bc"}]),
            {**b.ticket(103, external_id="s", requester_id=501), "created_at": "last tuesday"},
            {k: v for k, v in b.ticket(104, external_id="s", requester_id=501).items() if k != "id"},
        ],
        [b.user(501, "Maria Lopez", "maria.lopez@example.com", "+1 415 555 0134"), b.user(502, "Ken Ito", "ken@example.org", None)],
    )
    page_path = b.write(tmp_path / "tickets" / "page-00001.json", page)
    accepted, quarantined, _, items = read_all("tickets", page_path, tmp_path, config)
    assert [(r.external_id, r.session_id, r.position) for r in accepted] == [("101", "sess-7f3a", 1), ("102", "sess-91bc", 2)]
    assert accepted[0].payload["requester"]["email"] == "maria.lopez@example.com"
    assert [(q.position, q.reason) for q in quarantined] == [
        (3, "invalid field 'created_at': invalid timestamp"),
        (4, "missing field 'id'"),
    ]
    assert {offset for _, offset in items} == {page_path.stat().st_size}

    comments = {"comments": [
        {"id": 1, "author_id": 501, "body": "My order arrived broken.", "public": True, "created_at": "2026-11-20T10:40:00Z"},
        {"id": 2, "author_id": 9001, "body": "Refund issued.", "public": True, "created_at": "2026-11-20T11:00:00Z"},
        {"id": 3, "author_id": 9001, "public": True, "created_at": "2026-11-20T11:00:00Z"},
    ], "next_page": None}
    comment_path = b.write(tmp_path / "tickets" / "comments" / "101.json", json.dumps(comments))
    accepted, quarantined, _, _ = read_all("tickets", comment_path, tmp_path, config)
    assert [(r.kind, r.external_id, r.payload["ticket_id"]) for r in accepted] == [("comment", "1", "101"), ("comment", "2", "101")]
    assert [q.reason for q in quarantined] == ["missing field 'body'"]
    assert list_source_files(tmp_path, "tickets") == [comment_path, page_path]


def test_broken_zendesk_file_is_one_quarantine(tmp_path, config):
    path = b.write(tmp_path / "tickets" / "page.json", '{"tickets": [')
    _, quarantined, _, _ = read_all("tickets", path, tmp_path, config)
    assert [(q.position, q.reason) for q in quarantined] == [(0, "invalid JSON")]


def test_escalations_and_deploys_validate_fields(tmp_path, config):
    examples = Path(__file__).parents[2] / "docs" / "examples"
    good_escalations = (examples / "escalations.jsonl").read_text()
    bad = [
        json.dumps({"id": "esc-9", "session_id": "s", "escalated_at": "2026-11-20T10:00:00", "reason": "r"}),
        json.dumps({"id": "esc-9", "session_id": "s", "escalated_at": "2026-11-20T10:00:00Z", "reason": 5}),
        json.dumps({"id": "esc-9", "session_id": "s", "escalated_at": "2026-11-20T10:00:00Z", "reason": "r",
                    "transcript": [{"role": "robot", "text": "hi"}]}),
    ]
    path = b.write(tmp_path / "escalations" / "e.jsonl", good_escalations + "\n".join(bad) + "\n")
    accepted, quarantined, _, _ = read_all("escalations", path, tmp_path, config)
    assert [(r.external_id, r.session_id) for r in accepted] == [("esc-1042", "sess-7f3a"), ("esc-1043", "sess-91bc")]
    assert accepted[1].occurred_at.isoformat() == "2026-11-21T07:02:11+00:00"
    assert [q.reason for q in quarantined] == [
        "invalid field 'escalated_at': timestamp without timezone",
        "invalid field 'reason': Input should be a valid string",
        "invalid field 'transcript.0.role': Input should be 'user', 'agent' or 'human_agent'",
    ]

    deploys = (examples / "deploys.jsonl").read_text() + json.dumps({"id": "d", "kind": "redeploy"}) + "\n"
    path = b.write(tmp_path / "deploys" / "d.jsonl", deploys)
    accepted, quarantined, _, _ = read_all("deploys", path, tmp_path, config)
    assert [(r.external_id, r.session_id) for r in accepted] == [("dep-311", None), ("dep-312", None)]
    assert [q.reason for q in quarantined] == ["invalid field 'kind': Input should be 'rollback' or 'hotfix'"]


def test_unknown_source_and_unsupported_file(tmp_path, config):
    odd = b.write(tmp_path / "metrics" / "m.jsonl", "{}\n")
    readme = b.write(tmp_path / "traces" / "README.txt", "notes\n")
    assert [q.reason for q, _ in read_file("metrics", odd, tmp_path, config)] == ["unknown source"]
    assert [q.reason for q, _ in read_file("traces", readme, tmp_path, config)] == ["unsupported file type for this source"]


def test_reasons_never_quote_values(tmp_path, config):
    secret = "maria.lopez@example.com"
    lines = [
        json.dumps({"id": secret, "session_id": 7, "escalated_at": secret, "reason": "r"}),
        json.dumps({"id": "e", "session_id": "s", "escalated_at": "2026-11-20T10:00:00Z", "reason": "r", "queue": [secret]}),
        secret,
    ]
    path = b.write(tmp_path / "escalations" / "e.jsonl", "\n".join(lines) + "\n")
    _, quarantined, _, _ = read_all("escalations", path, tmp_path, config)
    assert len(quarantined) == 3
    assert all(secret not in q.model_dump_json() for q in quarantined)
