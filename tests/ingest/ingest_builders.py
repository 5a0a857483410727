"""Realistic drop content for the ingest tests: OTLP/JSON lines, Zendesk pages, events."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

TRACE = "5b8efff798038103d269b633813fc60c"
SESSION = "sess-7f3a"


def nanos(text: str) -> str:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)
    return str(int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000)


def attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def span(span_id: str, name: str, start: str, end: str, attrs: dict[str, Any], *, parent: str = "",
         error: str | None = None, trace_id: str = TRACE) -> dict[str, Any]:
    result: dict[str, Any] = {
        "traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "name": name, "kind": 1,
        "startTimeUnixNano": nanos(start), "endTimeUnixNano": nanos(end),
        "attributes": [attr(k, v) for k, v in attrs.items()], "status": {},
    }
    if error:
        result["status"] = {"code": "STATUS_CODE_ERROR", "message": error}
        result["events"] = [{"name": "exception", "timeUnixNano": nanos(end), "attributes": [
            attr("exception.type", "RefundError"), attr("exception.message", error)]}]
    return result


def spans_line(*spans: dict[str, Any]) -> str:
    return json.dumps({"resourceSpans": [{
        "resource": {"attributes": [attr("service.name", "support-agent"), attr("service.version", "2.14.0")]},
        "scopeSpans": [{"scope": {"name": "agent.tracing", "version": "1.0"}, "spans": list(spans)}],
    }]})


def messages(*pairs: tuple[str, str]) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]} for role, text in pairs])


def conversation_spans() -> list[dict[str, Any]]:
    """One refund conversation: agent span, two model calls and two tool calls (one failing)."""
    user = ("user", "Hi, I'm Maria Lopez. Order #W2611340 arrived broken, I want a refund.")
    reply1 = ("assistant", "Let me look up that order.")
    reply2 = ("assistant", "I could not issue the refund, sorry.")
    base = {"gen_ai.conversation.id": SESSION}
    return [
        span("a000000000000001", "invoke_agent support", "2026-11-20T10:15:00Z", "2026-11-20T10:15:20Z",
             {**base, "gen_ai.operation.name": "invoke_agent"}),
        span("a000000000000002", "chat gpt-4o", "2026-11-20T10:15:01Z", "2026-11-20T10:15:03Z",
             {**base, "gen_ai.operation.name": "chat", "gen_ai.input.messages": messages(("system", "You are a support agent."), user),
              "gen_ai.output.messages": messages(reply1), "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 15},
             parent="a000000000000001"),
        span("a000000000000003", "execute_tool get_order_details", "2026-11-20T10:15:04Z", "2026-11-20T10:15:05Z",
             {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_order_details", "gen_ai.tool.call.id": "call_1",
              "gen_ai.tool.call.arguments": json.dumps({"order_id": "#W2611340"}),
              "gen_ai.tool.call.result": json.dumps({"order_id": "#W2611340", "user_id": "maria_lopez_4521", "status": "delivered"})},
             parent="a000000000000001"),
        span("a000000000000004", "execute_tool refund_order", "2026-11-20T10:15:06Z", "2026-11-20T10:15:07Z",
             {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "refund_order", "gen_ai.tool.call.id": "call_2",
              "gen_ai.tool.call.arguments": "{not json"}, parent="a000000000000001", error="amount exceeds order total"),
        span("a000000000000005", "chat gpt-4o", "2026-11-20T10:15:08Z", "2026-11-20T10:15:10Z",
             {**base, "gen_ai.operation.name": "chat",
              "gen_ai.input.messages": messages(("system", "You are a support agent."), user, reply1),
              "gen_ai.output.messages": messages(reply2), "gen_ai.usage.input_tokens": 300, "gen_ai.usage.output_tokens": 12},
             parent="a000000000000001"),
    ]


def log_line(records: list[dict[str, Any]]) -> str:
    return json.dumps({"resourceLogs": [{"resource": {"attributes": [attr("service.name", "refund-service")]},
                                         "scopeLogs": [{"scope": {"name": "app"}, "logRecords": records}]}]})


def log_record(message: str, severity: int, at: str, *, trace_id: str = "", attrs: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"timeUnixNano": nanos(at), "severityNumber": severity,
            "severityText": {9: "INFO", 13: "WARN", 17: "ERROR"}.get(severity, "ERROR"),
            "body": {"stringValue": message}, "attributes": [attr(k, v) for k, v in (attrs or {}).items()],
            "traceId": trace_id, "spanId": ""}


def ticket_page(tickets: list[dict[str, Any]], users: list[dict[str, Any]]) -> str:
    return json.dumps({"tickets": tickets, "users": users, "end_time": 1795256400, "next_page": None,
                       "count": len(tickets), "end_of_stream": True})


def ticket(ticket_id: int, *, external_id: str | None, requester_id: int, custom: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"id": ticket_id, "external_id": external_id, "subject": "Refund refused for broken order",
            "description": "My order #W2611340 arrived broken and the bot refused my refund.",
            "status": "open", "priority": "high", "tags": ["refund", "bot_failure"], "requester_id": requester_id,
            "assignee_id": 9001, "created_at": "2026-11-20T10:40:00Z", "updated_at": "2026-11-20T11:05:00Z",
            "custom_fields": custom or [], "via": {"channel": "web"}}


def user(user_id: int, name: str, email: str, phone: str | None, role: str = "end-user") -> dict[str, Any]:
    return {"id": user_id, "name": name, "email": email, "phone": phone, "role": role}


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path
