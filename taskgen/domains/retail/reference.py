"""The reference agent: the retail policy file followed through the tools, written apart from the drafter.

It shares no decision code with `rules.py` (the drafter's): it finds the order by asking the backend
about each id-like word of the request, reads the policy's statuses, window and limit itself, and says
what it did in its reply. A drafting mistake then shows as a task the reference agent fails.
Conventions the policy file does not state, kept the same as the drafter's: account access and an
address change it cannot carry out go to a human; a question about no order gets an answer only; an
order the request does not name is the requester's only order, or the one whose items it names.
An address is read from the words as the drafter reads it (`addresses.py`: reading, not a decision),
never starting at the id of the order the request is about.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from taskgen.domains import Agent, Environment
from taskgen.domains.retail.addresses import address_in, address_named, address_of_order_said, orders_said_for_address
from taskgen.domains.retail.policy import RetailPolicy, WriteTool
from taskgen.domains.retail.reference_catalogue import _cheapest, conditional_change, wanted_variant
from taskgen.seeds import parse_timestamp
from taskgen.task import AgentView

ORDER_INTENTS = ("refund", "return_label", "cancellation", "order_status")
_ID_LIKE = re.compile(r"#?[A-Za-z_-]*\d[\w-]*")

HANDED_OVER = "I have passed your request to a colleague, who will get back to you."


def _named_order(view: AgentView, env: Environment) -> dict | None:
    """The first id-like word of the request that the backend knows as an order."""
    for word in _ID_LIKE.findall(view.prompt):
        for candidate in dict.fromkeys((word, word.lstrip("#"), f"#{word.lstrip('#')}")):
            order = env.call("get_order", order_id=candidate)
            if order is not None:
                return order
    return None


def _says(prompt: str, item_name: str) -> bool:
    """The request names the item: its whole name, or the thing itself (its last word, if not a short one), in the
    singular or plural ('bookshelves'), or its name run together ('book shelf' for a Bookshelf)."""
    words, lowered = item_name.lower().split(), prompt.lower()
    for said in {" ".join(words), *([words[-1]] if words and len(words[-1]) > 3 else [])}:
        plural = said[:-1] + "ves" if said.endswith("f") else said[:-1] + "ies" if said.endswith("y") else said + "es"
        if any(re.search(rf"(?<!\w){re.escape(spelling)}(?!\w)", lowered) for spelling in (said, said + "s", plural)):
            return True
    joined = "".join(words)
    return len(joined) >= 6 and joined in re.sub(r"[^a-z0-9]", "", lowered)


def _only_order(view: AgentView, env: Environment) -> dict | None:
    """The requester's one order, else the one of their orders whose items the request names; no guess."""
    customer_id = view.actor.get("customer_id")
    if not customer_id:
        return None
    orders = env.call("list_orders", customer_id=customer_id) or []
    if len(orders) == 1:
        return env.call("get_order", order_id=orders[0]["id"])
    looked = [env.call("get_order", order_id=order["id"]) for order in orders]
    named = [order for order in looked if order and any(_says(view.prompt, str(item.get("name") or "")) for item in order.get("items") or [] if isinstance(item, dict) and item.get("name"))]
    return named[0] if len(named) == 1 else None  # several orders and none told apart: no guess


def _days_since_delivery(order: dict, clock: datetime) -> timedelta | None:
    delivered = order.get("delivered_at")
    return clock - parse_timestamp(str(delivered)) if delivered else None


def _inside_return_window(order: dict, clock: datetime, policy: RetailPolicy) -> bool:
    """policy.yaml: the window is the days after delivery during which a refund or return is allowed.
    An order the backend shows with no delivery date field at all (the shop keeps none) has no window to miss."""
    if "delivered_at" not in order:
        return True
    age = _days_since_delivery(order, clock)
    return age is not None and age <= timedelta(days=policy.return_window_days)


def _already_refunded(env: Environment, order_id: str) -> int:
    rows = sum(int(row.get("amount_cents", 0)) for row in env.state.get("refund", {}).values() if row.get("order_id") == order_id)
    history = env.state.get("order", {}).get(order_id, {}).get("payment_history") or []  # tau2-bench keeps a cancellation's refund there
    return rows + sum(round(float(entry.get("amount") or 0) * 100) for entry in history
                      if isinstance(entry, dict) and entry.get("transaction_type") == "refund")


def _tool(policy: RetailPolicy, action: str, default: WriteTool) -> WriteTool:
    """The product's tool for the action (policy.yaml `tools`), the demo's when it declares none."""
    return next((tool for tool in policy.tools if tool.action == action), default)


