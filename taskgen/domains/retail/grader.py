"""End-state grading, never call order: expectations on the final state, required and forbidden tools,
nothing changed outside what the task expects, reply content, and the budget, each a check of its own.

`Verdict.failed_checks` names the families that failed: end_state, tools, nothing_else_changed, budget
(reply-content checks are expectations, so they count as end_state). What code cannot judge about a
reply is the task's `rubric`, for a judge, and never graded here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ingest.leaves import leaves
from ingest.models import StateRows, ToolCall
from taskgen.domains.retail.rules import refunded_cents
from taskgen.domains.retail.variants import catalogue as catalogue_variants
from taskgen.task import Allowance, Budget, DraftTask, Expectation, ForbiddenCall, Verdict

CONVERSATION_KINDS: tuple[str, ...] = ("reply", "escalation")
"""What the agent says and hands over: written by every trial, never 'something else changed'."""



def expect(check: str, **args: str | int) -> Expectation:
    """One end-state expectation: a check of this module by name, with its arguments."""
    return Expectation(check=check, args=args)

def allow(kind: str, row_id: str | None, field: str | None = None) -> Allowance:
    """A change the task allows and does not require: `field` of row `row_id`, or (no field) new `kind` rows of order `row_id`."""
    return Allowance(kind=kind, row_id=str(row_id), field=field)


def _rows(state: StateRows, kind: str, order_id: str | None = None) -> list[dict]:
    rows = state.get(kind, {}).values()
    return [row for row in rows if order_id is None or row.get("order_id") == order_id]


def _refund_exists(state: StateRows, args: dict) -> bool:
    return any(int(row["amount_cents"]) == int(args["amount_cents"]) for row in _rows(state, "refund", str(args["order_id"])))


def _no_refund(state: StateRows, args: dict) -> bool:
    return not _rows(state, "refund", str(args["order_id"]))


def _refunded_total(state: StateRows, args: dict) -> bool:
    """The order's refunds add up to exactly this (its earlier refunds, those its payment history keeps too, and nothing new)."""
    return refunded_cents(state, str(args["order_id"])) == int(args["amount_cents"])


def _return_label_exists(state: StateRows, args: dict) -> bool:
    return bool(_rows(state, "return_label", str(args["order_id"])))


def _order_status(state: StateRows, args: dict) -> bool:
    return state.get("order", {}).get(str(args["order_id"]), {}).get("status") == args["status"]


def _cancel_reason(state: StateRows, args: dict) -> bool:
    """The order was cancelled with the reason the customer gave (its words, case and spacing aside)."""
    order = state.get("order", {}).get(str(args["order_id"]), {})
    return _normalized(args["reason"]) in _normalized(order.get("cancel_reason") or "")


def _normalized(text: object) -> str:
    return " ".join(str(text).lower().replace(",", " ").split())


def _address_equals(state: StateRows, args: dict) -> bool:
    customer = state.get("customer", {}).get(str(args["customer_id"]), {})
    return _normalized(customer.get("address") or "") == _normalized(args["address"])  # None: unknown (an emptied field)


def _order_address_equals(state: StateRows, args: dict) -> bool:
    """The order's own shipping address (not its owner's) is this one, case, commas and spacing aside."""
    order = state.get("order", {}).get(str(args["order_id"]), {})
    return _normalized(order.get("shipping_address") or "") == _normalized(args["address"])


def _order_address_changed(state: StateRows, args: dict) -> bool:
    """The order's own shipping address is no longer this one (the seed's): the agent wrote the one it found."""
    order = state.get("order", {}).get(str(args["order_id"]), {})
    return bool(order.get("shipping_address")) and _normalized(order.get("shipping_address")) != _normalized(args["address"])


def _order_recorded(state: StateRows, args: dict) -> bool:
    """The order carries a value in `field` (the items an exchange request recorded, say)."""
    return state.get("order", {}).get(str(args["order_id"]), {}).get(str(args["field"])) not in (None, "", [], {})


