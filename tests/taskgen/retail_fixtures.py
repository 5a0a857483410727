"""Builders for small realistic scrubbed retail sessions and state (fake names, as the scrubber leaves them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ingest.models import (
    DeploySignal, ErrorSignal, EscalationSignal, Provenance, Session, Signals, TicketSignal, ToolCall, Turn, Usage,
)

CLOCK = datetime(2024, 5, 10, 14, 0, tzinfo=UTC)


def _ago(days: int) -> str:
    return (CLOCK - timedelta(days=days)).isoformat().replace("+00:00", "Z")


def make_state() -> dict:
    customers = {
        "cus_1001": {"id": "cus_1001", "name": "Dana Whitfield", "email": "dana.whitfield@example.net", "phone": "+1-202-555-0143",
                     "address": "18 Linden Court, Dayton, OH 45402", "created_at": "2022-03-14T09:12:00Z"},
        "cus_1002": {"id": "cus_1002", "name": "Marcus Ollie", "email": "m.ollie@example.org", "phone": "+1-415-555-0199",
                     "address": "4410 Hargrove Ave, Fresno, CA 93722", "created_at": "2021-11-02T17:40:00Z"},
        "cus_1003": {"id": "cus_1003", "name": "Priya Raman", "email": "priya.r@example.com", "phone": "+1-512-555-0108",
                     "address": "9 Cedar Row, Austin, TX 78701", "created_at": "2023-06-21T12:00:00Z"},
    }
    orders = {
        "#W1000001": ("cus_1001", "delivered", 8999, 12, 5),
        "#W1000002": ("cus_1001", "processing", 4500, 2, None),
        "#W1000003": ("cus_1002", "delivered", 12000, 50, 40),
        "#W1000004": ("cus_1002", "shipped", 3250, 6, None),
        "#W1000005": ("cus_1003", "delivered", 15900, 15, 10),
    }
    state: dict = {"customer": customers, "order": {}, "order_item": {}, "payment": {}, "refund": {}, "return_label": {}}
    for number, (order_id, (customer_id, status, total, created, delivered)) in enumerate(orders.items(), start=1):
        state["order"][order_id] = {
            "id": order_id, "customer_id": customer_id, "status": status, "total_cents": total,
            "created_at": _ago(created), "delivered_at": _ago(delivered) if delivered is not None else None,
            "shipping_address": customers[customer_id]["address"],
        }
        state["order_item"][f"item_{number}"] = {"id": f"item_{number}", "order_id": order_id, "sku": f"SKU-{number:04d}",
                                                 "name": "Ceramic pour-over kettle", "price_cents": total, "quantity": 1}
        state["payment"][f"pay_{number}"] = {"id": f"pay_{number}", "order_id": order_id, "method": "card",
                                             "card_number": "4111 1111 1111 1111", "amount_cents": total, "created_at": _ago(created)}
    return state


def make_session(session_id: str, text: str, customer: str | None, orders: list[str], calls: list[ToolCall] | None = None,
                 signals: Signals | None = None, turns: int = 3) -> Session:
    return Session(
        session_id=session_id,
        trace_ids=[f"trace-{session_id}"],
        started_at=CLOCK,
        turns=[Turn(role="user", text=text, at=CLOCK, source="traces"),
               Turn(role="agent", text="Let me look into that for you.", source="traces")],
        tool_calls=calls or [],
        entity_ids={**({"customer": [customer]} if customer else {}), "order": orders},
        signals=signals or Signals(),
        usage=Usage(input_tokens=1800, output_tokens=350, latency_ms=9200.0, agent_turns=turns),
        provenance=[Provenance(source="traces", file="traces/day1.jsonl", position=1, external_id=f"span-{session_id}", sha256="0" * 64)],
    )


def make_sessions() -> list[Session]:
    get = lambda order_id: ToolCall(name="get_order", arguments={"order_id": order_id})  # noqa: E731
    return [
        make_session("s-refund", "Hi, I want a refund for order #W1000001. The kettle arrived cracked five days ago.",
                     "cus_1001", ["#W1000001"],
                     [get("#W1000001"), ToolCall(name="refund_order", arguments={"order_id": "#W1000001", "amount_cents": 8999, "reason": "damaged"})]),
        make_session("s-return", "Can I get a return label for #W1000005? It is the wrong size.", "cus_1003", ["#W1000005"], [get("#W1000005")],
                     Signals(escalations=[EscalationSignal(id="esc-77", reason="Customer asked for return, agent unsure", queue="returns",
                                                           resolution="Return label sent to the customer")])),
        make_session("s-cancel", "Please cancel my order #W1000002, I don't want it anymore.", "cus_1001", ["#W1000002"],
                     [ToolCall(name="cancel_order", arguments={"order_id": "#W1000002"}, status="error", error="timeout")],
                     Signals(errors=[ErrorSignal(message="upstream timeout after 30000 ms", template="upstream timeout after <*> ms")])),
        make_session("s-address", "I moved last week. Please update my address to 742 Evergreen Terrace, Springfield, OR 97403.",
                     "cus_1003", [],
                     [ToolCall(name="update_address", arguments={"customer_id": "cus_1003", "address": "742 Evergreen Terrace, Springfield, OR 97403"})]),
        make_session("s-status", "Where is my order #W1000004? It hasn't arrived yet and the tracking number shows nothing.",
                     "cus_1002", ["#W1000004"], [get("#W1000004")],
                     Signals(tickets=[TicketSignal(id="T-5501", status="reopened", subject="Where is my order", tags=["shipping"])])),
        make_session("s-access", "I can't log in to my account. I reset my password yesterday and I'm still locked out.",
                     "cus_1002", [], [],
                     Signals(escalations=[EscalationSignal(id="esc-78", reason="account locked after reset", queue="accounts",
                                                           resolution="Unlocked by the accounts team")])),
        make_session("s-rollback", "I'd like my money back for #W1000003, I never used it.", "cus_1002", ["#W1000003"],
                     [get("#W1000003"), ToolCall(name="refund_order", arguments={"order_id": "#W1000003", "amount_cents": 12000, "reason": "unused"})],
                     Signals(deploys=[DeploySignal(id="dep-42", kind="rollback", reason="agent v2.3 refunded orders outside the return window",
                                                   incident_id="INC-9")])),
        # A visitor who has not signed in asks a general question: no boundary to cross (a stub negative).
        make_session("s-other", "Do you sell gift cards for the holidays?", None, []),
    ]


VARIANT_MAPPING = {
    "version": 1,
    "kinds": {
        "client": {"table": "clients", "key": "client_ref"},
        "purchase": {"table": "purchases", "key": "ref", "foreign_keys": {"buyer": "client"}},
        "line": {"table": "lines", "key": "line_id", "foreign_keys": {"purchase_ref": "purchase"}},
        "payment": {"table": "payments", "key": "id", "foreign_keys": {"order_id": "purchase"}},
    },
    "roles": {
        "order": {"kind": "purchase", "columns": {"customer": "buyer", "status": "state", "placed_at": "ordered_on",
                                                  "delivered_at": "received_on", "amount": "grand_total"},
                  "options": {"amount_unit": "currency"}},
        "customer": {"kind": "client", "columns": {"address": "postal"}},
        "order_item": {"kind": "line", "columns": {"order": "purchase_ref", "price": "unit_price"}},
        "payment": {"columns": {"amount": "paid"}},
    },
}
"""Another product's schema: purchases `PO-nnnnnn` with other column names, amounts in currency units."""

