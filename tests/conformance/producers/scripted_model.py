"""A scripted stand-in for an OpenAI-compatible model endpoint (standard library only).

It speaks the chat-completions and responses APIs, non-streaming. The script of every
conversation: at each user turn the model first calls a tool (turn 1 `get_order_details`,
turn 2 `refund_order`, each with the order id), then, once the tool's result is in the
input, answers in words. Usage numbers are fixed so the tests can check the token counts.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ORDER_ID = "#W2611340"
TOOLS_BY_TURN = ("get_order_details", "refund_order")
ANSWERS = (
    "Your order #W2611340 was delivered on November 18.",
    "I could not refund order #W2611340: the refund service refused it.",
)
USAGE = {"tool_call": (100, 20), "answer": (150, 30)}
"""(input tokens, output tokens) of each kind of reply."""


def _user_turns(items: list[Any]) -> int:
    return sum(1 for item in items if isinstance(item, dict) and item.get("role") == "user")


def _last_is_tool_result(items: list[Any]) -> bool:
    last = items[-1] if items else {}
    return isinstance(last, dict) and (last.get("role") == "tool" or last.get("type") == "function_call_output")


def _next_step(items: list[Any]) -> tuple[str, str]:
    """("tool_call", tool name) or ("answer", text) for the input so far."""
    turn = max(1, min(_user_turns(items), len(TOOLS_BY_TURN)))
    if _last_is_tool_result(items):
        return "answer", ANSWERS[turn - 1]
    return "tool_call", TOOLS_BY_TURN[turn - 1]


class _Handler(BaseHTTPRequestHandler):
    server_version = "scripted-model/1"
    calls = 0
    lock = threading.Lock()

    def log_message(self, *args: Any) -> None:  # quiet
        return

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        with _Handler.lock:
            _Handler.calls += 1
            number = _Handler.calls
        if self.path.rstrip("/").endswith("/chat/completions"):
            body = _chat_completion(request, number)
        elif self.path.rstrip("/").endswith("/responses"):
            body = _response(request, number)
        else:
            self.send_error(404)
            return
        send_json(self, body)


def send_json(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _chat_completion(request: dict[str, Any], number: int) -> dict[str, Any]:
    kind, value = _next_step(request.get("messages") or [])
    prompt, completion = USAGE[kind]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if kind == "tool_call":
        message["tool_calls"] = [{"id": f"call_{number:04d}", "type": "function",
                                  "function": {"name": value, "arguments": json.dumps({"order_id": ORDER_ID})}}]
        finish = "tool_calls"
    else:
        message["content"] = value
        finish = "stop"
    return {
        "id": f"chatcmpl-{number:04d}", "object": "chat.completion", "created": 1795255200 + number,
        "model": request.get("model") or "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def _response(request: dict[str, Any], number: int) -> dict[str, Any]:
    items = request.get("input")
    items = [{"role": "user", "content": items}] if isinstance(items, str) else list(items or [])
    kind, value = _next_step(items)
    prompt, completion = USAGE[kind]
    if kind == "tool_call":
        output = [{"type": "function_call", "id": f"fc_{number:04d}", "call_id": f"call_{number:04d}", "name": value,
                   "arguments": json.dumps({"order_id": ORDER_ID}), "status": "completed"}]
    else:
        output = [{"type": "message", "id": f"msg_{number:04d}", "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": value, "annotations": []}]}]
    return {
        "id": f"resp_{number:04d}", "object": "response", "created_at": 1795255200 + number, "status": "completed",
        "model": request.get("model") or "gpt-4o-mini", "output": output, "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": request.get("tools") or [], "temperature": 1.0, "top_p": 1.0,
        "error": None, "incomplete_details": None, "instructions": request.get("instructions"), "metadata": {},
        "text": {"format": {"type": "text"}}, "truncation": "disabled",
        "usage": {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion,
                  "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}},
    }


class ScriptedModel:
    """`with ScriptedModel() as model:` serves on 127.0.0.1 at `model.base_url` until the block ends."""

    def __enter__(self) -> ScriptedModel:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
