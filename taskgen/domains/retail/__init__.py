"""The retail support domain: orders, refunds, returns, cancellations and addresses.

State kinds: customer, order, order_item, payment, refund, return_label (plus escalation and
reply, written by the simulated environment). Boundaries come from `policy.yaml`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ingest.config import EntityRule
from ingest.state_mapping import StateMapping

from ingest.models import Session, StateRows, ToolCall
from taskgen.classify import Classification
from taskgen.domains import Agent, NegativePlan, Plan
from taskgen.domains.retail import agents, canary, coverage, grader, identity, negatives, plans, reference
from taskgen.domains.retail.environment import TOOLS, WRITE_TOOLS, RetailEnvironment, tool_names
from taskgen.domains.retail.handover import hand_over
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.rules import order_ids_in, refunded_cents
from taskgen.domains.retail.schema import RetailSchema
from taskgen.domains.retail.variants import price_difference
from taskgen.draft import user_prompt
from taskgen.seeds import Seed
from taskgen.task import Budget, DraftTask, IncidentBehaviour, ValidationIssue, Verdict

_BARE_ID = re.compile(r"[A-Za-z0-9][\w.-]{2,63}")
STATE_KINDS: tuple[str, ...] = ("customer", "order", "order_item", "payment", "refund", "return_label")


class RetailDomain:
    name = "retail"
    tools = TOOLS

    def __init__(self, policy: RetailPolicy) -> None:
        self.policy = policy
        self.tools = tool_names(policy.tools)

    @classmethod
    def from_policy_file(cls, path: Path | None = None) -> RetailDomain:
        return cls(RetailPolicy.from_yaml(path))

    def taxonomy_path(self) -> Path:
        return Path(__file__).with_name("taxonomy.yaml")

    def actor(self, session: Session, seed: Seed | None = None) -> dict[str, str]:
        """The requester: the first customer id of the session, else the id a successful customer
        look-up answered with (`find_user_id_by_email` -> 'cust_…': the agent verified who asks), else
        the one customer of the seed whose e-mail, or full name and zip code, the customer's words give
        (`identity.py`: the rule both tasks of a pair follow)."""
        customers = session.entity_ids.get("customer", [])
        if customers:
            return {"customer_id": customers[0]}
        for call in session.tool_calls:
            lowered = call.name.lower()
            if call.status == "ok" and ("user" in lowered or "customer" in lowered) and lowered.startswith(("find", "lookup", "search", "get")):
                result = call.result.strip().strip('"') if isinstance(call.result, str) else None
                if result and _BARE_ID.fullmatch(result):
                    return {"customer_id": result}
        if seed is not None:
            rows = seed.state.get(RetailSchema.from_document(seed.domain_schema).kinds["customer"], {})
            found = identity.identified_customer(session.first_user_text(), rows)
            if found:
                return {"customer_id": found}
        return {}

    def plan_positive(
        self, session: Session, classification: Classification, seed: Seed, actor: dict[str, str], policy: RetailPolicy
    ) -> Plan:
        plan = plans.plan_positive(session, classification, seed, actor, policy)
        prompt = plan.words or user_prompt(session)
        order_id = plan.target.get("order_id")
        questions = [*coverage.missing_orders(session, seed, actor), *coverage.unknown_addresses(prompt, seed, actor, order_id)]
        if unverifiable := coverage.account_id_only(prompt, seed, actor, policy):
            customers = seed.state.get(RetailSchema.from_document(seed.domain_schema).kinds["customer"], {})
            named = identity.with_name(prompt, customers.get(actor.get("customer_id"), {}), actor.get("customer_id") or "")
            if named and identity.identified_customer(named, customers) == actor.get("customer_id"):  # no one else fits them
                # the words keep what the source's readable account id told: who the customer is
                plan, prompt = plan.model_copy(update={"words": named}), named
                questions.append("The customer gave only their account id, which scrubbing made opaque: the prompt adds their full "
                                 "name from the seed (sentence 'My full name is ...') so the agent can verify them by name and zip code. "
                                 "Is that what the customer told?")
            else:
                questions.append(unverifiable)
        schema = RetailSchema.from_document(seed.domain_schema)
        plan = hand_over(plan, order_id, prompt, schema.canonical(seed.state), policy, schema)
        questions += coverage.unpayable_changes(plan.expectations, schema.canonical(seed.state), actor.get("customer_id"))
        return plan.model_copy(update={"review_questions": [*plan.review_questions, *questions]}) if questions else plan

    def plan_negative(
        self, prompt: str, intent: str, seed: Seed, actor: dict[str, str], positive: Plan, policy: RetailPolicy
    ) -> NegativePlan:
        negative = negatives.plan_negative(prompt, intent, seed, actor, positive, policy)
        if negative.boundary == "none":
            return negative
        schema, state = RetailSchema.from_document(seed.domain_schema), RetailSchema.from_document(seed.domain_schema).canonical(negative.state)
        negative = hand_over(negative, positive.target.get("order_id"), negative.prompt or prompt, state, policy, schema)
        unpayable = coverage.unpayable_changes(negative.expectations, state, negative.actor.get("customer_id"))
        return negative.model_copy(update={"review_questions": [*negative.review_questions, *unpayable]}) if unpayable else negative

    def seed_schema(self, mapping: StateMapping, entity_patterns: dict[str, EntityRule]) -> dict[str, Any]:
        """Where orders, customers and their fields live in the mapped product (checked now: a role
        that cannot be resolved is one StateMappingError naming it); empty when it is the demo's schema."""
        order_kind = mapping.role_kind("order")
        rule = entity_patterns.get(order_kind)
        patterns = list(rule.text_patterns) if rule is not None else []
        return RetailSchema.from_mapping(mapping, patterns).document()

    def add_canary(
        self, state: StateRows, clock: datetime, domain_schema: dict[str, Any] | None = None, session: Session | None = None,
        uncertain: Sequence[str] = (),
    ) -> StateRows:
        """A real cancelled order of the customer is their canary unless the session names or touches it or the
        seed cannot tell its fields (listed uncertain); else one is made (`canary.add_canaries`)."""
        schema = RetailSchema.from_document(domain_schema)
        avoid = set(coverage.named_orders(session, schema)) if session is not None else set()
        prefix = f"{schema.kinds['order']} "
        avoid |= {entry.split(":", 1)[0].removeprefix(prefix) for entry in uncertain if entry.startswith(prefix)}
        return canary.add_canaries(state, clock, domain_schema, avoid)

    def environment(self, seed: Seed) -> RetailEnvironment:
        return RetailEnvironment(seed, self.policy.tools)

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
            "reply_only": agents.reply_only,
        }

    def incident_replay(self, behaviour: IncidentBehaviour) -> Agent:
        return agents.incident_replay(behaviour)

    def check_task(self, task: DraftTask, seed: Seed) -> list[ValidationIssue]:
        schema = RetailSchema.from_document(seed.domain_schema)
        state = schema.canonical(seed.state)
        orders = state["order"]
        issues = [
            ValidationIssue(code="prompt_id_missing", message=f"order {order_id} named in the prompt is not in seed {seed.seed_id}")
            for order_id in order_ids_in(task.prompt, schema)
            if order_id not in orders
        ]
        requester = task.actor.get("customer_id")
        if requester and requester not in state.get("customer", {}):
            issues.append(ValidationIssue(code="requester_missing", message=f"the requester {requester} is not in seed {seed.seed_id}"))
        judged = {str(item.args["order_id"]) for item in _flatten(task.expectations) if "order_id" in item.args}
        issues += [ValidationIssue(code="checked_order_missing", message=f"order {order_id} the task checks or is about is not in seed {seed.seed_id}")
                   for order_id in sorted(judged | ({task.target["order_id"]} if task.target.get("order_id") else set()))
                   if order_id not in orders and not any(order_id == item for item in order_ids_in(task.prompt, schema))]
        if requester and (unverifiable := coverage.account_id_only(task.prompt, seed, task.actor, self.policy)):
            issues.append(ValidationIssue(code="requester_unverifiable", message=unverifiable))
        if satisfied_by_seed(task, state, self.policy.write_tool_names):
            issues.append(ValidationIssue(
                code="satisfied_by_seed",
                message="every expected change already holds on the seed (the incident's own write is probably in it): "
                "refused until a reviewer restores the field as it stood before the session",
            ))
        for expectation in _flatten(task.expectations):
            if expectation.check not in grader.CHECKS and expectation.check != "any_of":
                issues.append(ValidationIssue(code="unknown_check", message=f"the grader has no check '{expectation.check}'"))
            if expectation.check != "refund_exists":
                continue
            order_id = str(expectation.args.get("order_id"))
            if order_id not in orders:
                issues.append(ValidationIssue(code="refund_order_missing", message=f"expected refund's order {order_id} is not in the seed"))
            elif int(expectation.args.get("amount_cents", -1)) not in (_refundable(state, order_id), *_differences(task.expectations, state, order_id)):
                issues.append(ValidationIssue(code="refund_amount_mismatch", message=f"expected refund amount differs from order {order_id}'s unrefunded total"))
        return issues


