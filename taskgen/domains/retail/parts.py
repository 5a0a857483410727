"""The parts of a request beside the task's own, and the writes that hang on the customer's words: what the
customer also asks for outright (`in_scope_parts`: neither required nor forbidden), a write asked only under a
condition the seed cannot decide (`optional_write`: either end state passes, what it records allowed and, made, pinned),
the fallbacks a customer names for a change only a human makes (`human_change_fallbacks`, `item_change_or_fallback`), and
what a write records on the order, pinned where the seed and the words decide it (`recorded_checks`)."""

from __future__ import annotations

import re

from ingest.models import StateRows
from taskgen.domains import Plan
from taskgen.domains.retail.address_part import account_address_part
from taskgen.domains.retail.grader import allow, expect
from taskgen.domains.retail.payment_words import payment_pinned
from taskgen.domains.retail.policy import RetailPolicy, WriteTool
from taskgen.domains.retail.variants import catalogue, price_cents, variant_asked
from taskgen.domains.retail.rules import (
    _UNDECIDED_CONDITION, Decision, asks_outside_tools, cancel_reasons_in, conditional_write, refunded_cents, request_sentences, said_not_wanted,
    write_ruling,
)
from taskgen.task import Allowance, Expectation

_PART_VERBS: dict[str, str] = {
    "cancel": r"\bcancel(?!l?ed\s+(?:\w+\s+)?orders?\b)\w*",
    "return_label": r"\breturn\w*|\bsend (?:it |them )?back",
    "refund": r"\brefund\w*|\bmoney back",
    "update_address": r"\b(?:chang|updat|modif|correct)\w*\b[^.?!;]{0,60}\baddress\b",
}
# a cancelled order is no cancellation asked ('the tracking number of my cancelled order'): fifth cold review, #12
_PART_TOOLS = {"cancel": "cancel_order", "return_label": "create_return_label", "refund": "refund_order",
               "update_address": "update_address", "escalate": "escalate_to_human"}
"""Each part's tool where the policy declares none for it (the demo's names); the declared tool's name otherwise."""


_ITEM_CHANGE = (r"\b(?:exchang|swap|replac|switch|upgrad)\w*|\b(?:chang|modif)\w*\b(?!\s+(?:my|her|his|their)\s+mind)"
                r"(?!(?:(?!\band\b)[^.?!;,]){0,60}\b(?:address|payment|card|paypal)\b)")
"""Words asking for an order's items changed (not an address or a payment method in the same clause, not a change of mind)."""
_ITEM_ACTIONS = ("exchange", "modify_items")


def _part_tools(part: str, policy: RetailPolicy) -> set[str]:
    """The tools that carry out another part of the request: the declared tool of its action (an address change
    also on the order's own address, where the product changes that; an item change either of the product's item
    tools, which one hanging on the order's status)."""
    if part == "change_items":
        return {tool.name for tool in policy.tools if tool.plan_action in _ITEM_ACTIONS}
    tools = {policy.escalation_tool if part == "escalate" else policy.tool_name(part, _PART_TOOLS[part])}
    if part == "update_address" and (order_tool := policy.tool_for("order_address")) is not None:
        tools.add(order_tool.name)
    return tools
_INTENT_ACTION = {"refund": "refund", "return_label": "return_label", "cancellation": "cancel", "address_change": "update_address",
                  "exchange": "escalate"}
_CONDITIONAL = re.compile(r"\b(?:if|only if|unless|otherwise|in case|as long as)\b", re.IGNORECASE)


def other_parts(prompt: str, main: set[str], policy: RetailPolicy, on_catalogue: bool = True) -> list[str]:
    """The other things the customer asks for outright beside the task's own request (`main`: its actions):
    another write ('cancel', 'return_label', 'refund', 'update_address', 'change_items' where the product's
    own tools change items) or a change only a human makes ('escalate'). A part asked only under a condition, or said not wanted, is none (optional_write and
    human_change_fallbacks rule on those)."""
    sentences = [sentence for sentence in request_sentences(prompt) if not _CONDITIONAL.search(sentence)]
    # an item change asked under a condition on the catalogue ("If the same item is available online, I'm willing to
    # exchange it", tau2 task 91): either branch is right until a person decides it, so its tools are left free too
    conditioned = [sentence for sentence in request_sentences(prompt)
                   if on_catalogue and _CONDITIONAL.search(sentence) and _UNDECIDED_CONDITION.search(sentence)]
    parts = [action for action, verb in _PART_VERBS.items()
             if action not in main and not said_not_wanted(prompt, action)
             and any(re.search(verb, sentence, re.IGNORECASE) for sentence in sentences)]
    if (not main & {*_ITEM_ACTIONS, "escalate"} and any(tool.plan_action in _ITEM_ACTIONS for tool in policy.tools)
            and any(re.search(_ITEM_CHANGE, sentence, re.IGNORECASE) for sentence in [*sentences, *conditioned])):
        parts.append("change_items")  # the product's own item tools change an order's items (tau2-bench)
    if "escalate" not in main and any(
        asks_outside_tools(sentence, policy) and not re.search(_PART_VERBS["update_address"], sentence, re.IGNORECASE)
        and not any(re.search(_PART_VERBS[action], sentence, re.IGNORECASE) for action in main if action in _PART_VERBS)
        for sentence in sentences
    ):
        parts.append("escalate")
    return parts


