"""The scope of a task about one order when the customer's words do not tell that order alone.

The task's prompt goes to the simulated user: its scope sentence says what the user asks about, never
what the agent must do. When the words ask about several orders, the words about the others are left
out of the prompt, so a correct agent is never asked to change an order the task keeps as it is (the
expectations, the forbidden tools and the grader's "nothing else changed" all judge one order).
"""

from __future__ import annotations

import re

from ingest.models import Session, StateRows
from taskgen.domains import Plan
from taskgen.domains.retail.grader import holds, orders_of
from taskgen.domains.retail.rules import order_ids_in, requested_order_id
from taskgen.domains.retail.schema import RetailSchema

SEVERAL_ORDERS = re.compile(r"\b(?:everything|all (?:of )?(?:my |the )?(?:pending |open )?(?:orders|things|items|purchases)|(?:each|every|both) (?:of my )?orders?|two orders)\b", re.IGNORECASE)

ASKS_SEVERAL = re.compile(
    r"\b(?:different|other|several|multiple|separate|both|two|three|all (?:of )?my(?: \w+)?) (?:of my )?orders?\b", re.IGNORECASE)
"""Words asking about several of the customer's orders without naming them ("items I received in different orders",
"all my pending order address"): the scope sentence then says which one of them the task is about, never that the
customer asks about no other."""

_SENTENCE_BREAK = re.compile(r"((?<=[.!?])[ \t]+|\s*\n\s*)")
_LIST_SEPARATOR = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&|as well as)\s+)"


def task_scope(
    session: Session, prompt: str, order_id: str | None, state: StateRows, actor: dict[str, str], schema: RetailSchema
) -> tuple[str, list[str]]:
    """The sentence a task's prompt starts with when the customer's words do not tell the one order its
    expectations judge (they name or ask about several, or name none and the account has several), and
    the other orders the words name, whose words the prompt leaves out (`words_about`). ('', []) when
    the words tell it."""
    if not order_id:
        return "", []
    user_text = "\n".join(turn.text for turn in session.turns if turn.role == "user")
    several = len(order_ids_in(user_text, schema)) > 1 or bool(SEVERAL_ORDERS.search(user_text))
    if not several and requested_order_id(prompt, state, actor, schema) == order_id:
        return "", []
    asked = [other for other in dict.fromkeys(order_ids_in(user_text, schema)) if other != order_id]
    if asked:
        return f"(Ask about order {order_id} only, and about no other order.)", asked
    if several or ASKS_SEVERAL.search(user_text):
        return one_of_orders(order_id), []
    return f"(The order you ask about is {order_id}: give the agent this order id, and ask about no other order.)", []


def one_of_orders(order_id: str) -> str:
    """The scope sentence of a task about one order among several the customer asks about."""
    return f"(Order {order_id} is one of the orders you ask about: give the agent this order id when you ask about it.)"


def acts_elsewhere(plan: Plan, order_id: str | None, state: StateRows) -> bool:
    """The plan judges or allows a change on another order than `order_id`: a check on another order that does
    not hold on the seed (a part of the request the agent must do there), an either-or about one, or an allowance.
    A check that another order stays as it is asks nothing of it."""
    others = [item for item in plan.expectations if orders_of(item) - {order_id}]
    return (any(item.check == "any_of" or not holds(item, state) for item in others)
            or any(allowance.row_id != order_id and allowance.kind != "customer" for allowance in plan.may_change))


def scope_for_parts(scope: str, order_id: str | None, plan: Plan, state: StateRows) -> str:
    """The scope sentence the plan allows: one saying to ask about no other order contradicts a request whose other
    parts the task judges on other orders (cold review of tau2 drafts, #12 family 5); it says the order is one of them."""
    if not order_id or "no other order" not in scope or not acts_elsewhere(plan, order_id, state):
        return scope
    return one_of_orders(order_id)


def _id(order_id: str) -> str:
    return r"(?<![\w-])#?" + re.escape(order_id.lstrip("#")) + r"(?!\w)"


def _unlisted(sentence: str, others: list[str], named: list[str]) -> str:
    """The sentence with each of `others` taken out of a list of order ids ("#W1 and #W2" -> "#W1")."""
    any_id = "(?:" + "|".join(_id(order_id) for order_id in named) + ")"
    previous = None
    while previous != sentence:
        previous = sentence
        for other in others:
            sentence = re.sub(f"({any_id}){_LIST_SEPARATOR}(?:orders?\\s+)?{_id(other)}", r"\1", sentence, flags=re.IGNORECASE)
            sentence = re.sub(f"{_id(other)}{_LIST_SEPARATOR}((?:orders?\\s+)?{any_id})", r"\1", sentence, flags=re.IGNORECASE)
    return sentence


def words_about(text: str, order_id: str, others: list[str], schema: RetailSchema) -> str:
    """The customer's words with what they ask about `others` left out: a sentence that names one of them
    and not `order_id` goes; in a sentence naming both, they are taken out of its list of ids. Another
    order named otherwise ("the same address as order #W2") stays: it is no request about that order."""
    pieces = _SENTENCE_BREAK.split(text)
    kept: list[str] = []
    for index in range(0, len(pieces), 2):
        sentence = pieces[index]
        named = order_ids_in(sentence, schema)
        if any(other in named for other in others):
            if order_id not in named:
                continue
            sentence = _unlisted(sentence, others, named)
        if sentence.strip():
            kept += [pieces[index - 1] if kept else "", sentence]
    return "".join(kept).strip()
