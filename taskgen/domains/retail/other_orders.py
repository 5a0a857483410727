"""Writes the customer asks for outright on another of their orders, told by its items ("I also want to return the hiking
boots", "for the air purifier I received along with sneakers, I want to exchange the purifier to large size"): required
with what they record pinned, as the task's own write is (third cold review of tau2 drafts, #12: such parts were only
allowed, so a do-nothing agent passed them). Only where the words leave no doubt: a sentence asking for it without a
condition in a request of two or more asking for returns or item changes (a sentence or a ';' clause each), naming items one other order of the customer holds (the one
holding most of what it names) and the task's own order does not, an order the product's tool accepts in its status and
the policy lets the customer change. A cancellation asked outright of another order itself (not of an item of it), told by
its id, the things it holds, or its status and number of items ('a pending order with five items, and I want to cancel it'),
is required too, with the reason the words give (fourth cold review), as is an item change asked outright on the task's own
order where its own request is an address change. Anything else stays allowed (in_scope_parts). The other orders a
session names and the task does not ask changed keep their status and refunds (untouched_orders)."""

from __future__ import annotations

import re
from datetime import datetime

from ingest.models import StateRows
from taskgen.domains import Plan
from taskgen.domains.retail.grader import expect, is_reply_check, orders_of
from taskgen.domains.retail.parts import ORDER_CONTEXT, things_said
from taskgen.domains.retail.policy import RetailPolicy, WriteTool
from taskgen.domains.retail.rules import Decision, refunded_cents, request_sentences, said_not_wanted, write_ruling
from taskgen.task import Expectation

_CONDITIONAL = re.compile(r"\b(?:if|only if|unless|otherwise|in case|as long as|whether)\b", re.IGNORECASE)
_RETURN = re.compile(r"\breturn\w*|\bsend (?:it |them )?back", re.IGNORECASE)
_CHANGE = re.compile(r"\b(?:exchang|swap|replac|switch|upgrad|modif|chang)\w*", re.IGNORECASE)
_NOT_ITEMS = re.compile(r"\b(?:address|payment|card|paypal|mind)\b", re.IGNORECASE)


def _asked(sentence: str) -> str | None:
    """The write a sentence asks for on an order's items: 'return_label' (a return), 'change_items' (an exchange or an
    item change); None for both or neither, or one about an address, a payment or a change of mind."""
    if _CONDITIONAL.search(sentence) or _NOT_ITEMS.search(sentence):
        return None
    returned, changed = bool(_RETURN.search(sentence)), bool(_CHANGE.search(sentence))
    return "return_label" if returned and not changed else "change_items" if changed and not returned else None


def _holder(sentence: str, orders: dict[str, dict], verb: str) -> tuple[str, str] | None:
    """(the one order the sentence's items tell, the words naming what changes on it), or None when none or several tie:
    among the orders holding an item the words outside a 'with ...' clause name, the one holding the most things named."""
    from taskgen.domains.retail.parts import items_named

    acted = ORDER_CONTEXT.sub(" ", sentence)
    counts = {order_id: things_said(row, sentence) for order_id, row in orders.items() if items_named(row, acted, verb)}
    best = max(counts.values(), default=0)
    chosen = [order_id for order_id, count in counts.items() if count == best]
    return (chosen[0], acted) if len(chosen) == 1 else None


def _tool(action: str, status: object, policy: RetailPolicy) -> WriteTool | None:
    actions = ("return_label",) if action == "return_label" else ("exchange", "modify_items")
    return next((tool for tool in policy.tools if tool.plan_action in actions and tool.order_arg and tool.items_arg
                 and (not tool.requires_status or status in tool.requires_status)), None)


_CANCEL_ORDER = re.compile(r"\bcancel\w*\s+(?:(?:the|my|this|that|whole|entire|other|another|pending|second)\s+)*orders?\b"
                           r"|\borders?\b[^.?!;]*\bcancel\w*\s+(?:it|them|that one)\b", re.IGNORECASE)
"""Words asking to cancel an order itself ('cancel order #W5995614', 'a pending order with five items, and I want to cancel
it'), not an item of one ('cancel the skateboard in my other order': an order is cancelled whole, which the agent explains)."""
_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_ITEM_COUNT = re.compile(r"\b(\d+|" + "|".join(_COUNTS) + r")\s+(?:items?|things?|products?)\b", re.IGNORECASE)


