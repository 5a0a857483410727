"""Streams the drop's files: what every source (traces, OTLP and plain-text logs, escalations,
Zendesk tickets and comments, deploy events) says about each session, per-day files day by day,
ticket export pages as they fill, and the planted malformed records."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from faker import Faker

from .conversation import ESCALATION_QUEUE, Play
from .otlp import SERVICE, Rendered, otlp_attributes
from .phrases import PHRASES
from .plan import Deploy, Plan
from .values import casual, dumps, iso, iso_ms, to_ascii, unix_ns
from .world import Customer, Order, PiiLedger

ZENDESK = "https://acme-outfitters.zendesk.com/api/v2"
SESSION_FIELD_ID = 360001
TICKETS_PER_PAGE = 500
TICKET_CHANCE = {
    "resolved": 0.22,
    "failed": 1.0,
    "escalated": 0.6,
    "errored": 0.55,
    "rolled_back": 0.35,
    "hotfixed": 0.8,
}
INTENT_TAG = {
    "order_status": "order_status",
    "refund": "refund",
    "return_label": "return",
    "cancellation": "cancellation",
    "address_change": "address_change",
    "account_access": "account_access",
    "other": "general_question",
}


@dataclass
class HumanAgent:
    zendesk_id: int
    first: str
    name: str
    email: str


@dataclass
class _Day:
    """What one day adds to the per-day files, kept until the day is written."""

    trace_lines: list[str] = field(default_factory=list)
    log_lines: list[tuple[datetime, bytes]] = field(default_factory=list)
    app_lines: list[tuple[datetime, str]] = field(default_factory=list)
    escalation_lines: list[tuple[datetime, str]] = field(default_factory=list)


class DropWriter:
    """Streams the drop's files: per-day files day by day, ticket export pages as they fill."""

    def __init__(self, out: Path, rng: random.Random, pii: PiiLedger, agents: list[HumanAgent],
                 export_start: int) -> None:
        self.out, self.rng, self.pii, self.agents = out, rng, pii, agents
        self.records: Counter[str] = Counter()
        self.files: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.day = _Day()
        self.pending_tickets: list[tuple[datetime, dict[str, Any], list[dict[str, Any]]]] = []
        self.page: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        self.ticket_count = self.comment_count = self.escalation_count = 0
        self.end_time = export_start  # the export cursor: unix time of the last exported ticket's update
        for folder in ("tickets/comments", "traces", "error_logs", "escalations", "deploys", "state"):
            (out / folder).mkdir(parents=True, exist_ok=True)

    # -- per session

    def add_session(self, plan: Plan, customer: Customer, order: Order, play: Play, rendered: Rendered,
                    version: str) -> dict[str, Any]:
        """Writes what every source says about one session; returns its ids for planted_ids.json."""
        self.add_trace(rendered, version)
        self.add_logs(plan, customer, order, rendered)
        ids: dict[str, Any] = {"ticket_id": None, "escalation_id": None}
        if plan.outcome == "escalated":
            ids["escalation_id"] = self.add_escalation(plan, customer, play, rendered)
        if self.rng.random() < TICKET_CHANCE[plan.outcome]:
            ids["ticket_id"] = self.add_ticket(plan, customer, order, play, rendered)
        return ids

    def add_trace(self, rendered: Rendered, version: str) -> None:
        resource = {"attributes": otlp_attributes({
            "service.name": SERVICE, "service.version": version, "deployment.environment": "production",
            "host.name": f"support-agent-{self.rng.choice(['7f9c4', 'b21d8', 'c03a1'])}"})}
        scope = {"name": "support_agent.tracing", "version": version}
        spans = rendered.spans
        batches = [spans] if self.rng.random() < 0.9 or len(spans) < 4 else [spans[: len(spans) // 2], spans[len(spans) // 2 :]]
        for batch in batches:
            self.day.trace_lines.append(dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [
                {"scope": scope, "spans": batch}]}]}))
        self.records["spans"] += len(spans)

    def log_record(self, at: datetime, severity: int, body: str, attributes: dict[str, Any],
                   trace_id: str = "", span_id: str = "") -> dict[str, Any]:
        text = {17: "ERROR", 13: "WARN", 9: "INFO"}[severity]
        return {"timeUnixNano": str(unix_ns(at)), "observedTimeUnixNano": str(unix_ns(at + timedelta(milliseconds=self.rng.randint(1, 400)))),
                "severityNumber": severity, "severityText": text, "body": {"stringValue": body},
                "attributes": otlp_attributes(attributes),
                **({"traceId": trace_id} if trace_id else {}), **({"spanId": span_id} if span_id else {})}

    def emit_logs(self, service: str, records: list[dict[str, Any]]) -> None:
        line = dumps({"resourceLogs": [{"resource": {"attributes": otlp_attributes(
            {"service.name": service, "deployment.environment": "production"})},
            "scopeLogs": [{"scope": {"name": f"{service}.logger"}, "logRecords": records}]}]})
        at = datetime.fromtimestamp(int(records[0]["timeUnixNano"]) / 1e9, timezone.utc)
        self.day.log_lines.append((at, line.encode("utf-8")))
        self.records["log_records"] += len(records)

    def app_line(self, at: datetime, level: str, session_id: str, trace_id: str, message: str) -> None:
        self.day.app_lines.append((at, f"{iso_ms(at)} {level} [session={session_id} trace={trace_id}] {message}"))

    def add_logs(self, plan: Plan, customer: Customer, order: Order, rendered: Rendered) -> None:
        rng, sid, trace = self.rng, plan.session_id, rendered.trace_id
        for at, span_id, tool, error in rendered.errors:
            attributes = {"session.id": sid if rng.random() < 0.7 else None, "tool.name": tool,
                          "exception.type": error.exception_type}
            warn_at = at - timedelta(milliseconds=rng.randint(800, 5000))
            warning = self.log_record(warn_at, 13, f"retrying {error.service} call for {tool} (attempt 2/3)", {}, trace, span_id)
            self.emit_logs(error.service, [warning, self.log_record(at, 17, error.log_body, attributes, trace, span_id)])
            self.app_line(warn_at, "WARN", sid, trace, f"{tool} slow response from {error.service}, retrying (attempt 2/3)")
            self.app_line(at, "ERROR", sid, trace, error.log_body)
        for at, tool, millis in rendered.tools:
            if tool == "refund_order" and not rendered.errors:
                self.emit_logs("refund-service", [self.log_record(
                    at, 9, f"refund issued for order {order.id} amount_cents={order.total_cents}", {"session.id": sid}, trace)])
            if tool != "send_reply" and rng.random() < 0.15:
                self.app_line(at, "INFO", sid, trace, f"tool {tool} completed in {millis}ms")
        if plan.intent == "account_access" and rng.random() < 0.5:
            self.emit_logs("auth-service", [self.log_record(
                plan.at - timedelta(minutes=rng.randint(2, 90)), 13,
                f"account {customer.id} locked after 5 failed sign-in attempts (login {customer.email})", {})])
        if rng.random() < 0.04:
            self.app_line(plan.at + timedelta(seconds=2), "WARN", sid, trace,
                          f"chat completion latency {rng.randint(5200, 14000)}ms above 5000ms threshold")

    def add_day_noise(self, day: date) -> None:
        midnight = datetime.combine(day, datetime.min.time(), tzinfo=timezone.utc)
        rng = self.rng
        sync = midnight + timedelta(hours=2, minutes=rng.randint(0, 50))
        self.emit_logs("inventory-sync", [self.log_record(sync, 9, f"nightly inventory sync finished: {rng.randint(900, 2400)} SKUs updated", {})])
        for _ in range(rng.randint(1, 3)):
            at = midnight + timedelta(seconds=rng.randint(0, 86399))
            self.emit_logs("orders-api", [self.log_record(at, 13, f"orders-db connection pool at {rng.randint(80, 97)}% capacity", {})])
            self.app_line(at, "WARN", "-", "-", f"slow query on orders took {rng.randint(1200, 4800)}ms")

    # -- escalations and tickets

    def add_escalation(self, plan: Plan, customer: Customer, play: Play, rendered: Rendered) -> str:
        rng = self.rng
        self.escalation_count += 1
        escalation_id = f"esc-{self.escalation_count:06d}"
        at = rendered.escalated_at or rendered.ended_at
        record: dict[str, Any] = {"id": escalation_id, "session_id": plan.session_id, "escalated_at": iso(at),
                                  "reason": play.escalation_reason, "queue": ESCALATION_QUEUE[plan.intent]}
        agent = rng.choice(self.agents)
        human_at = at + timedelta(minutes=rng.randint(2, 45))
        if rng.random() < 0.8:
            greeting = rng.choice(PHRASES.human_openers).format(first=customer.first, agent=agent.first, queue=record["queue"])
            self.pii.add(customer.first, "FIRST_NAME")
            self.pii.add(agent.first, "FIRST_NAME")
            transcript = [{"role": role, "text": text, "at": iso(when)} for role, text, when in rendered.messages]
            transcript.append({"role": "human_agent", "text": greeting, "at": iso(human_at)})
            if rng.random() < 0.75:
                transcript.append({"role": "human_agent", "text": f"All sorted: {play.resolution}",
                                   "at": iso(human_at + timedelta(minutes=rng.randint(3, 25)))})
            record["transcript"] = transcript
        if rng.random() < 0.75:
            record["resolution"] = play.resolution
            if play.resolution_effect is not None:
                play.resolution_effect(human_at + timedelta(minutes=30))
        self.day.escalation_lines.append((at, dumps(record)))
        self.records["escalations"] += 1
        return escalation_id

    def record_agent(self, agent: HumanAgent) -> None:
        self.pii.add(agent.name, "PERSON")
        self.pii.add(agent.first, "FIRST_NAME")
        self.pii.add(agent.name.split(" ", 1)[1], "LAST_NAME")
        self.pii.add(agent.email, "EMAIL_ADDRESS")

    def zendesk_user(self, customer: Customer) -> dict[str, Any]:
        phone = customer.phone if int(customer.id[4:]) % 3 else None
        return {"id": 90_000_000_000 + int(customer.id[4:]) * 7919, "name": customer.name, "email": customer.email,
                "phone": phone, "role": "end-user", "created_at": iso(customer.created_at)}

    def add_ticket(self, plan: Plan, customer: Customer, order: Order, play: Play, rendered: Rendered) -> int:
        rng, outcome = self.rng, plan.outcome
        self.ticket_count += 1
        ticket_id = 48_000 + self.ticket_count
        complaint = outcome in ("failed", "hotfixed")
        created = rendered.ended_at + timedelta(minutes=rng.randint(20, 600) if complaint else rng.randint(0, 5),
                                                seconds=rng.randint(0, 59))
        updated = created + timedelta(minutes=rng.randint(30, 4000))
        agent = rng.choice(self.agents)
        requester = self.zendesk_user(customer)
        if outcome == "hotfixed":
            description = (f"My order never arrived. The address your assistant saved for me has no postcode "
                           f"and the carrier returned order {order.id}.")
        elif outcome == "failed":
            description = play.complaint
        else:
            description = rendered.messages[0][1]
        subject = PHRASES.ticket_subjects[plan.intent].format(order=order.id)
        topic = order.id if "{order}" in PHRASES.ticket_subjects[plan.intent] else "your request"
        tags = [INTENT_TAG[plan.intent]] + {
            "failed": ["complaint", "reopened"], "hotfixed": ["complaint", "address_invalid"],
            "escalated": ["escalated"], "errored": ["bot_error"], "rolled_back": ["refund_audit"]}.get(outcome, [])
        status = {"failed": "open", "hotfixed": rng.choice(["open", "pending"]), "escalated": rng.choice(["solved", "closed"]),
                  "errored": rng.choice(["new", "solved", "pending"])}.get(outcome, rng.choice(["solved", "closed"]))
        comments = [(requester["id"], description, True, created),
                    (agent.zendesk_id, f"Hi {customer.first}, thanks for reaching out about {topic}. "
                                       f"I'm looking into this now and will update you shortly.\n\n{agent.first}",
                     True, created + timedelta(minutes=rng.randint(10, 240)))]
        self.pii.add(customer.first, "FIRST_NAME")
        self.record_agent(agent)
        if outcome == "failed":
            comments.append((requester["id"], casual(rng.choice(PHRASES.follow_ups), rng), True, updated - timedelta(minutes=20)))
            comments.append((agent.zendesk_id, f"Internal: chat {plan.session_id} - assistant told the customer the "
                                               "request was done but no matching tool call. Flagging to the bot team.",
                             False, updated))
        comments.sort(key=lambda comment: comment[3])
        ticket = {
            "id": ticket_id, "url": f"{ZENDESK}/tickets/{ticket_id}.json", "external_id": plan.session_id,
            "subject": subject, "description": description, "status": status,
            "priority": "high" if complaint else rng.choice(["low", "normal", "normal", "high"]),
            "tags": tags, "requester_id": requester["id"], "assignee_id": agent.zendesk_id,
            "created_at": iso(created), "updated_at": iso(updated),
            "custom_fields": [{"id": SESSION_FIELD_ID, "value": plan.session_id}], "via": {"channel": "web"},
        }
        comment_rows = []
        for author, body, public, at in comments:
            self.comment_count += 1
            comment_rows.append({"id": 7_100_000 + self.comment_count, "author_id": author, "body": body,
                                 "public": public, "created_at": iso(at)})
        path = self.out / "tickets" / "comments" / f"{ticket_id}.json"
        path.write_text(dumps({"comments": comment_rows, "next_page": None, "count": len(comment_rows)}), encoding="utf-8")
        self.files["ticket_comments"] += 1
        self.records["ticket_comments"] += len(comment_rows)
        self.records["tickets"] += 1
        agent_user = {"id": agent.zendesk_id, "name": agent.name, "email": agent.email, "phone": None,
                      "role": "agent", "created_at": "2023-03-01T09:00:00Z"}
        self.pending_tickets.append((updated, ticket, [requester, agent_user]))
        return ticket_id

    def flush_tickets(self, before: datetime | None) -> None:
        """Moves tickets that can no longer be overtaken (updated before `before`) into export pages."""
        ready = [t for t in self.pending_tickets if before is None or t[0] < before]
        self.pending_tickets = [t for t in self.pending_tickets if before is not None and t[0] >= before]
        for _, ticket, users in sorted(ready, key=lambda t: (t[0], t[1]["id"])):
            self.page.append((ticket, users))
            if len(self.page) == TICKETS_PER_PAGE:
                self.write_page(last=False)

    def write_page(self, *, last: bool) -> None:
        tickets = [ticket for ticket, _ in self.page]
        users = {user["id"]: user for _, page_users in self.page for user in page_users}
        if tickets:
            self.end_time = int(datetime.strptime(tickets[-1]["updated_at"], "%Y-%m-%dT%H:%M:%S%z").timestamp())
        end_time = self.end_time
        self.files["tickets"] += 1
        self.records["ticket_users"] += len(users)
        page = {"tickets": tickets, "users": [users[key] for key in sorted(users)], "count": len(tickets),
                "end_time": end_time,
                "next_page": None if last else f"{ZENDESK}/incremental/tickets.json?start_time={end_time}",
                "end_of_stream": last}
        (self.out / "tickets" / f"export-{self.files['tickets']:04d}.json").write_text(dumps(page), encoding="utf-8")
        self.page = []

    # -- files

    def write_day(self, day: date, faults: list[str]) -> None:
        d, stamp = self.day, f"{day:%Y-%m-%d}"
        for fault in faults:
            self.plant_fault(fault, day)
        log_lines = [line for _, line in sorted(d.log_lines, key=lambda entry: entry[0])]
        escalations = [line for _, line in sorted(d.escalation_lines, key=lambda entry: entry[0])]
        app_lines = [line for _, line in sorted(d.app_lines, key=lambda entry: entry[0])]
        for kind, path, lines in (
            ("traces", self.out / "traces" / f"{stamp}.jsonl", [line.encode("utf-8") for line in d.trace_lines]),
            ("error_logs", self.out / "error_logs" / f"{stamp}.jsonl", log_lines),
            ("app_logs", self.out / "error_logs" / f"app-{stamp}.log", [line.encode("utf-8") for line in app_lines]),
            ("escalations", self.out / "escalations" / f"{stamp}.jsonl", [line.encode("utf-8") for line in escalations]),
        ):
            if lines:
                path.write_bytes(b"\n".join(lines) + b"\n")
                self.files[kind] += 1
                self.records[f"{kind}_lines"] += len(lines)
        self.flush_tickets(datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=timezone.utc))
        self.day = _Day()

    def plant_fault(self, fault: str, day: date) -> None:
        """Adds one deliberately broken record to today's files (readers must quarantine it)."""
        rng, d = self.rng, self.day
        at = datetime.combine(day, datetime.min.time(), tzinfo=timezone.utc) + timedelta(seconds=rng.randint(0, 86399))
        if fault == "truncated_json" and d.trace_lines:
            line = rng.choice(d.trace_lines)
            d.trace_lines.insert(rng.randrange(len(d.trace_lines) + 1), line[: len(line) * rng.randint(35, 75) // 100])
        elif fault == "invalid_utf8":
            record = self.log_record(at, 17, "label provider returned garbled response: Réponse invalide du transporteur", {})
            line = dumps({"resourceLogs": [{"resource": {"attributes": otlp_attributes({"service.name": "returns-service"})},
                                             "scopeLogs": [{"scope": {"name": "returns-service.logger"}, "logRecords": [record]}]}]})
            d.log_lines.append((at, line.encode("latin-1")))
        elif fault == "unknown_trace_id":
            record = self.log_record(at, 17, f"webhook delivery to fulfillment partner failed for order #W{rng.randint(1000000, 9999999)}",
                                     {}, f"{rng.getrandbits(128) | 1:032x}", f"{rng.getrandbits(64) | 1:016x}")
            self.emit_logs("fulfillment-webhooks", [record])
        elif fault == "escalation_missing_session_id":
            self.escalation_count += 1
            record = {"id": f"esc-{self.escalation_count:06d}", "escalated_at": iso(at),
                      "reason": "customer called the hotline about a chat", "queue": "general"}
            d.escalation_lines.append((at, dumps(record)))
        else:
            return
        self.faults[fault] += 1

    def write_deploys(self, deploys: list[Deploy]) -> None:
        lines = []
        for deploy in sorted(deploys, key=lambda d: d.at):
            record = {"id": deploy.id, "kind": deploy.kind, "at": iso(deploy.at), "service": SERVICE,
                      "from_version": deploy.from_version, "to_version": deploy.to_version, "reason": deploy.reason,
                      "incident_id": deploy.incident_id, "session_ids": deploy.session_ids}
            lines.append(dumps({k: v for k, v in record.items() if v is not None}))
        (self.out / "deploys" / "deploys.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.files["deploys"] += 1
        self.records["deploys"] += len(lines)


def human_agents(fake: Faker, rng: random.Random) -> list[HumanAgent]:
    agents = []
    for number in range(8):
        first, last = fake.first_name(), fake.last_name()
        agents.append(HumanAgent(361_000_000_000 + number * 104729, first, f"{first} {last}",
                                  f"{to_ascii(first).lower()}.{to_ascii(last).lower()}@acme-outfitters.com"))
    return agents

