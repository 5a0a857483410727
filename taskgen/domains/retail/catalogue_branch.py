"""Conditions the seed's catalogue decides (issue #12): "change the bookshelf to 4 foot; if it is not available, cancel
the whole order", "if 10x zoom is available but the price is more than 3000, cancel", "if the cheapest one is less
than 200 bucks, exchange it; if not, return it". Where the seed holds the product's variants (their availability and
prices), the branch the customer's words make true is decided here: the task requires that write (the new variant
pinned) and forbids the other, and the negative's seed flips the condition (the variant made unavailable or available,
its price moved across the customer's limit) so the positive's behaviour fails it."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from ingest.models import StateRows
from taskgen.domains import NegativePlan, Plan
from taskgen.domains.retail.grader import expect
from taskgen.domains.retail.parts import items_named
from taskgen.domains.retail.policy import RetailPolicy, WriteTool
from taskgen.domains.retail.rules import Decision, request_sentences
from taskgen.domains.retail.schema import RetailSchema
from taskgen.seeds import Seed
from taskgen.task import Expectation
from taskgen.domains.retail.variants import catalogue, price_cents, variant_asked

_CONDITION = re.compile(r"\b(?:if|only if|unless|otherwise|in case|as long as)\b", re.IGNORECASE)
_FALLBACK_VERBS = {"cancel": re.compile(r"\bcancel\w*", re.IGNORECASE), "return_label": re.compile(r"\breturn\w*|\bsend (?:it |them )?back", re.IGNORECASE)}
_CHANGE_VERBS = re.compile(r"\bexchang\w*|\bswap\w*|\bmodif\w*|\bchange\b|\breplac\w*|\bupgrad\w*", re.IGNORECASE)
_UNAVAILABLE = re.compile(r"\b(?:not|isn't|is not|no longer|aren't) (?:\w+ )?available\b|\bunavailable\b|\bout of stock\b|\bsold out\b", re.IGNORECASE)
_AMOUNT = r"\$?\s?(\d+(?:\.\d+)?)\s*(?:bucks|dollars|usd)?"
_OVER = re.compile(r"\b(?:price|it|cost)\b[^.]*?\b(?:more|greater|higher|over|above)(?: than)?\s+" + _AMOUNT, re.IGNORECASE)
_UNDER = re.compile(r"\b(?:less|lower|cheaper|under|below)(?: than)?\s+" + _AMOUNT, re.IGNORECASE)
_IF_NOT = re.compile(r"^\s*(?:if not|otherwise|if it is not|if it isn't)\b", re.IGNORECASE)
_CHEAPEST = re.compile(r"\bcheapest\b", re.IGNORECASE)
_SAME = re.compile(r"\b(?:with |but |and )*(?:the )?same\b[^.,;]*|\bwithout changing\b[^.,;]*", re.IGNORECASE)
_FEET = re.compile(r"\b(\d+)\s*-?\s*(?:foot|feet)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Branch:
    """What the seed's catalogue decides for one order: `action` (the item change, or the customer's fallback write),
    the variant asked for (its product, availability and price), the sentence the decided branch is asked in and the
    condition the seed settles (for a review question); `limit_cents`/`over`: a price condition on the variant."""

    order_id: str
    item_id: str
    product_id: str
    variant_id: str
    action: str
    sentence: str
    condition: str
    available: bool
    price: int | None
    limit_cents: int | None = None
    over: bool = False


def _asked_text(text: str) -> str:
    """The words of a change, read for the options they name: '4 foot' is the catalogue's '4 ft'; 'with the same
    material and colour' and 'without changing the other options' name options kept, not changed."""
    return _SAME.sub(" ", _FEET.sub(lambda match: f"{match.group(1)} ft", text))


def _all_available(state: StateRows) -> StateRows:
    moved = copy.deepcopy(state)
    for row in moved.get("product", {}).values():
        for variant in (row.get("variants") or {}).values() if isinstance(row, dict) and isinstance(row.get("variants"), dict) else []:
            if isinstance(variant, dict):
                variant["available"] = True
    return moved


