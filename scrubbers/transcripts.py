"""What scrubbing does to agent transcripts with tool results inside the text, on data nobody here wrote.

tau-bench's retail domain (`../shared/data/tau-bench-retail/`: its 115 test tasks, its users, orders,
products and policy) is turned into transcripts laid out as tau-bench publishes its trajectories: a
list of messages (`system` = the policy, `user`, `assistant` with `tool_calls` whose arguments are a
JSON string, `tool` whose content is the tool's JSON result as a string). The customer's first
message is the task's instruction as tau-bench wrote it; the agent calls the task's gold actions
in order, each answered from the state as tau-bench's tools answer (`get_user_details` -> the user
row, `get_order_details` -> the order row, ...), and says what it found in short sentences built
from those rows (names, product names with item ids and options, statuses, tracking ids, addresses).

The transcripts go through `Scrubber.scrub_json`, as `trace2task scrub` scrubs a JSON file: no
state database, no identifiers. Then, per transcript, against the customer's own rows:

- leaks: the customer's first and last name, e-mail, user id (built from the name) or street line
  anywhere in the output (whole words, any case, not inside a state value: the colour 'brown');
- street lines replaced (`address1` of the customer's rows, wherever it appears);
- structure: every message, key and JSON value type as it was (tool results and arguments parsed);
- state values intact: product names, option values, statuses, order, item, product and payment ids
  of the state, at every place they appear in the original (JSON leaf or words of a sentence);
- catalogue product names kept: every mention of a product name of the catalogue, in either number ('Wireless
  Earbuds', 'a Wireless Earbud'), whether or not the transcript looked that product up, unchanged in place;
- non-personal words kept: of the words (whitespace-separated, JSON leaves split likewise) that
  overlap none of the customer's personal values (names, e-mail, user id, street lines, city,
  state, zip, country), the share found unchanged in place (aligned by `difflib`);
- zips replaced by something that is not five digits (a zip must stay a zip);
- cards' last four digits (`last_four` of the customer's payment methods): replaced by four other digits, one
  stand-in per real value (not counted among the non-personal words);
- the address as one unit: transcripts where the customer's zip or town survived, and real zips
  written with more than one stand-in and stand-in zips written for more than one real zip (in `.zip`
  fields and after 'zip code is' / 'in');
- towns in address objects (`city` beside `state` and `zip`): stand-in towns written for more than one
  real town, and stand-in zips that are a real zip of their stand-in town.

Nothing personal is printed: counts and shares only.
"""

from __future__ import annotations

import ast
import difflib
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_FOLDER = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tau-bench-retail"
"""`../shared/data/tau-bench-retail/` from the project's root."""
_WORD = re.compile(r"\S+")
_ZIP = re.compile(r"\d{5}")


@dataclass
class Transcript:
    messages: list[dict[str, Any]]
    personal: list[str]
    """The customer's values that must go: names, e-mail, user id, street lines."""
    quasi: list[str]
    """City, state, zip, country: may stay or change, not counted among non-personal words."""
    streets: list[str]
    zips: list[str]
    user_id: str
    protected: list[str] = field(default_factory=list)
    """State values that must survive wherever they appear: product names, options, statuses, ids."""
    cards: list[str] = field(default_factory=list)
    """The last four digits of the customer's cards."""
    goods: list[str] = field(default_factory=list)
    """The catalogue's product names, each also in the other number, longest first."""


def _call(index: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"content": None, "role": "assistant", "tool_calls": [
        {"function": {"arguments": json.dumps(arguments), "name": name}, "id": f"call_{index:04d}", "type": "function"}]}


def _options(options: dict[str, str]) -> str:
    return ", ".join(f"{key} {value}" for key, value in options.items())


def _order_sentence(order: dict[str, Any]) -> str:
    items = "; ".join(f"{item['name']} (item ID {item['item_id']}; {_options(item['options'])}) at ${item['price']}"
                      for item in order["items"])
    tracking = [t for f in order.get("fulfillments", []) for t in f.get("tracking_id", [])]
    shipped = f" Tracking ID: {', '.join(tracking)}." if tracking else ""
    return f"Your order {order['order_id']} is {order['status']}. It holds: {items}.{shipped}"