def _order_unrecorded(state: StateRows, args: dict) -> bool:
    """The order's `field` holds no value: the write that records it was not made (an optional one)."""
    return state.get("order", {}).get(str(args["order_id"]), {}).get(str(args["field"])) in (None, "", [], {})


def _ids(value: object) -> list[str]:
    """A recorded list of ids, or ids joined by commas in a check's argument, sorted (as the tools record them)."""
    items = value if isinstance(value, list) else [] if value in (None, "") else str(value).split(",")
    return sorted(str(item).strip() for item in items)


def _recorded_items(state: StateRows, args: dict) -> bool:
    """The order's `field` holds exactly these items (`items`: ids joined by commas): the ones the customer's words name."""
    order = state.get("order", {}).get(str(args["order_id"]), {})
    return bool(_ids(args["items"])) and _ids(order.get(str(args["field"]))) == _ids(args["items"])


def _exchange_variants(state: StateRows, args: dict) -> bool:
    """The new items recorded (`new_field`) pair with the replaced ones (`field`): as many, and, for each replaced item
    whose product the catalogue in the state holds, another available variant of that same product (as tau2-bench's
    tools require). Products the state carries no catalogue of are judged on the count alone. `new_items` (ids joined by
    commas), where the seed's catalogue tells the variant the words ask for: the new items are exactly those."""
    order = state.get("order", {}).get(str(args["order_id"]), {})
    old, new = _ids(order.get(str(args["field"]))), _ids(order.get(str(args["new_field"])))
    if not old or len(old) != len(new):
        return False
    if args.get("new_items") and new != _ids(args["new_items"]):
        return False
    product_of = {str(item.get("item_id")): str(item.get("product_id")) for item in order.get("items") or [] if isinstance(item, dict)}
    catalogue = catalogue_variants(state)
    known = {product for product in (product_of.get(item) for item in old) if product and any(p == product for p, _ in catalogue.values())}
    for product in known:
        replaced = [item for item in old if product_of.get(item) == product]
        chosen = [item for item in new if catalogue.get(item, ("", {}))[0] == product]
        if len(chosen) != len(replaced) or set(chosen) & set(replaced):
            return False
        if not all(catalogue[item][1].get("available", True) is not False for item in chosen):
            return False
    unknown = [item for item in new if catalogue.get(item, ("", {}))[0] not in known]
    return len(unknown) == len([item for item in old if product_of.get(item) not in known])


def _held(order: dict) -> list[str]:
    return [str(item.get("item_id")) for item in order.get("items") or [] if isinstance(item, dict)]


def _items_replaced(state: StateRows, args: dict) -> bool:
    """The order's items were rewritten (an item change of a pending order, tau2-bench's): none of `items` remains on it,
    and it holds `new_items` where the words name them; else, for each replaced item the catalogue in the state
    knows, another available variant of the same product in its place."""
    order = state.get("order", {}).get(str(args["order_id"]), {})
    old, held = _ids(args["items"]), _held(order)
    if not old or any(item in held for item in old):
        return False
    new = _ids(args.get("new_items") or "")
    if new:
        return all(held.count(item) >= new.count(item) for item in new)
    catalogue = catalogue_variants(state)
    for item in old:
        product = catalogue.get(item, ("", {}))[0]
        if product and not any(catalogue.get(other, ("", {}))[0] == product and catalogue[other][1].get("available", True) is not False
                               for other in held):
            return False
    return True


def _items_held(state: StateRows, args: dict) -> bool:
    """The order still holds every one of `items`: the item change was not made (an optional one)."""
    held = _held(state.get("order", {}).get(str(args["order_id"]), {}))
    return bool(_ids(args["items"])) and all(held.count(item) >= _ids(args["items"]).count(item) for item in _ids(args["items"]))


