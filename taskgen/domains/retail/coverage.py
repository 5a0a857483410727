"""What a drafted task needs that its seed or its words may not carry (cold review of tau2-bench drafts, #12):
the orders the request names, the agent's calls touched or the customer's account lists; an address the request
changes but the seed no longer knows; an identity the product can verify. Each missing piece is a review question
on the task (and, for an identity no one can verify, a validation issue), never a silently drafted task."""

from __future__ import annotations

import re

from ingest.models import Session, StateRows
from taskgen.domains.retail import identity
from taskgen.domains.retail.variants import price_cents, price_difference
from taskgen.task import Expectation
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.schema import RetailSchema
from taskgen.seeds import Seed

_ADDRESS = re.compile(r"\baddress", re.IGNORECASE)


def _ids_in(value: object, schema: RetailSchema) -> list[str]:
    if isinstance(value, dict):
        return [found for item in value.values() for found in _ids_in(item, schema)]
    if isinstance(value, list):
        return [found for item in value for found in _ids_in(item, schema)]
    return schema.order_ids_in(value) if isinstance(value, str) else []


def _orders(order_ids: list[str]) -> str:
    return f"order{'s' if len(order_ids) > 1 else ''} {', '.join(order_ids)}"


def named_orders(session: Session, schema: RetailSchema) -> list[str]:
    """The orders the customer's words name or the agent's calls touched, in order, once each."""
    user_text = "\n".join(turn.text for turn in session.turns if turn.role == "user")
    return list(dict.fromkeys([*schema.order_ids_in(user_text), *_ids_in([call.arguments for call in session.tool_calls], schema),
                               *session.entity_ids.get(schema.kinds["order"], [])]))


def missing_orders(session: Session, seed: Seed, actor: dict[str, str]) -> list[str]:
    """Review questions for orders the task may need that the seed does not hold: those the customer's words
    name or the agent's calls touched, and those the requester's own row lists (an account the agent reads
    shows them; "the tracking number of my cancelled order" needs one)."""
    schema = RetailSchema.from_document(seed.domain_schema)
    orders = schema.canonical(seed.state)["order"]
    touched = named_orders(session, schema)
    questions = []
    if absent := [order_id for order_id in dict.fromkeys(touched) if order_id not in orders]:
        questions.append(f"O{_orders(absent)[1:]}, named by the customer or touched by the agent's calls, "
                         f"{'is' if len(absent) == 1 else 'are'} not in the seed: "
                         "a correct agent cannot look it up or change it. Add it to the seed, or reject the task.")
    row = seed.state.get(schema.kinds["customer"], {}).get(actor.get("customer_id") or "")
    listed = [order_id for value in (row or {}).values() if isinstance(value, list) for order_id in _ids_in(value, schema)]
    if unheld := [order_id for order_id in dict.fromkeys(listed) if order_id not in orders and order_id not in absent]:
        questions.append(f"The customer's account lists {_orders(unheld)}, which the seed does not hold: an agent that "
                         "reads the account finds an order it cannot open. Does the request need one (an order asked about "
                         "without its id)? Add it to the seed, or reject the task.")
    return questions


def unknown_addresses(prompt: str, seed: Seed, actor: dict[str, str], order_id: str | None) -> list[str]:
    """A review question when the words are about an address and the seed no longer knows the requester's, or
    the target order's (emptied: a later write, the value as of the clock unknown): no check can tell whether
    the agent changed it, so the task judges the change by the reply alone."""
    if not _ADDRESS.search(prompt):
        return []
    schema = RetailSchema.from_document(seed.domain_schema)
    view = schema.canonical(seed.state)
    unknown = []
    customer = view["customer"].get(actor.get("customer_id") or "")
    if customer is not None and not customer.get("address"):
        unknown.append(f"customer {actor['customer_id']}'s address")
    order = view["order"].get(order_id or "")
    if order is not None and schema.column("order", "address") and not order.get("shipping_address"):
        unknown.append(f"order {order_id}'s shipping address")
    if not unknown:
        return []
    return [f"The seed does not know {' or '.join(unknown)} (emptied: its value as of the session is unknown), so no check can "
            "tell whether the agent changed it: the task judges the address change by the reply alone. Restore the address "
            "as it stood when the session started, or reject the task."]


def account_id_only(prompt: str, seed: Seed, actor: dict[str, str], policy: RetailPolicy) -> str | None:
    """Why the agent cannot verify the requester, or None: the words give the account's id (an opaque one, such
    as 'cust_019f6362b3') but neither the e-mail nor the full name with the zip code that the product looks a
    customer up by, and the policy wants the requester verified."""
    customer_id = actor.get("customer_id") or ""
    schema = RetailSchema.from_document(seed.domain_schema)
    customers = seed.state.get(schema.kinds["customer"], {})
    row = customers.get(customer_id)
    said = [other for other in sorted(customers, key=lambda other: other != customer_id) if identity.said(prompt, other)]
    if not policy.identity_required or row is None or not said or identity.gives_identity(prompt, row):
        return None
    if said[0] != customer_id:
        return (f"The prompt gives the requester only as account {said[0]}, while the task's requester is {customer_id}, without "
                "the e-mail address or the full name and zip code a customer is looked up by: the agent cannot verify who asks. "
                "Give the customer those details, or reject the task.")
    return (f"The prompt gives the requester only as account {customer_id}, without the e-mail address or the full name and "
            "zip code a customer is looked up by: the agent cannot verify who asks. Give the customer those details, or "
            "reject the task.")


def _options(expectations: list[Expectation]) -> list[Expectation]:
    return [option for item in expectations for option in (item.any_of if item.check == "any_of" else [item])]


def unpayable_changes(expectations: list[Expectation], state: StateRows, customer_id: str | None) -> list[str]:
    """Why an item change the task expects cannot be made on its seed: the new items (pinned) cost more than the old,
    and every payment method the customer holds is a gift card whose balance is short of the difference (the
    product's tool refuses it: tau2-bench's policy, "a gift card must have enough balance"). One review question per
    change (fifth cold review, #12 family 7: a negative whose gift card could not pay its own expected exchange)."""
    checks = _options(expectations)
    methods = state.get("customer", {}).get(customer_id or "", {}).get("payment_methods")
    methods = list(methods.values()) if isinstance(methods, dict) else methods if isinstance(methods, list) else []
    if not methods or not all(isinstance(method, dict) and method.get("source") == "gift_card" for method in methods):
        return []
    best = max((price_cents(method.get("balance")) or 0 for method in methods), default=0)
    questions = []
    for item in checks:
        if item.check not in ("items_replaced", "exchange_variants") or not item.args.get("new_items"):
            continue
        order_id = str(item.args.get("order_id"))
        items = item.args.get("items") or next((other.args.get("items") for other in checks if other.check == "recorded_items"
                                               and other.args.get("order_id") == item.args.get("order_id")
                                               and other.args.get("field") == item.args.get("field")), None)
        difference = price_difference(state, order_id, str(items).split(","), str(item.args["new_items"]).split(",")) if items else None
        if difference is not None and difference > best:
            questions.append(
                f"The item change on order {order_id} costs {difference / 100:.2f} more, and the customer's only payment methods are "
                f"gift cards holding at most {best / 100:.2f}: the product refuses the change, so no agent can do what this task "
                "expects on its seed. Give the seed a payment method that can pay it, or reject the task.")
    return questions
