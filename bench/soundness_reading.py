"""The soundness bench's independent reading of a drafted day (`bench/soundness.py` runs the drops and counts):
what the agent observed against the seed, incoherent seeds, the rest of a request, the orders a request needs, canaries
and prompts that give only an opaque account id. Written apart from the drafter, sharing none of its decisions."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


_READ = re.compile(r"^(?:get|list|find|search|calculate|think|transfer)", re.IGNORECASE)


def _objects(node: Any) -> list[dict]:
    if isinstance(node, str):
        try:
            node = json.loads(node)
        except ValueError:
            return []
    if isinstance(node, dict):
        return [node, *(found for value in node.values() for found in _objects(value))]
    if isinstance(node, list):
        return [found for value in node for found in _objects(value)]
    return []


def _strings(node: Any) -> set[str]:
    if isinstance(node, dict):
        return {found for value in node.values() for found in _strings(value)}
    if isinstance(node, list):
        return {found for value in node for found in _strings(value)}
    return {str(node)} if node is not None else set()


def observed_differences(session: dict, state: dict) -> int:
    """Fields of the state's rows that differ from the agent's first look at that row (before writing to it)."""
    seen, written, differing = set(), set(), 0
    for call in session.get("tool_calls", []):
        if not _READ.match(call["name"]):
            if call.get("status") == "ok":
                written |= _strings(call.get("arguments"))
            continue
        for found in _objects(call.get("result")):
            for kind, rows in state.items():
                for row_id, row in rows.items():
                    if (kind, row_id) in seen or row_id in written:
                        continue
                    if not any(str(v) == row_id and str(row.get(k)) == row_id for k, v in found.items() if not isinstance(v, (dict, list))):
                        continue
                    seen.add((kind, row_id))
                    differing += sum(1 for column in set(found) & set(row) if json.dumps(found[column], sort_keys=True) != json.dumps(row[column], sort_keys=True)
                                     and not (isinstance(found[column], (int, float)) and isinstance(row[column], (int, float)) and float(found[column]) == float(row[column])))
    return differing


def _ts(value: Any) -> datetime | None:
    if not value:
        return None
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def incoherences(seed, base) -> list[str]:
    """What a reader finds wrong in a seed; `base` is the positive's seed a negative was moved from."""
    from taskgen.domains.retail.schema import RetailSchema

    schema = RetailSchema.from_document(seed.domain_schema)
    view = schema.canonical(seed.state)
    before = schema.canonical(base.state) if base is not None else view
    clock = _ts(seed.clock)
    found = []
    for order_id, order in view["order"].items():
        placed, delivered = _ts(order.get("created_at")), _ts(order.get("delivered_at"))
        if (placed and delivered and placed >= delivered) or (delivered and delivered > clock) or (placed and placed > clock):
            found.append(f"{order_id}: dates")
        if order.get("customer_id") not in view["customer"]:
            found.append(f"{order_id}: owner")
        for role, column in (("order_item", "price_cents"), ("payment", "amount_cents")):
            def total(v, oid=order_id, r=role, c=column):
                return sum(row.get(c) or 0 for row in v[r].values() if row.get("order_id") == oid)
            was = total(before)
            old_amount = before["order"].get(order_id, {}).get("total_cents")
            if was and old_amount and was == old_amount and total(view) != order.get("total_cents"):
                found.append(f"{order_id}: {role} total")
    return found


def replay(calls, env) -> None:
    for call in calls:
        env.call(call.name, **call.arguments)


def rest_of_request_calls(session: dict, target: str | None, domain) -> list:
    """The incident's successful write calls on anything but the task's own order: what the request's other parts
    have a correct agent do (tau2-bench's gold actions on the customer's other orders, their address)."""
    from ingest.models import ToolCall

    writes = set(domain.policy.write_tool_names)
    return [ToolCall(name=call["name"], arguments=call.get("arguments") or {}) for call in session.get("tool_calls", [])
            if call["name"] in writes and call.get("status") == "ok" and (target is None or target not in _strings(call.get("arguments")))]


def needed_orders_lacking(session: dict, seed, requester: str | None) -> list[str]:
    """Orders a reader expects in the seed and does not find: named by the customer, touched by the agent's calls,
    or listed on the requester's account row."""
    from taskgen.domains.retail.schema import RetailSchema

    schema = RetailSchema.from_document(seed.domain_schema)
    orders = schema.canonical(seed.state)["order"]
    user_text = " ".join(turn["text"] for turn in session["turns"] if turn["role"] == "user")
    named = set(schema.order_ids_in(user_text)) | {found for value in _strings([c.get("arguments") for c in session.get("tool_calls", [])])
                                                    for found in schema.order_ids_in(value)}
    row = seed.state.get(schema.kinds["customer"], {}).get(requester or "", {})
    listed = {found for value in row.values() if isinstance(value, list) for item in value if isinstance(item, str) for found in schema.order_ids_in(item)}
    return sorted((named | listed) - set(orders))


def canaries_unlike_cancelled(seed, snapshot: dict, cancelled_keep_parcels: bool) -> int:
    """Canary orders (in the seed, not in the session's snapshot) whose parcels differ from how the shop keeps a
    cancelled order's (`cancelled_keep_parcels`: read from the whole source state), or that share a tracking id
    with a real order."""
    from taskgen.domains.retail.schema import RetailSchema

    kind = RetailSchema.from_document(seed.domain_schema).kinds["order"]
    real = snapshot.get(kind, {})
    tracking = {t for row in real.values() for parcel in row.get("fulfillments") or [] for t in parcel.get("tracking_id") or []}
    found = 0
    for order_id, row in seed.state.get(kind, {}).items():
        if order_id in real or not isinstance(row.get("fulfillments"), list):
            continue
        own = {t for parcel in row["fulfillments"] for t in parcel.get("tracking_id") or []}
        found += bool(row["fulfillments"]) != cancelled_keep_parcels or bool(own & tracking)
    return found


_SEVERAL_ORDERS = re.compile(r"\b(?:different|other|several|multiple|both|all (?:of )?my(?: \w+)?) orders?\b", re.IGNORECASE)
"""Words asking about several orders (read here apart from the drafter's own pattern)."""
_OPAQUE_ID = re.compile(r"\bcust_[0-9a-f]{10}\b")
"""The bench's opaque customer ids (`opaque_customers`): a prompt giving only one names no one the agent can look up."""


def _account_id_only(task, seed) -> bool:
    """The prompt gives an opaque account id for a requester the task takes as verified, and neither an e-mail nor
    the requester's full name as their row spells it: nothing the product looks a customer up by."""
    from taskgen.domains.retail.schema import RetailSchema

    requester = task.actor.get("customer_id")
    if not requester or not _OPAQUE_ID.search(task.prompt) or "@" in task.prompt:
        return False
    row = seed.state.get(RetailSchema.from_document(seed.domain_schema).kinds["customer"], {}).get(requester, {})
    name = row.get("name")
    parts = [str(value) for value in (name.values() if isinstance(name, dict) else [name]) if value]
    return bool(parts) and not all(part.lower() in task.prompt.lower() for part in parts)


def _cancelled_keep_parcels(orders_file: Path) -> bool:
    """Whether the source shop's cancelled orders keep their parcels (tau-bench's and tau2-bench's all do)."""
    rows = json.loads(orders_file.read_text(encoding="utf-8")).values() if orders_file.is_file() else []
    cancelled = [row for row in rows if (row.get("status") or row.get("state")) == "cancelled"]
    return not cancelled or sum(bool(row.get("fulfillments")) for row in cancelled) * 2 > len(cancelled)