def _payment_methods(customer: dict) -> dict[str, dict]:
    """The customer's payment methods by id (kept by id, as tau2-bench does, or as a list of rows with one)."""
    methods = customer.get("payment_methods")
    if isinstance(methods, dict):
        return {str(key): value if isinstance(value, dict) else {} for key, value in methods.items()}
    return {str(row["id"]): row for row in methods or [] if isinstance(row, dict) and row.get("id")} if isinstance(methods, list) else {}


def _recorded_payment(state: StateRows, args: dict) -> bool:
    """The payment method recorded in `field` is one the customer holds; with `original_or_gift_card`, also the one the
    order was paid with or a gift card (where tau2-bench's policy sends a return's refund)."""
    order = state.get("order", {}).get(str(args["order_id"]), {})
    methods = _payment_methods(state.get("customer", {}).get(str(args["customer_id"]), {}))
    method = str(order.get(str(args["field"])) or "")
    if method not in methods or (args.get("method") and method != str(args["method"])):
        return False  # with `method`: the one the customer's words ask for (payment_pinned)
    if not args.get("original_or_gift_card"):
        return True
    paid = {str(entry.get("payment_method_id")) for entry in order.get("payment_history") or [] if isinstance(entry, dict)}
    return method in paid or methods[method].get("source") == "gift_card"


def _address_changed(state: StateRows, args: dict) -> bool:
    """The customer's address is no longer this one (the seed's): changed, as another part of the request asks."""
    customer = state.get("customer", {}).get(str(args["customer_id"]), {})
    return bool(customer.get("address")) and _normalized(customer.get("address")) != _normalized(args["address"])


def _escalated(state: StateRows, args: dict) -> bool:
    wanted = str(args.get("reason_contains", "")).lower()
    return any(wanted in str(row.get("reason", "")).lower() for row in _rows(state, "escalation"))


def _not_escalated(state: StateRows, args: dict) -> bool:
    """No hand-over at all; with `order_id`, none about that order (its id in the reason): the customer's
    other requests may still need one."""
    if "order_id" not in args:
        return not _rows(state, "escalation")
    named = str(args["order_id"]).lstrip("#").lower()
    return not any(named in str(row.get("reason", "")).lower() for row in _rows(state, "escalation"))


def _reply_sent(state: StateRows, args: dict) -> bool:
    return bool(_rows(state, "reply"))


# ---------------------------------------------------------------- reply content
def replies(state: StateRows) -> list[str]:
    return [str(row.get("text", "")) for row in _rows(state, "reply")]


