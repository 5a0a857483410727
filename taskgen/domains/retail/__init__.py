"""The retail support domain: orders, refunds, returns, cancellations and addresses.

State kinds: customer, order, order_item, payment, refund, return_label (plus escalation and
reply, written by the simulated environment). Boundaries come from `policy.yaml`.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ingest.models import Session, StateRows, ToolCall
from taskgen.classify import Classification
from taskgen.domains import Agent, NegativePlan, Plan
from taskgen.domains.retail import agents, canary, grader, plans, reference
from taskgen.domains.retail.environment import TOOLS, RetailEnvironment
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.rules import order_ids_in, refunded_cents
from taskgen.seeds import Seed
from taskgen.task import Budget, DraftTask, IncidentBehaviour, ValidationIssue, Verdict

STATE_KINDS: tuple[str, ...] = ("customer", "order", "order_item", "payment", "refund", "return_label")


class RetailDomain:
    name = "retail"
    tools = TOOLS

    def __init__(self, policy: RetailPolicy) -> None:
        self.policy = policy

    @classmethod
    def from_policy_file(cls, path: Path | None = None) -> RetailDomain:
        return cls(RetailPolicy.from_yaml(path))

    def taxonomy_path(self) -> Path:
        return Path(__file__).with_name("taxonomy.yaml")

    def actor(self, session: Session) -> dict[str, str]:
        customers = session.entity_ids.get("customer", [])
        return {"customer_id": customers[0]} if customers else {}

    def plan_positive(
        self, session: Session, classification: Classification, seed: Seed, actor: dict[str, str], policy: RetailPolicy
    ) -> Plan:
        return plans.plan_positive(session, classification, seed, actor, policy)

    def plan_negative(
        self, prompt: str, intent: str, seed: Seed, actor: dict[str, str], positive: Plan, policy: RetailPolicy
    ) -> NegativePlan:
        return plans.plan_negative(prompt, intent, seed, actor, positive, policy)

    def add_canary(self, state: StateRows, clock: datetime) -> StateRows:
        return canary.add_canaries(state, clock)

    def environment(self, seed: Seed) -> RetailEnvironment:
        return RetailEnvironment(seed)

    def grade(
        self, task: DraftTask, final_state: StateRows, calls: list[ToolCall],
        seed_state: StateRows | None = None, usage: Budget | None = None,
    ) -> Verdict:
        return grader.grade(task, final_state, calls, seed_state, usage)

    def agents(self) -> dict[str, Agent]:
        return {
            "reference": reference.reference_agent(self.policy),
            "refund_everything": agents.refund_everything,
            "do_nothing": agents.do_nothing,
        }

    def incident_replay(self, behaviour: IncidentBehaviour) -> Agent:
        return agents.incident_replay(behaviour)

    def check_task(self, task: DraftTask, seed: Seed) -> list[ValidationIssue]:
        orders = seed.state.get("order", {})
        issues = [
            ValidationIssue(code="prompt_id_missing", message=f"order {order_id} named in the prompt is not in seed {seed.seed_id}")
            for order_id in order_ids_in(task.prompt)
            if order_id not in orders
        ]
        for expectation in _flatten(task.expectations):
            if expectation.check not in grader.CHECKS and expectation.check != "any_of":
                issues.append(ValidationIssue(code="unknown_check", message=f"the grader has no check '{expectation.check}'"))
            if expectation.check != "refund_exists":
                continue
            order_id = str(expectation.args.get("order_id"))
            if order_id not in orders:
                issues.append(ValidationIssue(code="refund_order_missing", message=f"expected refund's order {order_id} is not in the seed"))
            elif int(expectation.args.get("amount_cents", -1)) != _refundable(seed.state, order_id):
                issues.append(ValidationIssue(code="refund_amount_mismatch", message=f"expected refund amount differs from order {order_id}'s unrefunded total"))
        return issues


def _refundable(state: StateRows, order_id: str) -> int:
    return int(state["order"][order_id].get("total_cents", 0)) - refunded_cents(state, order_id)


def _flatten(expectations: list) -> list:
    flat = []
    for expectation in expectations:
        flat.append(expectation)
        flat.extend(_flatten(expectation.any_of))
    return flat
