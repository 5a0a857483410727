"""A day of agent sessions made from tau-bench or tau2-bench tasks, traced by a real producer.

    python tau_day.py TASKS_JSON STATE_FOLDER OUT_DROP [--count N] [--read-before-write] [--day-state]

Each task becomes one conversation of the app loop in drive.py, traced by OpenLLMetry
(`opentelemetry-instrumentation-openai`) and exported with the OTLP JSON file exporter to
OUT_DROP/traces/traces.jsonl: the user says the task's reason for calling in the customer's own voice
(the simulator's persona and behaviour instructions left out, see `customer_words`), the scripted model
calls the task's gold actions one by one (tool results read from the task's own state:
users, orders and products as tau-bench's files or tau2-bench's db.json hold them), then
answers. Nothing of the pipeline is involved: this writes a drop as production would.

By default every session's reads are answered from the state as it was before the day (each tau task starts
from its own fresh database). With `--day-state` the sessions share one shop: each write action is applied,
as it is made, to the state later reads are answered from (`apply_write`, the same function that makes the
soundness bench's morning-after state), so a session reading an order an earlier session cancelled sees it
cancelled.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from drive import APP_SESSION_ATTRIBUTE, MODEL, providers  # noqa: E402
from scripted_model import send_json  # noqa: E402

ANSWER = "All done: I have taken care of that for you."


_SIMULATOR_ONLY = re.compile(
    r"\b(?:if the agent|(?:when|once|until|unless) the agent|the agent (?:asks|provides|offers|says|refuses)|if it refuses"
    r"|(?:as )?you are interacting|customer service agent|you first try|guess a famous"
    r"|you are (?:a |an |detail|reluctant|impatient|polite|private|not |very |quite )"
    r"|do(?:es)? not (?:want to )?reveal|you (?:do not|don't) remember|only (?:exchange|return)|persona|swear"
    r"|provide all details|make sure (?:you|to)|you (?:then )?change your mind|at the same time|in pieces|say things)",
    re.IGNORECASE,
)
"""Sentences that only steer the simulated user (how to behave toward the agent, what to hold back,
when to change their mind): no customer types them. A customer's own fallback ("if it cannot be
returned, cancel it") is kept: it is part of the request."""

_ASIDE = re.compile(r"\s*\((?=[^)]*\b(?:reveal|mention|agent|look up|lookup|remember)\b)[^)]*\)", re.IGNORECASE)
"""A parenthesis telling the simulated user what to hold back or what they do not know ("(you prefer not to reveal
it but it is in your other order)", "(you don't remember order ID)"): dropped, the sentence around it kept (tau2
task 74: the whole request to cancel the other order went with it)."""

_VOICE = (
    (r"\bYou are ([A-Z][a-z]+ [A-Z][a-z]+|[a-z]+_[a-z]+_\d+)", r"Hi, I'm \1"), (r"\b[Yy]ou name\b", "My name"), (r"\byou'd\b", "I'd"), (r"\b[Yy]ou're\b", "I'm"),
    (r"\bYou've\b|\byou've\b", "I've"), (r"\b[Yy]ou are\b", "I am"), (r"\b[Yy]our\b", "my"),
    (r"\b[Yy]ourself\b", "myself"), (r"\bYou\b", "I"), (r"\byou\b", "I"), (r"\bwish(es)?\b", "wish"),
)


def customer_words(*instructions: str) -> str:
    """What the customer would type: the simulator's instructions in the first person, without the
    sentences that only steer the simulated user (persona, conditions, what not to reveal)."""
    sentences = [part.strip() for text in instructions if text
                 for part in re.split(r"(?<=[.!?])\s+", _ASIDE.sub("", text.strip())) if part.strip(" .")]
    kept = [sentence for sentence in sentences if not _SIMULATOR_ONLY.search(sentence)]
    said = " ".join(kept)
    for pattern, replacement in _VOICE:
        said = re.sub(pattern, replacement, said)
    return said


