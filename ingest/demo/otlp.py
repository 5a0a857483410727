"""A conversation laid out in time and written as the agent's OpenTelemetry SDK writes it:
OTLP/JSON spans with the GenAI semantic conventions (chat, execute_tool, invoke_agent)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from .conversation import ToolError, ToolStep, Turn
from .phrases import PHRASES
from .plan import Plan
from .values import dumps, unix_ns

SERVICE = "support-agent"
MODEL = "gpt-4o-2024-08-06"


def otlp_attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    attributes = []
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, bool):
            encoded: dict[str, Any] = {"boolValue": value}
        elif isinstance(value, int):
            encoded = {"intValue": str(value)}
        elif isinstance(value, float):
            encoded = {"doubleValue": value}
        else:
            encoded = {"stringValue": str(value)}
        attributes.append({"key": key, "value": encoded})
    return attributes


def chat_message(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


@dataclass
class Rendered:
    """A session as the agent's tracing saw it."""

    trace_id: str
    started_at: datetime
    ended_at: datetime
    spans: list[dict[str, Any]]
    messages: list[tuple[str, str, datetime]]
    errors: list[tuple[datetime, str, str, ToolError]]
    """(when, span id, tool name, error) of every failed tool call."""
    tools: list[tuple[datetime, str, int]]
    """(when, tool name, duration ms) of every tool call."""
    escalated_at: datetime | None


class _Tracer:
    """Lays a conversation out in time and writes its spans the way the agent's SDK does."""

    def __init__(self, rng: random.Random, session_id: str, customer_id: str) -> None:
        self.rng, self.session_id = rng, session_id
        self.trace_id = f"{rng.getrandbits(128) | 1:032x}"
        self.root_id = self.span_id()
        self.spans: list[dict[str, Any]] = []
        self.history = [chat_message("system", f"{PHRASES.system_prompt}\nAuthenticated customer: {customer_id}")]
        self.tokens_in = self.tokens_out = 0

    def span_id(self) -> str:
        return f"{self.rng.getrandbits(64) | 1:016x}"

    def span(self, name: str, start: datetime, end: datetime, attributes: dict[str, Any], *,
             span_id: str | None = None, parent: str | None = None, kind: int = 1,
             error: ToolError | None = None) -> str:
        span_id = span_id or self.span_id()
        span: dict[str, Any] = {
            "traceId": self.trace_id, "spanId": span_id, "parentSpanId": self.root_id if parent is None else parent,
            "name": name, "kind": kind, "startTimeUnixNano": str(unix_ns(start)), "endTimeUnixNano": str(unix_ns(end)),
            "attributes": otlp_attributes({"gen_ai.conversation.id": self.session_id, **attributes}),
            "status": {},
        }
        if error is not None:
            span["status"] = {"code": "STATUS_CODE_ERROR", "message": error.message}
            span["events"] = [{"timeUnixNano": str(unix_ns(end)), "name": "exception", "attributes": otlp_attributes(
                {"exception.type": error.exception_type, "exception.message": error.log_body})}]
        self.spans.append(span)
        return span_id

    def chat(self, at: datetime, output: str) -> datetime:
        end = at + timedelta(milliseconds=self.rng.randint(600, 4800))
        prompt_chars = sum(len(part["content"]) for message in self.history for part in message["parts"])
        tokens_in, tokens_out = 410 + prompt_chars // 4, 3 + len(output) // 4
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        self.span(f"chat {MODEL}", at, end, {
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": MODEL,
            "gen_ai.response.model": MODEL, "gen_ai.input.messages": dumps(self.history),
            "gen_ai.output.messages": dumps([chat_message("assistant", output)]),
            "gen_ai.usage.input_tokens": tokens_in, "gen_ai.usage.output_tokens": tokens_out,
        }, kind=3)
        self.history.append(chat_message("assistant", output))
        return end

    def tool(self, at: datetime, step: ToolStep) -> tuple[datetime, str, int]:
        rng = self.rng
        millis = 30000 + rng.randint(0, 40) if step.error and step.error.exception_type == "TimeoutError" else rng.randint(35, 950)
        end = at + timedelta(milliseconds=millis)
        result = None
        if step.error is None:
            result = dict(step.result or {})
            if step.effect is not None:
                result.update(step.effect(at))
        span_id = self.span(f"execute_tool {step.name}", at, end, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": step.name, "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": f"call_{rng.getrandbits(96):024x}",
            "gen_ai.tool.call.arguments": dumps(step.arguments),
            "gen_ai.tool.call.result": None if result is None else dumps(result),
        }, error=step.error)
        return end, span_id, millis


def render(rng: random.Random, plan: Plan, customer_id: str, turns: list[Turn]) -> Rendered:
    tracer = _Tracer(rng, plan.session_id, customer_id)
    at = plan.at
    messages: list[tuple[str, str, datetime]] = []
    errors: list[tuple[datetime, str, str, ToolError]] = []
    tools: list[tuple[datetime, str, int]] = []
    escalated_at = None
    for number, turn in enumerate(turns):
        if number:
            at += timedelta(seconds=rng.randint(15, 150), milliseconds=rng.randint(0, 999))
        messages.append(("user", turn.user, at))
        tracer.history.append(chat_message("user", turn.user))
        at += timedelta(milliseconds=rng.randint(120, 900))
        if turn.tools:
            at = tracer.chat(at, turn.interim or "One moment please.")
            for step in turn.tools:
                at += timedelta(milliseconds=rng.randint(5, 60))
                if step.name == "escalate_to_human":
                    escalated_at = at
                started = at
                at, span_id, millis = tracer.tool(at, step)
                tools.append((started, step.name, millis))
                if step.error is not None:
                    errors.append((at, span_id, step.name, step.error))
        at = tracer.chat(at + timedelta(milliseconds=rng.randint(5, 60)), turn.reply)
        reply_at = at
        at, _, millis = tracer.tool(at + timedelta(milliseconds=rng.randint(5, 40)), ToolStep(
            "send_reply", {"text": turn.reply}, {"delivered": True, "message_id": f"msg_{rng.getrandbits(48):012x}"}))
        tools.append((reply_at, "send_reply", millis))
        messages.append(("agent", turn.reply, reply_at))
    at += timedelta(milliseconds=rng.randint(3, 30))
    tracer.span(f"invoke_agent {SERVICE}", plan.at, at, {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": SERVICE, "gen_ai.provider.name": "openai",
        "gen_ai.request.model": MODEL, "gen_ai.usage.input_tokens": tracer.tokens_in,
        "gen_ai.usage.output_tokens": tracer.tokens_out,
    }, span_id=tracer.root_id, parent="")
    return Rendered(tracer.trace_id, plan.at, at, tracer.spans, messages, errors, tools, escalated_at)