def satisfied_by_seed(task: DraftTask, state: StateRows, write_tools: list[str] | None = None) -> bool:
    """A positive that requires a write whose expected end state (its reply aside) already holds on the
    seed: an agent passes it without acting, so it tests nothing."""
    if task.polarity != "positive" or not set(task.required_tools) & (set(WRITE_TOOLS) | set(write_tools or ())):
        return False
    changes = [item for item in task.expectations if not grader.is_reply_check(item)]
    return bool(changes) and all(grader.holds(item, state) for item in changes)


def _differences(expectations: list, state: StateRows, order_id: str) -> list[int]:
    """The refunds a pinned item change of the order settles (a cheaper variant): the price difference, in cents."""
    found = []
    for item in _flatten(expectations):
        if item.check == "items_replaced" and str(item.args.get("order_id")) == order_id and item.args.get("new_items"):
            difference = price_difference(state, order_id, str(item.args["items"]).split(","), str(item.args["new_items"]).split(","))
            if difference is not None and difference < 0:
                found.append(-difference)
    return found


def _refundable(state: StateRows, order_id: str) -> int:
    return int(state["order"][order_id].get("total_cents", 0)) - refunded_cents(state, order_id)


def _flatten(expectations: list) -> list:
    flat = []
    for expectation in expectations:
        flat.append(expectation)
        flat.extend(_flatten(expectation.any_of))
    return flat