_DEMO = {
    "refund": WriteTool(name="refund_order", action="refund", arguments=["order_id", "amount_cents", "reason"], order_arg="order_id",
                        amount_arg="amount_cents", reason_arg="reason"),
    "return_label": WriteTool(name="create_return_label", action="return_label", arguments=["order_id"], order_arg="order_id"),
    "cancel": WriteTool(name="cancel_order", action="cancel", arguments=["order_id", "reason"], optional=["reason"], order_arg="order_id", reason_arg="reason"),
    "update_address": WriteTool(name="update_address", action="update_address", arguments=["customer_id", "address"], customer_arg="customer_id", address_args=["address"]),
    "escalate": WriteTool(name="escalate_to_human", action="escalate", arguments=["reason"], reason_arg="reason"),
}


def _address_parts(address: str, names: list[str]) -> dict[str, str]:
    """A one-line address split over the tool's address arguments: street, unit, town, state, zip (country: USA)."""
    if len(names) == 1:
        return {names[0]: address}
    parts = [part.strip() for part in address.split(",") if part.strip()]
    found = {name: "" for name in names}
    if "zip" in found and parts and re.fullmatch(r"[A-Za-z ]*\d{5}(?:-\d{4})?", parts[-1]):
        last = parts.pop().split()
        found["zip"] = last.pop()
        if last:
            parts.append(" ".join(last))
    if "state" in found and len(parts) >= 3:
        found["state"] = parts.pop()
    if "city" in found and len(parts) >= 2:
        found["city"] = parts.pop()
    if "address2" in found and len(parts) >= 2:
        found["address2"] = ", ".join(parts[1:])
        parts = parts[:1]
    found[names[0]] = ", ".join(parts)
    if "country" in found:
        found["country"] = "USA"
    return found


def _payment_of(order: dict, prompt: str = "", env: Environment | None = None, returning: bool = False) -> str:
    """The order's own payment method, unless the words ask for one kind ('to my gift card') and the customer holds one
    method of it (a return's refund goes to the original method or a gift card only)."""
    history = order.get("payment_history")
    first = str((history[0] if isinstance(history, list) and history and isinstance(history[0], dict) else {}).get("payment_method_id") or "")
    said = [part for part in re.split(r"(?<=[.!?;])\s+", prompt) if re.search(r"\bcredit ?card|\bgift ?card|\bpay ?pal\b", part, re.IGNORECASE)]
    kinds = {kind for kind, words in (("credit_card", r"\bcredit ?card"), ("gift_card", r"\bgift ?card"), ("paypal", r"\bpay ?pal\b"))
             if any(re.search(words, part, re.IGNORECASE) for part in said)}
    if env is None or len(kinds) != 1 or any(re.search(r"\b(?:not|never|no)\b|n't\b", part, re.IGNORECASE) for part in said):
        return first
    held = (env.call("get_customer", customer_id=order.get("customer_id")) or {}).get("payment_methods") or {}
    rows = held.items() if isinstance(held, dict) else ((row.get("id"), row) for row in held if isinstance(row, dict))
    fit = [str(key) for key, row in rows if isinstance(row, dict) and row.get("source") in kinds
           and (not returning or str(key) == first or row.get("source") == "gift_card")]
    return fit[0] if len(fit) == 1 else first


_ALL_BUT = re.compile(r"\b(?:everything|all)\b[^.?!;]{0,60}?\b(?:except(?: for)?|other than|apart from|but (?=(?:an?|the|my|one)\b))"
                     r"\s*([^.?!;]+)", re.IGNORECASE)
_ALONG_WITH = re.compile(r"\b(?:along |together )?with\b[^,.;]*", re.IGNORECASE)


def _item_ids(order: dict, prompt: str) -> list[str]:
    """The ids of the order's items the request names, else of all its items: 'everything except the coffee machine' names
    all the others; an item named only in a 'with ...' clause ('the backpack I received with the vacuum cleaner') tells
    the order and is not itself changed."""
    items = [item for item in order.get("items") or [] if isinstance(item, dict)]
    said = lambda words: [item for item in items if item.get("name") and _says(words, str(item["name"]))]  # noqa: E731
    but = _ALL_BUT.search(prompt)
    kept = said(but.group(1)) if but else []
    named = [item for item in items if item not in kept] if kept else said(_ALONG_WITH.sub(" ", prompt)) or said(prompt)
    return [str(item.get("item_id", item.get("id"))) for item in (named or items)]


