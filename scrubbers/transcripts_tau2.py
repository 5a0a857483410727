"""Scrubbing agent transcripts laid out as tau2-bench records them, on tau2-bench's retail data.

A second transcript set beside `scrubbers.transcripts` (tau-bench's layout), in the shapes that
builder does not use, from `../shared/data/tau2-bench-retail/` (`db.json`, `tasks.json`): one
simulation per task, written as tau2 writes its results (`task_id`, the task's `user_scenario`,
then `messages` with `role`, `content`, `turn_idx`; an assistant's `tool_calls` as objects with
`arguments` a dict and a `requestor`; a `tool` message's `content` the tool's answer as text).

The shapes vary by task (deterministically):
- tool answers as pydantic's `model_dump_json()` (compact JSON), `json.dumps(indent=2)`, or the
  Python `repr` of the dict; now and then quoted by the agent in a fenced `json` block after a sentence;
- the agent in markdown: **bold** names, bullet lists of orders and items, addresses on one line
  ('763 Broadway, Suite 135, Philadelphia, PA 19122') and on several lines;
- the customer in lower case with typos, giving name and zip in one breath ("i'm yusuf rossi, zip
  19122"), an e-mail in prose, and third parties: another customer of the state named as a
  neighbour, a partner, a friend (their names must go too);
- tool-call arguments with the name-built `user_id` and payment ids ('credit_card_9513926',
  'gift_card_7245904', which embed no person and must stay).

Scored by `scrubbers.transcripts.score` (leaks, street lines, structure, state values, words kept, ...).
Nothing personal is printed: counts and shares only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scrubbers.transcripts import Transcript, _other_number, order_state_values, product_state_values, report, score

DEFAULT_FOLDER = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tau2-bench-retail"
"""`../shared/data/tau2-bench-retail/` from the project's root."""
THIRD_PARTIES = ("my neighbour", "my partner", "my friend", "my sister-in-law", "my coworker")
_TYPOS = {"received": "recieved", "please": "pls", "because": "becuase", "want": "wnat", "would": "woudl", "the": "teh"}


def _dump(value: Any, style: int) -> str:
    """A tool's answer as tau2 and its users' tools write it: model_dump_json, json.dumps(indent=2), repr."""
    if style == 0:
        return json.dumps(value, separators=(",", ":"))
    if style == 1:
        return json.dumps(value, indent=2)
    return repr(value)


def _typed(text: str, index: int) -> str:
    """The customer typing: lower case, with a typo or two (every other task)."""
    words = text.lower().split(" ")
    if index % 2:
        words = [_TYPOS.get(w, w) for w in words]
    return " ".join(words)


def _one_line(address: dict[str, str]) -> str:
    second = f", {address['address2']}" if address.get("address2") else ""
    return f"{address['address1']}{second}, {address['city']}, {address['state']} {address['zip']}"


def _lines(name: str, address: dict[str, str]) -> str:
    second = f"\n{address['address2']}" if address.get("address2") else ""
    return f"{name}\n{address['address1']}{second}\n{address['city']}, {address['state']} {address['zip']}\n{address['country']}"


def _order_markdown(order: dict[str, Any]) -> str:
    items = "\n".join(
        f"  - {item['name']} (item `{item['item_id']}`): " + ", ".join(f"{k}: {v}" for k, v in item["options"].items())
        + f" — ${item['price']}" for item in order["items"])
    paid = ", ".join(p["payment_method_id"] for p in order.get("payment_history", []))
    return f"- **Order {order['order_id']}** — status: *{order['status']}*, paid with {paid}\n{items}"


def _find_user(actions: list[dict[str, Any]], users: dict, orders: dict) -> str | None:
    for action in actions:
        arguments = action["arguments"]
        if "user_id" in arguments:
            return arguments["user_id"]
        if action["name"] == "find_user_id_by_name_zip":
            for user_id, user in users.items():
                if (user["name"]["first_name"], user["name"]["last_name"], user["address"]["zip"]) == (
                        arguments["first_name"], arguments["last_name"], arguments["zip"]):
                    return user_id
        if action["name"] == "find_user_id_by_email":
            return next((u for u, user in users.items() if user["email"] == arguments["email"]), None)
        if arguments.get("order_id") in orders:
            return orders[arguments["order_id"]]["user_id"]
    return None


