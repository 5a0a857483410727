"""Retail policy decisions on a state: the rules both the drafter and the reference agent follow.

Every function here reads the canonical view of a seed (`RetailSchema.canonical`), never a product's
own column names; order ids in text are found by the configured entity patterns (`RetailSchema`).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ingest.models import StateRows
from taskgen.domains.retail.addresses import address_in, address_named, address_of_order_said
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.schema import RetailSchema
from taskgen.seeds import parse_timestamp

Action = Literal["refund", "return_label", "cancel", "update_address", "order_address", "modify_items", "exchange", "inform", "escalate", "decline"]


class Decision(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Action
    rule: str
    order_id: str | None = None
    customer_id: str | None = None
    amount_cents: int | None = None
    address: str | None = None


def order_ids_in(text: str, schema: RetailSchema) -> list[str]:
    return schema.order_ids_in(text)


_CANCEL_REASONS: tuple[tuple[str, str], ...] = (
    (r"\bby mistake\b|\bmistakenly\b|\baccidentally (?:ordered|bought|placed)\b", "ordered by mistake"),
    (r"\bno longer need(?:ed)?\b|\b(?:don't|do not|dont) (?:need|want) (?:it|them|this|that)? ?any ?more\b"
     r"|\bfound (?:a )?(?:better|cheaper) (?:deal|price|offer)\b", "no longer needed"),
)


def cancel_reasons_in(prompt: str) -> list[str]:
    """Every reason for a cancellation the customer states, in tau2-bench's words for it (its retail policy accepts
    'no longer needed' and 'ordered by mistake'; a better deal found elsewhere is the first), in the order they
    state them; [] when they state none."""
    lowered = prompt.lower()
    found = sorted((match.start(), reason) for pattern, reason in _CANCEL_REASONS if (match := re.search(pattern, lowered)))
    return [reason for _, reason in found]


def refunded_cents(state: StateRows, order_id: str) -> int:
    """What the order was refunded: its refund rows, and the refunds its own payment history keeps (tau2-bench's
    cancelled orders, each refunded by the cancellation)."""
    rows = sum(int(row.get("amount_cents", 0)) for row in state.get("refund", {}).values() if row.get("order_id") == order_id)
    history = state.get("order", {}).get(order_id, {}).get("payment_history")
    kept = [entry for entry in history if isinstance(entry, dict) and entry.get("transaction_type") == "refund"] if isinstance(history, list) else []
    return rows + sum(round(float(entry.get("amount") or 0) * 100) for entry in kept)


def customer_orders(state: StateRows, customer_id: str | None) -> list[dict]:
    orders = [row for row in state.get("order", {}).values() if row.get("customer_id") == customer_id]
    return sorted(orders, key=lambda row: (str(row.get("created_at", "")), str(row.get("id", ""))))


def item_names(state: StateRows, order_id: str) -> list[str]:
    """The names of an order's items: its item rows, or an `items` list kept inside the order row."""
    rows = [row for row in state.get("order_item", {}).values() if row.get("order_id") == order_id]
    embedded = state.get("order", {}).get(order_id, {}).get("items")
    rows += [item for item in embedded if isinstance(item, dict)] if isinstance(embedded, list) else []
    return [str(row["name"]) for row in rows if row.get("name")]


def _mentions(prompt: str, name: str) -> bool:
    """The prompt names the item: its whole name, or its last word (the thing itself) when that is no short word."""
    words = name.lower().split()
    candidates = [" ".join(words)] + ([words[-1]] if words and len(words[-1]) >= 4 else [])
    return any(re.search(r"\b" + re.escape(candidate) + r"s?\b", prompt.lower()) for candidate in candidates)


def requested_order_id(prompt: str, state: StateRows, actor: dict[str, str], schema: RetailSchema) -> str | None:
    """What an agent reading only the request can tell: the first order it names, else the
    requester's one and only order, else the one of their orders whose items the request names;
    otherwise no guess."""
    named = order_ids_in(prompt, schema)
    if named:
        return named[0]
    orders = customer_orders(state, actor.get("customer_id"))
    if len(orders) == 1:
        return str(orders[0]["id"])
    matching = [str(order["id"]) for order in orders if any(_mentions(prompt, name) for name in item_names(state, str(order["id"])))]
    return matching[0] if len(matching) == 1 else None