def _new_item_ids(order: dict, prompt: str, state: dict) -> list[str]:
    """The variant each changed item becomes: the one the words ask for, else the first other available variant of its
    product, as the seed's catalogue holds them; with no catalogue of it, the item itself stands for its new variant."""
    items = {str(item.get("item_id", item.get("id"))): item for item in order.get("items") or [] if isinstance(item, dict)}
    words = prompt.lower()
    chosen = []
    for item_id in _item_ids(order, prompt):
        product = next((row for row in state.get("product", {}).values() if isinstance(row, dict) and isinstance(row.get("variants"), dict)
                        and (item_id in row["variants"] or row.get("product_id") == items.get(item_id, {}).get("product_id"))), None)
        others = sorted((other, variant) for other, variant in (product or {}).get("variants", {}).items()
                        if other != item_id and isinstance(variant, dict) and variant.get("available", True) is not False)
        asked = wanted_variant(items.get(item_id, {}), product, prompt) if product else None
        if asked is None and product and re.search(r"\bcheapest\b|\blowest[- ]price|\bleast expensive\b", words):
            asked = _cheapest(items.get(item_id, {}), product)  # "the cheapest one": the catalogue's prices tell it
        if asked is not None and any(other == asked for other, _ in others):
            chosen.append(asked)  # the variant the words ask for, option by option
            continue
        named = [(sum(str(value).lower() in words for value in (variant.get("options") or {}).values()), other) for other, variant in others]
        most = max((count for count, _ in named), default=0)
        # the first variant whose options the words name most, else (no catalogue of it) the item itself
        chosen.append(next((other for count, other in named if count == most), item_id))
    return chosen


def _use(env: Environment, tool: WriteTool, order: dict | None = None, customer_id: str | None = None, amount: int | None = None,
         reason: str | None = None, address: str | None = None, prompt: str = "") -> object:
    """Call the declared tool, each argument filled by its declared role; one the agent has nothing for, empty."""
    args: dict[str, object] = {}
    if tool.order_arg and order is not None:
        args[tool.order_arg] = order["id"]
    if tool.customer_arg:
        args[tool.customer_arg] = customer_id
    if tool.amount_arg:
        args[tool.amount_arg] = amount
    if tool.reason_arg and reason is not None:
        args[tool.reason_arg] = reason
    if tool.address_args and address is not None:
        args.update(_address_parts(address, tool.address_args))
    if order is not None and tool.items_arg:
        args[tool.items_arg] = _item_ids(order, prompt)
    if order is not None and tool.new_items_arg:
        args[tool.new_items_arg] = _new_item_ids(order, prompt, getattr(env, "state", {}))
    if order is not None and tool.payment_arg:
        args[tool.payment_arg] = _payment_of(order, prompt, env, tool.action == "return")
    for name in tool.arguments:
        if name not in args and name not in tool.optional:
            args[name] = ""
    return env.call(tool.name, **args)


def _refuse(env: Environment, what: str) -> None:
    env.call("send_reply", text=f"I'm sorry, I cannot {what}.")


def _hand_over(env: Environment, reason: str) -> None:
    tool = next((tool for tool in getattr(env, "write_tools", {}).values() if tool.action == "escalate"), _DEMO["escalate"])
    _use(env, tool, reason=reason)
    env.call("send_reply", text=HANDED_OVER)


def _refund(order: dict, env: Environment, clock: datetime, policy: RetailPolicy, human_can: bool = False) -> None:
    order_id = order["id"]
    if order.get("status") not in policy.refundable_statuses:
        return _hand_over(env, "a change the tools cannot carry out") if human_can else _refuse(env, f"refund order {order_id}")
    if not _inside_return_window(order, clock, policy):
        return _refuse(env, f"refund order {order_id}")
    remaining = int(order.get("total_cents", 0)) - _already_refunded(env, order_id)
    if remaining <= 0:
        return _refuse(env, f"refund order {order_id} again: it is refunded in full")
    if remaining > policy.auto_refund_limit_cents:
        return _hand_over(env, "refund above the automatic limit")
    _use(env, _tool(policy, "refund", _DEMO["refund"]), order=order, amount=remaining, reason="within policy")
    env.call("send_reply", text=f"I have refunded {remaining / 100:.2f} for order {order_id}.")