def main_actions(intent: str, *decisions: Decision) -> set[str]:
    """The actions the task's own request is about: its intent's and each decision's."""
    return {action for action in (_INTENT_ACTION.get(intent), *(decision.action for decision in decisions)) if action}


def in_scope_parts(
    plan: Plan, prompt: str, main: set[str], state: StateRows, customer_id: str | None, order_id: str | None,
    policy: RetailPolicy,
) -> tuple[Plan, list[str]]:
    """The plan judged on the part of the request the task is about: what the customer's other parts ask
    for (another write, a hand-over for an item change) is neither required nor forbidden, and the state
    those parts change (the customer's address, another of their orders cancelled, returned, its items changed) may
    change, a check that an order stays as on the seed widened to the status a part's tool sets on it. The target
    order keeps its checks on the task's own write (only its items may change beside it, no cancellation); the task's
    own kind of change asked on other orders is allowed there (`_asked_again`); a review question names the parts left
    to the agent."""
    parts = other_parts(prompt, main, policy)
    again, unforbidden = _asked_again(prompt, main, plan, state, order_id, policy)
    if not parts and not again:
        return plan, []
    freed = {tool for part in parts for tool in _part_tools(part, policy)}
    # a part asked only under a condition on the catalogue writes on the other orders only: the target's checks keep it out
    conditioned = freed - {tool for part in other_parts(prompt, main, policy, on_catalogue=False) for tool in _part_tools(part, policy)}
    anywhere, elsewhere = freed - conditioned, again | conditioned
    expectations: list[Expectation] = []
    settled: set[str] = set()
    address_may: list[Allowance] = []
    address_rubric: list[str] = []
    address_required: list[str] = []  # the address checks the words decide (account_address_part), required not left
    for item in plan.expectations:
        if "update_address" in parts and item.check == "address_equals":
            checks, allowed, judged = account_address_part(
                item, [sentence for sentence in request_sentences(prompt) if not _CONDITIONAL.search(sentence)], state, policy, order_id)
            expectations, address_may, address_rubric = [*expectations, *checks], [*address_may, *allowed], [*address_rubric, *judged]
            address_required += [check.describe() for check in checks if check != item]
            continue
        elif "escalate" in parts and item.check == "not_escalated" and "order_id" not in item.args:
            continue  # a hand-over for the other part is right; one for this order is judged by the rubric
        elif item.check in ("no_refund", "refunded_total") and any(
                tool.settles_difference for tool in _writing(_on(item, anywhere, elsewhere, order_id), item, state, policy, order_id)):
            # an item change another part asks for on this order settles a price difference of any amount (a cheaper
            # item refunds it): the order's refunds and payments may change, not checked (a cancellation's refund neither)
            settled.add(str(item.args["order_id"]))
            continue
        elif item.check in ("order_status", "no_refund", "refunded_total"):
            cancelled = [expect("order_status", order_id=item.args["order_id"], status="cancelled")] if (
                "cancel" in parts and item.check == "order_status" and item.args.get("order_id") != order_id
                and item.args.get("status") in policy.cancellable_statuses) else []
            widened = _or_part_written(item, _writing(_on(item, anywhere, elsewhere, order_id), item, state, policy, order_id), state)
            options = list({option.describe(): option for option in [item, *cancelled, *widened.any_of[1:]]}.values())
            item = Expectation(check="any_of", any_of=options) if len(options) > 1 else item
        expectations.append(item)
    may_change = [*plan.may_change, *(allow("order", str(item.args["order_id"]), field)
                                      for item in plan.expectations if item.check == "order_status"
                                      for tool in _writing(_on(item, anywhere, elsewhere, order_id), item, state, policy, order_id)
                                      for field in _fields_written(tool))]
    may_change += [allow(kind, order) for order in sorted(settled) for kind in ("refund", "payment")] + address_may
    if not parts:
        return plan.model_copy(update={
            "expectations": expectations, "may_change": distinct(may_change),
            "forbidden_tools": [tool for tool in plan.forbidden_tools if tool not in unforbidden]}), [
            f"The customer asks for the task's own kind of change on more than one order; the task judges order {order_id} and "
            f"lets the agent do it on the others ({', '.join(sorted(again))}: their end state allowed there). "
            "Split the request into tasks of their own?"]
    rubric = [*plan.rubric, *address_rubric]
    if "escalate" in parts and order_id and any(item.check == "not_escalated" for item in plan.expectations):
        rubric.append(f"Judge: is no hand-over to a human about order {order_id} itself (one for the customer's other request is fine)?")
    declared = sorted(freed & {tool.name for tool in policy.tools})  # a tool the product lacks is no tool the task frees
    question = (f"The customer also asks for {', '.join(parts)} beside this task's request; the task judges "
                f"{'order ' + order_id if order_id else 'its own request'} and leaves the other part to the agent "
                f"({', '.join(declared) + ' neither required nor forbidden' if declared else 'no tool of the product makes it'})"
                + (f"; the address change it asks for is required ({'; '.join(address_required)})" if address_required else "")
                + ". Split the request into tasks of their own?")
    return plan.model_copy(update={
        "expectations": expectations, "rubric": rubric, "may_change": distinct(may_change),
        "forbidden_tools": [tool for tool in plan.forbidden_tools if tool not in freed | unforbidden or tool in plan.required_tools],
    }), [question]


