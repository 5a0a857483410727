"""A model call's messages, from every place instrumentations put them.

Read, in this order, the first that holds any (per direction, input and output):
1. `gen_ai.input.messages` / `gen_ai.output.messages` (GenAI semantic conventions >= 1.37: JSON
   with `text`, `tool_call` and `tool_call_response` parts);
2. OpenInference's flattened `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`;
3. the older `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` (OpenLLMetry) and `llm.prompts.N.*`;
4. span events `gen_ai.content.prompt` / `gen_ai.content.completion`;
5. log-record events of the span (`gen_ai.{system,user,assistant,tool}.message`, `gen_ai.choice`);
6. `input.value` / `output.value` (OpenInference's raw payloads: a message list, LangChain's
   serialized messages, or a bare string).
A message's content may itself be LangChain's serialization or (OpenAI Agents' v2
instrumentation) the Python repr of the model's message, text part or tool call; both are
unwrapped.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ingest.otlp import any_value, attributes

ROLES = {
    "user": "user", "human": "user", "humanmessage": "user",
    "assistant": "agent", "ai": "agent", "model": "agent", "aimessage": "agent", "aimessagechunk": "agent",
    "system": "system", "developer": "system", "systemmessage": "system",
    "tool": "tool", "function": "tool", "ipython": "tool", "toolmessage": "tool", "functionmessage": "tool",
}
"""Role names of OpenAI, the GenAI conventions and LangChain (types and class names) -> ours."""


@dataclass
class PartCall:
    """A tool call as a message names it."""

    name: str
    call_id: str | None
    arguments: Any


@dataclass
class Message:
    role: str
    text: str = ""
    calls: list[PartCall] = field(default_factory=list)
    answers: str | None = None
    """For a tool message: the call id it answers."""
    result: Any = None
    failed: bool = False


def messages_of_span(attrs: dict[str, Any], events: list[Any], log_events: list[dict[str, Any]]) -> tuple[list[Message], list[Message]]:
    """(input messages, output messages) of one model-call span."""
    return _direction(attrs, events, log_events, "input"), _direction(attrs, events, log_events, "output")


def _direction(attrs: dict[str, Any], events: list[Any], log_events: list[dict[str, Any]], side: str) -> list[Message]:
    semconv = "gen_ai.input.messages" if side == "input" else "gen_ai.output.messages"
    flat = ("llm.input_messages.",) if side == "input" else ("llm.output_messages.",)
    legacy = ("gen_ai.prompt.", "llm.prompts.") if side == "input" else ("gen_ai.completion.", "llm.completions.")
    event_name, event_attr = (("gen_ai.content.prompt", "gen_ai.prompt") if side == "input"
                              else ("gen_ai.content.completion", "gen_ai.completion"))
    raw = "input.value" if side == "input" else "output.value"
    default_role = "user" if side == "input" else "assistant"
    candidates = (
        lambda: message_list(maybe_json(attrs.get(semconv)), default_role),
        lambda: _flattened(attrs, flat, "message."),
        lambda: _flattened(attrs, legacy, ""),
        lambda: _span_event_messages(events, event_name, event_attr, default_role),
        lambda: _log_event_messages(log_events, side),
        lambda: _raw_value(attrs.get(raw), default_role),
    )
    for candidate in candidates:
        found = candidate()
        if found:
            return found
    return []


def maybe_json(value: Any) -> Any:
    """A JSON string decoded; anything else (or unparseable text) unchanged."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text.startswith(("{", "[", '"')):
        return value
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return value


_REPR_START = re.compile(r"^(?:[{\[]|[A-Z][A-Za-z0-9_]*\()")


def python_value(text: Any) -> Any:
    """A dict or list written as its Python repr, else None: `str(dict)`, or a pydantic model's
    repr (`ResponseFunctionToolCall(name='x', arguments='{}')` -> {"name": "x", "arguments": "{}"}).
    The text is parsed, never run: only literals and keyword calls of literals are read."""
    if not isinstance(text, str) or not _REPR_START.match(text.strip()) or len(text) > 1_000_000:
        return None
    try:
        value = _literal(ast.parse(text.strip(), mode="eval").body)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    return value if isinstance(value, (dict, list)) else None


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args:
        return {keyword.arg: _literal(keyword.value) for keyword in node.keywords if keyword.arg}
    if isinstance(node, ast.Dict):
        return {_literal(key): _literal(value) for key, value in zip(node.keys, node.values) if key is not None}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(item) for item in node.elts]
    return ast.literal_eval(node)


def message_list(value: Any, default_role: str) -> list[Message]:
    """Messages from a decoded list (or a LangChain `{"messages": [...]}` / generations payload)."""
    if isinstance(value, dict):
        if isinstance(value.get("messages"), list):
            value = value["messages"]
        elif isinstance(value.get("generations"), list):
            value = [g.get("message") for batch in value["generations"] if isinstance(batch, list)
                     for g in batch if isinstance(g, dict)]
        elif "role" in value or "lc" in value or ("type" in value and "data" in value):
            value = [value]
        else:
            return []
    if not isinstance(value, list):
        return []
    if len(value) == 1 and isinstance(value[0], list):  # LangChain batches: [[message, ...]]
        value = value[0]
    found = [message_of(item, default_role) for item in value]
    return [m for m in found if m is not None]


def message_of(item: Any, default_role: str) -> Message | None:
    """One message in any of the shapes above, or None."""
    if not isinstance(item, dict):
        return None
    item = _langchain_unwrapped(item)
    role = ROLES.get(str(item.get("role") or item.get("type") or default_role).lower())
    if role is None:
        return None
    message = Message(role=role)
    texts: list[str] = []
    parts = item.get("parts")
    if isinstance(parts, list):
        for part in parts:
            _add_part(message, part, texts)
    _add_content(message, item.get("content"), texts)
    for call in item.get("tool_calls") or []:
        part = _call_of(call)
        if part is not None:
            message.calls.append(part)
    answers = item.get("tool_call_id") or (item.get("id") if role == "tool" else None)
    if answers is not None:
        message.answers = str(answers)
    if role == "tool":
        message.result = maybe_json("\n".join(texts)) if texts else message.result
        message.failed = message.failed or item.get("status") == "error"
    message.text = "\n".join(t for t in texts if t.strip())
    return message


def _langchain_unwrapped(item: dict[str, Any]) -> dict[str, Any]:
    """LangChain's `dumpd` form ({"lc": 1, "id": [..., "AIMessage"], "kwargs": {...}}) or its
    `message_to_dict` form ({"type": "ai", "data": {...}}) as a plain message dict."""
    if item.get("lc") == 1 and isinstance(item.get("kwargs"), dict) and isinstance(item.get("id"), list):
        kind = str(item["id"][-1]).lower() if item["id"] else ""
        return {**item["kwargs"], "type": item["kwargs"].get("type") or kind.removesuffix("chunk")}
    if isinstance(item.get("data"), dict) and isinstance(item.get("type"), str) and "role" not in item:
        return {**item["data"], "type": item["type"]}
    return item


def _add_content(message: Message, content: Any, texts: list[str]) -> None:
    if isinstance(content, str):
        value = python_value(content) if message.role == "agent" else None
        if not (isinstance(value, dict) and _add_repr(message, value, texts)):
            texts.append(content)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            else:
                _add_part(message, part, texts)


def _add_part(message: Message, part: Any, texts: list[str]) -> None:
    if not isinstance(part, dict):
        return
    kind = part.get("type")
    if kind in ("text", "output_text", "input_text", None):
        text = part.get("content", part.get("text"))
        if isinstance(text, str):
            _add_content(message, text, texts)
    elif kind in ("tool_call", "function_call"):
        call = _call_of(part)
        if call is not None:
            message.calls.append(call)
    elif kind in ("tool_call_response", "function_call_output"):
        if part.get("id") is not None or part.get("call_id") is not None:
            message.answers = str(part.get("id") or part.get("call_id"))
        result = next((part[key] for key in ("response", "result", "output") if key in part), None)
        message.result = maybe_json(result)
        if message.role != "tool":
            message.role = "tool"


def _add_repr(message: Message, value: dict[str, Any], texts: list[str]) -> bool:
    """A model output written as its Python repr (OpenAI Agents' v2 instrumentation does): a
    chat message, a Responses output message, a text part or a tool call. False: none of these."""
    kind = value.get("type")
    if kind in ("function_call", "tool_call") or {"name", "arguments"} <= set(value):
        call = _call_of(value)
        if call is not None:
            message.calls.append(call)
        return call is not None
    if kind in ("output_text", "text") and isinstance(value.get("text"), str):
        texts.append(value["text"])
        return True
    if "tool_calls" in value or "role" in value or kind == "message":
        inner = message_of({**value, "role": value.get("role") or "assistant"}, "assistant")
        if inner is not None:
            if inner.text:
                texts.append(inner.text)
            message.calls.extend(inner.calls)
        return inner is not None
    return False


def _call_of(call: Any) -> PartCall | None:
    if not isinstance(call, dict):
        return None
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    name = call.get("name") or function.get("name")
    if not isinstance(name, str) or not name:
        return None
    arguments = next((source[key] for source in (call, function) for key in ("arguments", "args", "input")
                      if key in source), None)
    call_id = call.get("call_id") or call.get("tool_call_id") or call.get("id")  # a Responses item's id is not its call's
    return PartCall(name=name, call_id=str(call_id) if call_id else None, arguments=arguments_of(arguments))


def arguments_of(value: Any) -> Any:
    """Tool arguments as a dict when they are one (JSON text, a Python literal), else as given."""
    decoded = maybe_json(value)
    if isinstance(decoded, str):
        decoded = python_value(decoded) or decoded
    return decoded


_INDEXED = re.compile(r"^(\d+)\.(.+)$")


def _flattened(attrs: dict[str, Any], prefixes: tuple[str, ...], inner: str) -> list[Message]:
    """Messages from attributes like `llm.input_messages.0.message.role` or `gen_ai.prompt.0.content`."""
    for prefix in prefixes:
        by_index: dict[int, dict[str, Any]] = {}
        for key, value in attrs.items():
            if not key.startswith(prefix):
                continue
            match = _INDEXED.match(key[len(prefix):])
            if match is None or not match.group(2).startswith(inner):
                continue
            _set_path(by_index.setdefault(int(match.group(1)), {}), match.group(2)[len(inner):], value)
        if by_index:
            found = [_flat_message(by_index[i]) for i in sorted(by_index)]
            return [m for m in found if m is not None]
    return []


def _set_path(target: dict[str, Any], path: str, value: Any) -> None:
    """`tool_calls.0.tool_call.function.name` -> nested dicts (numbered keys as dict keys)."""
    parts = path.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
        if not isinstance(target, dict):
            return
    target[parts[-1]] = value


def _flat_message(flat: dict[str, Any]) -> Message | None:
    item: dict[str, Any] = {key: flat[key] for key in ("role", "content", "tool_call_id", "name") if key in flat}
    contents = flat.get("contents")
    if isinstance(contents, dict) and "content" not in item:
        item["content"] = [{"type": "text", "text": (c.get("message_content") or c).get("text")}
                           for _, c in sorted(contents.items(), key=lambda kv: _number(kv[0])) if isinstance(c, dict)]
    calls = flat.get("tool_calls")
    if isinstance(calls, dict):
        item["tool_calls"] = [call.get("tool_call", call) for _, call in sorted(calls.items(), key=lambda kv: _number(kv[0]))
                              if isinstance(call, dict)]
    if "role" not in item:
        item["role"] = "assistant" if item.get("tool_calls") else "user"
    return message_of(item, "user")


def _number(text: str) -> int:
    return int(text) if text.isdigit() else 0


def _span_event_messages(events: list[Any], name: str, attr: str, default_role: str) -> list[Message]:
    found: list[Message] = []
    for event in events:
        if isinstance(event, dict) and event.get("name") == name:
            found += message_list(maybe_json(attributes(event.get("attributes")).get(attr)), default_role)
    return found


_EVENT_ROLES = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}


def _log_event_messages(log_events: list[dict[str, Any]], side: str) -> list[Message]:
    found: list[Message] = []
    for log in log_events:
        name = log_event_name(log)
        body = any_value(log.get("body"))
        if isinstance(body, str):
            body = maybe_json(body)
        body = body if isinstance(body, dict) else {}
        if side == "input" and name in _EVENT_ROLES:
            message = message_of({"role": body.get("role") or _EVENT_ROLES[name], **body}, _EVENT_ROLES[name])
        elif side == "output" and name == "gen_ai.choice":
            inner = body.get("message") if isinstance(body.get("message"), dict) else body
            message = message_of({"role": "assistant", **inner}, "assistant")
        else:
            continue
        if message is not None:
            found.append(message)
    return found


def log_event_name(log: dict[str, Any]) -> str | None:
    name = log.get("eventName") or attributes(log.get("attributes")).get("event.name")
    return name if isinstance(name, str) else None


def _raw_value(value: Any, default_role: str) -> list[Message]:
    decoded = maybe_json(value)
    if isinstance(decoded, str):
        return [Message(role=ROLES[default_role], text=decoded)] if decoded.strip() else []
    return message_list(decoded, default_role)
