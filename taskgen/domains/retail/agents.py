"""Deterministic fake agents for health checks. They see an AgentView and the environment only."""

from __future__ import annotations

from ingest.models import ToolCall
from taskgen.domains import Agent, Environment
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.rules import customer_orders, decide, order_ids_in, refunded_cents
from taskgen.seeds import parse_timestamp
from taskgen.task import AgentView, IncidentBehaviour

_ACTION_CALLS = {
    "refund": lambda decision: ("refund_order", {"order_id": decision.order_id, "amount_cents": decision.amount_cents, "reason": "within policy"}),
    "return_label": lambda decision: ("create_return_label", {"order_id": decision.order_id}),
    "cancel": lambda decision: ("cancel_order", {"order_id": decision.order_id}),
    "update_address": lambda decision: ("update_address", {"customer_id": decision.customer_id, "address": decision.address}),
    "escalate": lambda decision: ("escalate_to_human", {"reason": decision.rule}),
}


def reference_agent(policy: RetailPolicy) -> Agent:
    """Follows the policy file on the seed: the one agent every sound task must let pass."""

    def run(view: AgentView, env: Environment) -> None:
        decision = decide(view.intent, view.prompt, env.state, view.actor, parse_timestamp(view.clock), policy)
        if decision.order_id:
            env.call("get_order", order_id=decision.order_id)
        if decision.action in _ACTION_CALLS:
            name, arguments = _ACTION_CALLS[decision.action](decision)
            env.call(name, **arguments)
        env.call("send_reply", text=f"Outcome of your request: {decision.action}.")

    return run


def refund_everything(view: AgentView, env: Environment) -> None:
    """Refunds in full every order the prompt names (or all of the requester's orders)."""
    order_ids = order_ids_in(view.prompt) or [order["id"] for order in customer_orders(env.state, view.actor.get("customer_id"))]
    for order_id in order_ids:
        order = env.call("get_order", order_id=order_id)
        if order is not None:
            remaining = int(order.get("total_cents", 0)) - refunded_cents(env.state, order_id)
            if remaining > 0:
                env.call("refund_order", order_id=order_id, amount_cents=remaining, reason="customer request")
    env.call("send_reply", text="Your refund has been issued.")


def do_nothing(view: AgentView, env: Environment) -> None:
    """Makes no call at all."""


def incident_replay(behaviour: IncidentBehaviour) -> Agent:
    """Does what the incident's agent did: its calls (a call that failed then is recorded, not run), its last reply."""

    def run(view: AgentView, env: Environment) -> None:
        for call in behaviour.calls:
            if call.status == "ok":
                env.call(call.name, **call.arguments)
            else:
                env.calls.append(ToolCall(name=call.name, arguments=call.arguments, status="error", error="failed in the incident"))
        if behaviour.reply is not None:
            env.call("send_reply", text=behaviour.reply)

    return run