def words_tell_order(prompt: str, order_id: str, state: StateRows, actor: dict[str, str]) -> bool:
    """The customer's words tell this order without the agent's help: they carry its id, or it is the
    requester's one order, or the one of their orders whose items they name (`requested_order_id`)."""
    if re.search(r"(?<![\w-])#?" + re.escape(order_id.lstrip("#")) + r"(?!\w)", prompt):
        return True
    orders = customer_orders(state, actor.get("customer_id"))
    if len(orders) == 1:
        return str(orders[0]["id"]) == order_id
    matching = [str(order["id"]) for order in orders if any(_mentions(prompt, name) for name in item_names(state, str(order["id"])))]
    return matching == [order_id]


def _inside_window(order: dict, clock: datetime, days: int) -> bool:
    """Delivered at most `days` ago; always, when the product keeps no delivery date (no window to judge)."""
    if "delivered_at" not in order:
        return True
    delivered_at = order.get("delivered_at")
    return bool(delivered_at) and clock - parse_timestamp(str(delivered_at)) <= timedelta(days=days)


def _order_gate(order_id: str, state: StateRows, actor: dict[str, str]) -> Decision | None:
    """Declines shared by every order request: unknown order, someone else's order."""
    order = state.get("order", {}).get(order_id)
    if order is None:
        return Decision(action="decline", rule="order_not_found", order_id=order_id)
    if order.get("customer_id") != actor.get("customer_id"):
        return Decision(action="decline", rule="not_order_owner", order_id=order_id)
    return None


def _decide_refund(order_id: str, state: StateRows, clock: datetime, policy: RetailPolicy) -> Decision:
    order = state["order"][order_id]
    if order.get("status") not in policy.refundable_statuses:
        return Decision(action="decline", rule="status_not_refundable", order_id=order_id)
    if not _inside_window(order, clock, policy.return_window_days):
        return Decision(action="decline", rule="outside_return_window", order_id=order_id)
    remaining = int(order.get("total_cents", 0)) - refunded_cents(state, order_id)
    if remaining <= 0:
        return Decision(action="decline", rule="already_refunded", order_id=order_id)
    if remaining > policy.auto_refund_limit_cents:
        return Decision(action="escalate", rule="above_auto_refund_limit", order_id=order_id)
    return Decision(action="refund", rule="refund_allowed", order_id=order_id, amount_cents=remaining)


def _decide_return(order_id: str, state: StateRows, clock: datetime, policy: RetailPolicy) -> Decision:
    order = state["order"][order_id]
    if order.get("status") not in policy.returnable_statuses:
        return Decision(action="decline", rule="status_not_returnable", order_id=order_id)
    if not _inside_window(order, clock, policy.return_window_days):
        return Decision(action="decline", rule="outside_return_window", order_id=order_id)
    return Decision(action="return_label", rule="return_allowed", order_id=order_id)


def _decide_cancel(order_id: str, state: StateRows, policy: RetailPolicy) -> Decision:
    if state["order"][order_id].get("status") not in policy.cancellable_statuses:
        return Decision(action="decline", rule="status_not_cancellable", order_id=order_id)
    return Decision(action="cancel", rule="cancel_allowed", order_id=order_id)


