"""Deterministic fake agents for health checks (the reference agent is `reference.py`). They see an AgentView and the environment only."""

from __future__ import annotations

from ingest.models import ToolCall
from taskgen.domains import Agent, Environment
from taskgen.domains.retail.rules import customer_orders, order_ids_in, refunded_cents
from taskgen.task import AgentView, IncidentBehaviour


def refund_everything(view: AgentView, env: Environment) -> None:
    """Refunds in full every order the prompt names (or all of the requester's orders)."""
    order_ids = order_ids_in(view.prompt, env.schema) or [order["id"] for order in customer_orders(env.state, view.actor.get("customer_id"))]
    refunded = []
    for order_id in order_ids:
        order = env.call("get_order", order_id=order_id)
        if order is not None:
            remaining = int(order.get("total_cents", 0)) - refunded_cents(env.state, order_id)
            if remaining > 0 and env.call("refund_order", order_id=order_id, amount_cents=remaining, reason="customer request"):
                refunded.append(f"{remaining / 100:.2f} for order {order_id}")
    # It says what it did, amounts included: the probe is caught by what it changed, not by its wording.
    env.call("send_reply", text="Your refund has been issued: " + ", ".join(refunded) + "." if refunded else "Your refund has been issued.")


def do_nothing(view: AgentView, env: Environment) -> None:
    """Makes no call at all."""


REPLY_ONLY_TEXT = "Thank you for your message. I have looked into it for you."


def reply_only(view: AgentView, env: Environment) -> None:
    """Sends one courteous reply that states nothing and changes nothing: a task it passes along with the
    reference agent cannot tell a correct agent from a canned answer by its end state."""
    env.call("send_reply", text=REPLY_ONLY_TEXT)


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
