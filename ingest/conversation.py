"""Turns, tool calls and usage from one session's spans and GenAI events.

Spans are model calls (`chat`), tool executions (`execute_tool`) and agent runs, named by the
GenAI conventions' `gen_ai.operation.name`, OpenInference's span kind or OpenLLMetry's
`llm.request.type` / `traceloop.span.kind`. Their messages are read by `ingest.messages`.
A tool call is known from its span and from the messages that ask for it and answer it:
both are joined by call id (else by name and arguments) and counted once.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ingest.messages import Message, PartCall, arguments_of, maybe_json, message_of, messages_of_span
from ingest.models import ErrorSignal, RawRecord, ToolCall, Turn
from ingest.otlp import attributes, is_error_status, normalise_id
from ingest.timestamps import BadTimestamp, parse_unix_nanos

_CHAT_OPERATIONS = {"chat", "text_completion", "generate_content", "completion", "responses"}
_AGENT_OPERATIONS = {"invoke_agent", "create_agent"}


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
        """"chat", "execute_tool", "invoke_agent" or "" for any other span."""
        op = self.attrs.get("gen_ai.operation.name")
        if op in _CHAT_OPERATIONS:
            return "chat"
        if op == "execute_tool" or op in _AGENT_OPERATIONS:
            return "invoke_agent" if op in _AGENT_OPERATIONS else op
        kind = str(self.attrs.get("openinference.span.kind", "")).upper()
        if kind in ("LLM", "TOOL", "AGENT"):
            return {"LLM": "chat", "TOOL": "execute_tool", "AGENT": "invoke_agent"}[kind]
        if self.attrs.get("llm.request.type") in ("chat", "completion"):
            return "chat"
        traceloop = self.attrs.get("traceloop.span.kind")
        return {"tool": "execute_tool", "agent": "invoke_agent"}.get(str(traceloop), "")

    @property
    def duration_ms(self) -> float | None:
        return (self.end - self.start).total_seconds() * 1000 if self.end else None

    def error_message(self) -> str | None:
        """The exception event's type and message, else the status message's first line."""
        for event in self.events:
            if isinstance(event, dict) and event.get("name") == "exception":
                attrs = attributes(event.get("attributes"))
                parts = [str(attrs[k]) for k in ("exception.type", "exception.message") if attrs.get(k)]
                if parts:
                    return ": ".join(parts)
        message = self.status.get("message")
        if isinstance(message, str) and message.strip():
            return message.strip().splitlines()[0].split("Traceback (most recent call last)")[0].strip() or None
        return None


@dataclass
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    errors: list[ErrorSignal] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    span_errors: int = 0


@dataclass
class _Asked:
    """A tool call found in the messages, with the answer found for it."""

    call: PartCall
    at: datetime
    result: Any = None
    failed: bool = False
    answered: bool = False
    taken: bool = False


def log_events_by_span(events: list[RawRecord]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """GenAI log events (kind "genai_event") by (trace id, span id), in time order."""
    by_span: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for record in sorted(events, key=lambda r: (r.occurred_at or datetime.min, r.position, r.external_id)):
        log = record.payload["log"]
        by_span.setdefault((record.trace_id or "", str(log.get("spanId") or "")), []).append(log)
    return by_span


def span_messages(span: SpanView, log_events: dict[tuple[str, str], list[dict[str, Any]]]) -> tuple[list[Message], list[Message]]:
    return messages_of_span(span.attrs, span.events, log_events.get((span.record.trace_id or "", span.span_id), []))


def conversation_from_spans(spans: list[SpanView], events: list[RawRecord] = ()) -> Conversation:
    """Spans in time order -> turns (repeated history deduplicated), tool calls, usage and errors."""
    spans = sorted(spans, key=lambda s: (s.start, s.end or s.start, s.record.trace_id or "", s.span_id))
    log_events = log_events_by_span(list(events))
    result = Conversation()
    emitted: Counter[tuple[str, str]] = Counter()
    asked: dict[Any, _Asked] = {}
    tool_spans: list[SpanView] = []
    for span in spans:
        if span.operation == "chat":
            inputs, outputs = span_messages(span, log_events)
            _chat_turns(span, inputs, outputs, emitted, result)
            _asked_calls(span, inputs, outputs, asked)
        elif span.operation == "execute_tool":
            tool_spans.append(span)
        if is_error_status(span.status):
            result.span_errors += 1
            message = span.error_message()
            if message:
                result.errors.append(ErrorSignal(at=span.start, message=message, source="traces"))
    result.tool_calls = _joined_calls(tool_spans, list(asked.values()))
    _add_usage(spans, result)
    return result


def transcript(spans: list[SpanView], events: list[RawRecord] = ()) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the first model call's user and agent messages, every user and agent message of the
    last one with its answer): how a run that continues another one is recognised."""
    chats = sorted((s for s in spans if s.operation == "chat"), key=lambda s: (s.start, s.span_id))
    if not chats:
        return [], []
    log_events = log_events_by_span(list(events))

    def said(messages: list[Message]) -> list[tuple[str, str]]:
        return [(m.role, " ".join(m.text.split())) for m in messages if m.role in ("user", "agent") and m.text.strip()]

    first_inputs, _ = span_messages(chats[0], log_events)
    last_inputs, last_outputs = span_messages(chats[-1], log_events)
    return said(first_inputs), said(last_inputs) + said(last_outputs)


