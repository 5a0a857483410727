"""Draft expectations for retail tasks: the incident's resolution checked against the policy on the seed."""

from __future__ import annotations

import copy
import re
from datetime import timedelta

from ingest.models import Session, StateRows
from taskgen.classify import Classification
from taskgen.domains import NegativePlan, Plan
from taskgen.domains.retail import identity
from taskgen.domains.retail.environment import WRITE_TOOLS
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.grader import holds, is_reply_check
from taskgen.domains.retail.rules import (
    ORDER_INTENTS, Decision, asks_outside_tools, customer_orders, decide, order_ids_in, refunded_cents, requested_order_id,
)
from taskgen.domains.retail.schema import RetailSchema
from taskgen.seeds import Seed, format_timestamp, parse_timestamp
from taskgen.task import Expectation

_TOOL_ACTIONS = {
    "refund_order": "refund",
    "create_return_label": "return_label",
    "cancel_order": "cancel",
    "update_address": "update_address",
    "escalate_to_human": "escalate",
}
# Checked in order: a refusal is named before the action it refuses ("should not have refunded").
_TEXT_ACTIONS: tuple[tuple[str, str], ...] = (
    (r"declin|denied|deny|not eligible|outside (?:the )?(?:return )?window|should not have|shouldn't have|no refund", "decline"),
    (r"escalat|above (?:the )?(?:auto[- ]refund )?limit|needs? (?:a )?human", "escalate"),
    (r"return label|label (?:sent|created|issued)", "return_label"),
    (r"refund", "refund"),
    (r"cancel", "cancel"),
    (r"address", "update_address"),
)

ACTION_KINDS = ("refund", "return_label", "cancel", "update_address")

_VERB_ACTIONS: tuple[tuple[str, str], ...] = (
    (r"^refund", "refund"),
    (r"^return", "return_label"),
    (r"^cancel", "cancel"),
    (r"^(?:modify|update|change)_(?:user|customer)_address$", "update_address"),
    (r"^(?:exchange|modify|swap|replace)_", "escalate"),
)
"""Another product's write tools read by their verb: `cancel_pending_order` cancels; an exchange or an item
change is, on the policy's tools, a human's to make (`requests_outside_tools`)."""


def tool_action(name: str) -> str | None:
    """What an incident's successful call did, in the policy's actions: the domain's own tools by name,
    another product's write tools by their verb; reads and anything else, nothing."""
    if name in _TOOL_ACTIONS:
        return _TOOL_ACTIONS[name]
    lowered = name.lower()
    return next((action for pattern, action in _VERB_ACTIONS if re.search(pattern, lowered)), None)
_READ_PREFIXES = ("get_", "list_", "find_", "search_", "lookup_", "calculate", "think", "send_reply", "transfer", "escalate")


def _check(name: str, **args: str | int) -> Expectation:
    return Expectation(check=name, args=args)


def action_named_in(text: str) -> str | None:
    lowered = text.lower()
    return next((action for pattern, action in _TEXT_ACTIONS if re.search(pattern, lowered)), None)


def incident_action(session: Session, classification: Classification) -> tuple[str | None, str]:
    """What the incident says was the right thing to do, and where that came from."""
    if classification.outcome == "rolled_back":
        for deploy in sorted(session.signals.deploys, key=lambda deploy: deploy.id):
            action = action_named_in(deploy.reason or "")
            if action:
                return action, f"deploy:{deploy.id}:reason"
        return None, "rolled_back:no_usable_reason"
    if classification.outcome == "escalated":
        for escalation in sorted(session.signals.escalations, key=lambda escalation: escalation.id):
            action = action_named_in(escalation.resolution or "")
            if action:
                return action, f"escalation:{escalation.id}:resolution"
        return None, "escalated:no_resolution"
    if classification.outcome == "resolved":
        done = [action for call in session.tool_calls if call.status == "ok" and (action := tool_action(call.name))]
        return (done[-1] if done else "inform"), "resolved:agent_path"
    return None, f"{classification.outcome}:agent_path_untrusted"


