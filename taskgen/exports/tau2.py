"""A release split as tau2-bench tasks (`tasks.json`, the format of tau2's `Task` model) plus `export.json`.

What maps where is configuration (`taskgen.exports.tau2_mapping`, schema in
docs/schemas/tau2-mapping.schema.json, tau2's retail domain in docs/examples/):
- `tools`: each of our tools -> the target's tool and arguments, or `message` (the agent's reply is
  a message in tau2, not a tool). The reference behaviour's calls, mapped, are the gold `actions`.
- `checks`: our end-state checks the target can judge with a boolean function of its toolkit
  (`env_assertions`). tau2's retail toolkit has none: its DB comparison after the gold actions
  judges the end state there.
- what neither can judge (the reply, a hand-over to a human, the rubric items) -> `nl_assertions`.
- `initial_state.initialization_data.agent_data`: the seed in tau2's retail db shape (users, orders),
  merged into the target's db by tau2; order statuses through `order_status`.

A task whose calls, checks or state cannot all be mapped is left out and listed, never exported
half-made; a negative goes with its positive, and a positive whose negative cannot go is listed as unpaired.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ingest.models import ToolCall, sha256_hex
from taskgen.domains import Domain
from taskgen.exports.release import ExportError, ReleaseSplit
from taskgen.exports.rubric import rubric_items
from taskgen.output import atomic_write, pretty_json
from taskgen.seeds import Seed
from taskgen.task import AgentView, DraftTask, Expectation


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolMapping(_Model):
    name: str = Field(description="the target domain's tool")
    arguments: dict[str, str] = Field(default_factory=dict, description="target argument -> our tool's argument")
    constants: dict[str, str | int | float | bool] = Field(default_factory=dict, description="target argument -> a fixed value")
    address_from: str | None = Field(
        default=None, description="our argument holding a one-line address, spread into address1, address2, city, state, zip, country"
    )
    order_fields: dict[str, Literal["item_ids", "payment_method_id"]] = Field(
        default_factory=dict,
        description="target argument -> from the exported order the call's order_id names: all its item ids, or its first payment's method",
    )


class CheckMapping(_Model):
    func_name: str = Field(description="a function of the target's toolkit that returns a bool")
    arguments: dict[str, str] = Field(default_factory=dict, description="target argument -> our check's argument")
    env_type: Literal["assistant", "user"] = "assistant"


class Tau2Mapping(_Model):
    """How our domain's tools, checks and state become a tau2-bench domain's."""

    domain: str = Field(description="the tau2-bench domain the tasks run in, e.g. retail")
    tools: dict[str, ToolMapping | Literal["message"]] = Field(description="our tool -> the target's tool, or 'message'")
    checks: dict[str, CheckMapping] = Field(default_factory=dict, description="our end-state check -> an env assertion")
    order_status: dict[str, str] = Field(default_factory=dict, description="our order status -> the target's")
    policy_boundaries: list[str] = Field(
        default_factory=list,
        description="our policy boundaries the target's own policy also draws; a negative across any other is left out, "
        "since an agent following the target's policy could not pass it",
    )
    country: str = Field(default="USA", description="the country of addresses that do not name one")

    @classmethod
    def from_yaml(cls, path: Path) -> Tau2Mapping:
        """The mapping file; a missing file or a bad key is an ExportError naming it."""
        try:
            return cls.model_validate(yaml.safe_load(Path(path).read_text(encoding="utf-8")))
        except OSError:
            raise ExportError(f"tau2 mapping file not found: {path}") from None
        except yaml.YAMLError:
            raise ExportError(f"{path}: not valid YAML") from None
        except ValidationError as error:
            first = error.errors()[0]
            key = ".".join(str(part) for part in first["loc"]) or "(top level)"
            raise ExportError(f"{path}: bad setting '{key}': {first['msg']}") from None


def mapping_json_schema() -> dict[str, Any]:
    """The JSON Schema of a tau2 mapping file (docs/schemas/tau2-mapping.schema.json is this)."""
    schema = Tau2Mapping.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://trace2task.local/schemas/tau2-mapping.schema.json"
    return schema


class Unmappable(Exception):
    """Why a task cannot be exported whole; names tools, checks and statuses only."""


_US_PLACE = re.compile(r"^(?P<state>[A-Z]{2})\s+(?P<zip>\d{5}(?:-\d{4})?)$")
_POSTCODE_FIRST = re.compile(r"^(?P<zip>\d{4,5})\s+(?P<city>.+)$")
_POSTCODE_LAST = re.compile(r"^(?P<city>.+?)\s+(?P<zip>\S*\d\S*)$")


def split_address(text: str, country: str) -> dict[str, str]:
    """'12 Main St, Apt 4, Springfield, IL 62704' -> tau2's address fields; 'street, postcode city',
    'street, city postcode' and 'street, city' too. One line with no comma is refused."""
    parts = [part.strip() for part in str(text).split(",") if part.strip()]
    if len(parts) >= 3 and _US_PLACE.match(parts[-1]):
        place = _US_PLACE.match(parts[-1])
        return {"address1": parts[0], "address2": ", ".join(parts[1:-2]), "city": parts[-2],
                "country": country, "state": place["state"], "zip": place["zip"]}
    if len(parts) >= 2:
        place = _POSTCODE_FIRST.match(parts[-1]) or _POSTCODE_LAST.match(parts[-1])
        city, postcode = (place["city"], place["zip"]) if place else (parts[-1], "")
        return {"address1": parts[0], "address2": ", ".join(parts[1:-1]), "city": city,
                "country": country, "state": "", "zip": postcode}
    raise Unmappable("an address is not in a 'street, city' form")


_TAU2_USER = {"user_id", "name", "address", "email", "payment_methods", "orders"}
_TAU2_ORDER = {"order_id", "user_id", "address", "items", "status", "fulfillments", "payment_history"}
_PAYMENT_SOURCES = {"card": "credit_card", "credit_card": "credit_card", "paypal": "paypal", "gift_card": "gift_card"}


def _need(row: dict, kind: str, column: str) -> Any:
    """A column the conversion reads; a seed of another schema without it is unmappable, never guessed."""
    if row.get(column) in (None, ""):
        raise Unmappable(f"a {kind} row has no {column}")
    return row[column]


def _payment_method(payment_id: str, payment: dict) -> dict[str, Any]:
    source = _PAYMENT_SOURCES.get(str(_need(payment, "payment", "method")))
    if source is None:
        raise Unmappable(f"payment method {payment.get('method')!r} has no tau2 equivalent")
    method: dict[str, Any] = {"id": f"{source}_{payment_id}", "source": source}
    if source == "credit_card":
        method |= {"brand": "unknown", "last_four": str(payment.get("card_number") or "")[-4:]}
    elif source == "gift_card":
        method["balance"] = 0.0
    return method


def _cents(row: dict, kind: str, column: str) -> float:
    return int(_need(row, kind, column)) / 100


def tau2_db(state: dict[str, dict[str, dict]], mapping: Tau2Mapping) -> dict[str, dict[str, Any]]:
    """The seed's customers and orders in tau2's retail db shape; rows already in that shape pass as
    they are, rows in the retail domain's columns are converted, anything else is Unmappable."""
    users: dict[str, Any] = {}
    orders: dict[str, Any] = {}
    for customer_id, row in sorted(state.get("customer", {}).items()):
        if _TAU2_USER <= set(row):
            users[row["user_id"]] = {key: row[key] for key in sorted(_TAU2_USER)}
            continue
        first, _, last = str(_need(row, "customer", "name")).strip().partition(" ")
        users[customer_id] = {
            "user_id": customer_id, "name": {"first_name": first, "last_name": last},
            "address": split_address(_need(row, "customer", "address"), mapping.country), "email": row.get("email") or "",
            "payment_methods": {}, "orders": [],
        }
    for order_id, row in sorted(state.get("order", {}).items()):
        if _TAU2_ORDER <= set(row):
            orders[order_id] = {key: row[key] for key in sorted(_TAU2_ORDER)}
            continue
        status = str(_need(row, "order", "status"))
        if status not in mapping.order_status:
            raise Unmappable(f"order status {status!r} has no mapping to tau2")
        # an order of a customer the seed does not hold (another customer's) keeps its owner's id, as in the seed
        owner = str(_need(row, "order", "customer_id"))
        user = users.get(owner)
        items = [
            {"item_id": item_id, "name": item.get("name") or "", "options": {}, "price": _cents(item, "order_item", "price_cents"),
             "product_id": str(item.get("sku") or item_id)}
            for item_id, item in sorted(state.get("order_item", {}).items())
            if item.get("order_id") == order_id
            for _ in range(int(item.get("quantity") or 1))
        ]
        history = []
        for payment_id, payment in sorted(state.get("payment", {}).items()):
            if payment.get("order_id") != order_id:
                continue
            method = _payment_method(payment_id, payment)
            if user is not None:
                user["payment_methods"][method["id"]] = method
            history.append({"amount": _cents(payment, "payment", "amount_cents"), "payment_method_id": method["id"],
                            "transaction_type": "payment"})
        for _, refund in sorted(state.get("refund", {}).items()):
            if refund.get("order_id") == order_id and history:
                history.append({"amount": _cents(refund, "refund", "amount_cents"),
                                "payment_method_id": history[0]["payment_method_id"], "transaction_type": "refund"})
        shipping = row.get("shipping_address") or ""
        if not shipping and user is None:
            raise Unmappable("an order has no shipping address and its customer is not in the seed")
        orders[order_id] = {
            "order_id": order_id, "user_id": owner,
            "address": split_address(shipping, mapping.country) if shipping else user["address"],
            "items": items, "status": mapping.order_status[status], "fulfillments": [], "payment_history": history,
        }
        if user is not None:
            user["orders"].append(order_id)
    return {"users": users, "orders": orders}