def _address_sentence(address: dict[str, str]) -> str:
    second = f", {address['address2']}" if address.get("address2") else ""
    return f"The address on file is {address['address1']}{second}, {address['city']}, {address['state']} {address['zip']}, {address['country']}."


def order_state_values(order: dict[str, Any]) -> set[str]:
    """The values of an order a tool result shows that are state, not personal: ids, status, item names and options,
    payment-method and tracking ids (the scorer counts each kept)."""
    values = {order["order_id"], order["status"]}
    for item in order["items"]:
        values.update([item["name"], item["item_id"], item["product_id"], *item["options"].values()])
    values.update(p["payment_method_id"] for p in order.get("payment_history", []))
    values.update(t for f in order.get("fulfillments", []) for t in f.get("tracking_id", []))
    return values


def product_state_values(product: dict[str, Any], variants: list[dict[str, Any]]) -> set[str]:
    """A product's name and id, and the shown variants' ids and options."""
    values = {product["name"], product["product_id"]}
    for variant in variants:
        values.update([variant["item_id"], *variant["options"].values()])
    return values


def _other_number(name: str) -> str:
    """'Wireless Earbuds' -> 'Wireless Earbud', 'Smart Watch' -> 'Smart Watchs' (a form never written is never counted)."""
    return name[:-1] if name.endswith("s") else name + "s"


def build(tasks: Sequence[dict[str, Any]], users: dict, orders: dict, products: dict, policy: str) -> list[Transcript]:
    """One transcript per task, in task order (deterministic)."""
    names = {p["name"] for p in products.values()}
    goods = sorted(names | {_other_number(n) for n in names}, key=lambda n: (-len(n), n))
    transcripts = []
    for task in tasks:
        user = users[task["user_id"]]
        first, last = user["name"]["first_name"], user["name"]["last_name"]
        rows = [user["address"], *(orders[o]["address"] for o in user.get("orders", []) if o in orders)]
        messages: list[dict[str, Any]] = [{"role": "system", "content": policy}, {"role": "user", "content": task["instruction"]}]
        protected: set[str] = set()
        for index, action in enumerate(task["actions"]):
            name, arguments = action["name"], action["arguments"]
            if name == "find_user_id_by_email":
                messages.append({"role": "user", "content": f"My email is {user['email']}."})
            elif name == "find_user_id_by_name_zip":
                messages.append({"role": "user", "content": f"My name is {first} {last} and my zip code is {arguments.get('zip')}."})
            messages.append(_call(index, name, arguments))
            result: Any
            said = None
            if name.startswith("find_user_id"):
                result = task["user_id"]
                said = f"Thank you, {first}. I found your account."
            elif name in {"get_user_details", "modify_user_address"}:
                result = user
                said = f"Thanks, {first} {last}. {_address_sentence(user['address'])}"
            elif "order_id" in arguments and arguments["order_id"] in orders:
                order = orders[arguments["order_id"]]
                result = order
                said = _order_sentence(order)
                protected.update(order_state_values(order))
            elif arguments.get("product_id") in products:
                product = products[arguments["product_id"]]
                result = product
                variants = list(product["variants"].values())[:3]
                said = f"The {product['name']} comes in {len(product['variants'])} variants, for example: " + "; ".join(
                    _options(v["options"]) for v in variants) + "."
                protected.update(product_state_values(product, variants))
            else:
                result = {"status": "ok"}
            messages.append({"role": "tool", "tool_call_id": f"call_{index:04d}", "name": name, "content": json.dumps(result)})
            if said:
                messages.append({"content": said, "role": "assistant"})
            if name.startswith(("cancel", "modify", "return", "exchange")):
                messages.append({"role": "user", "content": "Yes, please go ahead."})
        messages.append({"content": f"Is there anything else I can help you with, {first}?", "role": "assistant"})
        personal = [first, last, f"{first} {last}", user["email"], task["user_id"], *(r["address1"] for r in rows),
                    *(r["address2"] for r in rows if r.get("address2"))]
        quasi = [v for r in rows for v in (r["city"], r["state"], r["zip"], r["country"])]
        transcripts.append(Transcript(
            messages, sorted(set(personal)), sorted(set(quasi)), sorted({r["address1"] for r in rows}),
            sorted({r["zip"] for r in rows}), task["user_id"],
            sorted(p for p in protected if isinstance(p, str) and len(p) >= 2),
            sorted({m["last_four"] for m in user.get("payment_methods", {}).values() if m.get("last_four")}), goods,
        ))
    return transcripts