_RUBRIC = {
    "refund": "Judge: does the reply confirm the refund and its amount accurately, and say when the money arrives?",
    "return_label": "Judge: does the reply give the return label and say how to send the parcel back?",
    "cancel": "Judge: does the reply confirm the cancellation and what happens to the payment?",
    "update_address": "Judge: does the reply confirm the new address as the customer wrote it?",
    "escalate": "Judge: does the reply tell the customer a person will follow up, without promising the outcome?",
    "decline": "Judge: does the reply give the reason for the refusal (rule {rule}) in plain words and say what the customer can do instead?",
    "inform": "Judge: does the reply answer the question in plain words, without inventing policy, dates or offers?",
}


_ASKS_TRACKING = re.compile(r"\btracking\b", re.IGNORECASE)


def _reply_checks(
    decision: Decision, state: StateRows, requester: str | None, target_order_id: str | None = None, prompt: str = ""
) -> list[Expectation]:
    """What code can judge about the reply: the order's status stated (and its tracking number, when asked
    for and kept), the amount refunded, a refusal, no refund promised, nothing of another customer's
    order, nothing of the target order to an unverified requester."""
    order = state.get("order", {}).get(decision.order_id or "")
    checks = []
    if decision.action == "inform" and order is not None:
        checks.append(_check("reply_states_status", order_id=decision.order_id, status=order["status"]))
        if order.get("tracking_number") and _ASKS_TRACKING.search(prompt):
            checks.append(_check("reply_contains", value=str(order["tracking_number"])))
    if decision.action == "refund" and decision.amount_cents:
        checks.append(_check("reply_states_amount", amount_cents=decision.amount_cents))
    if decision.action in ("decline", "escalate"):
        checks.append(_check("reply_promises_no_refund"))
    if decision.rule == "not_order_owner":
        checks.append(_check("reply_withholds", order_id=decision.order_id, **({"requester": requester} if requester else {})))
    if decision.rule == "identity_not_verified" and target_order_id and target_order_id in state.get("order", {}):
        checks.append(_check("reply_withholds", order_id=target_order_id))
    return checks


def plan_for(
    decision: Decision, state: StateRows, requester: str | None = None, target_order_id: str | None = None, prompt: str = ""
) -> Plan:
    """Expectations, required and forbidden tools that make `decision` the one passing answer
    (`target_order_id`: the order the request is about when the decision names none; `prompt`: what
    the customer asked, for the reply's content)."""
    plan = _plan_for(decision, state, requester, target_order_id)
    return plan.model_copy(
        update={
            "expectations": [*plan.expectations, *_reply_checks(decision, state, requester, target_order_id, prompt)],
            "rubric": [_RUBRIC[decision.action].format(rule=decision.rule)],
        }
    )


def _forbid_others(*required: str) -> list[str]:
    """Every state-changing tool the answer does not need: an idle or greedy extra write fails the task."""
    return [tool for tool in WRITE_TOOLS if tool not in required]