def _return_label(order: dict, env: Environment, clock: datetime, policy: RetailPolicy, human_can: bool = False, prompt: str = "") -> None:
    if order.get("status") not in policy.returnable_statuses:
        return _hand_over(env, "a change the tools cannot carry out") if human_can else _refuse(env, f"create a return label for order {order['id']}")
    if not _inside_return_window(order, clock, policy):
        return _refuse(env, f"create a return label for order {order['id']}")
    tool = next((tool for tool in policy.tools if tool.action in ("return_label", "return")), _DEMO["return_label"])
    _use(env, tool, order=order, prompt=prompt)  # the items the customer names (tau2-bench's return takes item ids)
    env.call("send_reply", text=f"Here is the return label for order {order['id']}." if tool.action == "return_label"
             else f"The return of order {order['id']} is requested; you will get an e-mail on how to send it back.")


def _cancel(order: dict, env: Environment, policy: RetailPolicy, human_can: bool = False, prompt: str = "") -> None:
    if order.get("status") not in policy.cancellable_statuses:
        return _hand_over(env, "a change the tools cannot carry out") if human_can else _refuse(env, f"cancel order {order['id']}")
    _use(env, _tool(policy, "cancel", _DEMO["cancel"]), order=order, reason=_why_cancel(prompt))
    env.call("send_reply", text=f"Order {order['id']} is cancelled.")


def _why_cancel(prompt: str) -> str | None:
    """The reason the customer gives for cancelling, as the tool takes it: a mistake, or not needed any more."""
    words = " ".join(re.findall(r"[a-z']+", prompt.lower()))
    if "mistake" in words:
        return "ordered by mistake"
    if "no longer need" in words or re.search(r"(?:n't|not) (?:need|want) (?:\w+ )?any ?more|found (?:a )?(?:better|cheaper) (?:deal|price|offer)", words):
        return "no longer needed"
    return None


_OWN_ADDRESS = re.compile(r"\b(?:default|account|profile|user|home) address|\baddress (?:on|of|in) (?:my|the) (?:account|profile)", re.IGNORECASE)


def _change_address(view: AgentView, env: Environment, policy: RetailPolicy) -> None:
    customer_id = view.actor.get("customer_id")
    if not customer_id or env.call("get_customer", customer_id=customer_id) is None:
        return _hand_over(env, "address change for an unknown customer")
    # Only the order the customer means being on its way needs a human; a default address or a pending
    # order's is the customer's to change, whatever their other orders' status.
    order = _named_order(view, env) or _only_order(view, env)
    if order is not None and order.get("status") in policy.address_change.escalate_when_order_status_in:
        if policy.address_change.in_transit == "decline":
            return env.call("send_reply", text="I cannot change the address: the order is already on its way.")
        return _hand_over(env, "address change while an order is on its way")
    # The order it looked up is an order, not a house number ('order 1001 Oak Lane, ...').
    address = address_in(view.prompt, [order["id"]] if order is not None else [])
    order_tool = next((tool for tool in policy.tools if tool.action == "order_address"), None)
    to_order = (order_tool is not None and order is not None and order.get("customer_id") == customer_id
                and order.get("status") in order_tool.requires_status and not _OWN_ADDRESS.search(view.prompt))
    if address is None:
        # "the same as order #W8277957": that order of theirs, looked up, and its address
        said = [word for word in dict.fromkeys(orders_said_for_address(view.prompt)) if order is None or word.lstrip("#") != str(order["id"]).lstrip("#")]
        theirs = {word: found for word in said if (found := env.call("get_order", order_id=word)) and found.get("customer_id") == customer_id}
        address = address_of_order_said(view.prompt, {word: found.get("shipping_address") for word, found in theirs.items()})
    if address is None:
        # "my Tooele UT address": one the customer already has, on the account or another order, told by its town
        account = env.call("get_customer", customer_id=customer_id) or {}
        theirs = [env.call("get_order", order_id=row["id"]) or {} for row in env.call("list_orders", customer_id=customer_id) or []]
        changing = order.get("shipping_address") if to_order else account.get("address")
        known = [found for found in dict.fromkeys([account.get("address"), *(row.get("shipping_address") for row in theirs)])
                 if isinstance(found, str) and found and found != changing]
        address = address_named(view.prompt, known)
    if address is None:
        return env.call("send_reply", text="Which address should I put on it? Please give me the full address.")
    if to_order:
        # The product changes one order's shipping address and this order takes it: that one, not the account's.
        _use(env, order_tool, order=order, address=address)
        return env.call("send_reply", text=f"The shipping address of order {order['id']} is now {address}.")
    _use(env, _tool(policy, "update_address", _DEMO["update_address"]), customer_id=customer_id, address=address)
    env.call("send_reply", text="Your address is updated.")
    if order_tool is not None and _ORDERS_TOO.search(view.prompt):
        # the words ask an order's own address changed too ('my wrong order address ... and also my default address'): the
        # orders the tool takes that are still elsewhere; all of them for several orders, else the one left, if one
        flat = lambda text: " ".join(str(text).lower().replace(",", " ").split())  # noqa: E731
        takes = [row for row in (env.call("get_order", order_id=listed["id"]) for listed in env.call("list_orders", customer_id=customer_id) or [])
                 if row and row.get("status") in order_tool.requires_status and row.get("shipping_address")
                 and flat(row["shipping_address"]) != flat(address)]
        if _SEVERAL_ORDERS.search(view.prompt) or len(takes) == 1:
            for row in takes:
                _use(env, order_tool, order=row, address=address)
                env.call("send_reply", text=f"The shipping address of order {row['id']} is now {address} too.")


