"""Turns, tool calls and usage from one session's spans (GenAI semconv, OpenInference mapped)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ingest.models import ErrorSignal, RawRecord, ToolCall, Turn
from ingest.otlp import attributes, is_error_status, normalise_id
from ingest.timestamps import BadTimestamp, parse_unix_nanos

_ROLE = {"user": "user", "human": "user", "assistant": "agent", "model": "agent", "ai": "agent", "system": "system"}


@dataclass
class SpanView:
    """The parts of a span record that assembly needs, decoded."""

    record: RawRecord
    span_id: str
    parent_id: str | None
    start: datetime
    end: datetime | None
    attrs: dict[str, Any]
    status: dict[str, Any]
    events: list[Any]

    @classmethod
    def of(cls, record: RawRecord) -> SpanView:
        span = record.payload["span"]
        try:
            end = parse_unix_nanos(span.get("endTimeUnixNano"))
        except BadTimestamp:
            end = None
        return cls(
            record=record,
            span_id=normalise_id(span.get("spanId")) or "",
            parent_id=normalise_id(span.get("parentSpanId")),
            start=record.occurred_at or parse_unix_nanos(span.get("startTimeUnixNano")),
            end=end,
            attrs=attributes(span.get("attributes")),
            status=span.get("status") if isinstance(span.get("status"), dict) else {},
            events=span.get("events") if isinstance(span.get("events"), list) else [],
        )

    @property
    def operation(self) -> str:
        op = self.attrs.get("gen_ai.operation.name")
        if isinstance(op, str):
            return op
        kind = str(self.attrs.get("openinference.span.kind", "")).upper()
        return {"LLM": "chat", "TOOL": "execute_tool", "AGENT": "invoke_agent"}.get(kind, "")

    @property
    def duration_ms(self) -> float | None:
        return (self.end - self.start).total_seconds() * 1000 if self.end else None

    def error_message(self) -> str | None:
        for event in self.events:
            if isinstance(event, dict) and event.get("name") == "exception":
                attrs = attributes(event.get("attributes"))
                parts = [str(attrs[k]) for k in ("exception.type", "exception.message") if attrs.get(k)]
                if parts:
                    return ": ".join(parts)
        message = self.status.get("message")
        return message if isinstance(message, str) and message else None


@dataclass
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    errors: list[ErrorSignal] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    span_errors: int = 0


def conversation_from_spans(spans: list[SpanView]) -> Conversation:
    """Spans in time order -> turns (repeated history deduplicated), tool calls, usage and errors."""
    spans = sorted(spans, key=lambda s: (s.start, s.end or s.start, s.record.trace_id or "", s.span_id))
    result = Conversation()
    emitted: Counter[tuple[str, str]] = Counter()
    for span in spans:
        if span.operation == "chat":
            _chat_turns(span, emitted, result)
        elif span.operation == "execute_tool":
            result.tool_calls.append(_tool_call(span))
        if is_error_status(span.status):
            result.span_errors += 1
            message = span.error_message()
            if message:
                result.errors.append(ErrorSignal(at=span.start, message=message, source="traces"))
    _add_usage(spans, result)
    return result


def _chat_turns(span: SpanView, emitted: Counter[tuple[str, str]], result: Conversation) -> None:
    """New messages only: a message counts as new once this span holds it more often than already emitted."""
    seen_here: Counter[tuple[str, str]] = Counter()
    inputs = _messages(span.attrs.get("gen_ai.input.messages"), span.attrs.get("input.value"), "user")
    outputs = _messages(span.attrs.get("gen_ai.output.messages"), span.attrs.get("output.value"), "assistant")
    for messages, at in ((inputs, span.start), (outputs, span.end or span.start)):
        for role, text in messages:
            key = (role, text)
            seen_here[key] += 1
            if seen_here[key] > emitted[key]:
                emitted[key] += 1
                result.turns.append(Turn(role=role, text=text, at=at, source="traces"))


def _messages(semconv: Any, openinference: Any, plain_role: str) -> list[tuple[str, str]]:
    value = _maybe_json(semconv if semconv is not None else openinference)
    if isinstance(value, str):
        return [(_ROLE[plain_role], value)] if value.strip() else []
    if not isinstance(value, list):
        return []
    messages = []
    for message in value:
        if not isinstance(message, dict):
            continue
        role = _ROLE.get(str(message.get("role", "")).lower())
        text = _message_text(message)
        if role and text.strip():
            messages.append((role, text))
    return messages


def _message_text(message: dict[str, Any]) -> str:
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [p["content"] for p in parts if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("content"), str)]
        return "\n".join(texts)
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _tool_call(span: SpanView) -> ToolCall:
    attrs = span.attrs
    name = attrs.get("gen_ai.tool.name") or attrs.get("tool.name") or span.record.payload["span"].get("name")
    raw_arguments = _first(attrs, "gen_ai.tool.call.arguments", "tool_call.function.arguments", "input.value")
    arguments = _maybe_json(raw_arguments)
    if not isinstance(arguments, dict):
        arguments = {} if raw_arguments is None else {"_unparsed": raw_arguments}
    failed = is_error_status(span.status)
    call_id = _first(attrs, "gen_ai.tool.call.id", "tool_call.id")
    return ToolCall(
        name=str(name),
        call_id=str(call_id) if call_id is not None else None,
        arguments=arguments,
        result=_maybe_json(_first(attrs, "gen_ai.tool.call.result", "output.value")),
        status="error" if failed else "ok",
        error=span.error_message() if failed else None,
        at=span.start,
        duration_ms=span.duration_ms,
    )


def _add_usage(spans: list[SpanView], result: Conversation) -> None:
    """Tokens from model-call spans (agent spans only when they are all there is, to avoid double counting);
    latency as the sum of each trace's root spans."""
    def tokens(selected: list[SpanView]) -> tuple[int, int]:
        inputs = sum(_int(_first(s.attrs, "gen_ai.usage.input_tokens", "llm.token_count.prompt")) for s in selected)
        outputs = sum(_int(_first(s.attrs, "gen_ai.usage.output_tokens", "llm.token_count.completion")) for s in selected)
        return inputs, outputs

    inner = tokens([s for s in spans if s.operation != "invoke_agent"])
    result.input_tokens, result.output_tokens = inner if any(inner) else tokens(spans)
    known = {(s.record.trace_id, s.span_id) for s in spans}
    result.latency_ms = sum(
        s.duration_ms or 0.0 for s in spans if s.parent_id is None or (s.record.trace_id, s.parent_id) not in known
    )


def _first(attrs: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if attrs.get(key) is not None:
            return attrs[key]
    return None


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


def _maybe_json(value: Any) -> Any:
    """A JSON string decoded; anything else (or unparseable text) unchanged."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value
