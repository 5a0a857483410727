"""Hand-overs as the policy has them: "transfer the user to a human agent if and only if the request cannot be handled
within the scope of your actions" (tau2-bench's policy.md; the demo's escalate_to_human alike).

A task whose plan does not require the hand-over judges one: a hand-over about the task's own order fails it (its
reason names the order: `not_escalated(order_id)`), and where the whole request is the one order's and asks nothing
outside the agent's tools, any hand-over fails it (the tool forbidden, `not_escalated()`). Fifth cold review of tau2
drafts (#12 family 6): refusals of a closed order neither forbade the transfer nor checked it.
"""

from __future__ import annotations

from ingest.models import StateRows
from taskgen.domains import Plan
from taskgen.domains.retail.grader import expect
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.rules import asks_outside_tools, order_ids_in
from taskgen.domains.retail.schema import RetailSchema
from taskgen.domains.retail.scope import ASKS_SEVERAL, SEVERAL_ORDERS, acts_elsewhere
from taskgen.task import Expectation


def _checks(expectations: list[Expectation]) -> list[Expectation]:
    return [option for item in expectations for option in (item.any_of if item.check == "any_of" else [item])]


def _outside(prompt: str, policy: RetailPolicy) -> bool:
    """The words ask for a change only a human can make: one the policy lists and the product has no tool for."""
    item_change_tool = any(tool.plan_action in ("exchange", "modify_items") for tool in policy.tools)
    return asks_outside_tools(prompt, policy) and not item_change_tool


def _one_order(plan: Plan, order_id: str | None, prompt: str, state: StateRows, schema: RetailSchema) -> bool:
    """The whole request is the one order's: no part judged or allowed on another, none asked in the words."""
    several = SEVERAL_ORDERS.search(prompt) or ASKS_SEVERAL.search(prompt) or set(order_ids_in(prompt, schema)) - {order_id}
    return not several and not acts_elsewhere(plan, order_id, state)


def hand_over(plan: Plan, order_id: str | None, prompt: str, state: StateRows, policy: RetailPolicy, schema: RetailSchema) -> Plan:
    """The plan with its hand-over judged as the policy has it (module docstring); unchanged where it requires one.
    `state`: the seed's, in the canonical view."""
    tool = policy.escalation_tool
    checks = _checks(plan.expectations)
    if tool in plan.required_tools or any(item.check == "escalated" for item in checks):
        return plan
    if not any(item.check == "not_escalated" and not item.args for item in checks) and tool not in plan.forbidden_tools \
            and _one_order(plan, order_id, prompt, state, schema) and not _outside(prompt, policy):
        return plan.model_copy(update={"expectations": [*plan.expectations, expect("not_escalated")],
                                       "forbidden_tools": [*plan.forbidden_tools, tool]})
    if order_id and not any(item.check == "not_escalated" and item.args.get("order_id") in (None, order_id) for item in checks):
        return plan.model_copy(update={"expectations": [*plan.expectations, expect("not_escalated", order_id=order_id)]})
    return plan