_ORDERS_TOO = re.compile(r"\border(?:'s|s)?\b(?:(?!\band\b)[^.?!;]){0,25}\baddress|\baddress(?:es)?\b[^.?!;]{0,20}\b(?:of|on|for) "
                         r"(?:my|the|all)\b[^.?!;]{0,20}\borders?\b", re.IGNORECASE)
_SEVERAL_ORDERS = re.compile(r"\b(?:all|every|each|both)\b[^.?!;]{0,30}\borders?\b|\borders(?:'|s')?\s+(?:shipping )?address", re.IGNORECASE)


_ALLOWED_STATUSES = {"refund": "refundable_statuses", "return_label": "returnable_statuses", "cancellation": "cancellable_statuses"}
_HANDLERS = {  # (order, env, clock, policy, human_can, the customer's words)
    "refund": lambda order, env, clock, policy, human_can, prompt: _refund(order, env, clock, policy, human_can),
    "return_label": lambda order, env, clock, policy, human_can, prompt: _return_label(order, env, clock, policy, human_can, prompt),
    "cancellation": lambda order, env, clock, policy, human_can, prompt: _cancel(order, env, policy, human_can, prompt),
}
_VERB_INTENT = (("cancel", "cancellation"), ("return", "return_label"), ("refund", "refund"))


def _instead(prompt: str) -> list[str]:
    """Fallbacks in the customer's words: the verb that opens what follows the comma closing an 'if'
    clause (after 'then', 'just', 'please', 'I want to', 'see if it can be'), or what follows ', or'."""
    wanted = []
    lead = {"then", "just", "please", "i", "i'd", "want", "would", "like", "you", "to", "see", "if", "it", "can", "be", "don't", "care", "else"}
    for clause in re.split(r"[.!?;]", prompt.lower()):
        tails = []
        if re.search(r"(?:^|\s)if\s", clause) and "," in clause:
            tails.append(clause.split(",", 1)[1])
        if ", or " in clause:
            tails.append(clause.split(", or ", 1)[1])
        for tail in tails:
            for word in re.findall(r"[a-z']+", tail):
                if word in lead:
                    continue
                wanted += [intent for verb, intent in _VERB_INTENT if word.startswith(verb)]
                break
    return list(dict.fromkeys(wanted))


def _order_request(view: AgentView, env: Environment, policy: RetailPolicy) -> None:
    """An order's status that rules the asked tool out still lets a human make a change the customer
    also asks for (an item change on a pending order): then the request is handed over, not refused."""
    order = _named_order(view, env) or _only_order(view, env)
    if order is None:
        return _refuse(env, "find that order")
    if order.get("customer_id") != view.actor.get("customer_id"):
        return _refuse(env, "help with an order that is not on your account")
    if _follow_catalogue(view, env, policy, order):
        return None
    clock = parse_timestamp(view.clock)
    # policy.yaml `closed_statuses`: a cancelled order takes no change, not even one a human makes.
    human_can = _outside_tools(view, policy) and order.get("status") not in policy.closed_statuses
    if view.intent in _ALLOWED_STATUSES:
        if order.get("status") not in getattr(policy, _ALLOWED_STATUSES[view.intent]):
            if _outside_tools(view, policy) and not any(order.get("status") in getattr(policy, _ALLOWED_STATUSES[intent]) for intent in _instead(view.prompt)) \
                    and _change_items(view, env, policy, order):
                return None
            # what the customer said to do instead, if the order's status allows it
            for intent in _instead(view.prompt):
                if order.get("status") in getattr(policy, _ALLOWED_STATUSES[intent]):
                    return _HANDLERS[intent](order, env, clock, policy, human_can, view.prompt)
        return _HANDLERS[view.intent](order, env, clock, policy, human_can, view.prompt)
    tracking = f" Its tracking number is {order['tracking_number']}." if order.get("tracking_number") else ""
    paid = re.search(r"how much|price|paid|cost|total|amount", view.prompt.lower()) and isinstance(order.get("total_cents"), int)
    total = f" Its total is {int(order['total_cents']) / 100:.2f}." if paid else ""
    env.call("send_reply", text=f"Your order {order['id']} is {str(order.get('status', '')).replace('_', ' ')}.{tracking}{total}")