def _chat_turns(span: SpanView, inputs: list[Message], outputs: list[Message], emitted: Counter[tuple[str, str]],
                result: Conversation) -> None:
    """New messages only: a message counts as new once this span holds it more often than already emitted."""
    seen_here: Counter[tuple[str, str]] = Counter()
    for messages, at in ((inputs, span.start), (outputs, span.end or span.start)):
        for message in messages:
            if message.role == "tool" or not message.text.strip():
                continue
            key = (message.role, message.text)
            seen_here[key] += 1
            if seen_here[key] > emitted[key]:
                emitted[key] += 1
                result.turns.append(Turn(role=message.role, text=message.text, at=at, source="traces"))


def _asked_calls(span: SpanView, inputs: list[Message], outputs: list[Message], asked: dict[Any, _Asked]) -> None:
    """Tool calls the messages ask for (once each, however often the history repeats them) and
    their answers: by call id, else (no id, or an id no call here has: OpenLLMetry writes a
    Responses call's item id on the call and its call id on the answer) the earliest call above
    the answer still unanswered."""
    seen_here: Counter[Any] = Counter()
    in_order: list[_Asked] = []
    for messages, at in ((inputs, span.start), (outputs, span.end or span.start)):
        for message in messages:
            for call in message.calls:
                if call.call_id:
                    key: Any = ("id", call.call_id)
                else:  # the n-th such call of this span is the n-th of the conversation
                    content = (call.name, json.dumps(call.arguments, sort_keys=True, default=str))
                    seen_here[content] += 1
                    key = ("n", *content, seen_here[content])
                in_order.append(asked.setdefault(key, _Asked(call=call, at=at)))
            if message.role != "tool":
                continue
            entry = asked.get(("id", message.answers)) if message.answers else None
            if entry is None or entry not in in_order:
                entry = next((e for e in in_order if not e.answered), None)
            if entry is not None and not entry.answered:
                entry.result, entry.failed, entry.answered = message.result, message.failed, True


def _joined_calls(tool_spans: list[SpanView], asked: list[_Asked]) -> list[ToolCall]:
    """Each tool span joined to the call the messages ask for (by call id, else by name and
    arguments, else by name); calls asked for that no span ran are kept as they are."""
    calls: list[ToolCall] = []
    for span in tool_spans:
        call = _tool_call(span)
        match = _match(call, asked)
        if match is not None:
            match.taken = True
            call = _merged(call, match)
        calls.append(call)
    for entry in asked:
        if not entry.taken:
            arguments = entry.call.arguments
            calls.append(ToolCall(
                name=entry.call.name, call_id=entry.call.call_id,
                arguments=arguments if isinstance(arguments, dict) else _unparsed(arguments),
                result=entry.result, status="error" if entry.failed else "ok", at=entry.at,
            ))
    return sorted(calls, key=lambda c: (c.at or datetime.min, c.call_id or "", c.name))


def _match(call: ToolCall, asked: list[_Asked]) -> _Asked | None:
    free = [entry for entry in asked if not entry.taken]
    if call.call_id:
        by_id = [entry for entry in free if entry.call.call_id == call.call_id]
        if by_id:
            return by_id[0]
    same_name = [entry for entry in free if entry.call.name == call.name and (entry.at <= (call.at or entry.at))]
    same_arguments = [entry for entry in same_name if entry.call.arguments == call.arguments]
    return (same_arguments or same_name or [None])[-1]