def _on(item: Expectation, freed: set[str], again: set[str], target: str | None) -> set[str]:
    """The tools that may write on the order a check is about: the other parts' anywhere, the task's own kind of
    change asked again (`again`) on the other orders only."""
    return freed | again if str(item.args.get("order_id")) != target else freed


def _asked_again(prompt: str, main: set[str], plan: Plan, state: StateRows, target: str | None,
                 policy: RetailPolicy) -> tuple[set[str], set[str]]:
    """(the tools of the task's own kind of change where the customer may ask for it on another order, those of them
    not to forbid by name). It may: its verb in two sentences of the request, or on orders in the plural ("returns
    from different orders"), or the words name no order id and the tool refuses the task's own order (the order the
    customer means may be another). Not forbidden: those a call of which on the task's own order still fails the plan
    by its end state (the tool refuses the order in its status, or the status it sets is not one the plan checks)."""
    sentences = [sentence for sentence in request_sentences(prompt) if not _CONDITIONAL.search(sentence)]
    verbs = {**_PART_VERBS, **{action: _ITEM_CHANGE for action in _ITEM_ACTIONS}}
    status = state.get("order", {}).get(target or "", {}).get("status")
    checked = {item.args.get("status") for item in plan.expectations if item.check == "order_status" and item.args.get("order_id") == target}

    def caught(tool: WriteTool) -> bool:
        return bool((tool.requires_status and status not in tool.requires_status) or (tool.sets_status and checked and tool.sets_status not in checked))

    again: set[str] = set()
    for action in main:
        if action not in verbs or said_not_wanted(prompt, action):
            continue
        said = [sentence for sentence in sentences if re.search(verbs[action], sentence, re.IGNORECASE)]
        tools = [tool for tool in policy.tools if tool.order_arg and tool.name in _part_tools("change_items" if action in _ITEM_ACTIONS else action, policy)]
        if len(said) > 1 or any(_PLURAL_ORDERS.search(sentence) for sentence in said):
            again |= {tool.name for tool in tools}
        elif said and target and target not in prompt:
            again |= {tool.name for tool in tools if tool.requires_status and status not in tool.requires_status}
    return again, {name for name in again if caught(next(tool for tool in policy.tools if tool.name == name))}


_PLURAL_ORDERS = re.compile(r"\b(?:different|other|several|multiple|both|two|all (?:of )?my(?: \w+)?) orders\b", re.IGNORECASE)


def _writing(freed: set[str], item: Expectation, state: StateRows, policy: RetailPolicy, target: str | None) -> list[WriteTool]:
    """The freed tools that would write on the order a check holds unchanged (its status as on the seed, no new refund):
    those acting on an order and accepting it in its seed status (on the task's own order, no cancellation: that
    is another task's outcome). A check on another end state (the task's own write) is left alone."""
    order_id = str(item.args.get("order_id"))
    status = state.get("order", {}).get(order_id, {}).get("status")
    if status is None or (item.check == "order_status" and item.args.get("status") != status):
        return []
    return [tool for tool in policy.tools if tool.name in freed and tool.order_arg
            and (not tool.requires_status or status in tool.requires_status)
            and not (order_id == target and tool.action == "cancel")]


def _or_part_written(item: Expectation, tools: list[WriteTool], state: StateRows) -> Expectation:
    """A check that an order stays as it is, widened to what the customer's other part writes on it: the status its
    tool sets, the refund of the order's unrefunded amount a cancellation makes."""
    order_id = str(item.args["order_id"])
    if item.check == "order_status":
        options = [expect("order_status", order_id=order_id, status=status)
                   for status in dict.fromkeys(tool.sets_status for tool in tools if tool.sets_status)]
    else:
        remaining = int(state["order"][order_id].get("total_cents") or 0) - refunded_cents(state, order_id)
        options = [expect("refund_exists", order_id=order_id, amount_cents=remaining)] if remaining > 0 and any(tool.refunds for tool in tools) else []
    return Expectation(check="any_of", any_of=[item, *options]) if options else item