_REFUSED_WORDS = {"not", "no", "never", "without", "dont", "don't", "doesn't", "didn't", "won't", "isn't"}


def _outside_tools(view: AgentView, policy: RetailPolicy) -> bool:
    """policy.yaml `intents_outside_tools` and `requests_outside_tools`: the customer asks for something
    only a human can do (a phrase with a 'not' among the three words before it is not asked for: "a
    refund, not an exchange")."""
    if view.intent in policy.intents_outside_tools:
        return True
    text = " ".join(view.prompt.lower().split())
    for phrase in policy.requests_outside_tools:
        for found in re.finditer(rf"(?<!\w){re.escape(' '.join(phrase.lower().split()))}(?!\w)", text):
            before = re.findall(r"[a-z']+", text[: found.start()])[-3:]
            if not any(word in _REFUSED_WORDS or word.endswith("n't") for word in before):
                return True
    return False


def _outside_request(view: AgentView, env: Environment, policy: RetailPolicy) -> None:
    """Only a human can do it, and only for the order's owner: an order of someone else is refused."""
    order = _named_order(view, env)
    if order is not None and order.get("customer_id") != view.actor.get("customer_id"):
        return _refuse(env, "help with an order that is not on your account")
    order = order or _only_order(view, env)
    if order is not None and order.get("status") in policy.closed_statuses:
        return _refuse(env, f"change order {order['id']}: it is {order.get('status')}, so nothing on it can change any more")
    if order is not None and (_follow_catalogue(view, env, policy, order) or _change_items(view, env, policy, order)):
        return None
    statuses = {status for tool in policy.tools if tool.action in ("exchange", "modify_items") for status in tool.requires_status}
    paying = view.intent != "exchange" and re.search(r"\bpayment\b|\bpay (?:with|by|for)\b|\bcard\b", view.prompt.lower())
    if order is not None and statuses and not paying and order.get("status") not in statuses and order.get("customer_id") == view.actor.get("customer_id"):
        # the product changes items itself, only on orders in those statuses: a change of this one is refused, not handed on
        return _refuse(env, f"change the items of order {order['id']}: it is {order.get('status')}, and items change only on "
                            f"orders {' or '.join(sorted(statuses))}")
    return _hand_over(env, "a request the tools cannot carry out")


def _change_items(view: AgentView, env: Environment, policy: RetailPolicy, order: dict) -> bool:
    """The product's own tool for an item change (an exchange of a delivered order, an item change of a
    pending one), when it has one for the order's status and the request is not about paying: done, True."""
    if order.get("customer_id") != view.actor.get("customer_id"):
        return False
    if view.intent != "exchange" and re.search(r"\bpayment\b|\bpay (?:with|by|for)\b|\bcard\b", view.prompt.lower()):
        return False
    tool = next((tool for tool in policy.tools if tool.action in ("exchange", "modify_items") and tool.requires_status
                 and order.get("status") in tool.requires_status), None)
    if tool is None or _use(env, tool, order=order, prompt=view.prompt) is None:
        return False
    env.call("send_reply", text=f"The items of order {order['id']} are changed as you asked." if tool.action == "modify_items"
             else f"The exchange for order {order['id']} is requested; you will get an e-mail on how to send the items back.")
    return True


def _follow_catalogue(view: AgentView, env: Environment, policy: RetailPolicy, order: dict) -> bool:
    """An item change with a fallback under a condition the catalogue settles (reference_catalogue.py): the branch the
    product's variants make true, done with the product's own tool for the order's status; True when done."""
    if order.get("customer_id") != view.actor.get("customer_id") or "get_product_details" not in getattr(env, "tools", ()):
        return False
    chosen = conditional_change(view.prompt, order, env, _says)
    if chosen is None:
        return False
    what, item, target, clause, said = chosen
    actions = {"cancel": ("cancel",), "return": ("return", "return_label"), "change": ("exchange", "modify_items")}[what]
    tool = next((tool for tool in policy.tools if tool.action in actions and (not tool.requires_status or order.get("status") in tool.requires_status)), None)
    if tool is None:
        return False
    args: dict[str, object] = {name: "" for name in tool.arguments if name not in tool.optional}
    args.update({name: value for name, value in ((tool.order_arg, order["id"]), (tool.items_arg, [str(item.get("item_id"))]),
                                                 (tool.new_items_arg, [target]), (tool.payment_arg, _payment_of(order))) if name})
    if tool.reason_arg:
        args[tool.reason_arg] = _why_cancel(clause) or _why_cancel(view.prompt) or ""
    if env.call(tool.name, **args) is None:
        return False
    env.call("send_reply", text={"cancel": f"Order {order['id']} is cancelled.", "return": f"The return of order {order['id']} is requested.",
                                 "change": f"The items of order {order['id']} are changed as you asked."}[what] + (f" {said}" if said else ""))
    return True