def _cancelled_order(sentence: str, orders: dict[str, dict]) -> str | None:
    """The one order (of `orders`: the customer's others) a sentence asking to cancel an order tells: by its id, else by the
    things it holds, else by its status word and how many items it holds ('a pending order with five items'); None when
    none or several fit."""
    if _CONDITIONAL.search(sentence) or not _CANCEL_ORDER.search(sentence):
        return None
    said = [order_id for order_id in orders if re.search(rf"(?<![\w#]){re.escape(order_id.lstrip('#'))}(?!\w)", sentence.replace("#", " "))]
    if said:
        return said[0] if len(said) == 1 else None
    fits = [order_id for order_id, row in orders.items() if things_said(row, sentence)]
    if not fits and (count := _ITEM_COUNT.search(sentence)):
        number = int(count.group(1)) if count.group(1).isdigit() else _COUNTS[count.group(1).lower()]
        fits = [order_id for order_id, row in orders.items() if len(row.get("items") or []) == number]
    statuses = {str(row.get("status")) for row in orders.values()}
    fits = [order_id for order_id in fits if not (named := [status for status in statuses if re.search(rf"\b{re.escape(status)}\b", sentence, re.IGNORECASE)])
            or str(orders[order_id].get("status")) in named]
    return fits[0] if len(fits) == 1 else None


def _cancellations(prompt: str, state: StateRows, actor: dict[str, str], clock: datetime, target: str | None,
                   policy: RetailPolicy) -> list[tuple[str, Decision, str]]:
    """(order, the decision on it, the words asking) for each cancellation asked outright of another order of the customer
    (fourth cold review of tau2 drafts, #12: 'Finally, I want to cancel order #W5995614 because I ordered by mistake' was only
    allowed): one the policy lets the customer cancel, never the task's own order."""
    customer_id = actor.get("customer_id")
    others = {order_id: row for order_id, row in sorted(state.get("order", {}).items())
              if order_id != target and str(row.get("customer_id")) == str(customer_id)}
    found: dict[str, tuple[str, Decision, str]] = {}
    if said_not_wanted(prompt, "cancel") or policy.tool_for("cancel") is None:
        return []
    for sentence in request_sentences(prompt):
        order_id = _cancelled_order(sentence, others)
        if order_id is None or order_id in found:
            continue
        ruling = write_ruling("cancellation", order_id, state, actor, clock, policy)
        if ruling.action == "cancel":
            found[order_id] = (order_id, ruling.model_copy(update={"order_id": order_id, "customer_id": customer_id}), sentence)
    return list(found.values())


def _own_item_change(sentences: list[str], own: dict, target: str | None, own_actions: set[str], policy: RetailPolicy) -> str | None:
    """The words asking outright to change items of the task's own order where the task's own request is another write on
    it (an address change: 'change its address to ... I also want to modify the silicone watch to a metal one', fourth cold
    review, #12): that item change is another part of the request, on the same order, which the product's tool accepts."""
    from taskgen.domains.retail.parts import items_named

    if not target or not own or not own_actions or not own_actions <= {"update_address", "order_address"}:
        return None  # the task's own request is an item change, or a write another item change on the order would undo
    asking = [sentence for sentence in sentences if _asked(sentence) == "change_items" and items_named(own, ORDER_CONTEXT.sub(" ", sentence), "exchange")]
    return asking[0] if len(asking) == 1 and _tool("change_items", own.get("status"), policy) is not None else None