def _fields_written(tool: WriteTool) -> list[str]:
    """The order fields a tool writes beside its status: what it records, the order's address."""
    return [*tool.records, *(["items"] if tool.rewrites_items else []), *(["shipping_address"] if tool.address_args and tool.order_arg else [])]


def recorded_checks(tool: WriteTool, order_id: str | None, state: StateRows, customer_id: str | None, prompt: str) -> tuple[list[Expectation], list[str]]:
    """What the declared tool records on the order, as end-state checks that can fail: the items (the ones the customer's
    words name; the new ones variants of the same products), the payment method (one the customer holds; for a return,
    the order's own or a gift card); presence only (`order_recorded`) where code cannot tell; and the rubric items for
    what code cannot pin."""
    checks: list[Expectation] = []
    order = state.get("order", {}).get(order_id or "") or {}
    field_of = {argument: field for field, argument in tool.records.items()}
    rubric: list[str] = []
    for field, argument in tool.records.items():
        if argument == tool.items_arg and (named := items_named(order, prompt, tool.plan_action)):
            checks.append(expect("recorded_items", order_id=order_id, field=field, items=",".join(named)))
        elif argument == tool.new_items_arg and tool.items_arg in field_of:
            named = items_named(order, prompt, tool.plan_action)
            held = {str(item.get("item_id")): item for item in order.get("items") or [] if isinstance(item, dict)}
            new = [variant_asked(held[item], state, prompt) for item in named if item in held]
            if named and len(new) == len(named) and all(new):
                # the seed's catalogue tells the variant the words ask for: the new items are exactly those
                checks.append(expect("exchange_variants", order_id=order_id, field=field_of[tool.items_arg], new_field=field,
                                     new_items=",".join(str(item) for item in new)))
                continue
            checks.append(expect("exchange_variants", order_id=order_id, field=field_of[tool.items_arg], new_field=field))
            rubric.append("Judge (code checks only the count and, where the seed holds the catalogue, the product): are the new "
                          "items the variants the customer asked for?")
        elif argument == tool.payment_arg and customer_id:
            original = {"original_or_gift_card": 1} if tool.action == "return" else {}
            pinned = payment_pinned(state, order_id, customer_id, prompt, bool(original))
            checks.append(expect("recorded_payment", order_id=order_id, field=field, customer_id=customer_id, **original, **pinned))
        else:
            checks.append(expect("order_recorded", order_id=order_id, field=field))
            if argument == tool.items_arg:
                rubric.append("Judge (code cannot tell which items the words mean): are the items recorded the ones the customer names?")
    if tool.rewrites_items and tool.items_arg:
        replaced, judged = item_change_checks(tool, order_id, order, state, prompt)
        checks += replaced
        rubric += judged
    elif tool.plan_action == "modify_items" and tool.items_arg and not field_of.get(tool.items_arg):
        rubric.append("Judge (the tool records no item change on the order; code checks its status only): are the items "
                      "changed the ones the customer names, to the variants asked for, paid with a method the customer holds?")
    return checks, rubric


def item_change_checks(tool: WriteTool, order_id: str | None, order: dict, state: StateRows, prompt: str) -> tuple[list[Expectation], list[str]]:
    """What a tool rewriting the order's items writes (tau2-bench's modify_pending_order_items): the items the words name
    replaced, by the variant the words ask for where the seed's catalogue tells it (else any other available variant of
    the same product); and, where it settles the price difference and the new items are pinned, the refund of a cheaper
    change. The rubric keeps what code cannot pin."""
    named = items_named(order, prompt, "exchange")
    items = {str(item.get("item_id")): item for item in order.get("items") or [] if isinstance(item, dict)}
    products = {product for product, _ in catalogue(state).values()}
    if not named or not all(str(items[item].get("product_id")) in products for item in named):
        # the words tell no item, or the seed holds no catalogue of it (no other variant an agent could find there)
        return [], ["Judge (code checks the order's status; the seed holds no catalogue to check the new items against): are "
                    "the items changed the ones the customer names, to the variants asked for, and is the price difference "
                    "refunded or charged?"]
    new = [variant_asked(items[item], state, prompt) for item in named]
    if not all(new):
        return [expect("items_replaced", order_id=order_id, items=",".join(named))], [
            "Judge (code checks only that the named items became other available variants of the same product): are the new "
            "items the variants the customer asked for?"]
    checks = [expect("items_replaced", order_id=order_id, items=",".join(named), new_items=",".join(new))]
    variants = catalogue(state)
    old_prices = [price_cents(items[item].get("price")) for item in named]
    new_prices = [price_cents(variants[item][1].get("price")) for item in new]
    if tool.settles_difference and None not in old_prices and None not in new_prices:
        difference = sum(new_prices) - sum(old_prices)
        if difference < 0:
            checks.append(expect("refund_exists", order_id=order_id, amount_cents=-difference))
    return checks, []