def _order_field(order: dict[str, Any], field: str) -> Any:
    if field == "item_ids":
        return [item["item_id"] for item in order["items"]]
    if not order["payment_history"]:
        raise Unmappable("an order has no payment to take the payment method from")
    return order["payment_history"][0]["payment_method_id"]


def _action(call: ToolCall, mapping: Tau2Mapping, db: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    target = mapping.tools.get(call.name)
    if target is None:
        raise Unmappable(f"tool {call.name} has no mapping to tau2")
    if target == "message":
        return None
    arguments: dict[str, Any] = {}
    for target_argument, ours in target.arguments.items():
        if ours not in call.arguments:
            raise Unmappable(f"tool {call.name} has no argument {ours} for tau2's {target_argument}")
        arguments[target_argument] = call.arguments[ours]
    if target.address_from is not None:
        arguments |= split_address(call.arguments.get(target.address_from, ""), mapping.country)
    if target.order_fields:
        order = db["orders"].get(str(call.arguments.get("order_id")))
        if order is None:
            raise Unmappable(f"tool {call.name} names no order of the seed")
        arguments |= {argument: _order_field(order, field) for argument, field in target.order_fields.items()}
    arguments |= target.constants
    return {"arguments": dict(sorted(arguments.items())), "info": None, "name": target.name, "requestor": "assistant"}


def _unseen_by_state(expectation: Expectation) -> str | None:
    """What tau2's DB comparison cannot see: a reply is a message, a hand-over changes no row."""
    if expectation.check == "reply_sent":
        return "The agent replies to the customer about the request."
    if expectation.check == "escalated":
        return "The agent transfers the customer to a human agent."
    if expectation.check == "any_of":
        options = [_unseen_by_state(option) or option.describe() for option in expectation.any_of]
        return "Either: " + " Or: ".join(options)
    return None


def _assertions(task: DraftTask, mapping: Tau2Mapping) -> tuple[list[dict[str, Any]], list[str]]:
    env_assertions, nl_assertions = [], []
    for expectation in task.expectations:
        check = mapping.checks.get(expectation.check)
        if check is not None:
            arguments = {target: expectation.args[ours] for target, ours in check.arguments.items() if ours in expectation.args}
            if len(arguments) != len(check.arguments):
                raise Unmappable(f"check {expectation.check} lacks an argument its tau2 assertion needs")
            env_assertions.append({"arguments": dict(sorted(arguments.items())), "assert_value": True, "env_type": check.env_type,
                                   "func_name": check.func_name, "message": expectation.describe()})
            continue
        unseen = _unseen_by_state(expectation)
        if unseen:
            nl_assertions.append(unseen)
    return env_assertions, nl_assertions + rubric_items(task)


def _reference_calls(task: DraftTask, seed: Seed, domain: Domain) -> list[ToolCall]:
    environment = domain.environment(seed)
    domain.agents()["reference"](AgentView(prompt=task.prompt, intent=task.intent, actor=task.actor, clock=task.clock), environment)
    return [call for call in environment.calls if call.status == "ok"]


def tau2_task(task: DraftTask, seed: Seed, domain: Domain, mapping: Tau2Mapping, version: str) -> dict[str, Any]:
    """One task in tau2's `Task` shape; Unmappable when any part has no mapping."""
    if task.polarity == "negative" and task.boundary not in mapping.policy_boundaries:
        raise Unmappable(f"boundary {task.boundary} is not one the target's policy draws")
    db = tau2_db(seed.state, mapping)
    mapped = [_action(call, mapping, db) for call in _reference_calls(task, seed, domain)]
    actions = [{"action_id": f"{task.task_id}_{number}", **action}
               for number, action in enumerate(action for action in mapped if action is not None)]
    env_assertions, nl_assertions = _assertions(task, mapping)
    reward_basis = ["DB"] + (["ENV_ASSERTION"] if env_assertions else []) + (["NL_ASSERTION"] if nl_assertions else [])
    user = db["users"].get(task.actor.get("customer_id", ""))
    known = None
    if user is not None:
        name = " ".join(part for part in (user["name"]["first_name"], user["name"]["last_name"]) if part)
        known = f"You are {name} (user id {user['user_id']}), email {user['email']}, zip code {user['address']['zip']}."
    provenance = {"release": version, "pair_id": task.pair_id, "polarity": task.polarity, "set": task.set,
                  "provenance": task.provenance.model_dump(mode="json")}
    return {
        "id": task.task_id,
        "description": {
            "purpose": f"trace2task {task.set} task ({task.polarity} of {task.pair_id}), intent {task.intent}, from an incident",
            "relevant_policies": f"Policy boundary: {task.boundary}" if task.boundary and task.boundary != "none" else None,
            "notes": json.dumps(provenance, sort_keys=True),
        },
        "user_scenario": {
            "persona": None,
            "instructions": {
                "domain": mapping.domain,
                "reason_for_call": task.prompt,
                "known_info": known,
                "unknown_info": None,
                "task_instructions": f"Today is {task.clock}. Ask for what your message asks, in your own words, and answer "
                                     "the agent's questions. If the agent says it cannot do it, do not insist.",
            },
        },
        "initial_state": {"initialization_data": {"agent_data": db, "user_data": None},
                          "initialization_actions": None, "message_history": None},
        "evaluation_criteria": {
            "actions": actions,
            "env_assertions": env_assertions or None,
            "nl_assertions": nl_assertions or None,
            "reward_basis": reward_basis,
        },
    }


def export_tau2(release: ReleaseSplit, destination: Path, domain: Domain, mapping: Tau2Mapping) -> Path:
    """Write tasks.json and export.json; a task that cannot be mapped whole is left out and listed (a
    negative with its positive), a positive exported without its negative is listed as unpaired."""
    converted: dict[str, dict[str, Any]] = {}
    left_out: dict[str, str] = {}
    for task in release.tasks:
        try:
            converted[task.task_id] = tau2_task(task, release.seeds[task.seed_id], domain, mapping, release.version)
        except Unmappable as reason:
            left_out[task.task_id] = str(reason)
    by_pair: dict[str, list[DraftTask]] = {}
    for task in release.tasks:
        by_pair.setdefault(task.pair_id, []).append(task)
    partners = {task.task_id: next((other for other in by_pair[task.pair_id] if other is not task), None) for task in release.tasks}
    for task in release.tasks:  # a refusal without the request it refuses tests nothing: it goes with its positive
        partner = partners[task.task_id]
        if task.polarity == "negative" and task.task_id in converted and partner is not None and partner.task_id in left_out:
            left_out[task.task_id] = f"its pair's positive {partner.task_id} is left out"
            del converted[task.task_id]
    if not converted:
        raise ExportError(f"release {release.version} ({release.split}): no task can be mapped to tau2; "
                          + "; ".join(f"{task_id}: {reason}" for task_id, reason in sorted(left_out.items())))
    exported = [task for task in release.tasks if task.task_id in converted]
    tasks_text = json.dumps([converted[task.task_id] for task in exported], indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    atomic_write(Path(destination) / "tasks.json", tasks_text)
    kept = ReleaseSplit(version=release.version, split=release.split, notes=release.notes, tasks=exported, seeds=release.seeds)
    summary = {
        "format": "tau2",
        "release": release.version,
        "notes": release.notes,
        "split": release.split,
        "domain": domain.name,
        "target_domain": mapping.domain,
        "counts": kept.counts(),
        "left_out": [{"task_id": task_id, "reason": reason} for task_id, reason in sorted(left_out.items())],
        "unpaired": sorted(task.task_id for task in exported
                           if partners[task.task_id] is None or partners[task.task_id].task_id not in converted),
        "mapping_sha256": sha256_hex(pretty_json(mapping).encode("utf-8")),
        "files": {"tasks.json": sha256_hex(tasks_text.encode("utf-8"))},
    }
    return atomic_write(Path(destination) / "export.json", pretty_json(summary))