def asked_on_other_orders(prompt: str, state: StateRows, actor: dict[str, str], clock: datetime, target: str | None,
                          policy: RetailPolicy, own_actions: set[str] | None = None) -> list[tuple[str, Decision, str]]:
    """(order, the decision on it, the words asking) for each write the words ask for outright on another order, and (where
    the task's own actions, `own_actions`, change no items) an item change asked outright on the task's own order."""
    from taskgen.domains.retail.parts import items_named

    customer_id = actor.get("customer_id")
    orders = state.get("order", {})
    own = orders.get(target or "", {})
    found: dict[str, tuple[str, Decision, str]] = {}
    cancelled = _cancellations(prompt, state, actor, clock, target, policy)
    sentences = [part for sentence in request_sentences(prompt) for part in re.split(r";\s*", sentence) if part.strip() and _asked(part)]
    if (on_own := _own_item_change(sentences, own, target, own_actions or set(), policy)) is not None:
        tool = _tool("change_items", own.get("status"), policy)
        found[str(target)] = (str(target), Decision(action=tool.plan_action, rule=f"{tool.plan_action}_allowed", order_id=target,
                                                    customer_id=customer_id), on_own.strip())
    if len(sentences) < 2:
        # one request for a return or an item change: the task's own (another order's part, if any, stays allowed)
        return [*found.values(), *(asked for asked in cancelled if asked[0] not in found)]
    for sentence in sentences:
        action = _asked(sentence)
        if said_not_wanted(prompt, "return_label" if action == "return_label" else "exchange"):
            continue
        verb = "return_label" if action == "return_label" else "exchange"
        if own and items_named(own, ORDER_CONTEXT.sub(" ", sentence), verb):
            continue  # the task's own order holds what the sentence names: its part, or the words cannot tell
        held = _holder(sentence, {order_id: row for order_id, row in sorted(orders.items())
                                  if order_id != target and str(row.get("customer_id")) == str(customer_id)}, verb)
        if held is None or held[0] in found:
            continue
        order_id, acted = held
        tool = _tool(action, orders[order_id].get("status"), policy)
        if tool is None:
            continue  # the product refuses the order in its status: a correct agent says so; its checks stay as they are
        ruling = write_ruling("return_label", order_id, state, actor, clock, policy) if action == "return_label" else Decision(
            action=tool.plan_action, rule=f"{tool.plan_action}_allowed", order_id=order_id, customer_id=customer_id)
        if ruling.action != tool.plan_action:
            continue
        found[order_id] = (order_id, ruling.model_copy(update={"order_id": order_id, "customer_id": customer_id}), acted.strip())
    return [*found.values(), *(asked for asked in cancelled if asked[0] not in found)]


_ITEM_STATE = ("order_status", "no_refund", "refunded_total", "refund_exists", "items_held", "items_replaced", "order_recorded",
               "recorded_items", "exchange_variants", "recorded_payment", "order_unrecorded")
"""Checks on what an item change writes on an order (its status, items, records and the price difference settled)."""


def require_other_orders(plan: Plan, prompt: str, state: StateRows, actor: dict[str, str], clock: datetime, target: str | None,
                         policy: RetailPolicy, own_actions: set[str] | None = None) -> tuple[Plan, list[str]]:
    """The plan with each write asked outright on another order (asked_on_other_orders) required: its tool, the end state
    it writes with what it records pinned where the words and the catalogue tell it (the checks plan_for writes for it,
    as for the task's own order), in place of the checks that only allowed it; a review question names each."""
    from taskgen.domains.retail.plans import plan_for  # plans uses this module

    asked = asked_on_other_orders(prompt, state, actor, clock, target, policy, own_actions)
    if not asked:
        return plan, []
    expectations, required, may_change, rubric = list(plan.expectations), list(plan.required_tools), list(plan.may_change), list(plan.rubric)
    questions = []
    for order_id, decision, sentence in asked:
        written = plan_for(decision, state, actor.get("customer_id"), target_order_id=order_id, prompt=sentence, policy=policy)
        checks = [item for item in written.expectations if not is_reply_check(item) and orders_of(item) == {order_id}]
        # on the task's own order, only what the item change writes is checked anew (its other checks, an address, stay)
        expectations = [item for item in expectations if orders_of(item) != {order_id} or (
            order_id == target and not all(option.check in _ITEM_STATE for option in (item.any_of if item.check == "any_of" else [item])))] + checks
        required += [tool for tool in written.required_tools if tool not in required]
        # what the words leave open on that order stays allowed (its address, another part's); what they ask is checked now
        may_change = [allowance for allowance in may_change if allowance.row_id != order_id or allowance.field == "shipping_address"]
        may_change += [allowance for allowance in written.may_change if allowance.row_id == order_id]
        rubric += [f"Order {order_id}: {line}" for line in written.rubric if line.startswith("Judge (")]
        questions.append(f"The customer also asks, outright, for '{decision.action}' on order {order_id} (\"{sentence}\"): the task "
                         f"requires it there ({', '.join(written.required_tools)}), with what it records. Is that the order they mean?")
    return plan.model_copy(update={
        "expectations": expectations, "required_tools": required, "may_change": may_change, "rubric": rubric,
        "forbidden_tools": [tool for tool in plan.forbidden_tools if tool not in required]}), questions


def untouched_orders(order_ids: list[str], state: StateRows) -> list[Expectation]:
    """End-state checks that each of these orders keeps its status and gets no new refund."""
    checks: list[Expectation] = []
    for other in order_ids:
        earlier = refunded_cents(state, other)
        checks += [expect("order_status", order_id=other, status=state["order"][other]["status"]),
                   expect("refunded_total", order_id=other, amount_cents=earlier) if earlier else expect("no_refund", order_id=other)]
    return checks
