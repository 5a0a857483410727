"""How well the retail domain reads an address in a customer's words, on data nobody here wrote.

    python -m bench.addresses

1. tau-bench's retail test instructions (tasks_test.json) and tau2-bench's user scenarios (tasks.json)
   whose gold actions change an address (`modify_pending_order_address`, `modify_user_address`): how
   many hold the address in their words (the gold street line is written there), how many of those the
   reader finds, how many whole (house number first; street, unit, town and zip all in it), and how
   many instructions without an address it finds one in.
2. tau-bench's stored addresses (users.json and orders.json), written in three layouts (as tau-bench's
   instructions write them, as `address_text` joins them, and without commas), alone in a sentence,
   after an order id with its '#', and after one without: how many are found exactly as written.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from taskgen.domains.retail.addresses import _STATES, address_in

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ADDRESS_TOOLS = ("modify_pending_order_address", "modify_user_address")


def instructions() -> list[tuple[str, str, list[dict]]]:
    """(source, instruction, gold address arguments) of every task of both files."""
    found = []
    for task in json.loads((DATA / "tau-bench-retail" / "tasks_test.json").read_text(encoding="utf-8")):
        found.append(("tau", task["instruction"], [a["arguments"] for a in task["actions"] if a["name"] in ADDRESS_TOOLS]))
    for task in json.loads((DATA / "tau2-bench-retail" / "tasks.json").read_text(encoding="utf-8")):
        said = task["user_scenario"]["instructions"]
        text = " ".join(str(said.get(key) or "") for key in ("reason_for_call", "known_info", "unknown_info", "task_instructions"))
        actions = (task.get("evaluation_criteria") or {}).get("actions") or []
        found.append(("tau2", text, [a["arguments"] for a in actions if a["name"] in ADDRESS_TOOLS]))
    return found


def _written(text: str, gold: dict) -> bool:
    number, name = gold["address1"].split()[:2]
    return re.search(r"(?<!\w)" + re.escape(number) + r"\s+" + re.escape(name), text) is not None


def _whole(found: str, gold: dict) -> bool:
    parts = [gold["address1"], gold.get("address2") or "", gold["city"], gold["zip"]]
    return found.startswith(gold["address1"].split()[0]) and all(part.lower() in found.lower() for part in parts if part)


def instruction_figures() -> dict[str, dict[str, int]]:
    figures: dict[str, Counter] = {}
    for source, text, golds in instructions():
        counts = figures.setdefault(source, Counter())
        found = address_in(text)
        gold = next((g for g in golds if _written(text, g)), None)
        counts["address_change_tasks"] += bool(golds)
        if gold is not None:
            counts["with_address"] += 1
            counts["found"] += found is not None
            counts["whole"] += bool(found and _whole(found, gold))
        else:
            counts["found_where_none"] += found is not None
    return {source: dict(sorted(counts.items())) for source, counts in figures.items()}


LAYOUTS = {
    "a1, a2, city, State, zip": lambda a: ", ".join(p for p in (a["address1"], a["address2"], a["city"], _STATES.get(a["state"], a["state"]), a["zip"]) if p),
    "a1, a2, city, ST zip": lambda a: ", ".join(p for p in (a["address1"], a["address2"], a["city"]) if p) + f", {a['state']} {a['zip']}",
    "a1 a2 city ST zip": lambda a: " ".join(p for p in (a["address1"], a["address2"], a["city"], a["state"], a["zip"]) if p),
}


def stored_figures() -> dict[str, dict[str, int]]:
    users = json.loads((DATA / "tau-bench-retail" / "users.json").read_text(encoding="utf-8"))
    orders = json.loads((DATA / "tau-bench-retail" / "orders.json").read_text(encoding="utf-8"))
    addresses = {json.dumps(row["address"], sort_keys=True): row["address"] for row in [*users.values(), *orders.values()]}
    order_ids = sorted(orders)
    figures = {}
    for layout, write in LAYOUTS.items():
        counts: Counter = Counter()
        for index, (_, address) in enumerate(sorted(addresses.items())):
            written, order_id = write(address), order_ids[index % len(order_ids)]
            for where, sentence in (("alone", f"My new address is {written}."), ("after_id", f"Please send order {order_id} to {written}."),
                                    ("after_bare_id", f"order {order_id.lstrip('#')} {written} thanks")):
                counts[f"{where}_sentences"] += 1
                counts[f"{where}_exact"] += address_in(sentence) == written
        figures[layout] = dict(sorted(counts.items()))
    return figures


def main() -> None:
    print(json.dumps({"instructions": instruction_figures(), "stored_addresses": stored_figures()}, indent=2))


if __name__ == "__main__":
    main()