def _cents(text: str) -> int:
    return round(float(text) * 100)


def _fallbacks(sentences: list[str]) -> list[tuple[str, str]]:
    """(write, sentence) for each sentence asking for a cancellation or a return under a condition."""
    found = []
    for sentence in sentences:
        if not _CONDITION.search(sentence):
            continue
        for action, verb in _FALLBACK_VERBS.items():
            if verb.search(sentence):
                found.append((action, sentence))
                break
    return found


def decide_branch(prompt: str, state: StateRows, order_id: str | None, change_action: str) -> Branch | None:
    """The branch of the customer's condition the seed's catalogue makes true, or None when the words ask for no item
    change with a catalogue condition around it, the seed holds no catalogue of the item, or the words do not tell one
    variant. `change_action`: the item change the order's status allows ('modify_items' pending, 'exchange' delivered)."""
    order = state.get("order", {}).get(order_id or "")
    if not order or not isinstance(order.get("items"), list) or not catalogue(state):
        return None
    sentences = request_sentences(prompt)
    changes = [index for index, sentence in enumerate(sentences) if _CHANGE_VERBS.search(sentence) and not any(
        verb.search(sentence) for verb in _FALLBACK_VERBS.values())]
    fallbacks = _fallbacks(sentences)
    if not changes or not fallbacks or len({action for action, _ in fallbacks}) != 1:
        return None
    change = sentences[changes[0]]
    around = " ".join(sentences[max(changes[0] - 1, 0): changes[0] + 1])
    named = items_named(order, around, "exchange") or items_named(order, prompt, "exchange")
    if len(named) != 1:
        return None
    item = next(item for item in order["items"] if isinstance(item, dict) and str(item.get("item_id")) == named[0])
    variants = catalogue(state)
    product = str(item.get("product_id") or "")
    if not any(owner == product for owner, _ in variants.values()):
        return None
    under = next((match for index in changes for match in [_UNDER.search(sentences[index])] if match), None)
    if _CHEAPEST.search(prompt) and under is not None:
        # "the cheapest available one ... if it is less than 200 bucks, exchange it": the catalogue's cheapest available variant
        priced = sorted((price_cents(variant.get("price")) or 0, item_id) for item_id, (owner, variant) in variants.items()
                        if owner == product and item_id != named[0] and variant.get("available", True) is not False)
        asked = priced[0][1] if priced else None
    else:
        asked = variant_asked(item, _all_available(state), _asked_text(change))
    if asked is None:
        return None
    variant = variants[asked][1]
    available, price = variant.get("available", True) is not False, price_cents(variant.get("price"))
    base = dict(order_id=str(order_id), item_id=named[0], product_id=product, variant_id=asked, available=available, price=price)
    unavailable = next((sentence for action, sentence in fallbacks if _UNAVAILABLE.search(sentence)), None)
    if not available:
        if unavailable is None:
            return None
        action = next(action for action, sentence in fallbacks if sentence == unavailable)
        return Branch(**base, action=action, sentence=unavailable, condition=f"variant {asked} is unavailable")
    over = next(((sentence, _cents(match.group(1))) for _, sentence in fallbacks for match in [_OVER.search(sentence)] if match), None)
    if over is not None and price is not None and price > over[1]:
        action = next(action for action, sentence in fallbacks if sentence == over[0])
        return Branch(**base, action=action, sentence=over[0], condition=f"variant {asked} costs {price / 100:.2f}, over {over[1] / 100:.2f}",
                      limit_cents=over[1], over=True)
    if under is not None and price is not None:
        if price >= _cents(under.group(1)):
            otherwise = next((sentence for _, sentence in fallbacks if _IF_NOT.search(sentence)), None)
            if otherwise is None:
                return None
            action = next(action for action, sentence in fallbacks if sentence == otherwise)
            return Branch(**base, action=action, sentence=otherwise, condition=f"variant {asked} costs {price / 100:.2f}, "
                          f"not under {_cents(under.group(1)) / 100:.2f}", limit_cents=_cents(under.group(1)))
        return Branch(**base, action=change_action, sentence=change, condition=f"variant {asked} costs {price / 100:.2f}, under "
                      f"{_cents(under.group(1)) / 100:.2f}", limit_cents=_cents(under.group(1)))
    if over is None and unavailable is None:
        return None  # a condition the catalogue does not settle ("if there are any issues")
    condition = f"variant {asked} is available" + (f" at {price / 100:.2f}, not over {over[1] / 100:.2f}" if over and price is not None else "")
    return Branch(**base, action=change_action, sentence=change, condition=condition, limit_cents=over[1] if over else None)


