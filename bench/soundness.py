"""`make soundness` (`python -m bench.soundness`): how sound drafted tasks are on data we did not write.

Two drops are made from tau-bench's retail tasks and state (../shared/data/tau-bench-retail), each
traced by a real producer (tests/conformance/producers/tau_day.py, OpenLLMetry; with `--read-before-write`: the
agent looks an order or account up before its first write to it, as tau's policy has a working agent do and
the minimal gold action lists often leave out; with `--day-state`: the day is one shop, each session's reads see the
writes of the sessions before it; a task repeating a scenario on an order or an account address an earlier task of
the day writes is left out, `one_session_per_written_row`), then run through `trace2task run --all` in a fresh
subprocess:

- `tau`: tau-bench's own schema (users.json, orders.json; ids `#Wnnnnnnn`, amounts in the first payment);
- `variant`: the same facts under another schema: orders are `purchase` rows `PO-nnnnnnn` with
  `buyer_id`, `state`, `ordered_on`, `received_on`, `grand_total` (currency units), customers' `home_address`.

In both, the state database is read "the morning after": every gold write action of the day's tasks
is applied to it as tau-bench's tools apply it (cancelled, return requested, new address...), so it
shows the state the incidents left behind. The figures are read from the written task and seed files
and the store's sessions, by checks written here, apart from the drafter:

- seeds_differing_from_observed: positive seeds with a field that differs from what the agent saw of
  that row in its own tool results before writing to it (and, for comparison, the same count on the
  raw snapshots the seeds were made from);
- expectations_on_unnamed_orders: tasks with an expectation about an order the session never names;
- incoherent_seeds: an order placed after its delivery or either after the clock, an order owned by
  no customer of the seed, items or payments that no longer add up to the amount they added up to;
- action_tasks_satisfied_by_seed: positives requiring a write whose expected end state holds already;
- stub_share: pairs whose negative is a stub (`boundary: none`), goal at most 0.20;
- discriminating_pairs: non-stub pairs whose reference agent passes both tasks and whose reference
  behaviour on each task, replayed on the other task's seed, fails the other task;
- same_behaviour_pairs: non-stub pairs where the reference behaviour on one task, replayed on the
  other task's seed, passes the other task too (apart: pairs where the reference fails one side, so
  the replayed behaviour is not a correct one);
- seed_uncertain: tasks whose seed has rows that could not be told as of the clock;
- positives_failing_rest_of_request / negatives_failing_rest_of_request: non-stub tasks whose reference behaviour
  followed by the incident's own writes on everything but the task's order (the request's other parts) fails
  (identity negatives aside: nothing is done for an unverified requester); negatives_failing_rest_beyond_positive:
  negatives failing it for a reason the positive does not (a tool or an order the positive leaves free);
- seeds_lacking_needed_orders: positive seeds without an order the customer names, the calls touch or the
  requester's account lists (`_unflagged`: no review question names it);
- prompts_with_account_id_only: positive prompts of a verified requester giving the opaque account id and neither an
  e-mail nor the requester's full name (`_unflagged`: no review question says the agent cannot verify the requester);
- scopes_contradicting_prompt: positive prompts whose scope sentence says to ask about no other order while the
  words ask about several;
- tasks_with_complementary_options: tasks with an either-or of a check and its negation ('the address is X, or it is not X'),
  true whatever the end state;
- positives_leaving_parts_unchecked: positives with a part of the customer's request neither required nor forbidden (their
  review question says so): an agent doing only the task's own part passes;
- item_change_positives / _pinning_variant: change positives checking an item change, and those whose check names the
  new variant itself (the seed's catalogue tells which one the words ask for);
- canaries_unlike_shops_cancelled: canary orders whose parcels differ from how the source shop keeps a cancelled
  order's, or that share a tracking id with a real order.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from bench.review_sample import flat_expectations, write_sample, write_sample_cards
from bench.soundness_reading import (
    _SEVERAL_ORDERS,
    _account_id_only,
    _cancelled_keep_parcels,
    _strings,
    canaries_unlike_cancelled,
    incoherences,
    needed_orders_lacking,
    observed_differences,
    replay,
    rest_of_request_calls,
)
from scrubbers.config import DEFAULT_PROTECTED_PATTERNS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "conformance" / "producers"))
from tau_day import _READ_PREFIXES, apply_write  # noqa: E402  (the producer's tools: one way a write changes the state)

ROOT = Path(__file__).resolve().parents[1]
TAU = ROOT.parent / "shared" / "data" / "tau-bench-retail"
TAU2 = ROOT.parent / "shared" / "data" / "tau2-bench-retail"
TAU_DAY = ROOT / "tests" / "conformance" / "producers" / "tau_day.py"
RESULTS = Path(__file__).resolve().parent / "results"
TAU2_TOOLS = ROOT / "docs" / "examples" / "tau2-retail.tools.yaml"
"""tau2-bench's write tools as the policy file declares them (tests/taskgen/test_product_tools.py checks it against its tools.py)."""
TRACE2TASK = str(Path(sys.executable).with_name("trace2task"))