def _decide_address(
    prompt: str, state: StateRows, actor: dict[str, str], policy: RetailPolicy, schema: RetailSchema | None, order_id: str | None = None,
) -> Decision:
    """A customer's address (their default one, or a pending order's) is theirs to change; only the order the
    words tell being on its way (a status in `address_change.escalate_when_order_status_in`) needs a human.
    Another order of the customer in such a status does not lock a default address or a pending order's."""
    customer_id = actor.get("customer_id")
    if customer_id not in state.get("customer", {}):
        return Decision(action="escalate", rule="unknown_customer", customer_id=customer_id)
    order = state.get("order", {}).get(order_id or "")
    locked = set(policy.address_change.escalate_when_order_status_in)
    if order is not None and order.get("status") in locked and words_tell_order(prompt, str(order_id), state, actor):
        # the policy says who answers it: a human (escalate) or the agent, refusing it (decline)
        return Decision(action=policy.address_change.in_transit, rule="order_in_transit", customer_id=customer_id, order_id=order_id)
    address = address_in(prompt, order_ids_in(prompt, schema or RetailSchema())) or address_of_order_said(  # an id is no house number
        prompt, {other: row.get("shipping_address") for other, row in state.get("order", {}).items()
                 if other != order_id and str(row.get("customer_id")) == str(customer_id)})  # "the same as order #W8277957"
    order_tool = policy.tool_for("order_address", str(order.get("status"))) if order is not None else None
    to_order = (order_tool is not None and order.get("customer_id") == customer_id and not _DEFAULT_ADDRESS.search(prompt)
                and words_tell_order(prompt, str(order_id), state, actor))
    if address is None and (to_order or _DEFAULT_ADDRESS.search(prompt)):
        # "to my Tooele UT address": one the customer already has (account, other orders), told by its town, where the
        # words tell whose address changes (the order's, the account's); else the agent may ask or find it (address_to_ask)
        address = address_named(prompt, known_addresses(state, customer_id, (order or {}).get("shipping_address") if to_order else None))
    if to_order:
        # The product changes an order's own shipping address (tau2-bench's modify_pending_order_address) and
        # the order the words tell takes it: that order's address changes, not the customer's.
        return Decision(action="order_address", rule="address_to_ask" if address is None else "order_address_change_allowed",
                        customer_id=customer_id, order_id=order_id, address=address)
    if address is None:
        # No address in the words: the agent asks for it and changes it itself, no hand-over.
        return Decision(action="update_address", rule="address_to_ask", customer_id=customer_id)
    return Decision(action="update_address", rule="address_change_allowed", customer_id=customer_id, address=address)


def known_addresses(state: StateRows, customer_id: str, changing: str | None = None) -> list[str]:
    """The addresses the customer already has (their account's, their orders' own), the one being changed aside
    (`changing`: the order's; None: the account's own, for a change of it)."""
    own = state.get("customer", {}).get(customer_id, {}).get("address")
    orders = [row.get("shipping_address") for row in state.get("order", {}).values() if str(row.get("customer_id")) == customer_id]
    skip = changing if changing is not None else own
    return [address for address in dict.fromkeys([own, *orders]) if isinstance(address, str) and address and address != skip]


ORDER_INTENTS = ("refund", "return_label", "cancellation", "order_status")

_DEFAULT_ADDRESS = re.compile(r"\b(?:default|account|profile|user|home) address\b|\baddress (?:on|of|in) (?:my|the) (?:account|profile)\b", re.IGNORECASE)
"""Words about the customer's own address, not one order's."""
_PAYMENT_CHANGE = re.compile(r"\bpayment\b|\bpay (?:with|by|for)\b|\bcard\b", re.IGNORECASE)


def item_change_tool(intent: str, prompt: str, order: dict | None, customer_id: str | None, policy: RetailPolicy):
    """The product's tool that makes the item change the customer asks for on this order, if it has one
    accepting the order's status (tau2-bench: an exchange of a delivered order, an item change of a pending
    one); None when only a human can make it (the demo's tools, a payment change, another status)."""
    if order is None or order.get("customer_id") != customer_id:
        return None
    if intent != "exchange" and not asks_outside_tools(prompt, policy):
        return None
    if _PAYMENT_CHANGE.search(prompt) and intent != "exchange":
        return None
    status = str(order.get("status"))
    return next((tool for action in ("exchange", "modify_items") if (tool := policy.tool_for(action, status)) is not None
                 and tool.requires_status), None)


def item_change_ruled_out(intent: str, prompt: str, order: dict | None, customer_id: str | None, policy: RetailPolicy) -> bool:
    """The product makes item changes itself, but none on this order's status (tau2-bench: an exchange only of a delivered
    order, an item change only of a pending one): the policy rules the change out, so the agent refuses it; no human
    makes it ("transfer if and only if the request cannot be handled within the scope of your actions"). Fifth cold
    review, #12 family 6: an exchange of a processed order required a transfer the policy does not call for."""
    if order is None or order.get("customer_id") != customer_id or (intent != "exchange" and not asks_outside_tools(prompt, policy)):
        return False
    if _PAYMENT_CHANGE.search(prompt) and intent != "exchange":
        return False
    makes = any(tool.plan_action in ("exchange", "modify_items") and tool.requires_status for tool in policy.tools)
    return makes and item_change_tool(intent, prompt, order, customer_id, policy) is None


