"""The customer's own address where another part of the request asks for an address change (fifth cold review of tau2
drafts, #12, family 3): the check `address_equals(X) OR address_changed(X)` held whatever the address ended as, so it
checked nothing. An order's address asked changed ('change my pending order address to the default one') leaves the
account's as it is; the account's asked changed to an address the words give or name by its town is required to become
it (the part is checked, not only allowed); else the change is allowed, a judge's to rule on. An order's address asked
changed to the account's own ('to the default one') or to one the words give, where the customer has one order the
product's order-address tool takes, is required there too."""

from __future__ import annotations

import re

from ingest.models import StateRows
from taskgen.domains.retail.addresses import address_in, address_named
from taskgen.domains.retail.grader import allow, expect
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.rules import known_addresses
from taskgen.task import Allowance, Expectation

ADDRESS_CHANGE = re.compile(r"\b(?:chang|updat|modif|correct)\w*\b[^.?!;]{0,60}\baddress\b", re.IGNORECASE)
_ACCOUNT = re.compile(r"\b(?:default|account|profile|user|home) address\b|\baddress (?:on|of|in) (?:my|the) (?:account|profile)\b"
                      r"|\bmy address\b", re.IGNORECASE)
_ORDER = re.compile(r"\border(?:'s|s)?\b(?:(?!\band\b)[^.?!;]){0,25}\baddress|\baddress(?:es)?\b[^.?!;]{0,20}\b(?:of|on|for) "
                    r"(?:my|the|this|that|all)\b[^.?!;]{0,20}\borders?\b|\bits (?:shipping )?address\b", re.IGNORECASE)


def _same(one: object, other: object) -> bool:
    return " ".join(str(one).lower().replace(",", " ").split()) == " ".join(str(other).lower().replace(",", " ").split())


def account_address_part(item: Expectation, sentences: list[str], state: StateRows,
                         policy: RetailPolicy, target: str | None = None) -> tuple[list[Expectation], list[Allowance], list[str]]:
    """(the checks, allowances and rubric items) replacing `item` (the account's address as on the seed) where `sentences`
    (the request's, without a condition) ask for an address change beside the task's own request."""
    customer_id, seed_address = str(item.args["customer_id"]), item.args["address"]
    asked = [sentence for sentence in sentences if ADDRESS_CHANGE.search(sentence)]
    if asked and all(_ORDER.search(sentence) and not _ACCOUNT.search(sentence) for sentence in asked):
        return [item, *_order_address(" ".join(asked), state, customer_id, seed_address, policy, target)], [], []  # account's stays
    text = " ".join(asked)
    new = address_in(text) or address_named(text, known_addresses(state, customer_id))
    if new and not _same(new, seed_address):
        return [expect("address_equals", customer_id=customer_id, address=new)], [], []
    return [], [allow("customer", customer_id, "address")], [
        "Judge (the words give no address code can read): is the customer's address changed to the one they asked for?"]


_OWN = re.compile(r"\b(?:default|profile|account|home)\b", re.IGNORECASE)


def _order_address(text: str, state: StateRows, customer_id: str, own: object, policy: RetailPolicy,
                   target: str | None) -> list[Expectation]:
    """The order's address the words ask for ('change my pending order address to the default one'), required where the
    address is told (written, or the account's own) and the customer has one order the order-address tool takes beside
    the task's own (`target`)."""
    tool = policy.tool_for("order_address")
    address = address_in(text) or (own if _OWN.search(text) else None)
    if tool is None or not address:
        return []
    orders = [order_id for order_id, row in sorted(state.get("order", {}).items()) if str(row.get("customer_id")) == customer_id
              and order_id != target and (not tool.requires_status or row.get("status") in tool.requires_status)]
    if len(orders) != 1 or _same(state["order"][orders[0]].get("shipping_address"), address):
        return []
    return [expect("order_address_equals", order_id=orders[0], address=str(address))]