def _merged(call: ToolCall, entry: _Asked) -> ToolCall:
    asked_arguments = entry.call.arguments
    arguments = call.arguments
    if (not arguments or "_unparsed" in arguments) and isinstance(asked_arguments, dict):
        arguments = asked_arguments
    failed = call.status == "error" or entry.failed
    return call.model_copy(update={
        "call_id": call.call_id or entry.call.call_id,
        "arguments": arguments,
        "result": call.result if call.result is not None else entry.result,
        "status": "error" if failed else "ok",
    })


def _tool_call(span: SpanView) -> ToolCall:
    attrs = span.attrs
    name = (attrs.get("gen_ai.tool.name") or attrs.get("tool.name") or attrs.get("traceloop.entity.name")
            or span.record.payload["span"].get("name"))
    raw_arguments = _first(attrs, "gen_ai.tool.call.arguments", "tool_call.function.arguments", "input.value",
                           "traceloop.entity.input")
    arguments = arguments_of(raw_arguments)
    if isinstance(arguments, dict) and set(arguments) == {"inputs"} and isinstance(arguments["inputs"], dict):
        arguments = arguments["inputs"]  # Traceloop's entity input wraps the call's arguments
    result, answered_id, result_failed = _unwrapped_result(
        _first(attrs, "gen_ai.tool.call.result", "output.value", "traceloop.entity.output"))
    failed = is_error_status(span.status) or result_failed
    call_id = _first(attrs, "gen_ai.tool.call.id", "tool_call.id") or answered_id
    return ToolCall(
        name=str(name),
        call_id=str(call_id) if call_id is not None else None,
        arguments=arguments if isinstance(arguments, dict) else _unparsed(raw_arguments),
        result=result,
        status="error" if failed else "ok",
        error=(span.error_message() or "tool reported an error") if failed else None,
        at=span.start,
        duration_ms=span.duration_ms,
    )


def _unparsed(raw: Any) -> dict[str, Any]:
    return {} if raw is None else {"_unparsed": raw}


def _unwrapped_result(raw: Any) -> tuple[Any, str | None, bool]:
    """(result, the call id it answers, failed) from a tool's output, a LangChain ToolMessage unwrapped."""
    value = maybe_json(raw)
    if isinstance(value, dict) and ("lc" in value or ("type" in value and "data" in value)):
        message = message_of(value, "tool")
        if message is not None and message.role == "tool":
            return message.result, message.answers, message.failed
    if isinstance(value, dict) and set(value) == {"output"}:  # Traceloop's entity output
        return maybe_json(value["output"]), None, False
    return value, None, False


_INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt",
                 "llm.usage.prompt_tokens")
_OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion",
                  "llm.usage.completion_tokens")


def _add_usage(spans: list[SpanView], result: Conversation) -> None:
    """Tokens from model-call spans (agent spans only when they are all there is, to avoid double counting);
    latency as the agent's own time: the time model calls and tool calls cover (not the customer's idle
    time between turns); a trace with neither gives the sum of its root spans."""
    def tokens(selected: list[SpanView]) -> tuple[int, int]:
        inputs = sum(_int(_first(s.attrs, *_INPUT_TOKENS)) for s in selected)
        outputs = sum(_int(_first(s.attrs, *_OUTPUT_TOKENS)) for s in selected)
        return inputs, outputs

    inner = tokens([s for s in spans if s.operation != "invoke_agent"])
    result.input_tokens, result.output_tokens = inner if any(inner) else tokens(spans)
    own = [s for s in spans if s.operation in ("chat", "execute_tool") and s.end is not None]
    if own:
        result.latency_ms = _covered_ms([(s.start, s.end) for s in own])
        return
    known = {(s.record.trace_id, s.span_id) for s in spans}
    result.latency_ms = sum(
        s.duration_ms or 0.0 for s in spans if s.parent_id is None or (s.record.trace_id, s.parent_id) not in known
    )


def _covered_ms(intervals: list[tuple[datetime, datetime]]) -> float:
    """Milliseconds covered by at least one interval: overlapping calls (tools run in parallel) count once."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is not None and start < reach:
            start = reach
        if end > start:
            total += (end - start).total_seconds() * 1000
            reach = end if reach is None else max(reach, end)
    return total


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