def load(folder: Path = DEFAULT_FOLDER) -> list[Transcript]:
    def read(name: str) -> Any:
        return json.loads((folder / name).read_text(encoding="utf-8"))

    return build(read("tasks_test.json"), read("users.json"), read("orders.json"), read("products.json"),
                 (folder / "policy.md").read_text(encoding="utf-8"))


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, leaf) of a message, with JSON (or a Python repr) inside strings parsed (its keys are part of the path)."""
    if isinstance(value, dict):
        yield path + "{}", tuple(value)
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}")
    elif isinstance(value, list):
        yield path + "[]", len(value)
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    elif isinstance(value, str) and value.strip()[:1] in "{[":
        try:
            inner = json.loads(value)
        except ValueError:
            try:  # a Python repr of a dict or list, as some tools answer ("{'order_id': '#W2611340'}")
                inner = ast.literal_eval(value.strip())
            except (ValueError, SyntaxError):
                yield path, value
            else:
                yield from _leaves(inner, path + "$")
        else:
            yield from _leaves(inner, path + "$")
    else:
        yield path, value


def _mentions(values: Sequence[str], text: str) -> list[tuple[int, int]]:
    spans = []
    for value in values:
        spans += [m.span() for m in re.finditer(r"(?i)(?<!\w)" + re.escape(value) + r"(?!\w)", text)]
    return spans


@dataclass
class TranscriptScore:
    transcripts: int = 0
    leaked: Counter = field(default_factory=Counter)
    """kind of value -> transcripts where it survived."""
    streets: int = 0
    streets_replaced: int = 0
    structure_broken: int = 0
    protected: int = 0
    protected_kept: int = 0
    goods: int = 0
    goods_kept: int = 0
    words: int = 0
    words_kept: int = 0
    zips_changed: int = 0
    zips_misshapen: int = 0
    cards: int = 0
    """`last_four` values in the transcripts' JSON."""
    cards_replaced: int = 0
    """Of those, the ones replaced by four other digits."""
    card_stand_ins: dict = field(default_factory=dict)
    """real last four -> the set of values written in its place in `last_four` fields."""
    user_ids: int = 0
    """Transcripts where the customer's user id appears."""
    user_ids_same_shape: int = 0
    localities_left: int = 0
    """Transcripts where the customer's zip, or town beside its state, survived (beside a stand-in street)."""
    zip_stand_ins: dict = field(default_factory=dict)
    """real zip -> the set of zips written in its place (in `.zip` fields and in sentences)."""
    town_stand_ins: dict = field(default_factory=dict)
    """stand-in town (with its state) -> the real towns (with theirs) written as it, in address objects."""
    addresses: int = 0
    """Address objects (with a town, a state and a zip) whose town was replaced."""
    zips_of_towns: int = 0
    """Of those, the ones whose stand-in zip is a real zip of their stand-in town."""

    @property
    def kept(self) -> float:
        return self.words_kept / self.words if self.words else 1.0

    @property
    def shared_zips(self) -> int:
        """Stand-in zips written for more than one real zip (in `.zip` fields and in sentences)."""
        return sum(n > 1 for n in Counter(z for stand_ins in self.zip_stand_ins.values() for z in stand_ins).values())


_USER_ID = re.compile(r"[a-z]+_[a-z]+_\d{4}")