_ITEM_VERBS = {"exchange": r"\bexchang\w*|\bswap\w*|\bchange\b|\breplace\w*|\bmodif\w*", "return_label": r"\breturn\w*|\bsend (?:it |them )?back"}


def items_named(order: dict, prompt: str, action: str) -> list[str]:
    """The ids of the order's items the customer's request for `action` names (by the item's name or its last word, in
    the singular or plural, or its name written apart: 'book shelf' for a Bookshelf), in the sentences asking for that
    action, else with the sentence before each (what "the less expensive one" refers back to); [] when the words name
    none, or a thing the order holds several different items of (code cannot tell which, unless the words tell them by
    price: 'the less expensive one')."""
    verb = _ITEM_VERBS.get(action)
    items = [item for item in order.get("items") or [] if isinstance(item, dict) and item.get("name") and item.get("item_id")]
    asked = request_sentences(prompt)
    own = [sentence for sentence in asked if verb and re.search(verb, sentence, re.IGNORECASE)]
    with_before = [sentence for index, sentence in enumerate(asked) if any(later in own for later in asked[index:index + 2])]
    for sentences in (own, with_before):
        text = " ".join(sentences).lower()
        chosen, whole = _chosen(items, text)
        if chosen:
            break
    if chosen and whole:
        return sorted(str(item["item_id"]) for item in chosen)  # every item but those kept: two of one name are both meant
    if len({str(item["name"]) for item in chosen}) == 1 and len(chosen) > 1 and (by_price := _BY_PRICE.search(text)):
        # "I received two tablets and want to return the less expensive one": the seed's prices tell which
        prices = sorted({float(item["price"]) for item in chosen if isinstance(item.get("price"), int | float)})
        if len(prices) == len(chosen):
            wanted = prices[0] if by_price.group(1) else prices[-1]
            chosen = [item for item in chosen if float(item["price"]) == wanted]
    named = [str(item["item_id"]) for item in chosen]
    if len(set(named)) != len(named) or len({str(item["name"]) for item in chosen}) != len(set(named)):
        return []  # one thing the order holds twice, or two items of one name: which one is the customer's to say
    return sorted(named)


_EXCEPT = re.compile(r"\b(?:everything|all)\b[^.?!;]{0,60}?\b(?:except(?: for)?|other than|apart from|but (?=(?:an?|the|my|one)\b))\s*(?P<kept>[^.?!;]+)",
                     re.IGNORECASE)
"""Every item but some ('return everything I just bought except the coffee machine'; 'everything but a tablet'): the
items named after the word are the ones kept."""
ORDER_CONTEXT = re.compile(r"\b(?:along |together )?with\b[^,.;]*", re.IGNORECASE)
"""What tells the order, not what changes ('the backpack I received with the vacuum cleaner', 'for the air purifier I
received along with sneakers'): the items named there find the order; those named outside it are the ones acted on."""


def _chosen(items: list[dict], text: str) -> tuple[list[dict], bool]:
    """(the items the words ask for, whether they are all but some): all but those an 'everything except ...' keeps; else
    those named outside a 'with ...' clause telling the order (the vacuum cleaner the backpack came with stays), else those
    named at all."""
    if (kept := _EXCEPT.search(text)) and (held := [item for item in items if _says(kept.group("kept").lower(), str(item["name"]))]):
        return [item for item in items if item not in held], True
    acted = ORDER_CONTEXT.sub(" ", text)
    return [item for item in items if _says(acted, str(item["name"]))] or [item for item in items if _says(text, str(item["name"]))], False


def things_said(order: dict, text: str) -> int:
    """How many different things of the order the words name, a 'with ...' clause telling the order included."""
    return len({str(item["name"]) for item in order.get("items") or [] if isinstance(item, dict) and item.get("name")
                and _says(text.lower(), str(item["name"]))})


def _says(text: str, name: str) -> bool:
    """The words name the item: its name or its last word (if not a short one), singular or plural, or run together."""
    words = name.lower().split()
    things = {" ".join(words), *([words[-1]] if len(words[-1]) > 3 else [])}
    spellings = {form for thing in things for form in (thing, thing + "s", thing + "es", re.sub(r"f$", "ves", thing), re.sub(r"y$", "ies", thing))}
    joined = "".join(words)
    return any(re.search(rf"(?<!\w){re.escape(spelling)}(?!\w)", text) for spelling in spellings) or (
        len(joined) >= 6 and joined in re.sub(r"[^a-z0-9]", "", text))


_BY_PRICE = re.compile(r"\b(?:(less expensive|cheaper|cheapest|lower[- ]priced)|more expensive|pricier|most expensive|higher[- ]priced)\b", re.IGNORECASE)


PINNED_RECORDS = ("recorded_items", "exchange_variants", "recorded_payment")
"""Checks on what a write records on the order (which items, which payment method)."""