def _plan_for(decision: Decision, state: StateRows, requester: str | None = None, target_order_id: str | None = None) -> Plan:
    """Every plan checks the end state of what the request is about: the target order (its status,
    its refunds) and the requester's address, changed only where the answer changes them."""
    order_id, customer_id = decision.order_id or target_order_id, decision.customer_id or requester
    order = state.get("order", {}).get(order_id or "")
    no_new_refund: list[Expectation] = []
    same_status: list[Expectation] = []
    if order is not None:
        earlier = refunded_cents(state, order_id or "")
        no_new_refund = [_check("refunded_total", order_id=order_id, amount_cents=earlier) if earlier else _check("no_refund", order_id=order_id)]
        same_status = [_check("order_status", order_id=order_id, status=order["status"])]
    same_address: list[Expectation] = []
    if customer_id in state.get("customer", {}):
        same_address = [_check("address_equals", customer_id=customer_id, address=state["customer"][customer_id].get("address", ""))]
    untouched = [*no_new_refund, *same_status, *same_address]
    if decision.action == "refund":
        return Plan(
            expectations=[_check("refund_exists", order_id=order_id, amount_cents=decision.amount_cents), *same_status, *same_address, _check("reply_sent")],
            required_tools=["refund_order"],
            forbidden_tools=_forbid_others("refund_order"),
        )
    if decision.action == "return_label":
        return Plan(
            expectations=[_check("return_label_exists", order_id=order_id), *no_new_refund, *same_status, *same_address],
            required_tools=["create_return_label"],
            forbidden_tools=_forbid_others("create_return_label"),
        )
    if decision.action == "cancel":
        return Plan(
            expectations=[_check("order_status", order_id=order_id, status="cancelled"), *no_new_refund, *same_address, _check("reply_sent")],
            required_tools=["cancel_order"],
            forbidden_tools=_forbid_others("cancel_order"),
        )
    if decision.action == "update_address":
        return Plan(
            expectations=[_check("address_equals", customer_id=decision.customer_id, address=decision.address), *no_new_refund, *same_status],
            required_tools=["update_address"],
            forbidden_tools=_forbid_others("update_address"),
        )
    if decision.action == "escalate":
        return Plan(expectations=[_check("escalated"), *untouched], required_tools=["escalate_to_human"], forbidden_tools=list(WRITE_TOOLS))
    if decision.action == "decline":
        # A refusal is said to the customer, not handed on: an escalation is the other answer.
        return Plan(
            expectations=[_check("reply_refuses"), _check("not_escalated"), *untouched],
            forbidden_tools=[*WRITE_TOOLS, "escalate_to_human"],
        )
    # An answer only: nothing written, nothing handed on (a reply alone is not a pass when it came with a hand-over).
    return Plan(expectations=[_check("reply_sent"), _check("not_escalated"), *untouched], forbidden_tools=[*WRITE_TOOLS, "escalate_to_human"])


def _is_write(name: str) -> bool:
    return name in WRITE_TOOLS or not name.lower().startswith(_READ_PREFIXES)


def _ids_in_arguments(value: object, known: set[str], schema: RetailSchema) -> list[str]:
    """Order ids among a call's argument values: a known order's id, or text matching the order-id patterns."""
    found: list[str] = []
    if isinstance(value, dict):
        for item in value.values():
            found += _ids_in_arguments(item, known, schema)
    elif isinstance(value, list):
        for item in value:
            found += _ids_in_arguments(item, known, schema)
    elif isinstance(value, str):
        found += [value] if value in known else order_ids_in(value, schema)
    return found


def acted_on_orders(session: Session, known: set[str], schema: RetailSchema) -> tuple[list[str], list[str]]:
    """(orders the agent's write calls named, orders its read calls named), each in call order."""
    written: list[str] = []
    read: list[str] = []
    for call in session.tool_calls:
        (written if _is_write(call.name) else read).extend(_ids_in_arguments(call.arguments, known, schema))
    return list(dict.fromkeys(written)), list(dict.fromkeys(read))


def target_order(session: Session, prompt: str, state: StateRows, schema: RetailSchema) -> tuple[str | None, list[str]]:
    """The order the task's expectations are about, and the review questions its choice raises.

    The one the customer's words name (the one the agent acted on when they name several), else the
    one the agent's tool calls acted on; never a guess such as the latest order."""
    user_text = "\n".join(turn.text for turn in session.turns if turn.role == "user")
    named = order_ids_in(user_text, schema)
    written, read = acted_on_orders(session, set(state.get("order", {})), schema)
    questions: list[str] = []
    if named:
        target = next((order_id for order_id in written if order_id in named), named[0])
        if len(named) > 1:
            questions.append(
                f"The customer names {len(named)} orders ({', '.join(named)}); the expectations are about {target} only. "
                "Should each order get a task of its own?"
            )
        if target not in order_ids_in(prompt, schema):
            questions.append(f"The customer names order {target} only later in the conversation; the task's prompt does not carry it.")
        return target, questions
    acted = written or read
    if not acted:
        return None, []
    target = acted[-1]
    questions.append(
        f"The customer's words name no order id; the expectations are about {target}, the order the agent's tool calls "
        "acted on. Should the prompt name it?"
    )
    return target, questions