def score(transcripts: Sequence[Transcript], scrubbed: Sequence[list[dict[str, Any]]]) -> TranscriptScore:
    result = TranscriptScore()
    for transcript, output in zip(transcripts, scrubbed, strict=True):
        result.transcripts += 1
        before = [leaf for message in transcript.messages for leaf in _leaves(message)]
        after = [leaf for message in output for leaf in _leaves(message)]
        text_after = json.dumps(output, ensure_ascii=False) + "\n" + "\n".join(str(v) for _, v in after)
        kinds = {"user id": [transcript.user_id], "e-mail": [v for v in transcript.personal if "@" in v],
                 "name": [v for v in transcript.personal if v.replace(" ", "").isalpha() and v not in transcript.streets],
                 "street line": transcript.streets}
        kept_values = _mentions(transcript.protected, text_after)  # the colour 'brown' is not Mr Brown
        for kind, values in kinds.items():
            if any(not any(s <= start and end <= e for s, e in kept_values) for start, end in _mentions(values, text_after)):
                result.leaked[kind] += 1
        towns = [f"{v}" for v in transcript.quasi if not v.isdigit() and len(v) > 3 and v not in ("USA",)]
        if _mentions([*transcript.zips, *towns], text_after):
            result.localities_left += 1
        result.streets += len(transcript.streets)
        result.streets_replaced += sum(not _mentions([s], text_after) for s in transcript.streets)
        if [p for p, _ in before] != [p for p, _ in after] or any(
            type(a) is not type(b) or (p.endswith("{}") and a != b) for (p, a), (_, b) in zip(before, after)
        ):
            result.structure_broken += 1
            continue
        if any(isinstance(v, str) and transcript.user_id in v for _, v in before):
            result.user_ids += 1
            user_ids_after = {m.group() for _, v in after if isinstance(v, str) for m in _USER_ID.finditer(v)}
            result.user_ids_same_shape += bool(user_ids_after) and transcript.user_id not in user_ids_after
        _count_towns(result, transcript.messages, output)
        for (path, old), (_, new) in zip(before, after):
            if not isinstance(old, str):
                continue
            if path.endswith(".zip"):
                result.zip_stand_ins.setdefault(old, set()).add(new)
            if path.endswith(".last_four"):
                result.cards += 1
                result.cards_replaced += old != new and re.fullmatch(r"\d{4}", new) is not None
                result.card_stand_ins.setdefault(old, set()).add(new)
            if path.endswith(".zip") and old != new:
                result.zips_changed += 1
                result.zips_misshapen += not _ZIP.fullmatch(new)
            for zip_code in transcript.zips:
                if re.search(rf"(?i:zip(?: code)?(?: is)?|\bin) {zip_code}\b", old):  # 'my zip code is 19122', 'in 19122'
                    for match in re.finditer(r"(?i:zip(?: code)?(?: is)?|\bin) (\d{5})\b", new):
                        result.zip_stand_ins.setdefault(zip_code, set()).add(match.group(1))
            personal = _mentions([*transcript.personal, *transcript.quasi, *transcript.cards], old)
            for start, end in _mentions(transcript.protected, old):
                if any(s < end and start < e for s, e in personal):
                    continue
                result.protected += 1
                result.protected_kept += _kept_in_place(old, new, start, end)
            taken: list[tuple[int, int]] = []
            for start, end in _mentions(transcript.goods, old):  # longest first: 'Wireless Earbuds' before 'Wireless Earbud'
                if not any(s < end and start < e for s, e in [*taken, *personal]):
                    taken.append((start, end))
                    result.goods += 1
                    result.goods_kept += _kept_in_place(old, new, start, end)
            words = [m for m in _WORD.finditer(old) if not any(s < m.end() and m.start() < e for s, e in personal)]
            if not words:
                continue
            old_words = [m.group() for m in _WORD.finditer(old)]
            new_words = [m.group() for m in _WORD.finditer(new)]
            same = _same_positions(old_words, new_words)
            indices = {m.start(): i for i, m in enumerate(_WORD.finditer(old))}
            result.words += len(words)
            result.words_kept += sum(indices[m.start()] in same for m in words)
    return result