TAU_STATUSES = {
    "refundable_statuses": ["delivered"],
    "returnable_statuses": ["delivered"],
    "cancellable_statuses": ["pending"],
    "address_change": {"who": "account_owner", "escalate_when_order_status_in": ["processed"], "in_transit": "decline"},
}
"""tau-bench's status words in the shipped policy: pending orders can be cancelled, delivered ones returned; a
processed order's address cannot be changed, and the agent says so (tau2-bench's policy.md: only pending orders
can be modified; a human only for what the agent's actions cannot handle)."""

PII = {"name.first_name": "PERSON", "name.last_name": "PERSON", "email": "EMAIL_ADDRESS"}
"""Card last fours are left out: four digits found inside any ten-digit item id read as a leak to the
residue check, which then holds the whole day."""


def _address_pii(column: str) -> dict[str, str]:
    """The street lines and the zip; the town is left out, as the scrubber replaces a town only as part of
    an address, not alone in a sentence (scrubbers/config.py: alone, 'Austin' reads as a person), so the
    residue check does not hold it."""
    return {f"{column}.address1": "ADDRESS", f"{column}.address2": "ADDRESS", f"{column}.zip": "LOCATION"}


# ---------------------------------------------------------------- the two drops
def _variant_id(order_id: str) -> str:
    return "PO-" + order_id.removeprefix("#W")


def _rename_ids(node: Any) -> Any:
    if isinstance(node, str):
        return re.sub(r"#W(\d{7})", lambda match: "PO-" + match.group(1), node)
    if isinstance(node, list):
        return [_rename_ids(item) for item in node]
    if isinstance(node, dict):
        return {key: _rename_ids(value) for key, value in node.items()}
    return node


def opaque_customers(users: dict, orders: dict, tasks: list[dict]) -> tuple[dict, dict, list[dict]]:
    """tau-bench's user ids spell the customer's name (`yusuf_rossi_9620`), which no scrubber may
    leave in an id; here they become opaque ids, as a shop's own customer ids are."""
    new = {user_id: "cust_" + hashlib.sha256(user_id.encode()).hexdigest()[:10] for user_id in users}
    pattern = re.compile("|".join(re.escape(user_id) for user_id in sorted(new, key=len, reverse=True)))

    def rename(node: Any) -> Any:
        if isinstance(node, str):
            return pattern.sub(lambda match: new[match.group(0)], node)
        if isinstance(node, list):
            return [rename(item) for item in node]
        if isinstance(node, dict):
            return {rename(key): rename(value) for key, value in node.items()}
        return node

    return rename(users), rename(orders), rename(tasks)


def _days_back(order_id: str, low: int, high: int) -> int:
    return low + int(hashlib.sha256(order_id.encode()).hexdigest()[:6], 16) % (high - low)