_STATUS_CLAIMS: tuple[tuple[str, str], ...] = (
    (r"\b(?:has(?:n't| not)|did(?:n't| not)|never|not yet|still not) (?:been )?(?:arrived?|delivered|received?|come|got)\b|\bnot arrived\b|\bnever (?:came|got it)\b", "not_delivered"),
    (r"\b(?:has(?:n't| not)|did(?:n't| not)|not yet|still not) (?:been )?(?:shipped|sent|dispatched)\b", "not_shipped"),
    (r"\b(?:arrived|was delivered|got delivered|received (?:it|my|the)|came)\b", "delivered"),
)


def prompt_seed_conflicts(prompt: str, order_id: str | None, state: StateRows, clock_text: str, policy: RetailPolicy) -> list[str]:
    """Review questions for what the customer says that the seed contradicts: a status, a relative date."""
    from taskgen.seeds import resolve_relative_dates

    order = state.get("order", {}).get(order_id or "")
    if order is None:
        return []
    questions: list[str] = []
    status = str(order.get("status"))
    delivered_statuses = set(policy.returnable_statuses) | set(policy.refundable_statuses)
    shipped_statuses = set(policy.address_change.escalate_when_order_status_in) | delivered_statuses
    lowered = prompt.lower()
    claims = [claim for pattern, claim in _STATUS_CLAIMS if re.search(pattern, lowered)]
    claim = claims[0] if claims else None
    contradicted = (
        (claim == "not_delivered" and (status in delivered_statuses or order.get("delivered_at")))
        or (claim == "not_shipped" and status in shipped_statuses)
        or (claim == "delivered" and not order.get("delivered_at") and status not in delivered_statuses)
    )
    if contradicted:
        questions.append(
            f"The customer's words say the order is {claim.replace('_', ' ')} but order {order_id} is '{status}' on the seed. "
            "Is the seed as of the incident, or is the customer wrong?"
        )
    clock = parse_timestamp(clock_text)
    dates = [parse_timestamp(str(order[field])).date() for field in ("created_at", "delivered_at") if order.get(field)]
    for phrase, day in resolve_relative_dates(prompt, clock):
        slack = 1 if "day" in phrase or phrase in ("yesterday", "today") else 3 if "week" in phrase else 7
        if dates and not any(abs((day - known).days) <= slack for known in dates):
            questions.append(
                f"The customer says '{phrase}' ({day.isoformat()}) but order {order_id} was placed or delivered on "
                f"{', '.join(known.isoformat() for known in dates)}. Which one is right?"
            )
    return questions


_SEVERAL_ORDERS = re.compile(r"\b(?:everything|all (?:of )?(?:my |the )?(?:pending |open )?(?:orders|things|items|purchases)|(?:each|every|both) (?:of my )?orders?|two orders)\b", re.IGNORECASE)


def scope_questions(prompt: str, decision: Decision, state: StateRows) -> list[str]:
    """Review questions when the expectations may be narrower or wider than the request: a request
    about several orders judged on one, a whole-order refund of an order with several items."""
    questions = []
    if decision.order_id and _SEVERAL_ORDERS.search(prompt):
        questions.append(
            f"The customer asks about several orders; the expectations judge order {decision.order_id} only. "
            "Split the task per order, or widen the expectations?"
        )
    if decision.action == "refund" and decision.order_id:
        items = [row for row in state.get("order_item", {}).values() if row.get("order_id") == decision.order_id]
        embedded = state.get("order", {}).get(decision.order_id, {}).get("items")
        count = len(items) or (len(embedded) if isinstance(embedded, list) else 0)
        if count > 1:
            questions.append(
                f"Order {decision.order_id} has {count} items and the task expects the whole order refunded "
                f"({decision.amount_cents} cents). Is the refund for every item, or only those the customer names?"
            )
    return questions