_NEGATED = re.compile(r"\b(?:not|no|never|without|n't|dont|doesnt|didnt|wont|isnt|cant)\b(?:\W+\w+){0,2}\W*$|n't(?:\W+\w+){0,2}\W*$")
"""A 'not' among the three words before a phrase; customers write 'dont' without its apostrophe too."""


def asks_outside_tools(prompt: str, policy: RetailPolicy) -> bool:
    """The request asks for something only a human can do (the policy's `requests_outside_tools`), not
    merely mentions it ("a refund, not an exchange")."""
    lowered = " ".join(prompt.lower().split())
    for phrase in policy.requests_outside_tools:
        for match in re.finditer(r"\b" + re.escape(phrase.lower()) + r"\b", lowered):
            if not _NEGATED.search(lowered[: match.start()]):
                return True
    return False


_STATUS_REFUSALS = ("status_not_refundable", "status_not_returnable", "status_not_cancellable")

_FALLBACK = re.compile(
    r"\bif\b[^.!?;]*?,\s*(?:then\s+)?(?:just\s+|please\s+)?(?:i(?:'d| would)? (?:want|like) (?:you )?to\s+|see if it can be\s+)?"
    r"(cancel|return|refund)|,\s*or(?: else)?\s+(?:just\s+)?(cancel|return|refund)",
    re.IGNORECASE,
)
_FALLBACK_INTENT = {"cancel": "cancellation", "return": "return_label", "refund": "refund"}


def fallback_intents(prompt: str) -> list[str]:
    """What the customer says to do instead when the first request cannot be done ("if it cannot be
    returned, cancel it"; "exchange it, or cancel the order"), in the order they say it."""
    found = [(match.group(1) or match.group(2)).lower() for match in _FALLBACK.finditer(prompt)]
    return list(dict.fromkeys(_FALLBACK_INTENT[verb] for verb in found))


_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_ABOUT_ME = re.compile(
    r"^(?:hi|hello|hey|thanks|thank you)\b|^(?:my name is|i am|i'm|i live|my (?:e-?mail|zip|user id)|i go by)\b", re.IGNORECASE
)
_ASKS = re.compile(
    r"^(?:(?:i (?:want|would like|'d like|need|wish) to|i'd like to|can you|could you|please)\s+)?(?:(?:first|also|just)\s+)?"
    r"(?:know|check|ask|find out|see|learn|confirm|tell me|get (?:the|my) tracking)\b"
    r"|^(?:what|where|when|how|which|why|is|are|does|do|did|has|have|was|were)\b",
    re.IGNORECASE,
)
_WRITE_VERBS = re.compile(
    r"\b(?:cancel\w*|return\w*|refund\w*|exchang\w*|modify|modif\w*|chang\w*|swap\w*|replac\w*|upgrad\w*|"
    r"switch\w*|add|remov\w*|updat\w*|send (?:it )?back)\b",
    re.IGNORECASE,
)
_CONDITION = re.compile(r"\b(?:if|only if|unless|otherwise|in case|as long as)\b", re.IGNORECASE)


def request_sentences(prompt: str) -> list[str]:
    """The sentences of a request that ask for something (greetings and who the customer is left out)."""
    sentences = [part.strip() for part in _SENTENCES.split(prompt.strip()) if part.strip(" .")]
    return [sentence for sentence in sentences if not _ABOUT_ME.search(sentence) and not sentence.startswith("(")]


def information_only(prompt: str) -> bool:
    """The customer only asks a question (a status, a tracking number, a price, what an order holds):
    every sentence of the request asks to know something, and none asks for a change, not even under a
    condition ("I want to know if it is 10x zoom. If not, cancel it" asks for a change)."""
    sentences = request_sentences(prompt)
    return bool(sentences) and all(
        (sentence.rstrip().endswith("?") or _ASKS.search(sentence)) and not _WRITE_VERBS.search(_ASKS.sub("", sentence, count=1))
        for sentence in sentences
    )


