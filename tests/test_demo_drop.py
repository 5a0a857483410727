"""The demo production drop: deterministic, parseable, internally consistent, PII oracle complete."""

from __future__ import annotations

import ipaddress
import json
import re
import sqlite3
from collections import Counter
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from ingest.demo import DropSummary, generate_drop

pytestmark = pytest.mark.xdist_group("demo_drop")  # one worker builds the shared drop once

START = date(2026, 11, 16)
APP_LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (ERROR|WARN|INFO) \[session=(sess-\d{8}-\d{6}|-) trace=([0-9a-f]{32}|-)\] .+$"
)


@pytest.fixture(scope="session")
def drop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, DropSummary]:
    out = tmp_path_factory.mktemp("drop") / "drop"
    return out, generate_drop(out, sessions=600, days=6, seed=11, start=START)


def _files(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def _parse_jsonl(path: Path) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Records of a JSON-lines file, and the count of lines that fail (by why)."""
    records, failures = [], Counter()
    for raw in path.read_bytes().splitlines():
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            failures["invalid_utf8"] += 1
            continue
        try:
            records.append(json.loads(text))
        except json.JSONDecodeError:
            failures["truncated_json"] += 1
    return records, failures


def _attrs(item: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in item.get("attributes", [])}


def _spans(root: Path) -> list[dict[str, Any]]:
    spans = []
    for path in sorted((root / "traces").glob("*.jsonl")):
        for line in _parse_jsonl(path)[0]:
            for resource in line["resourceSpans"]:
                version = _attrs(resource["resource"])["service.version"]
                for scope in resource["scopeSpans"]:
                    spans.extend({**span, "version": version} for span in scope["spans"])
    return spans


def _log_records(root: Path) -> list[dict[str, Any]]:
    records = []
    for path in sorted((root / "error_logs").glob("*.jsonl")):
        for line in _parse_jsonl(path)[0]:
            for resource in line["resourceLogs"]:
                for scope in resource["scopeLogs"]:
                    records.extend(scope["logRecords"])
    return records


def _db(root: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(root / "state" / "shop.db")
    connection.row_factory = sqlite3.Row
    return connection


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _luhn_ok(number: str) -> bool:
    digits = [int(c) for c in number][::-1]
    return sum(d if i % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2) for i, d in enumerate(digits)) % 10 == 0


def _word_index(lines: list[str]) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for line in lines:
        for word in set(re.findall(r"\w+", line)):
            index.setdefault(word, []).append(line)
    return index


def _written_somewhere(value: str, index: dict[str, list[str]]) -> bool:
    """Whether `value` occurs in an indexed line (looked up through the value's longest word)."""
    longest = max(re.findall(r"\w+", value), key=len)
    return any(value in line for line in index.get(longest, []))


def _planted_ids(root: Path) -> dict[str, dict[str, Any]]:
    return json.loads((root / "planted_ids.json").read_text())["sessions"]


def test_same_arguments_give_byte_identical_drops_and_another_seed_differs(tmp_path: Path) -> None:
    kwargs = {"sessions": 40, "days": 2, "start": START}
    first = generate_drop(tmp_path / "a", seed=5, **kwargs)
    second = generate_drop(tmp_path / "b", seed=5, **kwargs)
    generate_drop(tmp_path / "c", seed=6, **kwargs)
    a, b, c = _files(tmp_path / "a"), _files(tmp_path / "b"), _files(tmp_path / "c")
    assert first == second
    assert a == b
    assert a["traces/2026-11-16.jsonl"] != c["traces/2026-11-16.jsonl"]
    assert a["state/shop.db"] != c["state/shop.db"]


def test_refuses_a_non_empty_folder_and_reports_progress(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("x")
    with pytest.raises(FileExistsError):
        generate_drop(tmp_path, sessions=10, days=1, seed=1, start=START)
    seen: list[int] = []
    generate_drop(tmp_path / "new", sessions=10, days=1, seed=1, start=START, progress=seen.append)
    assert seen == list(range(1, 11))


def test_layout_and_summary_counts_match_the_files(drop: tuple[Path, DropSummary]) -> None:
    root, summary = drop
    days = [f"{START + timedelta(days=n):%Y-%m-%d}" for n in range(6)]
    for day in days:
        assert (root / "traces" / f"{day}.jsonl").exists()
        assert (root / "error_logs" / f"{day}.jsonl").exists()
        assert (root / "error_logs" / f"app-{day}.log").exists()
    pages = sorted((root / "tickets").glob("export-*.json"))
    assert summary.files["tickets"] == len(pages) >= 1
    assert summary.files["ticket_comments"] == len(list((root / "tickets" / "comments").glob("*.json")))
    assert summary.records["spans"] == len(_spans(root))
    assert summary.sessions == 600 and summary.days == 6
    assert sum(summary.intents.values()) == sum(summary.outcomes.values()) == 600
    assert max(summary.intents, key=summary.intents.get) == "order_status"
    assert max(summary.outcomes, key=summary.outcomes.get) == "resolved"
    assert {"failed", "escalated", "errored", "rolled_back", "hotfixed"} <= set(summary.outcomes)
    assert (root / summary.planted_pii_file).exists() and (root / summary.planted_ids_file).exists()


def test_summary_carries_no_personal_values(drop: tuple[Path, DropSummary]) -> None:
    root, summary = drop
    dumped = summary.model_dump_json()
    planted = json.loads((root / "planted_pii.json").read_text())["values"]
    assert not [entry["type"] for entry in planted if len(entry["value"]) > 3 and entry["value"] in dumped]


def test_every_file_parses_except_the_counted_faults(drop: tuple[Path, DropSummary]) -> None:
    root, summary = drop
    failures: Counter[str] = Counter()
    for folder in ("traces", "error_logs", "escalations", "deploys"):
        for path in sorted((root / folder).glob("*.jsonl")):
            failures += _parse_jsonl(path)[1]
    for path in sorted((root / "tickets").rglob("*.json")):
        json.loads(path.read_text(encoding="utf-8"))
    for path in sorted((root / "error_logs").glob("app-*.log")):
        for line in path.read_text(encoding="utf-8").splitlines():
            assert APP_LINE.match(line), "app log line out of format"
    escalations = [r for p in sorted((root / "escalations").glob("*.jsonl")) for r in _parse_jsonl(p)[0]]
    traces = {span["traceId"] for span in _spans(root)}
    orphan_logs = [r for r in _log_records(root) if r.get("traceId") and r["traceId"] not in traces]
    assert failures == Counter({k: summary.faults[k] for k in ("truncated_json", "invalid_utf8")})
    assert sum(1 for e in escalations if "session_id" not in e) == summary.faults["escalation_missing_session_id"]
    assert len(orphan_logs) == summary.faults["unknown_trace_id"]
    assert all(count >= 1 for count in summary.faults.values()) and len(summary.faults) == 4
    records = summary.records["spans"] + summary.records["log_records"] + summary.records["escalations"]
    assert sum(summary.faults.values()) < 0.01 * records


def test_without_faults_everything_parses(tmp_path: Path) -> None:
    summary = generate_drop(tmp_path / "d", sessions=30, days=2, seed=3, start=START, with_faults=False)
    assert summary.faults == {}
    for path in sorted((tmp_path / "d").rglob("*.jsonl")):
        assert _parse_jsonl(path)[1] == Counter()


def test_spans_follow_the_otlp_genai_shape(drop: tuple[Path, DropSummary]) -> None:
    root, _ = drop
    by_session: dict[str, list[dict[str, Any]]] = {}
    for span in _spans(root):
        assert re.fullmatch(r"[0-9a-f]{32}", span["traceId"]) and re.fullmatch(r"[0-9a-f]{16}", span["spanId"])
        assert int(span["endTimeUnixNano"]) >= int(span["startTimeUnixNano"])
        by_session.setdefault(_attrs(span)["gen_ai.conversation.id"], []).append(span)
    planted = _planted_ids(root)
    assert set(by_session) == set(planted)
    for session_id, spans in by_session.items():
        roots = [s for s in spans if s["parentSpanId"] == ""]
        assert [r["name"] for r in roots] == ["invoke_agent support-agent"]
        assert {s["traceId"] for s in spans} == {planted[session_id]["trace_id"]}
        assert all(s["parentSpanId"] == roots[0]["spanId"] for s in spans if s is not roots[0])
        for span in spans:
            attributes = _attrs(span)
            operation = attributes["gen_ai.operation.name"]
            if operation == "chat":
                for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
                    for message in json.loads(attributes[key]):
                        assert message["role"] in ("user", "assistant", "system")
                        assert all(part["type"] == "text" and part["content"] for part in message["parts"])
                assert int(attributes["gen_ai.usage.input_tokens"]) > 0
            if operation == "execute_tool":
                json.loads(attributes["gen_ai.tool.call.arguments"])
                if span["status"]:
                    assert span["status"]["code"] == "STATUS_CODE_ERROR"
                    assert span["events"][0]["name"] == "exception"
                    assert "gen_ai.tool.call.result" not in attributes
                else:
                    json.loads(attributes["gen_ai.tool.call.result"])
    errored = [s for s, ids in planted.items() if ids["outcome"] == "errored"]
    assert errored and all(any(span["status"] for span in by_session[s]) for s in errored)


def test_error_logs_link_to_failed_tool_spans(drop: tuple[Path, DropSummary]) -> None:
    root, _ = drop
    failed_spans = {(s["traceId"], s["spanId"]) for s in _spans(root) if s["status"]}
    errors = [r for r in _log_records(root) if r["severityNumber"] == 17 and "spanId" in r]
    linked = {(r["traceId"], r["spanId"]) for r in errors}
    assert failed_spans and failed_spans <= linked
    assert {r["severityText"] for r in _log_records(root)} == {"ERROR", "WARN", "INFO"}
    app_errors = [line for p in (root / "error_logs").glob("app-*.log") for line in p.read_text().splitlines() if " ERROR " in line]
    assert len(app_errors) == len(failed_spans)


def test_ticket_export_pages_and_comments(drop: tuple[Path, DropSummary]) -> None:
    root, summary = drop
    pages = [json.loads(p.read_text()) for p in sorted((root / "tickets").glob("export-*.json"))]
    assert [page["end_of_stream"] for page in pages] == [False] * (len(pages) - 1) + [True]
    assert pages[-1]["next_page"] is None and all(page["next_page"] for page in pages[:-1])
    tickets = [ticket for page in pages for ticket in page["tickets"]]
    assert len(tickets) == summary.records["tickets"] == sum(page["count"] for page in pages)
    assert [t["updated_at"] for t in tickets] == sorted(t["updated_at"] for t in tickets)
    planted = _planted_ids(root)
    assert 0.25 < len(tickets) / len(planted) < 0.5
    for page in pages:
        users = {user["id"]: user for user in page["users"]}
        for ticket in page["tickets"]:
            assert users[ticket["requester_id"]]["role"] == "end-user"
            assert users[ticket["assignee_id"]]["role"] == "agent"
            assert ticket["custom_fields"] == [{"id": 360001, "value": ticket["external_id"]}]
            assert planted[ticket["external_id"]]["ticket_id"] == ticket["id"]
            assert ticket["status"] in ("new", "open", "pending", "solved", "closed")
            comments = json.loads((root / "tickets" / "comments" / f"{ticket['id']}.json").read_text())
            assert comments["count"] == len(comments["comments"]) >= 2
            assert comments["comments"][0]["body"] == ticket["description"]
    failed = [s for s, ids in planted.items() if ids["outcome"] == "failed"]
    complaints = {t["external_id"] for t in tickets if "complaint" in t["tags"]}
    assert failed and set(failed) <= complaints


def test_escalations_and_deploys_name_real_sessions(drop: tuple[Path, DropSummary]) -> None:
    root, _ = drop
    planted = _planted_ids(root)
    escalations = [r for p in sorted((root / "escalations").glob("*.jsonl")) for r in _parse_jsonl(p)[0] if "session_id" in r]
    assert {e["session_id"] for e in escalations} == {s for s, ids in planted.items() if ids["outcome"] == "escalated"}
    assert any("transcript" in e for e in escalations) and any("resolution" in e for e in escalations)
    for escalation in escalations:
        for entry in escalation.get("transcript", []):
            assert entry["role"] in ("user", "agent", "human_agent") and entry["text"]
    deploys = _parse_jsonl(root / "deploys" / "deploys.jsonl")[0]
    assert {d["kind"] for d in deploys} == {"rollback", "hotfix"}
    versions = {_attrs(s)["gen_ai.conversation.id"]: s["version"] for s in _spans(root)}
    for deploy in deploys:
        assert deploy["session_ids"]
        for session_id in deploy["session_ids"]:
            assert planted[session_id]["deploy_id"] == deploy["id"]
            assert versions[session_id] == deploy["from_version"]
            assert _ts(deploy["at"]) > _ts(f"{session_id[5:9]}-{session_id[9:11]}-{session_id[11:13]}T00:00:00Z")


def test_state_db_is_consistent_with_the_sessions(drop: tuple[Path, DropSummary]) -> None:
    root, _ = drop
    db = _db(root)
    planted = _planted_ids(root)
    orders = {row["id"]: dict(row) for row in db.execute("SELECT * FROM orders")}
    customers = {row["id"]: row["created_at"] for row in db.execute("SELECT id, created_at FROM customers")}
    for ids in planted.values():
        assert ids["customer_id"] in customers
        for order_id in ids["order_ids"]:
            assert re.fullmatch(r"#W\d{7}", order_id) and orders[order_id]["customer_id"] == ids["customer_id"]
    totals = dict(db.execute("SELECT order_id, SUM(price_cents * quantity) FROM order_items GROUP BY order_id").fetchall())
    assert all(order["total_cents"] == totals[order_id] for order_id, order in orders.items())
    for order in orders.values():
        assert (order["delivered_at"] is not None) == (order["status"] == "delivered")
        assert customers[order["customer_id"]] < order["created_at"] < (order["delivered_at"] or "9999")
        assert order["status"] in ("pending", "processing", "shipped", "delivered", "cancelled")
    for payment in db.execute("SELECT p.*, o.total_cents FROM payments p JOIN orders o ON o.id = p.order_id"):
        assert payment["amount_cents"] == payment["total_cents"]
        assert (payment["card_number"] is not None) == (payment["method"] == "card")
        if payment["card_number"]:
            assert _luhn_ok(payment["card_number"])

    session_start = {s: _ts(f"{s[5:9]}-{s[9:11]}-{s[11:13]}T00:00:00Z") for s in planted}
    refunds = {row["order_id"]: _ts(row["created_at"]) for row in db.execute("SELECT * FROM refunds")}
    labels = {row["order_id"]: _ts(row["created_at"]) for row in db.execute("SELECT * FROM return_labels")}
    for span in _spans(root):
        attributes = _attrs(span)
        if attributes["gen_ai.operation.name"] != "execute_tool" or span["status"]:
            continue
        called_at = datetime.fromtimestamp(int(span["startTimeUnixNano"]) // 10**9, session_start[next(iter(planted))].tzinfo)
        order_id = json.loads(attributes["gen_ai.tool.call.arguments"]).get("order_id")
        if attributes["gen_ai.tool.name"] == "refund_order":
            assert refunds[order_id] == called_at
        if attributes["gen_ai.tool.name"] == "create_return_label":
            assert labels[order_id] == called_at
        if attributes["gen_ai.tool.name"] == "cancel_order":
            assert orders[order_id]["status"] == "cancelled"

    windows = Counter()
    for session_id, ids in planted.items():
        order = orders[ids["order_ids"][0]]
        if order["delivered_at"] and ids["intent"] in ("refund", "return_label"):
            age = _ts(f"{session_id[5:9]}-{session_id[9:11]}-{session_id[11:13]}T23:59:59Z") - _ts(order["delivered_at"])
            windows["inside" if age <= timedelta(days=30) else "outside"] += 1
            if ids["outcome"] == "rolled_back":
                assert age > timedelta(days=31) and order["id"] in refunds
    assert windows["inside"] and windows["outside"]


def test_mapping_yaml_describes_the_db(drop: tuple[Path, DropSummary]) -> None:
    root, _ = drop
    kinds = yaml.safe_load((root / "state" / "mapping.yaml").read_text())["kinds"]
    assert set(kinds) == {"customer", "order", "order_item", "payment", "refund", "return_label"}
    db = _db(root)
    for kind in kinds.values():
        columns = {row["name"] for row in db.execute(f"PRAGMA table_info({kind['table']})")}
        assert kind["key"] in columns
        assert set(kind.get("foreign_keys", {})) <= columns and set(kind.get("pii", {})) <= columns
        assert set(kind.get("foreign_keys", {}).values()) <= set(kinds)
    assert kinds["payment"]["pii"] == {"card_number": "CREDIT_CARD"}


def test_planted_pii_covers_every_type_and_is_really_in_the_drop(drop: tuple[Path, DropSummary]) -> None:
    root, _ = drop
    planted = json.loads((root / "planted_pii.json").read_text())
    by_type: dict[str, list[str]] = {}
    for entry in planted["values"]:
        by_type.setdefault(entry["type"], []).append(entry["value"])
    assert set(by_type) == {"PERSON", "FIRST_NAME", "LAST_NAME", "EMAIL_ADDRESS", "PHONE_NUMBER", "ADDRESS",
                            "CREDIT_CARD", "IP_ADDRESS", "IBAN_CODE", "US_SSN", "USERNAME", "DATE_OF_BIRTH"}
    assert planted["count"] == len(planted["values"])
    ip_versions = {ipaddress.ip_address(ip).version for ip in by_type["IP_ADDRESS"]}
    assert ip_versions == {4, 6}
    assert all(_luhn_ok(re.sub(r"[ -]", "", card)) for card in by_type["CREDIT_CARD"])
    assert any(" " in card for card in by_type["CREDIT_CARD"]) and any("-" in card for card in by_type["CREDIT_CARD"])
    for iban in by_type["IBAN_CODE"]:
        compact = iban.replace(" ", "")
        assert int("".join(str(int(c, 36)) for c in compact[4:] + compact[:4])) % 97 == 1
    assert {phone[:3] for phone in by_type["PHONE_NUMBER"] if phone.startswith("+")} >= {"+1 ", "+44", "+49", "+33", "+91"}
    assert all(re.fullmatch(r"\d{3}-\d\d-\d{4}", ssn) for ssn in by_type["US_SSN"])

    lines = [line for name, data in _files(root).items() if not name.startswith("planted") and not name.endswith(".db")
             for line in data.decode("utf-8", errors="replace").splitlines()]
    db = _db(root)
    for table in ("customers", "orders", "payments"):
        lines.extend(" | ".join(map(str, row)) for row in db.execute(f"SELECT * FROM {table}"))
    index = _word_index(lines)
    missing = [entry["type"] for entry in planted["values"] if not _written_somewhere(entry["value"], index)]
    assert missing == []


def test_customers_write_like_people(drop: tuple[Path, DropSummary]) -> None:
    root, _ = drop
    first_messages = []
    for span in _spans(root):
        attributes = _attrs(span)
        if attributes["gen_ai.operation.name"] == "chat":
            messages = json.loads(attributes["gen_ai.input.messages"])
            if len(messages) == 2:
                first_messages.append(messages[1]["parts"][0]["content"])
    assert len(set(first_messages)) > 0.9 * len(first_messages)
    joined = "\n".join(first_messages)
    assert re.search(r"#W\d{7}", joined) and "days ago" in joined and "yesterday" in joined
    assert sum(1 for m in first_messages if m[0].islower()) > 0.1 * len(first_messages)


@pytest.mark.parametrize(("sessions", "days"), [(2, 1), (5, 4), (30, 1)])
def test_tiny_drops_still_hold_a_rollback_and_a_hotfix_with_consistent_versions(
    tmp_path: Path, sessions: int, days: int
) -> None:
    summary = generate_drop(tmp_path / "d", sessions=sessions, days=days, seed=sessions, start=START)
    assert summary.outcomes["rolled_back"] >= 1 and summary.outcomes["hotfixed"] >= 1
    deploys = {d["kind"]: d for d in _parse_jsonl(tmp_path / "d" / "deploys" / "deploys.jsonl")[0]}
    versions = {_attrs(s)["gen_ai.conversation.id"]: s["version"] for s in _spans(tmp_path / "d")}
    for deploy in deploys.values():
        assert all(versions[session_id] == deploy["from_version"] for session_id in deploy["session_ids"])
    assert set(versions.values()) <= {"2.14.3", "2.15.0", "2.16.0", "2.16.1"}