def plan_positive(
    session: Session, classification: Classification, seed: Seed, actor: dict[str, str], policy: RetailPolicy
) -> Plan:
    schema = RetailSchema.from_document(seed.domain_schema)
    state = schema.canonical(seed.state)
    prompt = session.first_user_text()
    order_id, questions = target_order(session, prompt, state, schema)
    decision = decide(classification.intent, prompt, state, actor, seed.clock_datetime, policy, order_id)
    plan = plan_for(decision, state, actor.get("customer_id"), target_order_id=order_id, prompt=prompt)
    questions = [*plan.review_questions, *questions]
    evidence_action, source = incident_action(session, classification)
    if evidence_action is None:
        questions.append(
            f"The incident gives no usable resolution ({source}); the expectations follow the policy "
            f"(rule {decision.rule}). Is '{decision.action}' what a correct agent does?"
        )
    elif evidence_action != decision.action:
        questions.append(
            f"The incident's resolution ({source}) points to '{evidence_action}' but the policy on the seed gives "
            f"'{decision.action}' (rule {decision.rule}). Which one is right?"
        )
    if decision.action in ACTION_KINDS and all(holds(item, state) for item in plan.expectations if not is_reply_check(item)):
        questions.append(
            f"The expected end state of '{decision.action}' already holds on the seed: the incident's own change is "
            "probably in it. Restore the field as it stood before the session, or reject the task."
        )
    questions += prompt_seed_conflicts(prompt, order_id, state, seed.clock, policy)
    questions += scope_questions(prompt, decision, state)
    scope = task_scope(session, prompt, order_id, state, actor, schema) if classification.intent in ORDER_INTENTS else ""
    if not scope and order_id and requested_order_id(prompt, state, actor, schema) == order_id:
        # The words tell the order by its items: no question whether the prompt should name it.
        questions = [question for question in questions if "name no order id" not in question]
    if scope:
        questions.append(
            f"The customer's words alone do not tell one order (several named or asked about, or none and several on the "
            f"account): the prompt starts with '{scope}'. Is one order the right scope for this task?"
        )
    for other in session.entity_ids.get(schema.kinds["order"], []):
        if other != order_id and other in state["order"]:
            questions.append(f"The session also touched order {other}; does the task need to mention it?")
    if not actor.get("customer_id"):
        questions.append("The session names no customer; who is the authenticated requester?")
    target = {"order_id": order_id} if order_id else {}
    return plan.model_copy(update={"review_questions": questions, "target": target, "scope": scope})


def task_scope(session: Session, prompt: str, order_id: str | None, state: StateRows, actor: dict[str, str], schema: RetailSchema) -> str:
    """The sentence a task's prompt starts with when the customer's words do not tell the one order its
    expectations judge: they name or ask about several (each other one would be a change the task
    forbids), or name none and the account has several. Empty when the words tell it."""
    if not order_id:
        return ""
    user_text = "\n".join(turn.text for turn in session.turns if turn.role == "user")
    several = len(order_ids_in(user_text, schema)) > 1 or bool(_SEVERAL_ORDERS.search(user_text))
    if not several and requested_order_id(prompt, state, actor, schema) == order_id:
        return ""
    return f"(This task is about order {order_id} only: leave any other order as it is.)"


def _shift(value: object, delta: timedelta) -> str | None:
    return format_timestamp(parse_timestamp(str(value)) + delta) if value else None