def flipped_states(state: StateRows, branch: Branch) -> list[StateRows]:
    """The seed's catalogue moved across the customer's condition, one way per candidate: the asked variant's
    availability turned over, and its price moved just across the customer's limit (the order's own items untouched)."""
    moves = []
    for change in ("available", "price"):
        if change == "price" and (branch.limit_cents is None or not branch.available):
            continue
        moved = copy.deepcopy(state)
        row = next((row for row in moved.get("product", {}).values() if isinstance(row, dict)
                    and str(branch.variant_id) in (row.get("variants") or {})), None)
        if row is None:
            continue
        variant = row["variants"][branch.variant_id]
        if change == "available":
            variant["available"] = not branch.available
        else:
            limit = int(branch.limit_cents or 0)
            above = branch.price is not None and branch.price > limit if branch.over else branch.price is not None and branch.price >= limit
            target = (limit - 100 if above else limit + 100) if branch.over else (limit - 100 if above else limit)
            variant["price"] = round(max(target, 100) / 100, 2)
        moves.append(moved)
    return moves


def decided_tools(branch: Branch, policy: RetailPolicy, status: str | None) -> tuple[WriteTool | None, list[str]]:
    """The tool of the decided branch for an order in `status`, and the other branch's tools (forbidden)."""
    def usable(tool: WriteTool) -> bool:
        return not tool.requires_status or status in tool.requires_status

    change = [tool for tool in policy.tools if tool.plan_action in ("modify_items", "exchange") and usable(tool)]
    fallback = [tool for tool in policy.tools if tool.plan_action == ("return_label" if branch.action == "return_label" else "cancel")
                and tool.plan_action == branch.action and usable(tool)] if branch.action in ("cancel", "return_label") else []
    chosen = (fallback or [None])[0] if branch.action in ("cancel", "return_label") else (change or [None])[0]
    others = [tool.name for tool in policy.tools if usable(tool) and tool.plan_action in ("modify_items", "exchange", "cancel", "return_label")
              and (chosen is None or tool.name != chosen.name)]
    return chosen, others


def _about(item: Expectation, order_id: str) -> bool:
    options = item.any_of if item.check == "any_of" else [item]
    return any(str(option.args.get("order_id")) == order_id for option in options)


_ITEMS_JUDGED = "are the items recorded the ones the customer names"
_VARIANTS_JUDGED = "are the new items the variants the customer asked for"
_CHANGE_JUDGED = "are the items changed the ones the customer names, to the variants asked for"
"""What a rubric line asks a judge of the items or the new variants (parts.recorded_checks), moot where the branch pins them."""

_RULES = {"cancel": "cancel_allowed", "return_label": "return_allowed", "modify_items": "modify_items_allowed", "exchange": "exchange_allowed"}