def variant_state(users: dict, orders: dict, today: datetime) -> tuple[dict, dict]:
    """tau-bench's facts under another schema, with the dates and amounts tau-bench does not keep."""
    purchases = {}
    for order_id, order in orders.items():
        ref = _variant_id(order_id)
        placed = today - timedelta(days=_days_back(order_id, 3, 60), hours=_days_back(order_id[::-1], 0, 20))
        row = {
            "order_ref": ref, "buyer_id": order["user_id"], "state": order["status"], "ship_to": order["address"],
            "items": order["items"], "fulfillments": order["fulfillments"], "payment_history": order["payment_history"],
            "grand_total": round(sum(item["price"] for item in order["items"]), 2),
            "ordered_on": placed.isoformat().replace("+00:00", "Z"), "received_on": None,
        }
        if order["status"] == "delivered":
            delivered = min(placed + timedelta(days=_days_back(order_id, 2, 8)), today - timedelta(hours=1))
            row["received_on"] = delivered.isoformat().replace("+00:00", "Z")
        purchases[ref] = row
    clients = {
        user_id: {"user_id": user_id, "name": user["name"], "email": user["email"], "home_address": user["address"],
                  "payment_methods": user["payment_methods"], "orders": [_variant_id(o) for o in user["orders"]]}
        for user_id, user in users.items()
    }
    return clients, purchases


def morning_after(users: dict, orders: dict, tasks: list[dict]) -> None:
    """Apply each task's gold write actions as tau-bench's tools do (tau_day's `apply_write`, which the producer
    applies as the day goes with `--day-state`): the state the incidents left behind."""
    for task in tasks:
        for action in task["actions"]:
            apply_write(action, users, orders)


def load_source(source: str) -> tuple[dict, dict, dict, list[dict]]:
    """(users, orders, products, tasks in tau-bench's shape) from tau-bench's files or tau2-bench's db.json and
    tasks.json (its user's known info and reason for calling as the instruction, its gold actions)."""
    if source == "tau2":
        db = json.loads((TAU2 / "db.json").read_text(encoding="utf-8"))
        tasks = [
            {"instruction": " ".join(part for part in (task["user_scenario"]["instructions"].get("known_info"),
                                                       task["user_scenario"]["instructions"].get("reason_for_call")) if part),
             "actions": [{"name": action["name"], "arguments": action.get("arguments") or {}}
                         for action in (task.get("evaluation_criteria") or {}).get("actions") or []]}
            for task in json.loads((TAU2 / "tasks.json").read_text(encoding="utf-8"))
        ]
        return db["users"], db["orders"], db["products"], tasks
    read = lambda name: json.loads((TAU / name).read_text(encoding="utf-8"))  # noqa: E731
    return read("users.json"), read("orders.json"), read("products.json"), read("tasks_test.json")


def one_session_per_written_row(tasks: list[dict], orders: dict) -> list[dict]:
    """The tasks, in order, without those touching an order an earlier kept task writes, or a customer whose account
    address it writes. tau-bench repeats one scenario in several tasks (one customer asking the same change again, on
    the same orders); as one day of one shop, a repeat would find its request already carried out and its customer's
    zip already moved, which no real day looks like (third cold review: 7 of 20 pairs)."""
    written_orders: set[str] = set()
    moved_customers: set[str] = set()
    kept = []
    for task in tasks:
        arguments = [action.get("arguments") or {} for action in task["actions"]]
        order_ids = {a["order_id"] for a in arguments if a.get("order_id")}
        customers = {a["user_id"] for a in arguments if a.get("user_id")} | {
            orders[o]["user_id"] for o in order_ids if o in orders}
        if order_ids & written_orders or customers & moved_customers:
            continue
        kept.append(task)
        for action in task["actions"]:
            args = action.get("arguments") or {}
            if action["name"].startswith(_READ_PREFIXES):
                continue
            if args.get("order_id"):
                written_orders.add(args["order_id"])
            if action["name"] == "modify_user_address" and args.get("user_id"):
                moved_customers.add(args["user_id"])
    return kept