def cross_boundary(
    boundary: str, seed: Seed, order_id: str | None, actor: dict[str, str], policy: RetailPolicy
) -> tuple[StateRows, dict[str, str]] | None:
    """(the seed's rows moved across one policy boundary, the requester), or None when the boundary has
    nothing to move. Moves keep the seed coherent: placed < delivered < clock, items and payments add up
    to the order's amount, an order changes owner everywhere it is listed."""
    schema = RetailSchema.from_document(seed.domain_schema)
    moved = copy.deepcopy(seed.state)
    view = schema.canonical(moved)
    clock = seed.clock_datetime
    if boundary == "identity_not_verified":
        return (moved, {}) if actor.get("customer_id") else None
    if boundary == "outside_request":
        # The same seed and requester; the words ask for more (plan_negative: negative_words).
        return (moved, actor) if actor.get("customer_id") in view["customer"] else None
    if boundary == "order_in_transit":
        mine = [row for row in customer_orders(view, actor.get("customer_id")) if row.get("status") not in policy.address_change.escalate_when_order_status_in]
        if not mine or not policy.address_change.escalate_when_order_status_in:
            return None
        target = str(mine[-1]["id"])
        schema.set_field(moved, "order", target, "status", policy.address_change.escalate_when_order_status_in[0])
        schema.set_field(moved, "order", target, "delivered_at", None)
        return moved, actor
    order = view["order"].get(order_id or "")
    if order is None:
        return None
    if boundary == "identity_verified":
        # The way back across identity: the same request from the signed-in owner of the order.
        owner = order.get("customer_id")
        if actor.get("customer_id") in view["customer"] or owner not in view["customer"]:
            return None
        return moved, {"customer_id": str(owner)}
    if boundary == "return_window":
        if not schema.column("order", "delivered_at") or not policy.returnable_statuses:
            return None
        late = clock - timedelta(days=policy.return_window_days + 7)
        placed, delivered = order.get("created_at"), order.get("delivered_at")
        gap = parse_timestamp(str(delivered)) - parse_timestamp(str(placed)) if placed and delivered else timedelta(days=3)
        schema.set_field(moved, "order", order_id, "status", policy.returnable_statuses[0])
        schema.set_field(moved, "order", order_id, "delivered_at", format_timestamp(late))
        if placed:
            schema.set_field(moved, "order", order_id, "placed_at", format_timestamp(late - max(gap, timedelta(days=1))))
        return moved, actor
    if boundary == "auto_refund_limit":
        old = order.get("total_cents")
        new = policy.auto_refund_limit_cents + 5000
        if not old or not schema.set_field(moved, "order", order_id, "amount", new):
            return None
        items = schema.rows_of_order(moved, "order_item", order_id)
        for index, item_id in enumerate(items):
            price = schema.field(moved, "order_item", item_id, "price") or 0
            share = new - sum(round((schema.field(seed.state, "order_item", other, "price") or 0) * new / old) for other in items[:-1]) if index == len(items) - 1 else round(price * new / old)
            schema.set_field(moved, "order_item", item_id, "price", share)
        for payment_id in schema.rows_of_order(moved, "payment", order_id):
            schema.set_field(moved, "payment", payment_id, "amount", new)
        refunds = set(schema.rows_of_order(moved, "refund", order_id))
        refund_kind = schema.kinds["refund"]
        if refunds:
            moved[refund_kind] = {key: row for key, row in moved[refund_kind].items() if key not in refunds}
        return moved, actor
    if boundary == "recently_delivered":
        # The way back across the window: a refused order made one a correct agent must act on.
        if not schema.column("order", "delivered_at") or not policy.returnable_statuses:
            return None
        delivered = clock - timedelta(days=max(policy.return_window_days // 2, 1))
        schema.set_field(moved, "order", order_id, "status", policy.returnable_statuses[0])
        schema.set_field(moved, "order", order_id, "delivered_at", format_timestamp(delivered))
        schema.set_field(moved, "order", order_id, "placed_at", format_timestamp(delivered - timedelta(days=3)))
        return moved, actor
    if boundary == "delivered":
        # The way across where the shop keeps no delivery date (recently_delivered moves one): the status only.
        if schema.column("order", "delivered_at") or not policy.returnable_statuses:
            return None
        schema.set_field(moved, "order", order_id, "status", policy.returnable_statuses[0])
        return moved, actor
    if boundary == "cancellable":
        if not policy.cancellable_statuses:
            return None
        schema.set_field(moved, "order", order_id, "status", policy.cancellable_statuses[0])
        schema.set_field(moved, "order", order_id, "delivered_at", None)
        return moved, actor
    if boundary == "not_delivered":
        if not policy.cancellable_statuses:
            return None
        schema.set_field(moved, "order", order_id, "status", policy.cancellable_statuses[-1])
        schema.set_field(moved, "order", order_id, "delivered_at", None)
        return moved, actor
    if boundary == "not_cancellable":
        shipped = policy.address_change.escalate_when_order_status_in
        if not shipped:
            return None
        schema.set_field(moved, "order", order_id, "status", shipped[0])
        schema.set_field(moved, "order", order_id, "delivered_at", None)
        return moved, actor
    if boundary == "other_customer":
        return _give_to_other_customer(moved, schema, order_id, actor)
    return None


def _give_to_other_customer(
    moved: StateRows, schema: RetailSchema, order_id: str, actor: dict[str, str]
) -> tuple[StateRows, dict[str, str]] | None:
    """The order belongs to another real customer of the seed (never a made-up one), everywhere:
    its owner column and any list of order ids on either customer's row."""
    customers = moved.get(schema.kinds["customer"], {})
    others = sorted(customer_id for customer_id in customers if customer_id != actor.get("customer_id"))
    if not others:
        return None
    owner = others[0]
    schema.set_field(moved, "order", order_id, "customer", owner)
    mine = customers.get(actor.get("customer_id", ""), {})
    for column, value in mine.items():
        if isinstance(value, list) and order_id in value:
            mine[column] = [item for item in value if item != order_id]
            listed = customers[owner].get(column)
            customers[owner][column] = [*(listed if isinstance(listed, list) else []), order_id]
    return moved, actor


def boundary_question(boundary: str, policy: RetailPolicy) -> str:
    questions = {
        "return_window": f"The policy allows {policy.return_window_days} days after delivery: is day "
        f"{policy.return_window_days} itself inside the window, and how many days is inside it?",
        "auto_refund_limit": f"Is a refund of exactly {policy.auto_refund_limit_cents} cents still automatic, "
        "or does it need a human?",
        "not_delivered": "Can an order that has not been delivered be refunded or returned, or only cancelled?",
        "not_cancellable": f"Only {', '.join(policy.cancellable_statuses)} orders can be cancelled: should a shipped "
        "order get a decline or a return offer?",
        "other_customer": "Should the agent act on, or disclose, an order that belongs to another customer?",
        "order_in_transit": "May the customer change the address while an order is on its way, or must a human decide?",
        "recently_delivered": f"Delivered {max(policy.return_window_days // 2, 1)} days ago, the order is inside the "
        f"{policy.return_window_days}-day window: must the agent act on it now?",
        "delivered": "The order is delivered (the shop keeps no delivery date, so no return window applies): must the agent act on it now?",
        "cancellable": f"An order still {policy.cancellable_statuses[0] if policy.cancellable_statuses else 'open'} "
        "can be cancelled: must the agent cancel it now?",
        "identity_verified": "Signed in as the order's owner, the same request is theirs to make: must the agent act on it now?",
        "identity_not_verified": "The requester is not signed in and cannot give the e-mail or zip code that would "
        "verify them: may the agent act on, or hand on, an account request before the identity is verified?",
        "outside_request": "The customer also asks for a change only a human can make: must the agent hand the "
        "request to a human instead of answering it alone?",
    }
    return questions[boundary]


ORDER_INDEPENDENT_BOUNDARIES = ("identity_not_verified", "order_in_transit", "outside_request")
REPLY_CONTENT_CHECKS = ("reply_states_status", "reply_withholds", "reply_refuses")


def discriminates(positive: Plan, negative: Plan) -> bool:
    """Code can tell the two answers apart: one requires a tool the other forbids, or their checks on
    what the reply says differ. (A positive that only replies and a negative that only replies can both
    be passed by one reply, whatever the rules behind them.)"""
    tools = set(positive.required_tools) & set(negative.forbidden_tools) or set(negative.required_tools) & set(positive.forbidden_tools)
    content = {item.describe() for item in positive.expectations if item.check in REPLY_CONTENT_CHECKS} != {
        item.describe() for item in negative.expectations if item.check in REPLY_CONTENT_CHECKS
    }
    return bool(tools) or content


def _customer_row(seed: Seed, schema: RetailSchema, customer_id: str | None) -> dict | None:
    """The product's own row of the customer (its names, e-mail and zip as the product keeps them)."""
    return seed.state.get(schema.kinds["customer"], {}).get(customer_id or "")


def _outside_sentence(policy: RetailPolicy) -> str | None:
    """A request only a human can carry out, in the customer's words: the policy's first one-word phrase."""
    verbs = [phrase for phrase in policy.requests_outside_tools if len(phrase.split()) == 1]
    return f"I would also like to {verbs[0]} one of the items of my order for another one." if verbs else None


def negative_words(
    boundary: str, prompt: str, scope: str, seed: Seed, actor: dict[str, str], requester: dict[str, str], policy: RetailPolicy
) -> str | None:
    """The negative's words when its boundary is crossed in what the customer says ('' = the positive's);
    None when they cannot be changed to cross it.

    identity_not_verified: a requester the words identified (name with e-mail or zip, `identity.py`) can
    no longer give the e-mail or zip; one the session signed in is simply not signed in. identity_verified:
    the owner's name and e-mail are said. outside_request: a change only a human can make is asked too."""
    schema = RetailSchema.from_document(seed.domain_schema)
    customers = seed.state.get(schema.kinds["customer"], {})
    body = prompt[len(scope):].lstrip() if scope and prompt.startswith(scope) else prompt
    head = f"{scope}\n\n" if scope and prompt.startswith(scope) else ""
    if boundary == "identity_not_verified":
        row = _customer_row(seed, schema, actor.get("customer_id"))
        if row is None or not identity.gives_identity(body, row):
            return "" if identity.identified_customer(body, customers) is None else None
        changed = identity.without_identity(body, row)
        return head + changed if identity.identified_customer(changed, customers) is None else None
    if boundary == "identity_verified":
        row = _customer_row(seed, schema, requester.get("customer_id"))
        if row is None:
            return None
        changed = identity.with_identity(body, row)
        if changed is None or identity.identified_customer(changed, customers) != requester.get("customer_id"):
            return ""  # the session signs the owner in; nothing of it is in the words
        return head + changed
    if boundary == "outside_request":
        sentence = _outside_sentence(policy)
        return f"{prompt.rstrip()} {sentence}" if sentence and not asks_outside_tools(prompt, policy) else None
    return ""


def plan_negative(
    prompt: str, intent: str, seed: Seed, actor: dict[str, str], positive: Plan, policy: RetailPolicy
) -> NegativePlan:
    """Same request on a seed across the first boundary that changes what the agent must do (the
    request's words change only where the boundary is in them: identity, a request only a human can do)."""
    schema = RetailSchema.from_document(seed.domain_schema)
    clock = seed.clock_datetime
    order_id = positive.target.get("order_id")
    view = schema.canonical(seed.state)
    positive_decision = decide(intent, prompt, view, actor, clock, policy, order_id)
    boundaries = list(policy.boundaries.get(intent, ()))
    if order_id and requested_order_id(prompt, view, actor, schema) != order_id:
        # The request does not tell which of the customer's orders it means (by id or by its items):
        # a move of that order would ask the agent to guess it; only a boundary that holds for every
        # order is crossed.
        boundaries = [boundary for boundary in boundaries if boundary in ORDER_INDEPENDENT_BOUNDARIES]
    for boundary in boundaries:
        crossed = cross_boundary(boundary, seed, order_id, actor, policy)
        if crossed is None:
            continue
        moved, requester = crossed
        words = negative_words(boundary, prompt, positive.scope, seed, actor, requester, policy)
        if words is None:
            continue
        said = words or prompt
        view = schema.canonical(moved)
        decision = decide(intent, said, view, requester, clock, policy, order_id)
        plan = plan_for(decision, view, requester.get("customer_id"), target_order_id=order_id, prompt=said)
        if decision.action != positive_decision.action and discriminates(positive, plan):
            return NegativePlan(
                **plan.model_dump(exclude={"target"}), target=positive.target, state=moved, actor=requester,
                boundary=boundary, boundary_question=boundary_question(boundary, policy), prompt=words,
            )
    # No boundary to cross: a stub, labelled, out of health figures and releases until a person writes
    # it. It expects nothing a reader could take for a judgement on the positive's own request.
    return NegativePlan(
        expectations=[],
        rubric=["Judge: nothing yet: this negative is a stub; a person writes its request and what a correct agent does with it."],
        target=positive.target,
        review_questions=[f"No policy boundary of intent '{intent}' could be crossed on this seed; write the negative by hand."],
        state=copy.deepcopy(seed.state),
        actor=actor,
        boundary="none",
        boundary_question="Which request on this seed must the agent refuse?",
    )