def build(tasks: Sequence[dict[str, Any]], db: dict[str, Any]) -> list[Transcript]:
    """One transcript per task whose customer is found, in task order (deterministic)."""
    users, orders, products = db["users"], db["orders"], db["products"]
    names = {p["name"] for p in products.values()}
    goods = sorted(names | {_other_number(n) for n in names}, key=lambda n: (-len(n), n))
    user_ids = sorted(users)
    transcripts = []
    for index, task in enumerate(tasks):
        actions = task["evaluation_criteria"]["actions"]
        user_id = _find_user(actions, users, orders)
        if user_id not in users:
            continue
        user = users[user_id]
        first, last = user["name"]["first_name"], user["name"]["last_name"]
        other = users[user_ids[(index * 37 + 11) % len(user_ids)]]
        other_first, other_last = other["name"]["first_name"], other["name"]["last_name"]
        style = index % 3
        instructions = task["user_scenario"]["instructions"]
        messages: list[dict[str, Any]] = []

        def say(role: str, content: str | None, **extra: Any) -> None:
            messages.append({"role": role, "content": content, "turn_idx": len(messages), **extra})

        say("assistant", "Hi! How can I help you today?")
        opening = _typed(f"hi, i'm {first} {last}, zip {user['address']['zip']}. {instructions['reason_for_call']}", index)
        party = THIRD_PARTIES[index % len(THIRD_PARTIES)]
        if index % 2:
            opening += f" also {party} {other_first.lower()} {other_last.lower()} has the same problem."
        else:
            opening += f" {party} {other_first} {other_last} told me to contact you. it's {party}'s card by the way."
        say("user", opening)
        say("assistant", f"Thanks! Could you confirm the e-mail on the account, **{first}**?")
        say("user", f"sure, you can reach me at {user['email']} if anything goes wrong")
        protected: set[str] = set()
        for number, action in enumerate(actions):
            name, arguments = action["name"], action["arguments"]
            call_id = f"call_{index}_{number}"
            say("assistant", None, tool_calls=[{"id": call_id, "name": name, "arguments": arguments, "requestor": "assistant"}])
            for key in ("order_id", "item_ids", "new_item_ids", "payment_method_id", "product_id", "item_id"):
                value = arguments.get(key)
                protected.update(value if isinstance(value, list) else [value] if isinstance(value, str) else [])
            result: Any
            said = None
            if name.startswith("find_user_id"):
                result = user_id
                said = f"Thank you, **{first} {last}**. I found your account."
            elif name in {"get_user_details", "modify_user_address"}:
                result = user
                if style == 1:
                    said = f"Your default shipping address is:\n\n{_lines(f'{first} {last}', user['address'])}"
                else:
                    said = f"I see **{first} {last}**, default address {_one_line(user['address'])}, e-mail {user['email']}."
                protected.update(user["payment_methods"])
            elif arguments.get("order_id") in orders:
                order = orders[arguments["order_id"]]
                result = order
                said = "Here is the order:\n\n" + _order_markdown(order)
                if name == "get_order_details":
                    said += f"\n\nIt ships to {_one_line(order['address'])}."
                protected.update(order_state_values(order))
            elif arguments.get("product_id") in products:
                product = products[arguments["product_id"]]
                result = product
                variants = list(product["variants"].values())[:3]
                said = f"The **{product['name']}** has these options:\n" + "\n".join(
                    f"- `{v['item_id']}`: " + ", ".join(v["options"].values()) + f" (${v['price']})" for v in variants)
                protected.update(product_state_values(product, variants))
            else:
                result = "Transfer successful" if name == "transfer_to_human_agents" else {"status": "ok"}
            content = result if isinstance(result, str) else _dump(result, style)
            say("tool", content, id=call_id, requestor="assistant", error=False)
            if said and number % 4 == 3 and not isinstance(result, str):
                said += f"\n\nThe system returned:\n```json\n{json.dumps(result, indent=2)}\n```"
            if said:
                say("assistant", said)
            if name.startswith(("cancel", "modify", "return", "exchange")):
                say("user", _typed("yes please go ahead, thanks", index))
        say("assistant", f"Is there anything else I can help you with, {first}?")
        say("user", "no thats all, bye ###STOP###")
        people = [first, last, f"{first} {last}", other_first, other_last, f"{other_first} {other_last}"]
        rows = [user["address"], *(orders[o]["address"] for o in user.get("orders", []) if o in orders),
                *({k: a["arguments"].get(k, "") for k in ("address1", "address2", "city", "state", "zip", "country")}
                  for a in actions if "address1" in a["arguments"])]  # a new address the customer gives is theirs too
        personal = [*people, user["email"], user_id, *(r["address1"] for r in rows), *(r["address2"] for r in rows if r.get("address2"))]
        quasi = [v for r in rows for v in (r["city"], r["state"], r["zip"], r["country"])]
        record = {"task_id": task["id"], "user_scenario": task["user_scenario"]}
        transcripts.append(Transcript(
            [record, *messages], sorted(set(personal)), sorted(set(quasi)), sorted({r["address1"] for r in rows}),
            sorted({r["zip"] for r in rows}), user_id,
            sorted(p for p in protected if isinstance(p, str) and len(p) >= 2),
            sorted({m["last_four"] for m in user.get("payment_methods", {}).values() if m.get("last_four")}), goods,
        ))
    return transcripts


def load(folder: Path = DEFAULT_FOLDER) -> list[Transcript]:
    return build(json.loads((folder / "tasks.json").read_text(encoding="utf-8")),
                 json.loads((folder / "db.json").read_text(encoding="utf-8")))


def main(argv: Sequence[str] = ()) -> int:
    from scrubbers.config import ScrubConfig
    from scrubbers.scrubber import Scrubber

    folder = Path(argv[0]) if argv else DEFAULT_FOLDER
    if not (folder / "tasks.json").exists():
        print(f"tau2-bench retail data not found: {folder}", file=sys.stderr)
        return 2
    transcripts = load(folder)
    (scrubbed,), _ = Scrubber(ScrubConfig(), b"evaluation-only-secret-of-32-bytes!").scrub_json([[t.messages for t in transcripts]])
    print(f"tau2-bench retail simulations (tasks.json, db.json of {folder.name}; markdown, repr and indented tool results,"
          " customers in lower case, third parties) through `trace2task scrub`:")
    print(report(score(transcripts, scrubbed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