_ACTION_VERBS = {
    "cancel": r"\bcancel\w*",
    "return_label": r"\breturn\w*|\bsend (?:it |them )?back",
    "refund": r"\brefund\w*|\bmoney back",
    "update_address": r"\baddress",
    "exchange": r"\bexchang\w*|\bswap\w*",
    "modify_items": r"\bexchang\w*|\bswap\w*|\bmodif\w*|\bchange (?:it|them|the \w+)",
}


def conditional_write(prompt: str, action: str) -> str | None:
    """The sentence under whose condition alone the customer asks for `action` ("If 10x zoom is not
    available, cancel the order"; "only if the price is lower, ..."): the words ask for it in no
    sentence without a condition. None when some sentence asks for it outright, or none mentions it."""
    verb = _ACTION_VERBS.get(action)
    if verb is None:
        return None
    mentioning = [sentence for sentence in request_sentences(prompt) if re.search(verb, sentence, re.IGNORECASE)]
    if not mentioning or any(not _CONDITION.search(sentence) for sentence in mentioning):
        return None
    return mentioning[0]


_UNDECIDED_CONDITION = re.compile(
    r"availab|in stock|out of stock|sold out|price|cost|cheaper|expensive|\$|\bbucks\b|\bdollars\b|zoom|colou?r|\bsize\b|"
    r"version|option|model|capacity|material", re.IGNORECASE)
"""A condition about the catalogue (an item or variant available, a price, an option), not about the order's
status: the status rules cannot decide it, whatever the order's status is."""


def fallback_on_catalogue(prompt: str, action: str) -> str | None:
    """The customer's fallback to `action` hangs on a condition about the catalogue ("If it is not available,
    cancel the whole order"; "if the price is more than 3000, cancel"): the words of that condition, else None."""
    intent = {"cancel": "cancellation", "return_label": "return_label", "refund": "refund"}.get(action)
    for match in _FALLBACK.finditer(prompt):
        if _FALLBACK_INTENT[(match.group(1) or match.group(2)).lower()] == intent and _UNDECIDED_CONDITION.search(match.group(0)):
            return match.group(0)
    return None


def said_not_wanted(prompt: str, action: str) -> bool:
    """The customer says they do not want `action` ("I never want to cancel my entire order")."""
    verb = _ACTION_VERBS.get(action)
    return verb is not None and re.search(
        r"\b(?:never|not|don't|dont|won't)\s+(?:\w+\s+)?(?:want|wish|like|need)\s+(?:you\s+)?to\s+(?:\w+\s+)?(?:"
        + verb.replace("\\b", "") + ")", prompt, re.IGNORECASE) is not None


def write_ruling(intent: str, order_id: str, state: StateRows, actor: dict[str, str], clock: datetime, policy: RetailPolicy) -> Decision:
    """What the policy on the seed says of a write the customer names as their fallback, on its own:
    the identity and ownership gates, then the order's own rules (status, window, limit)."""
    if policy.identity_required and actor.get("customer_id") not in state.get("customer", {}):
        return Decision(action="decline", rule="identity_not_verified")
    return _order_gate(order_id, state, actor) or _decide_order(intent, order_id, state, clock, policy)


def fallback_decided(prompt: str, action: str, order_id: str | None, state: StateRows, clock: datetime, policy: RetailPolicy) -> bool:
    """The condition around `action` is one the seed decides: the customer names it as their fallback
    ("if it cannot be returned, see if it can be canceled") and the order's status rules out what they
    asked for outright first."""
    intent = {"cancel": "cancellation", "return_label": "return_label", "refund": "refund"}.get(action)
    if intent is None or order_id not in state.get("order", {}) or intent not in fallback_intents(prompt):
        return False
    if fallback_on_catalogue(prompt, action):
        return False  # "if it is not available, cancel": no status rule decides that
    outright = [sentence for sentence in request_sentences(prompt) if not _CONDITION.search(sentence)]
    asked = [other for other, verb in (("return_label", _ACTION_VERBS["return_label"]), ("refund", _ACTION_VERBS["refund"]),
                                       ("cancellation", _ACTION_VERBS["cancel"]))
             if other != intent and any(re.search(verb, sentence, re.IGNORECASE) for sentence in outright)]
    return any(_decide_order(other, order_id, state, clock, policy).rule in _STATUS_REFUSALS for other in asked)