def distinct(allowances: list[Allowance]) -> list[Allowance]:
    """Each allowance once, in the order first named."""
    first: dict[tuple[str, str, str | None], Allowance] = {}
    for item in allowances:
        first.setdefault((item.kind, item.row_id, item.field), item)
    return list(first.values())


def if_written(item: Expectation) -> Expectation:
    """A check on what an optional write records: it holds, or the write was not made (the field it records is empty)."""
    field = item.args.get("new_field", item.args["field"])
    return Expectation(check="any_of", any_of=[item, expect("order_unrecorded", order_id=item.args["order_id"], field=field)])


def reason_check(order_id: str | None, prompt: str) -> Expectation | None:
    """The cancellation's reason, where the words state it: that one, or any of those they state under their
    conditions ('cancel with the reason of no longer needed ... if it costs more, with the reason of ordered by
    mistake'); None when they state none."""
    checks = [expect("cancel_reason", order_id=order_id, reason=reason) for reason in cancel_reasons_in(prompt)]
    return None if not checks else checks[0] if len(checks) == 1 else Expectation(check="any_of", any_of=checks)


def _is_reason(item: Expectation) -> bool:
    return item.check == "cancel_reason" or (item.check == "any_of" and bool(item.any_of) and all(option.check == "cancel_reason" for option in item.any_of))


def if_replaced(item: Expectation) -> Expectation:
    """A check on an optional item change: the items were replaced as asked, or the order still holds them (not made)."""
    return Expectation(check="any_of", any_of=[item, expect("items_held", order_id=item.args["order_id"], items=item.args["items"])])


def optional_write(plan: Plan, decision: Decision, state: StateRows, order_id: str | None) -> Plan:
    """The plan with its write allowed but not required: the write's end state or the seed's, either passes."""
    order = state.get("order", {}).get(order_id or "")
    customer = state.get("customer", {}).get(decision.customer_id or "")
    unchanged = {
        "order_status": lambda item: expect("order_status", order_id=item.args["order_id"], status=order["status"]) if order else None,
        "refund_exists": lambda item: (expect("refunded_total", order_id=order_id, amount_cents=refunded_cents(state, order_id or ""))
                                       if refunded_cents(state, order_id or "") else expect("no_refund", order_id=order_id)),
        "return_label_exists": lambda item: None,  # no label row on the seed: the new row is a `may_change`
        "address_equals": lambda item: expect("address_equals", customer_id=decision.customer_id, address=customer["address"]) if customer and customer.get("address") else None,
        "order_address_equals": lambda item: (expect("order_address_equals", order_id=order_id, address=order["shipping_address"])
                                              if order and order.get("shipping_address") else None),
    }
    write_check = {"cancel": "order_status", "refund": "refund_exists", "return_label": "return_label_exists", "update_address": "address_equals",
                   "order_address": "order_address_equals", "modify_items": "order_status", "exchange": "order_status"}[decision.action]
    if not any(item.check == write_check for item in plan.expectations):
        write_check = "order_status"  # the product's return is a status it writes (tau2-bench), no label row
    expectations, may_change = [], list(plan.may_change)
    for index, item in enumerate(plan.expectations):
        if _is_reason(item):
            # a cancellation the task no longer requires: made, with the reason the words state; else the seed's status
            alternative = unchanged["order_status"](item.any_of[0] if item.check == "any_of" else item)
            expectations.append(Expectation(check="any_of", any_of=[*(item.any_of if item.check == "any_of" else [item]), alternative])
                                if alternative is not None else item)
            continue
        if item.check == "order_recorded":
            may_change.append(allow("order", item.args["order_id"], str(item.args["field"])))  # what the write records, if made
            continue
        if item.check in PINNED_RECORDS:
            expectations.append(if_written(item))  # the write is optional; made, it records what the customer asked for
            continue
        if item.check == "items_replaced":
            expectations.append(if_replaced(item))
            continue
        if item.check == "refund_exists" and write_check != "refund_exists":
            # the price difference an optional item change refunds: that refund, or none (the seed's)
            expectations.append(Expectation(check="any_of", any_of=[item, unchanged["refund_exists"](item)]))
            continue
        if item.check == "return_label_exists":
            may_change.append(allow("return_label", item.args["order_id"]))  # a label, if made; none on the seed either
            continue
        if item.check == write_check and not any(earlier.check == write_check for earlier in plan.expectations[:index]):
            alternative = unchanged[write_check](item)
            item = Expectation(check="any_of", any_of=[item, alternative]) if alternative is not None else item
        expectations.append(item)
    rubric = ["Judge: does the reply answer what the customer asked, and act on their condition only as it holds (checking it "
              "first, never assuming it)?", *(item for item in plan.rubric if item.startswith("Judge ("))]  # what code cannot pin, if written
    return plan.model_copy(update={"expectations": expectations, "required_tools": [], "rubric": rubric, "may_change": distinct(may_change)})


