"""Draft expectations for retail tasks: the incident's resolution checked against the policy on the seed."""

from __future__ import annotations

import copy
import re
from datetime import timedelta

from ingest.models import Session, StateRows, sha256_hex
from taskgen.classify import Classification
from taskgen.domains import NegativePlan, Plan
from taskgen.domains.retail.environment import WRITE_TOOLS
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.rules import Decision, customer_orders, decide, refunded_cents, target_order_id
from taskgen.seeds import Seed, format_timestamp
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

INTENT_BOUNDARIES: dict[str, tuple[str, ...]] = {
    "refund": ("return_window", "auto_refund_limit", "not_delivered", "other_customer"),
    "return_label": ("return_window", "not_delivered", "other_customer"),
    "cancellation": ("not_cancellable", "other_customer"),
    "address_change": ("order_in_transit",),
    "order_status": ("other_customer",),
}


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
        done = [_TOOL_ACTIONS[call.name] for call in session.tool_calls if call.status == "ok" and call.name in _TOOL_ACTIONS]
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


def _reply_checks(decision: Decision, state: StateRows, requester: str | None) -> list[Expectation]:
    """What code can judge about the reply: the order's status stated, a refusal, no refund promised,
    nothing of another customer's order."""
    order = state.get("order", {}).get(decision.order_id or "")
    checks = []
    if decision.action == "inform" and order is not None:
        checks.append(_check("reply_states_status", order_id=decision.order_id, status=order["status"]))
    if decision.action in ("decline", "escalate"):
        checks.append(_check("reply_promises_no_refund"))
    if decision.rule == "not_order_owner":
        checks.append(_check("reply_withholds", order_id=decision.order_id, **({"requester": requester} if requester else {})))
    return checks


def plan_for(decision: Decision, state: StateRows, requester: str | None = None) -> Plan:
    """Expectations, required and forbidden tools that make `decision` the one passing answer."""
    plan = _plan_for(decision, state)
    return plan.model_copy(
        update={
            "expectations": [*plan.expectations, *_reply_checks(decision, state, requester)],
            "rubric": [_RUBRIC[decision.action].format(rule=decision.rule)],
        }
    )


def _plan_for(decision: Decision, state: StateRows) -> Plan:
    order_id, customer_id = decision.order_id, decision.customer_id
    order = state.get("order", {}).get(order_id or "")
    untouched: list[Expectation] = []
    if order is not None:
        earlier = refunded_cents(state, order_id or "")
        no_new_refund = _check("refunded_total", order_id=order_id, amount_cents=earlier) if earlier else _check("no_refund", order_id=order_id)
        untouched = [no_new_refund, _check("order_status", order_id=order_id, status=order["status"])]
    if customer_id in state.get("customer", {}):
        untouched.append(_check("address_equals", customer_id=customer_id, address=state["customer"][customer_id].get("address", "")))
    if decision.action == "refund":
        return Plan(
            expectations=[_check("refund_exists", order_id=order_id, amount_cents=decision.amount_cents), _check("reply_sent")],
            required_tools=["refund_order"],
            forbidden_tools=["cancel_order"],
        )
    if decision.action == "return_label":
        return Plan(
            expectations=[_check("return_label_exists", order_id=order_id), _check("no_refund", order_id=order_id)],
            required_tools=["create_return_label"],
            forbidden_tools=["refund_order", "cancel_order"],
        )
    if decision.action == "cancel":
        return Plan(
            expectations=[_check("order_status", order_id=order_id, status="cancelled"), _check("reply_sent")],
            required_tools=["cancel_order"],
            forbidden_tools=["update_address"],
        )
    if decision.action == "update_address":
        return Plan(
            expectations=[_check("address_equals", customer_id=customer_id, address=decision.address)],
            required_tools=["update_address"],
            forbidden_tools=["refund_order", "cancel_order"],
        )
    if decision.action == "escalate":
        return Plan(expectations=[_check("escalated"), *untouched], required_tools=["escalate_to_human"], forbidden_tools=list(WRITE_TOOLS))
    if decision.action == "decline":
        either = Expectation(check="any_of", any_of=[_check("reply_refuses"), _check("escalated")])
        return Plan(expectations=[either, *untouched], forbidden_tools=list(WRITE_TOOLS))
    return Plan(expectations=[_check("reply_sent"), *untouched], forbidden_tools=list(WRITE_TOOLS))


