"""The drafted pairs as a cold reader sees them (`python -m bench.soundness --sample N`): a review
sheet and one card per pair, with the prompt, the seed's facts and both tasks' expectations."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any


def write_sample(config_path: Path, count: int, path: Path, label: str) -> None:
    """`count` drafted pairs (stubs included, as drafted), chosen by hash of their pair id, as a cold reader
    sees them: the prompt, each task's expectations, tools and budget, the negative's boundary, and the seed
    excerpt that matters (the target order and the requester's orders, on both seeds)."""
    from pipelines.config import load_config
    from taskgen.draft import budget_rule
    from taskgen.output import load_task
    from taskgen.seeds import Seed

    config = load_config(config_path)
    out = config.path(config.output)
    tasks = [load_task(file) for file in sorted((out / "tasks").rglob("*.json"))]
    pairs: dict[str, dict[str, Any]] = {}
    for task in tasks:
        pairs.setdefault(task.pair_id, {})[task.polarity] = task
    chosen = sorted((pair for pair in pairs.values() if len(pair) == 2), key=lambda pair: hashlib.sha256(pair["positive"].pair_id.encode()).hexdigest())[:count]
    seeds = {file.stem: Seed.model_validate_json(file.read_text(encoding="utf-8")) for file in (out / "seeds").glob("*.json")}
    lines = [f"# Drafted pairs for a cold review ({label}, tau-bench's schema)", "",
             "Each pair: the customer's words (the prompt both tasks share), the positive and its negative as the grader "
             "judges them (end-state checks, required and forbidden tools, budget, the negative's own words when they differ, the "
             "review questions the drafter left), and the seed as the agent would find it.", "",
             f"Budgets: {budget_rule(config.taskgen.budget)}", ""]
    for number, pair in enumerate(chosen, start=1):
        lines += pair_lines(number, pair["positive"], pair["negative"], seeds)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def pair_lines(number: int, positive, negative, seeds: dict) -> list[str]:
    """One pair as the review sheet shows it: the prompt, and for each task its requester, clock, budget,
    expectations, tools, rubric, the negative's own prompt when its words differ, the review questions a
    person must settle, and the seed's orders that matter."""
    from taskgen.domains.retail.schema import RetailSchema

    lines = [f"## Pair {number}: {positive.intent} ({positive.pair_id})", "", "Prompt:", "", *(f"> {line}" for line in positive.prompt.splitlines()), ""]
    for task in (positive, negative):
        seed = seeds[task.seed_id]
        view = RetailSchema.from_document(seed.domain_schema).canonical(seed.state)
        lines += [f"### {task.polarity}" + (f" (boundary crossed: {task.boundary})" if task.polarity == "negative" else ""), ""]
        if task.polarity == "negative" and task.prompt != positive.prompt:
            lines += ["Its own prompt (the words differ from the positive's):", "", *(f"> {line}" for line in task.prompt.splitlines()), ""]
        lines += [f"- requester: {task.actor.get('customer_id') or 'not verified'}" + "".join(f" (address on the seed: {row.get('address') or 'unknown'})" for key, row in view["customer"].items() if key == task.actor.get("customer_id"))
                  + f"; clock {seed.clock}; budget {task.budget.turns} turns, {task.budget.tokens} tokens" + (f"; seed uncertain: {'; '.join(seed.uncertain)}" if seed.uncertain else ""),
                  f"- expectations: {'; '.join(item.describe() for item in task.expectations)}",
                  f"- required tools: {', '.join(task.required_tools) or 'none'}; forbidden: {', '.join(task.forbidden_tools) or 'none'}",
                  *([f"- forbidden calls (a check: attempted, even refused by the tool, fails the task): {'; '.join(rule.describe() for rule in task.forbidden_calls)}"] if task.forbidden_calls else []),
                  *([f"- may change (not required, not a check): {'; '.join(item.describe() for item in task.may_change)}"] if task.may_change else []),
                  *(f"- rubric (judge): {item}" for item in task.rubric),
                  *(f"- review question: {question}" for question in task.review_questions)]
        order_id = task.target.get("order_id")
        owner = task.actor.get("customer_id") or (view["order"].get(order_id or "", {}).get("customer_id"))
        for row in sorted(view["order"].values(), key=lambda row: str(row["id"])):
            if row["id"] == order_id or row.get("customer_id") == owner:
                items = ", ".join(_item_text(item) for item in row.get("items") or [] if isinstance(item, dict))
                dates = "".join(f", {field} {row[field]}" for field in ("created_at", "delivered_at") if field in row)
                paid = f"; payments: {', '.join(_payments(row))}" if _payments(row) else ""
                lines.append(f"- seed order {row['id']}{' (the target)' if row['id'] == order_id else ''}: owner {row.get('customer_id')}, "
                             f"status {row.get('status')}, total {row.get('total_cents')} cents{dates}; items: {items}{paid}")
        if owner in view["customer"] and _payment_methods(view["customer"][owner]):
            lines.append(f"- payment methods of {owner}: {', '.join(_payment_methods(view['customer'][owner]))}")
        lines += [f"- catalogue variant {item_id} (checked): {text}" for item_id, text in _variants(task, view).items()]
        lines.append("")
    return lines


def _item_text(item: dict) -> str:  # what a reader needs to judge the words: which variant, at what price
    options = item.get("options") if isinstance(item.get("options"), dict) else {}
    price = f", {item['price']}" if isinstance(item.get("price"), int | float) else ""
    return f"{item.get('name')}" + (f" ({', '.join(f'{key} {value}' for key, value in options.items())}{price})" if options else (f" ({price[2:]})" if price else ""))


def _payment_methods(row: dict) -> list[str]:  # which methods the customer holds (their kind and balance, not their numbers)
    methods = row.get("payment_methods")
    methods = methods.values() if isinstance(methods, dict) else methods if isinstance(methods, list) else []
    return [f"{method.get('id')} ({method.get('source')}" + (f", balance {method['balance']}" if "balance" in method else "") + ")"
            for method in methods if isinstance(method, dict)]


def _payments(row: dict) -> list[str]:  # an order's payment history: what was paid or refunded, by which method
    history = row.get("payment_history")
    return [f"{entry.get('transaction_type', 'payment')} {entry.get('amount')} by {entry.get('payment_method_id')}"
            for entry in (history if isinstance(history, list) else []) if isinstance(entry, dict)]


def _variants(task, view: dict) -> dict[str, str]:
    """The catalogue variants the task's checks name (the new items of an item change), with their options and price."""
    from taskgen.domains.retail.variants import catalogue

    named = {value for item in flat_expectations(task.expectations) for key in ("new_items",)
             for value in str(item.args.get(key) or "").split(",") if value}
    found = catalogue(view)
    return {item_id: _item_text({"name": next((row.get("name") for key, row in view.get("product", {}).items() if key == found[item_id][0]), "item"),
                                 **found[item_id][1]}) + ("" if found[item_id][1].get("available", True) else ", not available")
            for item_id in sorted(named) if item_id in found}


def _excerpt(task, seed) -> dict[str, Any]:
    """What of the seed a cold reader needs: the requester's customer row, the target order and the
    requester's (or the target's owner's) other orders, in the canonical view."""
    from taskgen.domains.retail.schema import RetailSchema

    view = RetailSchema.from_document(seed.domain_schema).canonical(seed.state)
    order_id = task.target.get("order_id")
    owner = task.actor.get("customer_id") or view["order"].get(order_id or "", {}).get("customer_id")
    orders = {key: {field: row.get(field) for field in ("customer_id", "status", "total_cents", "created_at", "delivered_at", "address", "ship_to") if field in row}
              | {"items": [_item_text(item) for item in row.get("items") or [] if isinstance(item, dict)]}
              | ({"payments": _payments(row)} if _payments(row) else {})
              for key, row in sorted(view["order"].items()) if key == order_id or row.get("customer_id") == owner}
    customers = {key: {field: row.get(field) for field in ("name", "email", "address") if field in row}
                 | ({"payment_methods": _payment_methods(row)} if _payment_methods(row) else {})
                 for key, row in sorted(view["customer"].items()) if key == owner or key == task.actor.get("customer_id")}
    return {"clock": seed.clock, "customers": customers, "orders": orders, "catalogue_variants_checked": _variants(task, view),
            "uncertain": seed.uncertain}


def _task_card(task, seed, rule: str) -> dict[str, Any]:
    card = {
        "task_id": task.task_id, "prompt": task.prompt,
        "requester": task.actor.get("customer_id") or "not verified",
        "target": task.target,
        "expectations": [item.describe() for item in task.expectations],
        "required_tools": task.required_tools, "forbidden_tools": task.forbidden_tools,
        "forbidden_calls": [rule.describe() for rule in task.forbidden_calls],
        "may_change_not_required": [item.describe() for item in task.may_change],
        "budget": task.budget.model_dump(), "budget_rule": rule,
        "incident_usage": task.incident.usage.model_dump() if task.incident is not None and task.incident.usage is not None else None, "rubric_for_a_judge": task.rubric,
        "review_questions": task.review_questions, "seed": _excerpt(task, seed),
    }
    if task.polarity == "negative":
        card = {"boundary": task.boundary, "boundary_question": task.boundary_question, **card}
    return card


def write_sample_cards(config_path: Path, count: int, folder: Path) -> None:
    """`count` drafted pairs (chosen by hash of their pair id, stubs included as drafted), one JSON file per
    pair: each task's prompt, requester, expectations, tools, budget and the seed excerpt that matters."""
    from pipelines.config import load_config
    from taskgen.output import load_task
    from taskgen.seeds import Seed

    from taskgen.draft import budget_rule

    out = load_config(config_path).path(load_config(config_path).output)
    rule = budget_rule(load_config(config_path).taskgen.budget)
    pairs: dict[str, dict[str, Any]] = {}
    for file in sorted((out / "tasks").rglob("*.json")):
        task = load_task(file)
        pairs.setdefault(task.pair_id, {})[task.polarity] = task
    seeds = {file.stem: Seed.model_validate_json(file.read_text(encoding="utf-8")) for file in (out / "seeds").glob("*.json")}
    chosen = sorted((pair for pair in pairs.values() if len(pair) == 2), key=lambda pair: hashlib.sha256(pair["positive"].pair_id.encode()).hexdigest())[:count]
    folder.mkdir(parents=True, exist_ok=True)
    for number, pair in enumerate(chosen, start=1):
        positive, negative = pair["positive"], pair["negative"]
        card = {"pair_id": positive.pair_id, "intent": positive.intent, "outcome": positive.outcome,
                "positive": _task_card(positive, seeds[positive.seed_id], rule), "negative": _task_card(negative, seeds[negative.seed_id], rule)}
        (folder / f"pair-{number:02d}.json").write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def flat_expectations(expectations):
    for item in expectations:
        yield item
        yield from flat_expectations(item.any_of)