VARIANT_PATTERNS = [r"PO-\d{6}"]


def variant_id(order_id: str) -> str:
    return "PO-" + order_id.removeprefix("#W")[1:]


def make_variant_state() -> dict:
    """The fixture state as the other product keeps it (same facts, its own names and units)."""
    state = make_state()
    clients = {
        cid: {"client_ref": cid, "full_name": row["name"], "contact": row["email"],
              "postal": dict(zip(("address1", "city", "state"), [part.strip() for part in row["address"].split(",")]))}
        for cid, row in state["customer"].items()
    }
    for client in clients.values():
        client["postal"]["state"], client["postal"]["zip"] = client["postal"]["state"].split()
    purchases = {
        variant_id(oid): {"ref": variant_id(oid), "buyer": row["customer_id"], "state": row["status"],
                          "grand_total": row["total_cents"] / 100, "ordered_on": row["created_at"], "received_on": row["delivered_at"]}
        for oid, row in state["order"].items()
    }
    lines = {iid: {"line_id": iid, "purchase_ref": variant_id(row["order_id"]), "unit_price": row["price_cents"] / 100}
             for iid, row in state["order_item"].items()}
    payments = {pid: {"id": pid, "order_id": variant_id(row["order_id"]), "paid": row["amount_cents"] / 100}
                for pid, row in state["payment"].items()}
    return {"client": clients, "purchase": purchases, "line": lines, "payment": payments}


HELDOUT_TOOLS = {"refund_order", "create_return_label"}


def fixed_splits(tasks):
    """The fixture tasks with splits pinned for the export tests (the drafted split follows a hash of the
    incident, so which fixture lands where is chance): pairs whose positive requires a refund or a return
    label are held out, the rest are dev."""
    heldout = {task.pair_id for task in tasks if task.polarity == "positive" and HELDOUT_TOOLS & set(task.required_tools)}
    return [task.model_copy(update={"split": "heldout" if task.pair_id in heldout else "dev"}) for task in tasks]


def run_and_grade(policy, task, seed, agent: str = "", calls: tuple = ()):
    """(the grader's verdict, the environment) after `agent` (one of the domain's agents; none: no agent) and then
    `calls` (name, arguments) ran on the task's seed, nothing-else-changed judged against the seed."""
    from taskgen.domains.retail import RetailDomain
    from taskgen.domains.retail.grader import grade
    from taskgen.task import AgentView

    domain = RetailDomain(policy)
    env = domain.environment(seed)
    if agent:
        domain.agents()[agent](AgentView(prompt=task.prompt, intent=task.intent, actor=task.actor, clock=task.clock), env)
    for name, arguments in calls:
        env.call(name, **arguments)
    return grade(task, env.state, env.calls, domain.environment(seed).state), env