def plan_positive(
    session: Session, classification: Classification, seed: Seed, actor: dict[str, str], policy: RetailPolicy
) -> Plan:
    prompt = session.first_user_text()
    decision = decide(classification.intent, prompt, seed.state, actor, seed.clock_datetime, policy)
    plan = plan_for(decision, seed.state, actor.get("customer_id"))
    questions = list(plan.review_questions)
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
    named = target_order_id(prompt, seed.state, actor)
    for order_id in session.entity_ids.get("order", []):
        if order_id != named and order_id in seed.state.get("order", {}):
            questions.append(f"The session also touched order {order_id}; does the task need to mention it?")
    if not actor.get("customer_id"):
        questions.append("The session names no customer; who is the authenticated requester?")
    return plan.model_copy(update={"review_questions": questions})


def _other_customer_id(state: StateRows, actor_customer: str | None, order_id: str) -> str:
    others = sorted(customer_id for customer_id in state.get("customer", {}) if customer_id != actor_customer)
    return others[0] if others else f"customer-other-{sha256_hex(order_id)[:8]}"


def cross_boundary(boundary: str, state: StateRows, order_id: str | None, seed: Seed, actor: dict[str, str], policy: RetailPolicy) -> StateRows | None:
    """The state moved across one policy boundary, or None when the boundary has nothing to move."""
    moved = copy.deepcopy(state)
    orders = moved.get("order", {})
    if boundary == "order_in_transit":
        mine = customer_orders(moved, actor.get("customer_id"))
        if not mine:
            return None
        orders[mine[-1]["id"]].update(status="shipped", delivered_at=None)
        return moved
    order = orders.get(order_id or "")
    if order is None:
        return None
    if boundary == "return_window":
        late = seed.clock_datetime - timedelta(days=policy.return_window_days + 7)
        order.update(status="delivered", delivered_at=format_timestamp(late))
    elif boundary == "auto_refund_limit":
        order["total_cents"] = policy.auto_refund_limit_cents + 5000
        for payment in moved.get("payment", {}).values():
            if payment.get("order_id") == order_id:
                payment["amount_cents"] = order["total_cents"]
        moved["refund"] = {key: row for key, row in moved.get("refund", {}).items() if row.get("order_id") != order_id}
    elif boundary == "not_delivered":
        order.update(status="processing", delivered_at=None)
    elif boundary == "not_cancellable":
        order.update(status="shipped", delivered_at=None)
    elif boundary == "other_customer":
        order["customer_id"] = _other_customer_id(moved, actor.get("customer_id"), order_id or "")
    return moved


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
    }
    return questions[boundary]


def plan_negative(
    prompt: str, intent: str, seed: Seed, actor: dict[str, str], positive: Plan, policy: RetailPolicy
) -> NegativePlan:
    """Same request on a seed across the first boundary that turns the answer into a decline/escalation."""
    clock = seed.clock_datetime
    positive_decision = decide(intent, prompt, seed.state, actor, clock, policy)
    order_id = target_order_id(prompt, seed.state, actor)
    for boundary in INTENT_BOUNDARIES.get(intent, ()):
        moved = cross_boundary(boundary, seed.state, order_id, seed, actor, policy)
        if moved is None:
            continue
        decision = decide(intent, prompt, moved, actor, clock, policy)
        if decision.action in ("decline", "escalate") and decision.rule != positive_decision.rule:
            plan = plan_for(decision, moved, actor.get("customer_id"))
            return NegativePlan(
                **plan.model_dump(), state=moved, boundary=boundary, boundary_question=boundary_question(boundary, policy)
            )
    plan = plan_for(Decision(action="decline", rule="no_boundary", order_id=order_id), seed.state, actor.get("customer_id"))
    return NegativePlan(
        **plan.model_dump(exclude={"review_questions"}),
        review_questions=[f"No policy boundary of intent '{intent}' could be crossed on this seed; write the negative by hand."],
        state=copy.deepcopy(seed.state),
        boundary="none",
        boundary_question="Which request on this seed must the agent refuse?",
    )