def decided_plan(plan: Plan, branch: Branch, prompt: str, state: StateRows, customer_id: str | None, policy: RetailPolicy) -> Plan | None:
    """The plan with the order's write decided by the catalogue: the decided tool required, with what it writes (the
    new variant pinned, the items the words name), the other branch's tools forbidden; the plan's checks on other
    orders and rows kept. None when the order's status leaves no tool for the decided branch."""
    from taskgen.domains.retail.plans import plan_for  # plans uses this module

    order = state.get("order", {}).get(branch.order_id) or {}
    tool, others = decided_tools(branch, policy, order.get("status"))
    if tool is None:
        return None
    sentences = request_sentences(prompt)
    change = next((sentence for sentence in sentences if _CHANGE_VERBS.search(sentence)), branch.sentence)
    words = _asked_text(change) if branch.action in ("modify_items", "exchange") else branch.sentence
    decision = Decision(action=tool.plan_action, rule=f"catalogue_{_RULES.get(tool.plan_action, 'allowed')}", order_id=branch.order_id,
                        customer_id=customer_id)
    decided = plan_for(decision, state, customer_id, target_order_id=branch.order_id, prompt=words, policy=policy)
    written, pinned = [], set()
    item_field = next((field for field, argument in tool.records.items() if argument == tool.items_arg), None)
    for item in decided.expectations:
        if not _about(item, branch.order_id):
            continue
        if item.check == "order_recorded" and item.args.get("field") == item_field:
            item = expect("recorded_items", order_id=branch.order_id, field=item_field, items=branch.item_id)  # the item the branch is about
            pinned.add(_ITEMS_JUDGED)
        elif item.check == "items_replaced" and not item.args.get("new_items") and branch.action == tool.plan_action and branch.available:
            item = expect("items_replaced", order_id=branch.order_id, items=item.args["items"], new_items=branch.variant_id)
            pinned.add(_VARIANTS_JUDGED)
        elif item.check == "exchange_variants" and branch.available:
            item = expect("exchange_variants", order_id=branch.order_id, field=item.args["field"], new_field=item.args["new_field"],
                          new_items=branch.variant_id)
            pinned.add(_VARIANTS_JUDGED)
        written.append(item)
    if (branch.action == tool.plan_action and branch.available and tool.rewrites_items
            and not any(item.check == "items_replaced" for item in written)):
        # the words tell no item of the order by name ("exchange my current one to it"), the branch does: the cheapest
        # variant the catalogue picked, pinned as the item the words mean
        written.append(expect("items_replaced", order_id=branch.order_id, items=branch.item_id, new_items=branch.variant_id))
        pinned |= {_VARIANTS_JUDGED, _CHANGE_JUDGED}
    # the rubric of the branch taken, without what its checks now pin; none of the other branch's (its write's confirmation,
    # its items or variants for a judge: third cold review of tau2 drafts, #12)
    rubric = [line for line in decided.rubric if not any(judged in line for judged in pinned)]
    rubric += [line for line in plan.rubric if not decision_rubric(line) and "condition only as it holds" not in line and line not in rubric]
    kept = [item for item in plan.expectations if not _about(item, branch.order_id)]
    described = {item.describe() for item in kept}
    expectations = [*written, *kept, *(item for item in decided.expectations if not _about(item, branch.order_id) and item.describe() not in described)]
    forbidden = [name for name in dict.fromkeys([*plan.forbidden_tools, *others]) if name != tool.name]
    return plan.model_copy(update={
        "expectations": expectations, "required_tools": list(dict.fromkeys([*(name for name in plan.required_tools if name not in others), tool.name])),
        "forbidden_tools": forbidden,
        "may_change": [allowance for allowance in plan.may_change if allowance.row_id != branch.order_id] + list(decided.may_change),
        "rubric": rubric,
    })


def decision_rubric(line: str) -> bool:
    """A rubric line `plan_for` writes about its decision on the task's order: the reply confirming the write or the
    refusal, what code cannot pin of what the write records ('Judge (code ...'). Stale once the seed decides another
    branch for that order: a judge would read it as asked of the branch not taken."""
    from taskgen.domains.retail.plans import _EXCEPT_CANCELLATION, _RETURN_REQUEST_RUBRIC, _RUBRIC

    heads = [text.split("{")[0] for text in _RUBRIC.values()] + [_RETURN_REQUEST_RUBRIC, _EXCEPT_CANCELLATION, "Judge ("]
    return any(line.startswith(head) for head in heads)


def branch_question(branch: Branch) -> str:
    return (f"The seed's catalogue decides the customer's condition ({branch.condition} of product {branch.product_id}): the task "
            f"requires '{branch.action}' on order {branch.order_id} (\"{branch.sentence}\"). Is that the branch that holds as of the incident?")