_READ_FIRST = {"order_id": "get_order_details", "user_id": "get_user_details"}
"""The read tool a tau agent looks an order or an account up with (tau-bench's and tau2-bench's)."""
_READ_PREFIXES = ("get_", "find_", "list_", "calculate", "think", "transfer_")


def with_reads(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The gold actions with the look-up a working agent makes before its first write to an order or an
    account it has not read yet (tau's policy: an order's status is checked before it is changed; the gold
    lists are minimal and often leave the read out, so the trace would hold no view of the order as it stood)."""
    read: set[tuple[str, str]] = set()
    out: list[dict[str, Any]] = []
    for action in actions:
        arguments = action.get("arguments") or {}
        if action["name"].startswith(_READ_PREFIXES):
            read.update((key, str(value)) for key, value in arguments.items() if key in _READ_FIRST)
        else:
            for key, tool in _READ_FIRST.items():
                if key in arguments and (key, str(arguments[key])) not in read:
                    read.add((key, str(arguments[key])))
                    out.append({"name": tool, "arguments": {key: arguments[key]}})
        out.append(action)
    return out


def load_tasks(path: Path) -> list[dict[str, Any]]:
    """(id, what the user says, gold actions) from tau2's tasks.json or tau-bench's tasks_test.json."""
    found = []
    for index, task in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        if "user_scenario" in task:  # tau2-bench
            instructions = task["user_scenario"]["instructions"]
            said = customer_words(instructions.get("known_info") or "", instructions.get("reason_for_call") or "")
            actions = task["evaluation_criteria"].get("actions") or []
            found.append({"id": str(task["id"]), "said": said, "actions": actions})
        else:  # tau-bench
            found.append({"id": str(index), "said": customer_words(task["instruction"]), "actions": task.get("actions") or []})
    return found


def load_state(folder: Path) -> dict[str, dict[str, Any]]:
    if (folder / "db.json").is_file():
        return json.loads((folder / "db.json").read_text(encoding="utf-8"))
    return {kind: json.loads((folder / f"{kind}.json").read_text(encoding="utf-8")) for kind in ("users", "orders", "products")}


_WRITE_STATUS = {
    "cancel_pending_order": "cancelled",
    "return_delivered_order_items": "return requested",
    "exchange_delivered_order_items": "exchange requested",
    "modify_pending_order_items": "pending (item modified)",
}
_ADDRESS = ("address1", "address2", "city", "state", "country", "zip")


def apply_write(action: dict[str, Any], users: dict[str, Any], orders: dict[str, Any]) -> None:
    """Apply one write action to the state as tau-bench's tools apply it: an order's status, an order's or an
    account's address. Under the soundness bench's variant schema an order keeps its status in `state` and its
    address in `ship_to`, an account its address in `home_address`; tau's in `status` and `address`."""
    name, args = action["name"], action.get("arguments") or {}
    order = orders.get(args.get("order_id", ""))
    if name in _WRITE_STATUS and order:
        order["state" if "state" in order else "status"] = _WRITE_STATUS[name]
    elif name == "modify_pending_order_address" and order:
        order["ship_to" if "ship_to" in order else "address"] = {key: args[key] for key in _ADDRESS}
    elif name == "modify_user_address" and args.get("user_id") in users:
        user = users[args["user_id"]]
        user["home_address" if "home_address" in user else "address"] = {key: args[key] for key in _ADDRESS}


def tool_result(name: str, arguments: dict[str, Any], state: dict[str, dict[str, Any]]) -> Any:
    if "order_id" in arguments and arguments["order_id"] in state["orders"] and name.startswith("get_"):
        return state["orders"][arguments["order_id"]]
    if "user_id" in arguments and arguments["user_id"] in state["users"] and name.startswith("get_"):
        return state["users"][arguments["user_id"]]
    if "product_id" in arguments and arguments["product_id"] in state["products"]:
        return state["products"][arguments["product_id"]]
    if name.startswith("find_user_id"):
        return next((user_id for user_id, user in sorted(state["users"].items())
                     if arguments.get("email") == user.get("email")
                     or (arguments.get("first_name"), arguments.get("last_name"))
                     == (user["name"]["first_name"], user["name"]["last_name"])), "user not found")
    return {"status": "ok", **{k: v for k, v in arguments.items() if k.endswith("_id")}}


class SeededIds:
    """Trace and span ids from a seeded generator (the SDK's IdGenerator interface), so one command makes
    one drop: random ids would make every run a different drop (and a zip code can turn up inside a
    random hex id, which the pipeline's residue check then reads as a leak)."""

    def __init__(self, seed: str = "tau_day") -> None:
        import random

        self._random = random.Random(seed)

    def generate_span_id(self) -> int:
        return self._random.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        return self._random.getrandbits(128) or 1

    def is_trace_id_random(self) -> bool:
        return False


class _Script(BaseHTTPRequestHandler):
    tasks: dict[str, dict[str, Any]] = {}

    def log_message(self, *args: Any) -> None:
        return

    def do_POST(self) -> None:  # noqa: N802
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        messages = request.get("messages") or []
        task = self.tasks[messages[0]["content"].rsplit("#", 1)[1]]
        done = sum(1 for m in messages if m.get("role") == "tool")
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if done < len(task["actions"]):
            action = task["actions"][done]
            message["tool_calls"] = [{"id": f"call_{task['id']}_{done}", "type": "function",
                                      "function": {"name": action["name"], "arguments": json.dumps(action["arguments"])}}]
        else:
            message["content"] = ANSWER
        body = {"id": f"chatcmpl-{task['id']}-{done}", "object": "chat.completion", "created": 1795255200, "model": MODEL,
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if message["content"] is None else "stop"}],
                "usage": {"prompt_tokens": 200 + 50 * done, "completion_tokens": 20, "total_tokens": 220 + 50 * done}}
        send_json(self, body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tasks", type=Path)
    parser.add_argument("state", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--read-before-write", action="store_true",
                        help="look an order or account up before the first write to it, as a working agent does (with_reads)")
    parser.add_argument("--day-state", action="store_true",
                        help="apply each write to the state later reads are answered from (apply_write): one shop for the whole day")
    args = parser.parse_args()
    import openai
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    tasks = load_tasks(args.tasks)[: args.count]
    if args.read_before_write:
        tasks = [{**task, "actions": with_reads(task["actions"])} for task in tasks]
    state = load_state(args.state)
    _Script.tasks = {task["id"]: task for task in tasks}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Script)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out = args.out / "traces"
    out.mkdir(parents=True, exist_ok=True)
    tracer_provider, logger_provider = providers(out, "tau-support-agent")
    tracer_provider.id_generator = SeededIds()  # the same drop from the same tasks: trace and span ids included
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
    tracer = tracer_provider.get_tracer("support-app")
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", api_key="sk-conformance", max_retries=0)
    for task in tasks:
        messages: list[dict[str, Any]] = [{"role": "system", "content": f"You are the shop's support agent. Task #{task['id']}"},
                                          {"role": "user", "content": task["said"]}]
        with tracer.start_as_current_span("handle_message", attributes={APP_SESSION_ATTRIBUTE: f"tau-{task['id']}"}):
            while True:
                reply = client.chat.completions.create(model=MODEL, messages=messages).choices[0].message
                messages.append(reply.model_dump(exclude_none=True))
                if not reply.tool_calls:
                    break
                for call in reply.tool_calls:
                    arguments = json.loads(call.function.arguments)
                    result = tool_result(call.function.name, arguments, state)
                    if args.day_state:
                        apply_write({"name": call.function.name, "arguments": arguments}, state["users"], state["orders"])
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    tracer_provider.shutdown()
    logger_provider.shutdown()
    server.shutdown()
    (out / "logs.jsonl").unlink(missing_ok=True)
    print(f"{len(tasks)} sessions written to {out}")


if __name__ == "__main__":
    main()