def make_drop(work: Path, variant: bool, count: int, source: str = "tau", offset: int = 0) -> Path:
    """Write the drop, the morning-after state, its mapping, the policy and the configuration; return the config path."""
    users, orders, products, tasks = load_source(source)
    tasks = one_session_per_written_row(tasks[offset : offset + count], orders)
    count = len(tasks)
    before = work / "before"
    before.mkdir(parents=True)
    today = datetime.now(UTC).replace(microsecond=0)
    users, orders, tasks = opaque_customers(users, orders, tasks)
    if variant:
        users, orders = variant_state(users, orders, today)
        tasks = _rename_ids(tasks)
    tasks_file = work / "tasks.json"
    tasks_file.write_text(json.dumps(tasks), encoding="utf-8")
    for name, rows in (("users", users), ("orders", orders), ("products", products)):
        (before / f"{name}.json").write_text(json.dumps(rows), encoding="utf-8")
    subprocess.run([sys.executable, str(TAU_DAY), str(tasks_file), str(before), str(work / "drop"), "--count", str(count),
                    "--read-before-write", "--day-state"],
                   check=True, capture_output=True, text=True, timeout=900)
    morning_after(users, orders, tasks)
    state = work / "state"
    state.mkdir()
    for name, rows in (("users", users), ("orders", orders), ("products", products)):
        (state / f"{name}.json").write_text(json.dumps(rows), encoding="utf-8")
    order_kind = "purchase" if variant else "order"
    mapping = {
        "version": 1,
        "kinds": {
            "customer": {"file": "users.json", "key": "user_id", "owner": True, "pii": {**PII, **_address_pii("home_address" if variant else "address")}},
            order_kind: {"file": "orders.json", "key": "order_ref" if variant else "order_id",
                         "foreign_keys": {("buyer_id" if variant else "user_id"): "customer", "items.*.product_id": "product"},
                         "pii": _address_pii("ship_to" if variant else "address")},
            "product": {"file": "products.json", "key": "product_id"},
        },
        "roles": (
            {"order": {"kind": "purchase", "columns": {"customer": "buyer_id", "status": "state", "placed_at": "ordered_on",
                                                       "delivered_at": "received_on", "amount": "grand_total",
                                                       "tracking": "fulfillments.0.tracking_id.0"},
                       "options": {"amount_unit": "currency"}},
             "customer": {"columns": {"address": "home_address"}}}
            if variant else
            {"order": {"columns": {"customer": "user_id", "amount": "payment_history.0.amount", "placed_at": "", "delivered_at": "",
                                   "tracking": "fulfillments.0.tracking_id.0"},
                       "options": {"amount_unit": "currency"}}}
        ),
    }
    if source == "tau2":
        # the order's own shipping address, which tau2-bench's modify_pending_order_address writes
        mapping["roles"]["order"]["columns"]["address"] = "ship_to" if variant else "address"
    (work / "mapping.yaml").write_text(yaml.safe_dump(mapping, sort_keys=False), encoding="utf-8")
    from taskgen.domains.retail.policy import DEFAULT_POLICY_PATH

    policy = {**yaml.safe_load(DEFAULT_POLICY_PATH.read_text(encoding="utf-8")), **TAU_STATUSES}
    if source == "tau2":
        policy["tools"] = yaml.safe_load(TAU2_TOOLS.read_text(encoding="utf-8"))
    (work / "policy.yaml").write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    pattern = r"PO-\d{7}" if variant else r"#W\d{7}"
    config = {
        "drop": "drop", "state": {"location": "state", "mapping": "mapping.yaml"},
        "store": {"url": "sqlite:///store/store.db", "raw_url": "sqlite:///store/raw.db"},
        "output": "out", "dagster_home": "dagster_home",
        "ingest": {"entity_patterns": {order_kind: {"arg_keys": ["order_id"], "text_patterns": [pattern]},
                                       "customer": {"arg_keys": ["user_id"]}, "product": {"arg_keys": ["product_id"]}}},
        "taskgen": {"policy_path": str(work / "policy.yaml"), "sampling": {"default_quota": 50, "easy_cell_cap": 50},
                    # the agent under test reads tau2-bench's own policy (about 1,700 tokens) with our tools' descriptions
                    **({"budget": {"system_prompt_tokens": _tau2_system_tokens()}} if source == "tau2" else {})},
        # The shop's own identifiers are not personal data: its order ids, and tau-bench's ten-digit
        # item, product, tracking and payment-method ids (which the phone recognizer would otherwise hold
        # at the leak gate; tau-bench keeps no phone numbers).
        "scrub": {"protected_patterns": [*DEFAULT_PROTECTED_PATTERNS, pattern, r"(?<![\d-])\d{7,12}(?![\d-])"]},
    }
    (work / "store").mkdir()
    path = work / "trace2task.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def _tau2_system_tokens() -> int:
    """tau2-bench's policy.md with the domain's tools' descriptions, in tokens (draft.system_prompt_tokens)."""
    from taskgen.domains.retail.environment import TOOLS, RetailEnvironment
    from taskgen.draft import system_prompt_tokens, text_tokens

    tools = {name: getattr(RetailEnvironment, f"_tool_{name}").__doc__ or "" for name in TOOLS}
    return text_tokens((TAU2 / "policy.md").read_text(encoding="utf-8")) + system_prompt_tokens(None, None, tools)