_ASKS_PRICE = re.compile(r"\b(?:what is|what's|tell me|know|how much)\b[^.?]*\b(?:cheapest|price|cost|how much)\b|\bhow much\b", re.IGNORECASE)
_ASKS_OPTIONS = re.compile(r"\b(?:know|what|tell me)\b[^.?]*\bits options\b", re.IGNORECASE)


def told(branch: Branch, prompt: str, state: StateRows) -> list[Expectation]:
    """What the customer asks to be told of the variant the catalogue picked ("what is the cheapest available keyboard
    and its options"): its price and option values in the reply, values the seed gives (tau2-bench's communicate_info)."""
    variant = catalogue(state).get(branch.variant_id, ("", {}))[1]
    checks = []
    if _ASKS_PRICE.search(prompt) and branch.price is not None and _CHEAPEST.search(prompt):
        checks.append(expect("reply_states_amount", amount_cents=branch.price))
    if _ASKS_OPTIONS.search(prompt) and isinstance(variant.get("options"), dict):
        checks += [expect("reply_contains", value=str(value)) for _, value in sorted(variant["options"].items())]
    return checks


def catalogue_decides(plan: Plan, prompt: str, state: StateRows, order_id: str | None, customer_id: str | None,
                      policy: RetailPolicy, before: Branch | None = None) -> tuple[Plan, Branch | None]:
    """The plan with the branch the seed's catalogue decides (`decided_plan`) and what the customer asks to be told of
    its variant (`told`), and that branch; the plan as it was and None when the catalogue decides nothing here (the
    policy declares no item-change tool, no catalogue condition). `before`: the branch `plan` was decided on, whose
    told values give way to this seed's."""
    status = state.get("order", {}).get(order_id or "", {}).get("status")
    change = next((tool.plan_action for tool in policy.tools if tool.plan_action in ("modify_items", "exchange")
                   and (not tool.requires_status or status in tool.requires_status)), None)
    branch = decide_branch(prompt, state, order_id, change) if change else None
    if before is not None:
        stale = {item.describe() for item in told(before, prompt, state)}
        plan = plan.model_copy(update={"expectations": [item for item in plan.expectations if item.describe() not in stale]})
    decided = decided_plan(plan, branch, prompt, state, customer_id, policy) if branch else None
    if decided is None:
        return plan, None
    said = {item.describe() for item in decided.expectations}
    return decided.model_copy(update={"expectations": [*decided.expectations, *(item for item in told(branch, prompt, state)
                                                                                if item.describe() not in said)]}), branch


BOUNDARY = "catalogue"
"""The negative's boundary: the seed's catalogue moved across the customer's own condition."""


def catalogue_negative(prompt: str, seed: Seed, actor: dict[str, str], positive: Plan, policy: RetailPolicy) -> NegativePlan | None:
    """The positive's request on a seed whose catalogue makes the customer's other branch true (the asked variant
    made unavailable or available, its price moved across their limit): the other write required, the positive's
    forbidden, so the positive's behaviour fails it. None when the catalogue decides no branch of the positive."""
    schema = RetailSchema.from_document(seed.domain_schema)
    view = schema.canonical(seed.state)
    order_id = positive.target.get("order_id")
    customer_id = actor.get("customer_id")
    _, branch = catalogue_decides(positive, prompt, view, order_id, customer_id, policy)
    if branch is None:
        return None
    for moved in flipped_states(seed.state, branch):
        moved_view = schema.canonical(moved)
        plan, crossed = catalogue_decides(positive, prompt, moved_view, order_id, customer_id, policy, before=branch)
        if crossed is None or crossed.action == branch.action:
            continue
        return NegativePlan(
            **plan.model_dump(exclude={"target", "review_questions"}), target=positive.target, state=moved, actor=actor,
            review_questions=[branch_question(crossed)], boundary=BOUNDARY,
            boundary_question=f"The catalogue now says {crossed.condition}: must the agent do '{crossed.action}' instead of "
                              f"'{branch.action}', as the customer asked under that condition?",
        )
    return None
