"""The reference agent's cancellation of another order the customer asks for outright, beside the request itself
(fourth cold review of tau2 drafts, #12), and its change of the customer's own address asked beside another request
(fifth cold review): kept apart from reference.py, whose helpers it uses."""

from __future__ import annotations

import re

from taskgen.domains import Environment
from taskgen.domains.retail.addresses import address_in, address_named
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.reference import (
    _DEMO, _INTRO, _SIDE_IF, _named_order, _only_order, _says, _tool, _use, _why_cancel,
)
from taskgen.task import AgentView

_SIDE_CANCEL = re.compile(r"\bcancel\w*\s+(?:(?:the|my|this|that|whole|entire|other|another|pending|second)\s+)*orders?\b"
                          r"|\borders?\b[^.?!;]*\bcancel\w*\s+(?:it|them|that one)\b")
_SIDE_ANOTHER = re.compile(r"\b(?:also|other|another|second)\b")
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def side_cancellations(view: AgentView, env: Environment, policy: RetailPolicy) -> None:
    """A cancellation the customer asks outright, with no condition, of another of their orders (an order itself, not an
    item of one): the order told by its id, else by the things it holds, else by how many items it holds and its status
    ('a pending order with five items'); cancelled when its status allows it, with the reason the words give."""
    parts = [part for part in re.split(r"(?<=[.!?])\s+|\n+", view.prompt) if part.strip() and not _INTRO.match(part)
             and _SIDE_CANCEL.search(part.lower()) and not _SIDE_IF.search(part.lower())
             # a cancellation request's own words ('Please cancel order #W4018956') are the request itself
             and (view.intent != "cancellation" or _SIDE_ANOTHER.search(part.lower()))]
    if not parts:
        return
    found = _named_order(view, env) or _only_order(view, env)
    mine = {str(value) for call in env.calls if call.status == "ok" and call.name in {tool.name for tool in policy.tools}
            for key, value in call.arguments.items() if key in {tool.order_arg for tool in policy.tools if tool.order_arg}}
    mine |= {found["id"]} if found is not None else set()
    listed = env.call("list_orders", customer_id=view.actor.get("customer_id")) or []
    orders = [order for order in (env.call("get_order", order_id=row["id"]) for row in listed) if order and order["id"] not in mine]
    for part in parts:
        lowered = part.lower()
        fit = by_id = [order for order in orders if re.search(rf"(?<!\w){re.escape(order['id'].lstrip('#').lower())}(?!\w)", lowered.replace("#", " "))]
        if not fit:
            fit = [order for order in orders if any(_says(lowered, str(item.get("name") or "")) for item in order.get("items") or []
                                                    if isinstance(item, dict) and item.get("name"))]
        if not fit and (count := re.search(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\s+(?:items?|things?|products?)\b", lowered)):
            number = int(count.group(1)) if count.group(1).isdigit() else _NUMBER_WORDS.index(count.group(1))
            fit = [order for order in orders if len(order.get("items") or []) == number]
        if not by_id:
            said = {str(order.get("status")) for order in orders if re.search(rf"\b{re.escape(str(order.get('status')).lower())}\b", lowered)}
            fit = [order for order in fit if not said or str(order.get("status")) in said]
        if len(fit) == 1 and fit[0].get("status") in policy.cancellable_statuses:
            _use(env, _tool(policy, "cancel", _DEMO["cancel"]), order=fit[0], reason=_why_cancel(part))
            env.call("send_reply", text=f"Order {fit[0]['id']} is cancelled too, as you asked.")
            orders = [order for order in orders if order is not fit[0]]


_SIDE_ADDRESS = re.compile(r"\b(?:chang|updat|modif|correct)\w*\b[^.?!;]{0,60}\baddress\b", re.IGNORECASE)
_ORDERS_ADDRESS = re.compile(r"\border(?:'s|s)?\b[^.?!;]{0,25}\baddress|\baddress\b[^.?!;]{0,20}\b(?:of|on|for) (?:my|the|this|that|all)\b"
                             r"[^.?!;]{0,20}\borders?\b|\bits (?:shipping )?address\b", re.IGNORECASE)
_MY_ADDRESS = re.compile(r"\b(?:default|account|profile|user|home|my) address\b|\baddress (?:on|of|in) (?:my|the) (?:account|profile)\b",
                         re.IGNORECASE)


def side_address(view: AgentView, env: Environment, policy: RetailPolicy) -> None:
    """The customer's own address, asked changed outright beside another request ('I also want to update my address to
    ...'): changed to the address the words give, else to the one of their addresses (another order's) whose town they
    name. An order's address alone ('my pending order address') is no change of theirs; no address read, none made."""
    if view.intent == "address_change":
        return
    asked = [part for part in re.split(r"(?<=[.!?])\s+|\n+", view.prompt) if part.strip() and not _INTRO.match(part)
             and _SIDE_ADDRESS.search(part) and not _SIDE_IF.search(part.lower())]
    parts = [part for part in asked if _MY_ADDRESS.search(part) or not _ORDERS_ADDRESS.search(part)]
    customer_id = view.actor.get("customer_id")
    account = env.call("get_customer", customer_id=customer_id) if asked and customer_id else None
    if not account:
        return
    if asked and not parts:
        return _side_order_address(" ".join(asked), account, customer_id, env, policy, _named_order(view, env) or _only_order(view, env))
    text = " ".join(parts)
    theirs = [env.call("get_order", order_id=row["id"]) or {} for row in env.call("list_orders", customer_id=customer_id) or []]
    known = [found for found in dict.fromkeys(row.get("shipping_address") for row in theirs)
             if isinstance(found, str) and found and found != account.get("address")]
    address = address_in(text, [row["id"] for row in theirs if row.get("id")]) or address_named(text, known)
    if address:
        _use(env, _tool(policy, "update_address", _DEMO["update_address"]), customer_id=customer_id, address=address)
        env.call("send_reply", text="Your address is updated too, as you asked.")


def _side_order_address(text: str, account: dict, customer_id: str, env: Environment, policy: RetailPolicy, own: dict | None) -> None:
    """An order's own address asked changed beside another request ('my pending order address to the default one'): to the
    address the words give, or the account's own where they say so; on the customer's one order the tool takes, the
    request's own order (`own`) aside."""
    tool = next((tool for tool in policy.tools if tool.action == "order_address"), None)
    address = address_in(text) or (account.get("address") if re.search(r"\b(?:default|profile|account|home)\b", text, re.IGNORECASE) else None)
    if tool is None or not address:
        return
    listed = env.call("list_orders", customer_id=customer_id) or []
    takes = [row for row in (env.call("get_order", order_id=item["id"]) for item in listed)
             if row and row.get("status") in tool.requires_status and (own is None or row["id"] != own["id"])]
    if len(takes) == 1 and " ".join(str(takes[0].get("shipping_address")).lower().replace(",", " ").split()) != " ".join(
            str(address).lower().replace(",", " ").split()):
        _use(env, tool, order=takes[0], address=str(address))
        env.call("send_reply", text=f"The shipping address of order {takes[0]['id']} is now {address}, as you asked.")