def _count_towns(result: TranscriptScore, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    """Address objects' towns: which real towns share a stand-in, and whether a stand-in zip is its town's."""
    from scrubbers.addresses import zips_of

    for message, output in zip(before, after, strict=True):
        old, new = dict(_leaves(message)), dict(_leaves(output))
        for path, town in old.items():
            parent = path.removesuffix(".city")
            if parent == path or not isinstance(town, str) or f"{parent}.state" not in old or f"{parent}.zip" not in old:
                continue
            stand_in = (new[path], new[f"{parent}.state"])
            if stand_in[0] == town:
                continue
            result.town_stand_ins.setdefault(stand_in, set()).add((town, old[f"{parent}.state"]))
            result.addresses += 1
            result.zips_of_towns += new[f"{parent}.zip"] in zips_of(*stand_in)


def _same_positions(old: list[str], new: list[str]) -> set[int]:
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    return {block.a + k for block in matcher.get_matching_blocks() for k in range(block.size)}


def _kept_in_place(old: str, new: str, start: int, end: int) -> bool:
    """Whether the words of old[start:end] all survive in `new` (aligned word by word)."""
    old_words = list(_WORD.finditer(old))
    inside = [i for i, m in enumerate(old_words) if start < m.end() and m.start() < end]
    same = _same_positions([m.group() for m in old_words], [m.group() for m in _WORD.finditer(new)])
    return all(i in same for i in inside)


def report(result: TranscriptScore) -> str:
    n = result.transcripts
    lines = [
        f"transcripts: {n}",
        "leaks (transcripts where a value of the kind survived): "
        + (", ".join(f"{k} {v}" for k, v in sorted(result.leaked.items())) or "none"),
        f"street lines replaced: {result.streets_replaced}/{result.streets} ({result.streets_replaced / max(1, result.streets):.1%})",
        f"name-built user id replaced by one of the same shape: {result.user_ids_same_shape}/{result.user_ids}",
        f"structure changed (messages, keys, value types): {result.structure_broken}/{n}",
        f"state values intact (product names, options, statuses, ids): {result.protected_kept}/{result.protected}"
        f" ({result.protected_kept / max(1, result.protected):.1%})",
        f"catalogue product names (either number) kept: {result.goods_kept}/{result.goods}",
        f"non-personal words kept: {result.words_kept}/{result.words} ({result.kept:.1%})",
        f"zips changed: {result.zips_changed}, of which not five digits: {result.zips_misshapen}",
        f"cards' last four digits replaced by four others: {result.cards_replaced}/{result.cards}, real ones with more than"
        f" one stand-in: {sum(len(v) > 1 for v in result.card_stand_ins.values())}/{len(result.card_stand_ins)}",
        f"transcripts where the customer's zip or town survived: {result.localities_left}/{n}",
        f"real zips with more than one stand-in: {sum(len(v) > 1 for v in result.zip_stand_ins.values())}"
        f"/{len(result.zip_stand_ins)}",
        f"stand-in zips written for more than one real zip: {result.shared_zips}",
        f"stand-in towns written for more than one real town: {sum(len(v) > 1 for v in result.town_stand_ins.values())}"
        f"/{len(result.town_stand_ins)}",
        f"address objects whose stand-in zip is one of their stand-in town's: {result.zips_of_towns}/{result.addresses}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] = ()) -> int:
    from scrubbers.config import ScrubConfig
    from scrubbers.scrubber import Scrubber

    folder = Path(argv[0]) if argv else DEFAULT_FOLDER
    if not (folder / "tasks_test.json").exists():
        print(f"tau-bench retail data not found: {folder}", file=sys.stderr)
        return 2
    transcripts = load(folder)
    (scrubbed,), _ = Scrubber(ScrubConfig(), b"evaluation-only-secret-of-32-bytes!").scrub_json([[t.messages for t in transcripts]])
    print(f"tau-bench retail transcripts (tasks_test.json, state and policy of {folder.name}) through `trace2task scrub`:")
    print(report(score(transcripts, scrubbed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