_TRACKING_OF = re.compile(r"\btracking (?:number|id|code)s?\b[^.?!]*?\bmy (\w+) order\b", re.IGNORECASE)


def _tell_tracking(view: AgentView, env: Environment) -> None:
    """'I also want the tracking number of my cancelled order': the one order of the requester in that status, looked up."""
    for match in _TRACKING_OF.finditer(view.prompt):
        orders = [order for order in env.call("list_orders", customer_id=view.actor.get("customer_id")) or []
                  if str(order.get("status", "")).lower() == match.group(1).lower()]
        if len(orders) == 1 and orders[0].get("tracking_number"):
            env.call("send_reply", text=f"The tracking number of order {orders[0]['id']} is {orders[0]['tracking_number']}.")


_SIDE_IF = re.compile(r"\b(?:if|unless|otherwise|in case|as long as|whether)\b")
_SIDE_OFF = re.compile(r"\b(?:address|payment|card|paypal|mind)\b")
_SIDE_RETURN = re.compile(r"\breturn\w*|\bsend (?:it |them )?back")
_SIDE_CHANGE = re.compile(r"\b(?:exchang|swap|replac|switch|upgrad|modif|chang)\w*")
_SIDE_WITH = re.compile(r"\b(?:along |together )?with\b[^,.;]*")


def _side_requests(view: AgentView, env: Environment, policy: RetailPolicy) -> None:
    """What the customer also asks, outright, of another of their orders' items ('I also want to return the hiking boots'):
    a sentence with no condition asking for a return or an item change (not both), whose items outside a 'with ...' clause
    (that clause tells the order: 'the backpack I received with the vacuum cleaner') the request's own order does not
    hold; the other order holding them (the one holding most of what the sentence names), done with the product's tool
    for its status, within the return window for a return."""
    sentences = [part for part in re.split(r"(?<=[.!?])\s+|\n+|;\s*", view.prompt.lower()) if part.strip() and not _INTRO.match(part)
                 and bool(_SIDE_RETURN.search(part)) != bool(_SIDE_CHANGE.search(part)) and not _SIDE_IF.search(part) and not _SIDE_OFF.search(part)]
    # an address change's request may also change items of its own order ('change its address ... I also want to modify the
    # silicone watch to a metal one'): done there too, with the product's item tool for its status
    own_change = view.intent == "address_change"
    if not sentences or (len(sentences) < 2 and not own_change):
        return  # one request for a return or an item change: the request itself (answer) is all of it
    # the request's own orders: the one it names or tells by its items, those the answer wrote to
    found = _named_order(view, env) or _only_order(view, env)
    mine = {str(value) for call in env.calls if call.status == "ok" and call.name in {tool.name for tool in policy.tools}
            for key, value in call.arguments.items() if key in {tool.order_arg for tool in policy.tools if tool.order_arg}}
    mine |= {found["id"]} if found is not None else set()
    listed = env.call("list_orders", customer_id=view.actor.get("customer_id")) or []
    looked = [order for order in (env.call("get_order", order_id=row["id"]) for row in listed) if order]
    owned = [order for order in looked if order["id"] in mine]
    orders = [order for order in looked if order["id"] not in mine]
    clock, done = parse_timestamp(view.clock), set()
    for sentence in sentences:
        returned = bool(_SIDE_RETURN.search(sentence))
        acted = _SIDE_WITH.sub(" ", sentence)

        def named(order: dict, words: str) -> list[str]:
            return [str(item["name"]) for item in order.get("items") or [] if isinstance(item, dict) and item.get("name") and _says(words, str(item["name"]))]

        if any(named(order, acted) for order in owned):
            holders = [order for order in owned if named(order, acted) and order["id"] not in done]
            tool = next((tool for tool in policy.tools if tool.action in ("exchange", "modify_items") and tool.order_arg and tool.items_arg
                         and len(holders) == 1 and (not tool.requires_status or holders[0].get("status") in tool.requires_status)), None)
            if own_change and not returned and tool is not None and _use(env, tool, order=holders[0], prompt=sentence) is not None:
                done.add(holders[0]["id"])
                env.call("send_reply", text=f"Order {holders[0]['id']}: its items are changed as you asked too.")
            continue
        if len(sentences) < 2 and not own_change:
            continue
        scored = [(len(set(named(order, sentence))), order) for order in orders if named(order, acted)]
        top = [order for score, order in scored if score == max((score for score, _ in scored), default=0)]
        if len(top) != 1 or top[0]["id"] in done or len(set(named(top[0], acted))) != len(named(top[0], acted)):
            continue  # no order, several, or two items of one name: which one is the customer's to say
        order = top[0]
        actions = ("return", "return_label") if returned else ("exchange", "modify_items")
        tool = next((tool for tool in policy.tools if tool.action in actions and tool.order_arg and tool.items_arg
                     and (not tool.requires_status or order.get("status") in tool.requires_status)), None)
        if tool is None or (returned and (order.get("status") not in policy.returnable_statuses or not _inside_return_window(order, clock, policy))):
            continue
        if _use(env, tool, order=order, prompt=acted) is not None:
            done.add(order["id"])
            env.call("send_reply", text=f"Order {order['id']}: done as you asked too.")