_FALLBACK_WRITES = {"cancel": ("cancellation", "cancel_order"), "return_label": ("return_label", "create_return_label"),
                    "refund": ("refund", "refund_order")}


def human_change_fallbacks(
    plan: Plan, prompt: str, state: StateRows, actor: dict[str, str], clock, policy: RetailPolicy, order_id: str
) -> tuple[Plan, list[str]]:
    """A change only a human makes (handed over) with a write the customer asks for only under a condition
    ("If not, I want to return my current one"; "If it is not available, cancel the whole order"). What the
    seed decides, it decides: a write the policy refuses on the seed (its status, window, owner) stays
    forbidden, the rule quoted. A write the policy allows hangs on a condition only the human can settle
    (whether the change can be made): allowed, not required, with a review question."""
    questions: list[str] = []
    for action, (intent, tool) in _FALLBACK_WRITES.items():
        condition = conditional_write(prompt, action)
        if condition is None or said_not_wanted(prompt, action) or order_id not in state.get("order", {}):
            continue
        ruling = write_ruling(intent, order_id, state, actor, clock, policy)
        if ruling.action != action:
            questions.append(
                f"The customer asks for '{action}' only under a condition (\"{condition}\"); the policy on the seed refuses it "
                f"(rule {ruling.rule}), so the task forbids it whatever the condition. Is that right?")
            continue
        plan = _allow_write(plan, action, policy.tool_name(action, tool), order_id, ruling, reason_check(order_id, prompt) if action == "cancel" else None)
        questions.append(
            f"The customer asks for '{action}' only under a condition the seed cannot decide (\"{condition}\"); the policy on "
            f"the seed allows it (rule {ruling.rule}): the task neither requires nor forbids it. Does the condition hold as of "
            "the incident, and should the task require it?")
    return plan, questions


def item_change_or_fallback(
    plan: Plan, policy: RetailPolicy, state: StateRows, action: str, order_id: str, fallbacks: set[str], prompt: str = ""
) -> Plan:
    """An item change with a fallback write the customer asks for under a condition on the catalogue ("if it
    is not available, cancel the whole order"): the order ends in the status either tool writes, no tool is
    required by name (which one a correct agent calls hangs on the catalogue)."""
    tools = [tool for tool in policy.tools if tool.name in fallbacks or tool.plan_action == action]
    statuses = list(dict.fromkeys(tool.sets_status for tool in tools if tool.sets_status))

    def about_order(item: Expectation) -> bool:
        options = item.any_of if item.check == "any_of" else [item]
        return any(option.args.get("order_id") == order_id and option.check in ("order_status", "order_recorded", "no_refund", "refunded_total", "refund_exists")
                   for option in options)

    either = Expectation(check="any_of", any_of=[expect("order_status", order_id=order_id, status=status) for status in statuses])
    refund = []
    order = state.get("order", {}).get(order_id)
    settled = [item for item in plan.expectations if item.check == "refund_exists" and item.args.get("order_id") == order_id
               and any(tool.settles_difference for tool in tools)]  # the price difference the item change refunds
    unpinned = any(tool.settles_difference for tool in tools) and not any(
        item.check == "items_replaced" and item.args.get("new_items") for item in plan.expectations)
    if order is not None and not refunded_cents(state, order_id) and any(tool.refunds for tool in tools) and not unpinned:
        # the fallback cancellation refunds the order (tau2-bench): its whole amount, or nothing (or the item change's difference)
        refund = [Expectation(check="any_of", any_of=[expect("refund_exists", order_id=order_id, amount_cents=int(order.get("total_cents") or 0)),
                                                      *settled, expect("no_refund", order_id=order_id)])]
    # what the tools record on the order (the exchanged items) may be written or not, whichever tool is called; made, a
    # write records what the customer asked for (the fallback's own records pinned as the item change's are)
    records = [allow("order", order_id, field) for field in dict.fromkeys(field for tool in tools for field in tool.records)]
    pinned = [if_written(item) for item in plan.expectations if item.check in PINNED_RECORDS]
    for tool in tools:
        if tool.plan_action != action and order is not None:
            pinned += [if_written(item) for item in recorded_checks(tool, order_id, state, order.get("customer_id"), prompt)[0]
                       if item.check in PINNED_RECORDS]
    pinned += [if_replaced(item) for item in plan.expectations if item.check == "items_replaced"]
    if unpinned:
        records += [allow("refund", order_id), allow("payment", order_id)]  # a difference of any amount, or a cancellation's refund
    expectations = [either, *refund, *pinned, *(item for item in plan.expectations
                                                if not about_order(item) and item.check not in (*PINNED_RECORDS, "items_replaced"))]
    return plan.model_copy(update={"expectations": expectations, "required_tools": [], "may_change": distinct([*plan.may_change, *records])})