_REFUSAL = re.compile(
    r"\b(?:can ?not|can't|cannot|unable|not able|won't|will not|declin\w*|not eligible|isn't eligible|not possible|"
    r"not allowed|no longer)\b",
    re.IGNORECASE,
)
_REFUND_PROMISE = re.compile(
    r"\brefund\w*\b.*\b(?:issued|processed|approved|sent|on (?:its|the) way|coming)\b"
    r"|\b(?:issued|processed|approved|sent)\b.*\brefund"
    r"|\byou(?:'ll| will) (?:get|receive|see) (?:a |your |the )?(?:full |partial )?refund|\bmoney back\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|can't|won't|unable|isn't|wasn't|hasn't)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _words(text: str) -> str:
    """Lower case, one space between words; dots kept only inside a word (emails, amounts)."""
    return " " + re.sub(r"\.(?=\s|$)|[^a-z0-9#@.]+", " ", text.lower()).strip() + " "


def _reply_states_status(state: StateRows, args: dict) -> bool:
    """A reply names the order's status (underscores read as spaces; US and UK 'cancelled')."""
    status = _words(str(args["status"]).replace("_", " ")).strip()  # 'pending (item modified)' reads as its words
    spellings = {status, status.replace("cancelled", "canceled"), status.replace("canceled", "cancelled")}
    return any(f" {spelling} " in _words(text) for text in replies(state) for spelling in spellings)


def _reply_contains(state: StateRows, args: dict) -> bool:
    """A reply carries the value the customer asked for (a tracking number, an option's value), as words of their own;
    case, hyphens, punctuation and the spaces between its words aside ('full size', 'Full-Size', 'fullsize')."""
    value = _words(str(args["value"])).split()
    spelled = re.compile(r"(?<![a-z0-9])" + r"\s*".join(re.escape(word) for word in value) + r"(?![a-z0-9])")
    return bool(value) and any(spelled.search(_words(text)) for text in replies(state))


def _reply_states_amount(state: StateRows, args: dict) -> bool:
    """A reply states the amount (cents as 12.34, with or without a thousands comma or currency sign)."""
    cents = int(args["amount_cents"])
    spellings = {f"{cents / 100:.2f}", f"{cents / 100:,.2f}"}
    return any(re.search(rf"(?<![\d.,]){re.escape(spelling)}(?![\d])", text) for text in replies(state) for spelling in spellings)


_ASKING = re.compile(r"\?|\b(?:please|kindly)\s+(?:give|provide|share|send|confirm|tell)\b|\blet me know\b", re.IGNORECASE)


def _reply_asks_for(state: StateRows, args: dict) -> bool:
    """A sentence of a reply asks the customer for `about` (a question naming it, or 'please give/share ...')."""
    about = str(args["about"]).lower()
    return any(about in sentence.lower() and _ASKING.search(sentence) for text in replies(state) for sentence in _SENTENCE.split(text))


def _reply_refuses(state: StateRows, args: dict) -> bool:
    return any(_REFUSAL.search(text) for text in replies(state))


def _reply_promises_no_refund(state: StateRows, args: dict) -> bool:
    """No sentence of any reply says a refund was or will be given (a negated sentence promises nothing). With `order_id`
    (the request rightly refunds another order: a cancellation, a return), only a promise about that order counts: a
    sentence naming it or stating its amount, or naming no order in a reply that names it and no other."""
    target = str(args.get("order_id") or "")
    for text in replies(state):
        named = _orders_said(state, text)
        for sentence in _SENTENCE.split(text):
            if not _REFUND_PROMISE.search(sentence) or _NEGATION.search(sentence):
                continue
            if not target:
                return False
            own = _orders_said(state, sentence)
            if target in own or _states_amount(state, target, sentence) or (not own and named == {target}):
                return False
    return True


def _orders_said(state: StateRows, text: str) -> set[str]:
    """The orders of the state a text names by id (with or without its leading '#')."""
    words = _words(text)
    return {order_id for order_id in state.get("order", {}) if f" {order_id.lower().lstrip('#')} " in words.replace("#", " ")}


def _states_amount(state: StateRows, order_id: str, sentence: str) -> bool:
    """The sentence states the order's amount (what a refund of it all would be)."""
    cents = state.get("order", {}).get(order_id, {}).get("total_cents")
    return bool(cents) and _reply_states_amount({"reply": {"r": {"text": sentence}}}, {"amount_cents": int(cents)})


def _linked_rows(state: StateRows, row: dict) -> list[dict]:
    """The rows a row points to by value (its customer, for an order), found without knowing column names."""
    values = {str(value) for key, value in row.items() if key != "id" and isinstance(value, (str, int))}
    return [other for rows in state.values() for other in rows.values() if str(other.get("id")) in values]


def private_values(state: StateRows, order_id: str, requester: str | None) -> set[str]:
    """What a reply must not carry about another customer's order: its values and its owner's, except
    its own id (the requester named it), short values and anything the requester's own rows hold too."""
    order = state.get("order", {}).get(order_id)
    if order is None:
        return set()
    own_rows = [row for rows in state.values() for key, row in rows.items() if key == requester]
    own = {str(value).lower() for row in own_rows for _, value in leaves(row)}
    values = {str(value) for row in [order, *_linked_rows(state, order)] for _, value in leaves(row)}
    amounts = {f"{int(value) / 100:.2f}" for key, value in order.items() if "cents" in key and isinstance(value, int)}
    return {value for value in values | amounts if len(value) >= 4 and value != order_id and value.lower() not in own}


def _reply_withholds(state: StateRows, args: dict) -> bool:
    """No reply carries a value of the order (another customer's) or of its owner."""
    private = private_values(state, str(args["order_id"]), str(args.get("requester") or "") or None)
    texts = [_words(text) for text in replies(state)]
    return not any(_words(value) in text for value in private for text in texts)


CHECKS: dict[str, Callable[[StateRows, dict], bool]] = {
    "refund_exists": _refund_exists,
    "no_refund": _no_refund,
    "refunded_total": _refunded_total,
    "return_label_exists": _return_label_exists,
    "order_status": _order_status,
    "cancel_reason": _cancel_reason,
    "address_equals": _address_equals,
    "order_address_equals": _order_address_equals,
    "order_recorded": _order_recorded,
    "order_address_changed": _order_address_changed,
    "order_unrecorded": _order_unrecorded,
    "recorded_items": _recorded_items,
    "exchange_variants": _exchange_variants,
    "items_replaced": _items_replaced,
    "items_held": _items_held,
    "recorded_payment": _recorded_payment,
    "address_changed": _address_changed,
    "escalated": _escalated,
    "not_escalated": _not_escalated,
    "reply_sent": _reply_sent,
    "reply_states_status": _reply_states_status,
    "reply_contains": _reply_contains,
    "reply_states_amount": _reply_states_amount,
    "reply_refuses": _reply_refuses,
    "reply_asks_for": _reply_asks_for,
    "reply_promises_no_refund": _reply_promises_no_refund,
    "reply_withholds": _reply_withholds,
}


def is_reply_check(expectation: Expectation) -> bool:
    """A check on what the agent says (a seed holds no reply): reply_sent, reply_refuses, reply_states_amount..."""
    return expectation.check.startswith("reply_")


def orders_of(expectation: Expectation) -> set[str]:
    """The orders a check (or any option of an either-or) is about, by its `order_id` argument."""
    options = expectation.any_of if expectation.check == "any_of" else [expectation]
    return {str(option.args["order_id"]) for option in options if "order_id" in option.args}


def holds(expectation: Expectation, state: StateRows) -> bool:
    if expectation.check == "any_of":
        return any(holds(option, state) for option in expectation.any_of)
    check = CHECKS.get(expectation.check)
    try:
        return check is not None and check(state, expectation.args)
    except (KeyError, ValueError, TypeError):
        return False


# ---------------------------------------------------------------- nothing else changed
def _flatten(expectations: list[Expectation]) -> Iterator[Expectation]:
    for expectation in expectations:
        yield expectation
        yield from _flatten(expectation.any_of)


def allowed_changes(task: DraftTask) -> tuple[set[tuple[str, str]], set[tuple[str, str, str]]]:
    """(kind, order id) whose new rows the task expects or allows; (kind, row id, column) it expects or allows
    changed: what its checks write, and its `may_change` (allowed, not required)."""
    new_rows: set[tuple[str, str]] = {(item.kind, item.row_id) for item in task.may_change if item.field is None}
    fields: set[tuple[str, str, str]] = {(item.kind, item.row_id, item.field) for item in task.may_change if item.field is not None}
    for item in _flatten(task.expectations):
        args = {key: str(value) for key, value in item.args.items()}
        if item.check == "refund_exists":
            new_rows.add(("refund", args["order_id"]))
        elif item.check == "return_label_exists":
            new_rows.add(("return_label", args["order_id"]))
        elif item.check == "order_status":
            # a cancellation may carry the customer's reason
            fields |= {("order", args["order_id"], "status"), ("order", args["order_id"], "cancel_reason")}
        elif item.check in ("address_equals", "address_changed"):
            fields.add(("customer", args["customer_id"], "address"))
        elif item.check == "order_address_equals":
            fields.add(("order", args["order_id"], "shipping_address"))
        elif item.check in ("order_recorded", "recorded_items", "recorded_payment"):
            fields.add(("order", args["order_id"], args["field"]))
        elif item.check == "items_replaced":
            # the rewritten items, and the price difference the product settles (a refund or a payment row)
            fields.add(("order", args["order_id"], "items"))
            new_rows |= {("refund", args["order_id"]), ("payment", args["order_id"])}
        elif item.check == "exchange_variants":
            fields |= {("order", args["order_id"], args["field"]), ("order", args["order_id"], args["new_field"])}
    return new_rows, fields


def unexpected_changes(task: DraftTask, seed_state: StateRows, final_state: StateRows) -> list[str]:
    """Every row added, removed or changed outside what the task expects (kinds, ids and columns only)."""
    new_rows, fields = allowed_changes(task)
    changes = []
    for kind in sorted(set(seed_state) | set(final_state)):
        if kind in CONVERSATION_KINDS:
            continue
        before, after = seed_state.get(kind, {}), final_state.get(kind, {})
        for row_id in sorted(set(before) | set(after)):
            old, new = before.get(row_id), after.get(row_id)
            if old == new:
                continue
            if old is None:
                if (kind, str(new.get("order_id"))) not in new_rows:
                    changes.append(f"{kind} {row_id} added")
            elif new is None:
                changes.append(f"{kind} {row_id} removed")
            else:
                columns = sorted(key for key in set(old) | set(new) if old.get(key) != new.get(key))
                columns = [column for column in columns if (kind, row_id, column) not in fields]
                if columns:
                    changes.append(f"{kind} {row_id} changed ({', '.join(columns)})")
    return changes


# ---------------------------------------------------------------- budget
def _same_id(value: object, wanted: object) -> bool:
    return str(value).strip().lstrip("#").lower() == str(wanted).strip().lstrip("#").lower()


def makes(call: ToolCall, rule: ForbiddenCall) -> bool:
    """The call is the forbidden one: the tool named, with each of the rule's argument values (an id with or without
    its '#', any case), whether the tool carried it out or refused it."""
    return call.name == rule.tool and all(_same_id(call.arguments.get(key), value) for key, value in rule.args.items())


def over_budget(budget: Budget, usage: Budget) -> list[str]:
    """Each dimension of the trial's own usage above the task's budget."""
    return [
        f"{name} {getattr(usage, name)} > {getattr(budget, name)}"
        for name in ("turns", "tokens", "latency_ms")
        if getattr(usage, name) > getattr(budget, name)
    ]


def grade(
    task: DraftTask,
    final_state: StateRows,
    calls: list[ToolCall],
    seed_state: StateRows | None = None,
    usage: Budget | None = None,
) -> Verdict:
    """With `seed_state`, a change outside the task fails; with `usage` (the trial's own model and tool
    time, turns and tokens), going over the budget fails."""
    failed: dict[str, list[str]] = {}
    failed["end_state"] = [f"unmet: {item.describe()}" for item in task.expectations if not holds(item, final_state)]
    succeeded = {call.name for call in calls if call.status == "ok"}
    attempted = {call.name for call in calls}
    failed["tools"] = [f"required tool not called: {tool}" for tool in task.required_tools if tool not in succeeded]
    failed["tools"] += [f"forbidden tool called: {tool}" for tool in task.forbidden_tools if tool in attempted]
    failed["tools"] += [f"forbidden call made: {rule.describe()}" for rule in task.forbidden_calls if any(makes(call, rule) for call in calls)]
    if seed_state is not None:
        failed["nothing_else_changed"] = [f"changed outside the task: {change}" for change in unexpected_changes(task, seed_state, final_state)]
    if usage is not None:
        failed["budget"] = [f"over budget: {excess}" for excess in over_budget(task.budget, usage)]
    reasons = [reason for family in failed.values() for reason in family]
    return Verdict(passed=not reasons, reasons=reasons, failed_checks=[family for family, found in failed.items() if found])