SECRET = "soundness-bench-secret-0021-of-32-bytes"
"""A secret under which no tau-bench or tau2-bench customer's name gets a stand-in sharing a word with it.
Under about one secret in a hundred names such a stand-in comes up (Faker's common surnames: 'Aarav
Anderson' became 'Kelly Anderson'); the residue check then rightly holds the whole day and no task is
drafted. That is the scrubber's to fix (a stand-in is only retried when it equals the whole value);
the bench measures tasks, so it uses a secret that avoids it."""


def run_pipeline(config_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TRACE2TASK_SECRET": SECRET, "DAGSTER_HOME": str(config_path.parent / "dagster_home")}
    (config_path.parent / "dagster_home").mkdir(exist_ok=True)
    return subprocess.run([TRACE2TASK, "run", "--config", str(config_path), "--all", "--workers", "1"],
                          capture_output=True, text=True, timeout=3600, env=env, cwd=config_path.parent)


HEADLINE = (
    "seeds_differing_from_observed", "snapshots_differing_from_observed", "expectations_on_unnamed_orders",
    "incoherent_seeds", "action_positives", "action_tasks_satisfied_by_seed", "stubs", "discriminating_pairs", "same_behaviour_pairs",
    "same_behaviour_pairs_reference_fails_one_side", "non_stub_pairs_reference_fails_one_side", "tasks_with_seed_uncertain",
    "change_positives", "change_positives_checking_written_fields", "change_positives_passed_by_reply_only",
    "change_positives_with_presence_only_checks", "tasks_with_always_met_options", "item_change_positives", "item_change_positives_pinning_variant",
    "negatives_failing_rest_of_request", "positives_failing_rest_of_request", "negatives_failing_rest_beyond_positive", "seeds_lacking_needed_orders",
    "seeds_lacking_needed_orders_unflagged", "prompts_with_account_id_only", "prompts_with_account_id_only_unflagged",
    "canaries_unlike_shops_cancelled", "scopes_contradicting_prompt", "tasks_with_complementary_options", "positives_leaving_parts_unchecked",
)
_COMPLEMENTS = {"address_equals": "address_changed", "order_address_equals": "order_address_changed"}
"""A check and its negation on the same field: an either-or holding both holds whatever the field is."""
_WRITTEN_CHECKS = ("address_equals", "order_address_equals", "order_recorded", "order_status", "recorded_items", "exchange_variants",
                   "recorded_payment")
"""End-state checks on a field a write tool changes."""


def measure(config_path: Path) -> dict[str, Any]:
    from pipelines.config import load_config
    from pipelines.store.repository import Store
    from pipelines.store.rows import ScrubbedSessionRow, TaskRow
    from taskgen.domains import get_domain
    from taskgen.domains.retail.grader import holds
    from taskgen.domains.retail.schema import RetailSchema
    from taskgen.output import load_task
    from taskgen.seeds import Seed
    from taskgen.task import AgentView

    config = load_config(config_path)
    out = config.path(config.output)
    store = Store(config.store.url.replace("sqlite:///", f"sqlite:///{config_path.parent}/"), config.store.raw_url.replace("sqlite:///", f"sqlite:///{config_path.parent}/"))
    sessions = {row.session_id: row for row in store.rows(ScrubbedSessionRow)}
    task_rows = {row.task_id: row for row in store.rows(TaskRow)}
    domain = get_domain("retail", config.taskgen.policy_path)
    seeds = {path.stem: Seed.model_validate_json(path.read_text(encoding="utf-8")) for path in (out / "seeds").glob("*.json")}
    tasks = [load_task(out / row.path) for row in task_rows.values() if (out / row.path).is_file()]
    pairs: dict[str, dict[str, Any]] = {}
    for task in tasks:
        pairs.setdefault(task.pair_id, {})[task.polarity] = task
    figures: Counter = Counter({name: 0 for name in HEADLINE})
    keeps_parcels = _cancelled_keep_parcels(config_path.parent / "state" / "orders.json")
    stubs_by_intent: Counter = Counter()
    for pair in pairs.values():
        positive, negative = pair.get("positive"), pair.get("negative")
        if positive is None or negative is None:
            continue
        figures["pairs"] += 1
        session_row = sessions[task_rows[positive.task_id].session_id]
        session = json.loads(session_row.session)
        seed, negative_seed = seeds[positive.seed_id], seeds[negative.seed_id]
        schema = RetailSchema.from_document(seed.domain_schema)
        if observed_differences(session, seed.state):
            figures["seeds_differing_from_observed"] += 1
        if observed_differences(session, json.loads(session_row.state)):
            figures["snapshots_differing_from_observed"] += 1
        user_text = " ".join(turn["text"] for turn in session["turns"] if turn["role"] == "user")
        named = set(schema.order_ids_in(user_text)) | _strings([c.get("arguments") for c in session.get("tool_calls", [])])
        for task in (positive, negative):
            about = {str(item.args["order_id"]) for item in flat_expectations(task.expectations) if "order_id" in item.args}
            if about - named:
                figures["expectations_on_unnamed_orders"] += 1
            if task.seed_uncertain:
                figures["tasks_with_seed_uncertain"] += 1
        for task in (positive, negative):
            # an either-or with an option every replying trial meets: a check that always passes
            figures["tasks_with_always_met_options"] += any(
                item.check == "any_of" and any(option.check == "reply_sent" for option in item.any_of) for item in flat_expectations(task.expectations))
            # an either-or of a check and its negation (the address is X, or it is not X): always true
            figures["tasks_with_complementary_options"] += any(
                item.check == "any_of" and any(option.check in _COMPLEMENTS and any(
                    other.check == _COMPLEMENTS[option.check] and other.args == option.args for other in item.any_of) for option in item.any_of)
                for item in flat_expectations(task.expectations))
        # a part of the request left to the agent, neither required nor forbidden: a half-done job passes it
        figures["positives_leaving_parts_unchecked"] += any("neither required nor forbidden" in question for question in positive.review_questions)
        if incoherences(seed, None):
            figures["incoherent_seeds"] += 1
        if negative.seed_id != positive.seed_id and incoherences(negative_seed, seed):
            figures["incoherent_seeds"] += 1
        view = schema.canonical(seed.state)
        if positive.intent in ("address_change", "exchange"):
            # An address or item change: the reviewer's finding was a positive only the reply was checked on.
            figures["change_positives"] += 1
            written = [item for item in flat_expectations(positive.expectations) if item.check in _WRITTEN_CHECKS and not holds(item, view)]
            figures["change_positives_checking_written_fields"] += bool(written)
            # a field checked only for holding some value (order_recorded), not the value the seed and the words decide
            figures["change_positives_with_presence_only_checks"] += any(item.check == "order_recorded" for item in flat_expectations(positive.expectations))
            # an item change judged on the new variant itself (the seed's catalogue tells it), not only on its product
            changes = [item for item in flat_expectations(positive.expectations) if item.check in ("items_replaced", "exchange_variants")]
            figures["item_change_positives"] += bool(changes)
            figures["item_change_positives_pinning_variant"] += any(item.args.get("new_items") for item in changes)
            env = domain.environment(seed)
            domain.agents()["reply_only"](AgentView(prompt=positive.prompt, intent=positive.intent, actor=positive.actor, clock=positive.clock), env)
            figures["change_positives_passed_by_reply_only"] += domain.grade(positive, env.state, env.calls).passed
        if positive.required_tools and set(positive.required_tools) - {domain.policy.escalation_tool}:
            figures["action_positives"] += 1
            if all(holds(item, view) for item in positive.expectations if not item.check.startswith("reply_")):
                figures["action_tasks_satisfied_by_seed"] += 1
        lacking = needed_orders_lacking(session, seed, positive.actor.get("customer_id"))
        if lacking:
            figures["seeds_lacking_needed_orders"] += 1
            figures["seeds_lacking_needed_orders_unflagged"] += not any(any(order_id in question for order_id in lacking) for question in positive.review_questions)
        scope, _, words = positive.prompt.partition("\n\n") if positive.prompt.startswith("(") else ("", "", positive.prompt)
        if "no other order" in scope and _SEVERAL_ORDERS.search(words):
            figures["scopes_contradicting_prompt"] += 1
        if _account_id_only(positive, seed):
            figures["prompts_with_account_id_only"] += 1
            figures["prompts_with_account_id_only_unflagged"] += not any("only as account" in question for question in positive.review_questions)
        figures["canaries_unlike_shops_cancelled"] += canaries_unlike_cancelled(seed, json.loads(session_row.state), keeps_parcels)
        if negative.boundary == "none":
            figures["stubs"] += 1
            stubs_by_intent[positive.intent] += 1
            continue
        runs, reference_ok = {}, True
        for task, task_seed in ((positive, seed), (negative, negative_seed)):
            env = domain.environment(task_seed)
            domain.agents()["reference"](AgentView(prompt=task.prompt, intent=task.intent, actor=task.actor, clock=task.clock), env)
            runs[task.polarity] = env.calls
            passed = domain.grade(task, env.state, env.calls).passed
            figures[f"reference_passes_{task.polarity}"] += passed
            reference_ok = reference_ok and passed
        crossed = []
        for task, task_seed, other in ((negative, negative_seed, "positive"), (positive, seed, "negative")):
            env = domain.environment(task_seed)
            replay(runs[other], env)
            crossed.append(domain.grade(task, env.state, env.calls).passed)
        # the rest of the request (the incident's writes on other orders, the address) done after the reference's own
        # answer: a correct agent does it on both sides of a boundary crossed on the task's own order
        rest = rest_of_request_calls(session, positive.target.get("order_id"), domain)
        reasons: dict[str, set[str]] = {}
        for task, task_seed in ((positive, seed), (negative, negative_seed)):
            if rest and (task.polarity == "positive" or negative.boundary not in ("identity_not_verified", "identity_verified", "other_customer")):
                env = domain.environment(task_seed)
                replay([*runs[task.polarity], *rest], env)
                reasons[task.polarity] = set(domain.grade(task, env.state, env.calls).reasons)
                figures[f"{task.polarity}s_failing_rest_of_request"] += bool(reasons[task.polarity])
        # the negative fails the rest of the request for a reason of its own (a tool or an order the positive leaves free)
        figures["negatives_failing_rest_beyond_positive"] += bool(reasons.get("negative", set()) - reasons.get("positive", set()))
        if any(crossed):
            figures["same_behaviour_pairs" if reference_ok else "same_behaviour_pairs_reference_fails_one_side"] += 1
        elif reference_ok:
            figures["discriminating_pairs"] += 1
        if not reference_ok:
            figures["non_stub_pairs_reference_fails_one_side"] += 1
    result = dict(sorted(figures.items()))
    result["stub_share"] = round(figures["stubs"] / figures["pairs"], 3) if figures["pairs"] else 0.0
    result["sessions_scrubbed"] = len(sessions)
    result["stubs_by_intent"] = dict(sorted(stubs_by_intent.items()))
    result["intents"] = dict(Counter(task.intent for task in tasks if task.polarity == "positive"))
    result["boundaries"] = dict(Counter(task.boundary for task in tasks if task.polarity == "negative"))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=60, help="tasks per drop")
    parser.add_argument("--source", choices=("tau", "tau2"), default="tau", help="tau-bench's retail test tasks or tau2-bench's")
    parser.add_argument("--offset", type=int, default=0, help="skip this many tasks (days `make soundness` did not make)")
    parser.add_argument("--sample", type=int, default=0, help="write this many drafted pairs for a cold reader to SAMPLE_FILE")
    parser.add_argument("--sample-file", type=Path, default=RESULTS / "review-sample.md")
    parser.add_argument("--sample-dir", type=Path, help="also write the sampled pairs there, one JSON file per pair")
    parser.add_argument("--keep", type=Path, help="keep the work folder here")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="trace2task-soundness-"))
    users, orders, _, tasks = load_source(args.source)
    sessions = len(one_session_per_written_row(tasks[args.offset : args.offset + args.count], orders))
    report: dict[str, Any] = {"count": args.count, "sessions": sessions}
    if (args.source, args.offset) != ("tau", 0):
        report.update(source=args.source, offset=args.offset)
    failures: list[str] = []
    for name, variant in (("tau", False), ("variant", True)):
        folder = work / name
        shutil.rmtree(folder, ignore_errors=True)
        config = make_drop(folder, variant, args.count, args.source, args.offset)
        completed = run_pipeline(config)
        report[name] = {"pipeline_exit": completed.returncode, **measure(config)}
        print(name, json.dumps(report[name], indent=1), flush=True)
        failures += [f"{name}: {reason}" for reason in run_failures(completed, report[name])]
        if args.sample and not variant:
            write_sample(config, args.sample, args.sample_file, f"{args.source} tasks {args.offset}..{args.offset + args.count - 1}")
            if args.sample_dir:
                write_sample_cards(config, args.sample, args.sample_dir)
    RESULTS.mkdir(exist_ok=True)
    name = "soundness.json" if (args.source, args.offset) == ("tau", 0) else f"soundness-{args.source}-{args.offset}.json"
    (RESULTS / name).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("soundness: the figures above do not measure a whole run:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        sys.exit(1)


_FAILED_LINE = re.compile(r"fail|error|check", re.IGNORECASE)


def run_failures(completed: subprocess.CompletedProcess, figures: dict[str, Any]) -> list[str]:
    """Why a drop's figures are not a measurement: the pipeline's exit status with the lines of its output
    that say what failed (a failed check names itself there), or a run that drafted no pair at all."""
    failures = []
    if completed.returncode != 0:
        said = [line.strip() for line in f"{completed.stdout}\n{completed.stderr}".splitlines() if _FAILED_LINE.search(line)]
        failures.append(f"the pipeline exited {completed.returncode}: " + (" | ".join(said[-8:]) or "it said nothing about why"))
    if not figures.get("pairs"):
        failures.append(f"no pair was drafted from {figures.get('sessions_scrubbed', 0)} scrubbed sessions")
    return failures


if __name__ == "__main__":
    main()