def _allow_write(plan: Plan, action: str, tool: str, order_id: str, ruling: Decision, reason: Expectation | None = None) -> Plan:
    """The plan with one write allowed but not required: its end state or the seed's, either passes; a cancellation made
    carries the `reason` the words state (else the order keeps the seed's status)."""
    written = {"cancel": expect("order_status", order_id=order_id, status="cancelled"),
               "refund": expect("refund_exists", order_id=order_id, amount_cents=ruling.amount_cents or 0)}.get(action)
    touched = {"cancel": ("order_status",), "refund": ("no_refund", "refunded_total")}.get(action, ())
    expectations = []
    for item in plan.expectations:
        if written is not None and item.check in touched and item.args.get("order_id") == order_id:
            if reason is not None:
                expectations.append(Expectation(check="any_of", any_of=[*(reason.any_of if reason.check == "any_of" else [reason]), item]))
            item = Expectation(check="any_of", any_of=[written, item])
        expectations.append(item)
    return plan.model_copy(update={"expectations": expectations, "forbidden_tools": [name for name in plan.forbidden_tools if name != tool]})


_ORDER_ADDRESS = re.compile(r"\border(?:'s|s)?\b(?:(?!\band\b)[^.?!;]){0,25}\baddress|\baddress(?:es)?\b[^.?!;]{0,20}\b(?:of|on|for) "
                            r"(?:my|the|all)\b[^.?!;]{0,20}\borders?\b", re.IGNORECASE)
"""Words about an order's own address beside the account's ('all my pending order address ... along with my user
default address'; 'change my wrong order address to the new home, and also my user default address')."""


_ORDERS_PLURAL = re.compile(r"\b(?:all|every|each|both)\b[^.?!;]{0,30}\borders?\b|\borders(?:'|s')?\s+(?:shipping )?address", re.IGNORECASE)
"""Words about the address of several orders ('all my pending order address', 'my orders' addresses'), not one."""


def _same_address(one: object, other: object) -> bool:
    return " ".join(str(one).lower().replace(",", " ").split()) == " ".join(str(other).lower().replace(",", " ").split())


def order_addresses_too(prompt: str, state: StateRows, customer_id: str | None, policy: RetailPolicy,
                        address: str | None = None) -> tuple[list[str], list[Allowance], list[Expectation]]:
    """(the product's order-address tool, the customer's orders whose address it may write, the checks of those it must
    write) where the words ask for an order's own address beside the account's. With the account's new `address` decided,
    the orders still at another address are required to get it (fourth cold review, #12: 'change my wrong order address to
    the new home, and also my user default address' was only allowed): every one where the words speak of several orders
    ('all my pending orders'), the one where they speak of one and one is left; else allowed, not required."""
    tool = policy.tool_for("order_address")
    if tool is None or not _ORDER_ADDRESS.search(prompt):
        return [], [], []
    orders = [order_id for order_id, row in sorted(state.get("order", {}).items()) if str(row.get("customer_id")) == str(customer_id)
              and (not tool.requires_status or row.get("status") in tool.requires_status)]
    elsewhere = [order_id for order_id in orders if address and state["order"][order_id].get("shipping_address")
                 and not _same_address(state["order"][order_id]["shipping_address"], address)]
    required = elsewhere if _ORDERS_PLURAL.search(prompt) or len(elsewhere) == 1 else []
    return [tool.name], [allow("order", order_id, "shipping_address") for order_id in orders if order_id not in required], [
        expect("order_address_equals", order_id=order_id, address=address) for order_id in required]


_REFUNDING_RECORDS = ("items_replaced", "recorded_items", "exchange_variants", "refund_exists")


def promise_about_target(plan: Plan, target: str | None, state: StateRows) -> Plan:
    """The plan's 'no refund promised' tied to the task's own order where the plan lets another order end refunded (cancelled,
    returned, its items changed at a lower price: the other parts of the request a correct agent carries out, and says so):
    a promise about that other order is right (fourth cold review of tau2 drafts, #12: 5 negatives failed it)."""
    if not target or not any(item.check == "reply_promises_no_refund" and not item.args for item in plan.expectations):
        return plan
    orders = state.get("order", {})
    options = [option for item in plan.expectations for option in (item.any_of if item.check == "any_of" else [item])]
    elsewhere = any(
        str(option.args.get("order_id")) not in ("None", target) and (
            option.check in _REFUNDING_RECORDS
            or (option.check == "order_status" and option.args.get("status") != orders.get(str(option.args.get("order_id")), {}).get("status")))
        for option in options) or any(
        allowance.row_id != target and (allowance.kind in ("refund", "payment") or allowance.field in ("items", "return_items", "exchange_items"))
        for allowance in plan.may_change)
    if not elsewhere:
        return plan
    return plan.model_copy(update={"expectations": [expect("reply_promises_no_refund", order_id=target)
                                                    if item.check == "reply_promises_no_refund" and not item.args else item
                                                    for item in plan.expectations]})