def _decide_order(intent: str, order_id: str, state: StateRows, clock: datetime, policy: RetailPolicy) -> Decision:
    if intent == "refund":
        return _decide_refund(order_id, state, clock, policy)
    if intent == "return_label":
        return _decide_return(order_id, state, clock, policy)
    return _decide_cancel(order_id, state, policy)


def decide(
    intent: str, prompt: str, state: StateRows, actor: dict[str, str], clock: datetime, policy: RetailPolicy,
    order_id: str | None = None, schema: RetailSchema | None = None,
) -> Decision:
    """What the policy file says the agent should do for this request on this state, about `order_id`
    (`schema`: whose configured order-id patterns tell ids in the words; the demo's when none)."""
    if intent not in ("order_status", "other") and information_only(prompt):
        # A question only: answered, never a change or a hand-over, whatever the intent's words suggest.
        intent = "order_status" if order_id else "other"
    outside = (asks_outside_tools(prompt, policy) or intent in policy.intents_outside_tools) and intent != "order_status"
    if intent not in ORDER_INTENTS and intent not in ("account_access", "address_change") and not outside:
        return Decision(action="inform", rule="information_only")
    if policy.identity_required and actor.get("customer_id") not in state.get("customer", {}):
        return Decision(action="decline", rule="identity_not_verified")
    if intent == "account_access":
        return Decision(action="escalate", rule="account_access_needs_human", customer_id=actor.get("customer_id"))
    if intent == "address_change":
        return _decide_address(prompt, state, actor, policy, schema, order_id)
    if intent not in ORDER_INTENTS:
        # Only a human can do it, for the order's owner: someone else's order is refused, not handed on.
        order = state["order"].get(order_id or "")  # the canonical view carries every role's kind
        if order is not None and order.get("customer_id") != actor.get("customer_id"):
            return Decision(action="decline", rule="not_order_owner", order_id=order_id)
        told = order is not None and order.get("status") in policy.closed_statuses and words_tell_order(prompt, str(order_id), state, actor)
        if told:
            # Nothing left to change (a cancelled order): refused, not handed on.
            return Decision(action="decline", rule="order_closed", order_id=order_id)
        tool = item_change_tool(intent, prompt, order, actor.get("customer_id"), policy)
        if tool is not None:
            return Decision(action=tool.plan_action, rule=f"{tool.plan_action}_allowed", order_id=order_id)
        if item_change_ruled_out(intent, prompt, order, actor.get("customer_id"), policy):
            return Decision(action="decline", rule="item_change_not_allowed", order_id=order_id)
        return Decision(action="escalate", rule="outside_agent_tools", order_id=order_id)
    if order_id is None:
        return Decision(action="decline", rule="order_not_found")
    refusal = _order_gate(order_id, state, actor)
    if refusal is not None:
        return refusal
    if intent == "order_status":
        return Decision(action="inform", rule="order_status_lookup", order_id=order_id)
    decision = _decide_order(intent, order_id, state, clock, policy)
    if decision.rule in _STATUS_REFUSALS:
        # The customer's own fallback, when the order's status rules out what they asked first.
        for other in fallback_intents(prompt):
            instead = _decide_order(other, order_id, state, clock, policy)
            if instead.action != "decline":
                return instead.model_copy(update={"rule": f"customer_fallback_{instead.rule}"})
    tool = item_change_tool("", prompt, state["order"][order_id], actor.get("customer_id"), policy) if decision.rule in _STATUS_REFUSALS and outside else None
    if tool is not None:
        # ... which the product's own tool makes on an order in this status (tau2-bench's exchange of a delivered order).
        return Decision(action=tool.plan_action, rule=f"{tool.plan_action}_allowed", order_id=order_id)
    if decision.rule in _STATUS_REFUSALS and outside and state["order"][order_id].get("status") not in policy.closed_statuses:
        # The order's status rules the tool out, but the customer also asks for a change only a human
        # can make (an item change on a pending order): that goes to a human, not a refusal.
        return Decision(action="escalate", rule="outside_agent_tools", order_id=order_id)
    return decision