def _signed_in(view: AgentView, env: Environment) -> bool:
    """policy.yaml `identity_required`: the requester is a customer the backend knows."""
    customer_id = view.actor.get("customer_id")
    return bool(customer_id) and customer_id in env.state.get("customer", {})


_INTRO = re.compile(r"\s*(?:\(|hi\b|hello\b|hey\b|thanks\b|thank you\b|my name\b|i am\b|i'm\b|i live\b|i go by\b|my e-?mail\b|my zip\b|my user id\b)", re.IGNORECASE)
_QUESTION_WORDS = re.compile(r"^\s*(?:what|where|when|how|which|why|is|are|does|do|did|has|have|was|were)\b|\b(?:know|check|ask|find out|learn|confirm|tell me)\b", re.IGNORECASE)
_CHANGE_WORDS = ("cancel", "return", "refund", "exchang", "modif", "chang", "swap", "replac", "upgrad", "switch", "add", "remov", "updat")


def _only_asks(prompt: str) -> bool:
    """A request that is a question and nothing else: each of its sentences (past a greeting or who the
    customer is) asks, and no word of any asks for a change."""
    asking = [part for part in re.split(r"(?<=[.!?])\s+|\n+", prompt.strip()) if part.strip(" .") and not _INTRO.match(part)]
    if not asking:
        return False
    for part in asking:
        if "?" not in part and not _QUESTION_WORDS.search(part):
            return False
        said = re.findall(r"[a-z]+", part.lower())
        if any(word.startswith(_CHANGE_WORDS) and word not in ("address", "additional", "changes") for word in said):
            return False
    return True


def reference_agent(policy: RetailPolicy) -> Agent:
    """Follows the policy file through the tools: the one agent every sound task must let pass."""
    from taskgen.domains.retail.reference_side import side_address, side_cancellations  # it imports this module's helpers

    def run(view: AgentView, env: Environment) -> None:
        answer(view, env)
        if _signed_in(view, env):
            _tell_tracking(view, env)
            if view.intent not in ("order_status", "other", "account_access"):
                _side_requests(view, env, policy)
                side_cancellations(view, env, policy)
                side_address(view, env, policy)

    def answer(view: AgentView, env: Environment) -> None:
        if view.intent not in ("order_status", "other") and _only_asks(view.prompt):
            # A question is answered, whatever words of an action it was filed under: nothing changed,
            # nothing handed over.
            if _named_order(view, env) or _only_order(view, env):
                view = view.model_copy(update={"intent": "order_status"})
            else:
                return env.call("send_reply", text="Thank you for asking: here is what I can tell you.")
        outside = view.intent not in ("account_access", "address_change", *ORDER_INTENTS) and _outside_tools(view, policy)
        acting = outside or view.intent in ("account_access", "address_change", *ORDER_INTENTS)
        if acting and policy.identity_required and not _signed_in(view, env):
            return _refuse(env, "help with your account or orders before you sign in")
        if outside:
            return _outside_request(view, env, policy)
        if view.intent == "account_access":
            return _hand_over(env, "account access")
        if view.intent == "address_change":
            return _change_address(view, env, policy)
        if view.intent in ORDER_INTENTS:
            return _order_request(view, env, policy)
        env.call("send_reply", text="Thank you for asking: here is what I can tell you.")

    return run
