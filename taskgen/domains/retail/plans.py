"""Draft expectations for retail tasks: the incident's resolution checked against the policy on the seed."""

from __future__ import annotations

import functools
import re
from collections.abc import Collection

from ingest.models import Session, StateRows
from taskgen.classify import Classification
from taskgen.domains import Plan
from taskgen.domains.retail.catalogue_branch import branch_question, catalogue_decides
from taskgen.domains.retail.environment import WRITE_TOOLS
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.grader import allow, expect, holds, is_reply_check
from taskgen.domains.retail.parts import (
    human_change_fallbacks, in_scope_parts, item_change_or_fallback, main_actions, optional_write, order_addresses_too, promise_about_target,
    reason_check, recorded_checks,
)
from taskgen.domains.retail.rules import (
    _DEFAULT_ADDRESS, ORDER_INTENTS, Decision, conditional_write, decide, fallback_decided, order_ids_in, refunded_cents, requested_order_id, fallback_on_catalogue,
)
from taskgen.domains.retail.schema import RetailSchema
from taskgen.domains.retail.other_orders import require_other_orders, untouched_orders
from taskgen.domains.retail.told import told_elsewhere
from taskgen.domains.retail.variants import unpinned_variant_questions
from taskgen.domains.retail.scope import SEVERAL_ORDERS, scope_for_parts, task_scope, words_about
from taskgen.draft import user_prompt
from taskgen.plain import plain_source
from taskgen.seeds import Seed, parse_timestamp
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

ACTION_KINDS = ("refund", "return_label", "cancel", "update_address", "order_address", "modify_items", "exchange")

_VERB_ACTIONS: tuple[tuple[str, str], ...] = (
    (r"^refund", "refund"),
    (r"^return", "return_label"),
    (r"^cancel", "cancel"),
    (r"^(?:modify|update|change)_(?:user|customer)_address$", "update_address"),
    (r"^(?:exchange|modify|swap|replace)_", "escalate"),
)
"""Another product's write tools read by their verb: `cancel_pending_order` cancels; an exchange or an item
change is, on the policy's tools, a human's to make (`requests_outside_tools`)."""


def tool_action(name: str, policy: RetailPolicy | None = None) -> str | None:
    """What an incident's successful call did, in the policy's actions: the product's declared tools (the
    policy file's `tools`) by their declared action, the demo's by name, another product's write tools by
    their verb; reads and anything else, nothing."""
    declared = next((tool for tool in policy.tools if tool.name == name), None) if policy is not None else None
    if declared is not None:
        return declared.plan_action
    if name in _TOOL_ACTIONS:
        return _TOOL_ACTIONS[name]
    lowered = name.lower()
    return next((action for pattern, action in _VERB_ACTIONS if re.search(pattern, lowered)), None)
_READ_PREFIXES = ("get_", "list_", "find_", "search_", "lookup_", "calculate", "think", "send_reply", "transfer", "escalate")


def action_named_in(text: str) -> str | None:
    lowered = text.lower()
    return next((action for pattern, action in _TEXT_ACTIONS if re.search(pattern, lowered)), None)


def incident_action(session: Session, classification: Classification, policy: RetailPolicy | None = None) -> tuple[str | None, str]:
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
        done = [action for call in session.tool_calls if call.status == "ok" and (action := tool_action(call.name, policy))]
        return (done[-1] if done else "inform"), "resolved:agent_path"
    return None, f"{classification.outcome}:agent_path_untrusted"


_RUBRIC = {
    "refund": "Judge: does the reply confirm the refund and its amount accurately, and say when the money arrives?",
    "return_label": "Judge: does the reply give the return label and say how to send the parcel back?",
    "cancel": "Judge: does the reply confirm the cancellation and what happens to the payment?",
    "update_address": "Judge: does the reply confirm the new address as the customer wrote it?",
    "order_address": "Judge: does the reply confirm the order's new shipping address as the customer wrote it?",
    "modify_items": "Judge: does the reply confirm which items of the order change, to what, and any price difference?",
    "exchange": "Judge: does the reply confirm which items are exchanged, for what, and what the customer does next?",
    "escalate": "Judge: does the reply tell the customer a person will follow up, without promising the outcome?",
    "decline": "Judge: does the reply give the reason for the refusal (rule {rule}) in plain words and say what the customer can do instead?",
    "inform": "Judge: does the reply answer the question in plain words, without inventing policy, dates or offers?",
}


_ASKS_TRACKING = re.compile(r"\btracking\b", re.IGNORECASE)
_ASKS_STATUS = re.compile(r"\bstatus\b|\bwhere\b|\bwhen\b|\barriv|\bship|\bdeliver", re.IGNORECASE)
_ASKS_AMOUNT = re.compile(r"\bhow much\b|\bprice\b|\bpaid\b|\bcost\b|\btotal\b|\bamount\b", re.IGNORECASE)


def _reply_checks(decision: Decision, state: StateRows, requester: str | None, target_order_id: str | None = None, prompt: str = "",
                  policy: RetailPolicy | None = None) -> list[Expectation]:
    """What code can judge about the reply: the order's status stated (and its tracking number or its total, when asked for
    and kept), the amount refunded, a refusal, no refund promised, nothing of another customer's order or (to an unverified
    requester) of the target order."""
    order = state.get("order", {}).get(decision.order_id or "")
    checks = []
    if decision.action == "inform" and order is not None:
        if _ASKS_STATUS.search(prompt) or not (_ASKS_TRACKING.search(prompt) or _ASKS_AMOUNT.search(prompt)):
            # the status is what an order question is about, unless it only asks for a tracking number or a price
            checks.append(expect("reply_states_status", order_id=decision.order_id, status=order["status"]))
        if order.get("tracking_number") and _ASKS_TRACKING.search(prompt):
            checks.append(expect("reply_contains", value=str(order["tracking_number"])))
    if decision.action == "inform" and order is not None and order.get("total_cents") and _ASKS_AMOUNT.search(prompt):
        checks.append(expect("reply_states_amount", amount_cents=int(order["total_cents"])))
    if decision.action == "refund" and decision.amount_cents:
        checks.append(expect("reply_states_amount", amount_cents=decision.amount_cents))
    if decision.action in ("decline", "escalate") and not _cancellable(state, decision.order_id or target_order_id, policy, requester):
        checks.append(expect("reply_promises_no_refund"))
    if decision.rule == "not_order_owner":
        checks.append(expect("reply_withholds", order_id=decision.order_id, **({"requester": requester} if requester else {})))
    if decision.rule == "identity_not_verified" and target_order_id and target_order_id in state.get("order", {}):
        checks.append(expect("reply_withholds", order_id=target_order_id))
    return checks


def _cancellable(state: StateRows, order_id: str | None, policy: RetailPolicy | None, requester: str | None) -> bool:
    """The order may still be cancelled by the one asking, its verified owner (a cancellation refunds it): a refusal
    may rightly offer that instead. To anyone else nothing is offered."""
    order = state.get("order", {}).get(order_id or "")
    return (policy is not None and order is not None and bool(requester) and order.get("customer_id") == requester
            and order.get("status") in policy.cancellable_statuses)


_RETURN_REQUEST_RUBRIC = ("Judge: does the reply confirm the return as the product records it (which items, the payment method "
                          "the refund goes to) and what the customer does next, without promising a label the product does not give?")
"""Where the product's return is a request written on the order (tau2-bench's return_delivered_order_items sets 'return
requested' and records the items), not a label row: the demo's rubric would ask for a label no correct agent gives."""
_EXCEPT_CANCELLATION = "Judge: does the reply promise no refund, except with a cancellation of the order it may offer"


def plan_for(
    decision: Decision, state: StateRows, requester: str | None = None, target_order_id: str | None = None, prompt: str = "",
    policy: RetailPolicy | None = None,
) -> Plan:
    """Expectations, required and forbidden tools that make `decision` the one passing answer
    (`target_order_id`: the order the request is about when the decision names none; `prompt`: what
    the customer asked, for the reply's content; `policy`: whose declared tools are required and
    forbidden by name, the shipped one's when None)."""
    policy = policy or _shipped_policy()
    plan = _plan_for(decision, state, requester, target_order_id, prompt, policy)
    return_tool = policy.tool_for("return_label")
    rubric = (_RETURN_REQUEST_RUBRIC if decision.action == "return_label" and return_tool is not None and return_tool.sets_status
              else _RUBRIC[decision.action].format(rule=decision.rule))
    extra = []
    if decision.action in ("decline", "escalate") and decision.rule != "identity_not_verified" and _cancellable(
            state, decision.order_id or target_order_id, policy, requester):
        status = state["order"][decision.order_id or target_order_id]["status"]
        extra.append(f"{_EXCEPT_CANCELLATION} (it is still {status})?")
    return plan.model_copy(
        update={
            "expectations": [*plan.expectations, *_reply_checks(decision, state, requester, target_order_id, prompt, policy)],
            "rubric": [rubric, *extra, *plan.rubric],
        }
    )


def _forbid_others(policy: RetailPolicy, *required: str) -> list[str]:
    """Every state-changing tool the answer does not need: an idle or greedy extra write fails the task."""
    return [tool for tool in policy.write_tool_names if tool not in required]


@functools.cache
def _shipped_policy() -> RetailPolicy:
    return RetailPolicy.from_yaml()


def _written(tool, order_id: str | None, state: StateRows, customer_id: str | None = None, prompt: str = "") -> tuple[list[Expectation], list[str]]:
    """What the declared tool writes on the order, as end-state checks that can fail: the status it sets and what it
    records (`recorded_checks`); and the rubric items for what code cannot pin."""
    checks = [expect("order_status", order_id=order_id, status=tool.sets_status)] if tool.sets_status else []
    recorded, rubric = recorded_checks(tool, order_id, state, customer_id, prompt)
    return [*checks, *recorded], rubric


def _settled(tool, order_id: str | None, written: list[Expectation], no_new_refund: list[Expectation]) -> tuple[list[Expectation], list]:
    """An item change rewriting the order's items, settling the price difference: no 'no refund' check where the new
    items are not pinned (a cheaper one is refunded), or where their refund is checked itself; the items, and the
    refund or payment the change settles, may change where no check names them."""
    replaced = next((item for item in written if item.check == "items_replaced"), None)
    pinned = replaced is not None and bool(replaced.args.get("new_items"))
    refunded = any(item.check == "refund_exists" for item in written)
    refund = no_new_refund if not tool.settles_difference or (pinned and not refunded) else []
    may_change = [] if replaced is not None else [allow("order", order_id, "items")]
    if tool.settles_difference and replaced is None:
        may_change += [allow("refund", order_id), allow("payment", order_id)]
    return refund, may_change


def _address_to_ask(policy: RetailPolicy, order_id: str | None, order: dict | None, no_new_refund: list[Expectation],
                    same_status: list[Expectation], update_tool: str, escalation: str, asked: Expectation | None = None,
                    order_too: bool = True) -> Plan:
    """The words hold no address ('to my Hamburg address'): the agent asks for it, or finds it, and may write it
    itself, on the customer's account or, where the product changes an order's own address and the order
    takes it, on that order; a hand-over or another write is wrong, and no address can be checked. `asked`:
    the reply asks for the address or the customer's address changed (a refusal alone is neither); where the
    order's own address may be written instead, that write is the third way to pass it (not where the words ask for
    the account's own address: `order_too` False)."""
    allowed = [update_tool]
    order_tool = policy.tool_for("order_address", str(order.get("status"))) if order is not None and order_too else None
    if asked is not None and order_tool is not None and order.get("shipping_address"):
        ways = asked.any_of if asked.check == "any_of" else [asked]
        asked = Expectation(check="any_of", any_of=[*ways, expect("order_address_changed", order_id=order_id, address=order["shipping_address"])])
    expectations = [expect("not_escalated"), expect("reply_sent"), *([asked] if asked is not None else []), *no_new_refund, *same_status]
    may_change = []
    if order_tool is not None:
        allowed.append(order_tool.name)
        may_change.append(allow("order", order_id, "shipping_address"))  # the address the agent finds, written on the order
    return Plan(expectations=expectations, forbidden_tools=[*_forbid_others(policy, *allowed), escalation], may_change=may_change)


def _asked_or_changed(state: StateRows, customer_id: str | None) -> Expectation:
    """The agent asks the customer for the address, or (knowing it, e.g. from another order) changes it:
    a refusal or a hand-over alone is neither."""
    asked = expect("reply_asks_for", about="address")
    address = state.get("customer", {}).get(customer_id or "", {}).get("address")
    return Expectation(check="any_of", any_of=[asked, expect("address_changed", customer_id=customer_id, address=address)]) if address else asked


def _plan_for(
    decision: Decision, state: StateRows, requester: str | None = None, target_order_id: str | None = None, prompt: str = "",
    policy: RetailPolicy = None,  # type: ignore[assignment]
) -> Plan:
    """Every plan checks the end state of what the request is about: the target order (its status,
    its refunds) and the requester's address, changed only where the answer changes them."""
    order_id, customer_id = decision.order_id or target_order_id, decision.customer_id or requester
    order = state.get("order", {}).get(order_id or "")
    no_new_refund: list[Expectation] = []
    same_status: list[Expectation] = []
    if order is not None:
        earlier = refunded_cents(state, order_id or "")
        no_new_refund = [expect("refunded_total", order_id=order_id, amount_cents=earlier) if earlier else expect("no_refund", order_id=order_id)]
        same_status = [expect("order_status", order_id=order_id, status=order["status"])]
    same_address: list[Expectation] = []
    if state.get("customer", {}).get(customer_id or "", {}).get("address"):
        # An address the seed does not know (emptied: the incident's own write) is kept out of the checks.
        same_address = [expect("address_equals", customer_id=customer_id, address=state["customer"][customer_id]["address"])]
    untouched = [*no_new_refund, *same_status, *same_address]
    name = {action: policy.tool_name(action, default) for action, default in (
        ("refund", "refund_order"), ("return_label", "create_return_label"), ("cancel", "cancel_order"), ("update_address", "update_address"))}
    escalation = policy.escalation_tool
    writes = list(policy.write_tool_names)
    return_tool = policy.tool_for("return_label")
    if decision.action == "return_label" and return_tool is not None and return_tool.sets_status:
        # The product's return is a request on the order (tau2-bench: status 'return requested', the items recorded), no label row.
        written, judged = _written(return_tool, order_id, state, customer_id, prompt)
        return Plan(
            expectations=[*written, *no_new_refund, *same_address, expect("reply_sent")], rubric=judged,
            required_tools=[return_tool.name],
            forbidden_tools=_forbid_others(policy, return_tool.name),
        )
    if decision.action in ("modify_items", "exchange") and (tool := policy.tool_for(decision.action)) is not None:
        written, judged = _written(tool, order_id, state, customer_id, prompt)
        refund, may_change = no_new_refund, []
        if tool.rewrites_items:
            refund, may_change = _settled(tool, order_id, written, no_new_refund)
        return Plan(
            expectations=[*written, *([] if tool.sets_status else same_status), *refund, *same_address, expect("reply_sent")], rubric=judged,
            required_tools=[tool.name],
            forbidden_tools=_forbid_others(policy, tool.name),
            may_change=may_change,
        )
    if decision.action == "order_address" and (tool := policy.tool_for("order_address")) is not None:
        if not decision.address:
            # the words ask for the order's own address (fifth cold review, #12): the account's changing instead is wrong
            plan = _address_to_ask(policy, order_id, order, no_new_refund, same_status, name["update_address"], escalation,
                                   asked=expect("reply_asks_for", about="address"))
            return plan.model_copy(update={"expectations": [*plan.expectations, *same_address]})
        return Plan(
            expectations=[expect("order_address_equals", order_id=order_id, address=decision.address), *no_new_refund, *same_status, *same_address],
            required_tools=[tool.name],
            forbidden_tools=_forbid_others(policy, tool.name),
        )
    if decision.action == "refund":
        return Plan(
            expectations=[expect("refund_exists", order_id=order_id, amount_cents=decision.amount_cents), *same_status, *same_address, expect("reply_sent")],
            required_tools=[name["refund"]],
            forbidden_tools=_forbid_others(policy, name["refund"]),
        )
    if decision.action == "return_label":
        return Plan(
            expectations=[expect("return_label_exists", order_id=order_id), *no_new_refund, *same_status, *same_address],
            required_tools=[name["return_label"]],
            forbidden_tools=_forbid_others(policy, name["return_label"]),
        )
    if decision.action == "cancel":
        reason = [stated] if (stated := reason_check(order_id, prompt)) is not None else []
        cancel_tool = policy.tool_for("cancel")
        refund = no_new_refund
        if cancel_tool is not None and cancel_tool.refunds and order is not None:
            # The product's cancellation refunds what is left of the order (tau2-bench's cancel_pending_order).
            left = int(order.get("total_cents") or 0) - refunded_cents(state, order_id or "")
            refund = [expect("refund_exists", order_id=order_id, amount_cents=left)] if left > 0 else no_new_refund
        return Plan(
            expectations=[expect("order_status", order_id=order_id, status="cancelled"), *reason, *refund, *same_address, expect("reply_sent")],
            required_tools=[name["cancel"]],
            forbidden_tools=_forbid_others(policy, name["cancel"]),
        )
    if decision.action == "update_address" and not decision.address:
        # The words hold no address: the agent asks the customer for it and may change it itself; a
        # hand-over or another write is wrong, and no address can be checked.
        # words about the account's own address ('my default address'): the order's address changing instead is wrong
        return _address_to_ask(policy, order_id, order, no_new_refund, same_status, name["update_address"], escalation,
                               asked=_asked_or_changed(state, customer_id), order_too=not _DEFAULT_ADDRESS.search(prompt))
    if decision.action == "update_address":
        order_tools, order_addresses, order_checks = order_addresses_too(prompt, state, customer_id, policy, decision.address)
        return Plan(
            expectations=[expect("address_equals", customer_id=decision.customer_id, address=decision.address), *order_checks,
                          *no_new_refund, *same_status],
            required_tools=[name["update_address"], *(order_tools if order_checks else [])],
            forbidden_tools=_forbid_others(policy, name["update_address"], *order_tools), may_change=order_addresses)
    if decision.action == "escalate":
        return Plan(expectations=[expect("escalated"), *untouched], required_tools=[escalation], forbidden_tools=writes)
    if decision.action == "decline" and decision.rule == "order_closed" and order is not None:
        # Only the cancelled order is refused. Its writes are forbidden by name, so an attempt the product's tool
        # refuses (an item change on a cancelled order) still fails the task (cold review of 2026-12-07: with none
        # forbidden, only the reply could fail a closed negative); the customer's other requests, on other orders,
        # get their tools back (in_scope_parts). Whether a hand-over is about this order is in its free-text
        # reason, which code does not read: a judge does.
        return Plan(
            expectations=[expect("reply_refuses"), *no_new_refund, *same_status],
            forbidden_tools=writes,
            rubric=[f"Judge: is no hand-over to a human about order {order_id} (it is {order['status']}: refused, not handed on)? "
                    "One for the customer's other requests is fine."],
        )
    if decision.action == "decline":
        # A refusal is said to the customer, not handed on: an escalation is the other answer.
        return Plan(
            expectations=[expect("reply_refuses"), expect("not_escalated"), *untouched],
            forbidden_tools=[*writes, escalation],
        )
    # An answer only: nothing written, nothing handed on (a reply alone is not a pass when it came with a hand-over).
    return Plan(expectations=[expect("reply_sent"), expect("not_escalated"), *untouched], forbidden_tools=[*writes, escalation])


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


_INTENT_ACTIONS = {"refund": {"refund"}, "return_label": {"return_label"}, "cancellation": {"cancel"},
                   "address_change": {"update_address", "order_address"}, "exchange": {"exchange", "modify_items"}}
"""The drafter's actions each intent's own request is carried out by (through the policy's tools)."""


def target_order(session: Session, prompt: str, state: StateRows, schema: RetailSchema,
                 own_tools: Collection[str] = ()) -> tuple[str | None, list[str]]:
    """The order the task's expectations are about, and the review questions its choice raises.

    The one the customer's words name (the one the agent acted on when they name several), else the
    one the agent's tool calls acted on, the last one a call of the intent's `own_tools` wrote where one did
    (an address change beside an exchange is about the order the address was written to); never a guess
    such as the latest order."""
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
    known = set(state.get("order", {}))
    own = [order_id for call in session.tool_calls if call.name in own_tools for order_id in _ids_in_arguments(call.arguments, known, schema)]
    target = (own or acted)[-1]
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


def scope_questions(prompt: str, decision: Decision, state: StateRows) -> list[str]:
    """Review questions when the expectations may be narrower or wider than the request: a request
    about several orders judged on one, a whole-order refund of an order with several items."""
    questions = []
    if decision.order_id and SEVERAL_ORDERS.search(prompt):
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
    own_tools = {tool.name for tool in policy.tools if tool.plan_action in _INTENT_ACTIONS.get(classification.intent, set())}
    order_id, questions = target_order(session, prompt, state, schema, own_tools)
    # An item change the product's own tool makes is about one order too (the demo's tools make none).
    item_change = classification.intent in policy.intents_outside_tools and any(tool.plan_action in ("exchange", "modify_items") for tool in policy.tools)
    scope, asked = task_scope(session, prompt, order_id, state, actor, schema) if classification.intent in ORDER_INTENTS or item_change else ("", [])
    words = user_prompt(session)
    if order_id and asked:
        # The user is told to ask about the one order: their words about the others go too, and the
        # decision is taken on the words the task carries (the reference agent reads nothing else).
        scoped_prompt, scoped_words = words_about(prompt, order_id, asked, schema), words_about(words, order_id, asked, schema)
        if scoped_prompt and scoped_words:
            prompt, words = scoped_prompt, scoped_words
        else:
            questions.append(f"The customer's opening words ask about other orders only ({', '.join(asked)}); the task keeps them.")
        if left := [other for other in asked if other in order_ids_in(words, schema)]:
            questions.append(f"The prompt still names order {', '.join(left)}: check that the user's words ask nothing of it.")
    decision = decide(classification.intent, prompt, state, actor, seed.clock_datetime, policy, order_id, schema)
    plan = plan_for(decision, state, actor.get("customer_id"), target_order_id=order_id, prompt=prompt, policy=policy)
    questions = [*plan.review_questions, *questions]
    evidence_action, source = incident_action(session, classification, policy)
    if evidence_action is None:
        questions.append(
            f"The incident gives no usable resolution ({plain_source(source)}); the expectations follow the policy "
            f"(rule {decision.rule}). Is '{decision.action}' what a correct agent does?"
        )
    elif evidence_action != decision.action:
        questions.append(
            f"The incident's resolution ({plain_source(source)}) points to '{evidence_action}' but the policy on the seed gives "
            f"'{decision.action}' (rule {decision.rule}). Which one is right?"
        )
    if decision.action in ACTION_KINDS and all(holds(item, state) for item in plan.expectations if not is_reply_check(item)):
        questions.append(
            f"The expected end state of '{decision.action}' already holds on the seed: the incident's own change is "
            "probably in it. Restore the field as it stood before the session, or reject the task."
        )
    decided = (decision.rule.startswith("customer_fallback_") and not fallback_on_catalogue(prompt, decision.action)) or fallback_decided(
        prompt, decision.action, decision.order_id, state, seed.clock_datetime, policy)
    condition = None if decided else (conditional_write(prompt, decision.action) or (
        fallback_on_catalogue(prompt, decision.action) if decision.rule.startswith("customer_fallback_") else None))
    if decision.action in ACTION_KINDS and condition:
        # The seed decides a fallback on the order's status (rules.decide); a condition on the catalogue
        # (an item available, a price) or any other it cannot: the write is allowed, not required, and a person decides.
        plan = optional_write(plan, decision, state, order_id)
        questions.append(
            f"The customer asks for '{decision.action}' only under a condition the seed cannot decide (\"{condition}\"): "
            "the task neither requires nor forbids it. Does the condition hold as of the incident, and should the task require it?"
        )
    if decision.rule in ("outside_agent_tools", "exchange_allowed", "modify_items_allowed") and order_id:
        allowed = plan.forbidden_tools
        plan, asked = human_change_fallbacks(plan, prompt, state, actor, seed.clock_datetime, policy, order_id)
        questions += asked
        if decision.action in ("exchange", "modify_items") and plan.forbidden_tools != allowed:
            plan = item_change_or_fallback(plan, policy, state, decision.action, order_id, set(allowed) - set(plan.forbidden_tools), prompt)
    plan, branch = catalogue_decides(plan, prompt, state, order_id, actor.get("customer_id"), policy)
    if branch is not None:  # the seed's catalogue settles the condition: no longer a person's to decide
        questions = [question for question in questions if "cannot decide" not in question] + [branch_question(branch)]
    others = other_named_orders(session, prompt, order_id, actor, state, schema)
    plan = plan.model_copy(update={"expectations": [*plan.expectations, *untouched_orders(others, state)]})
    if decision.rule != "identity_not_verified":  # an unverified requester gets no part of it done
        main = main_actions(classification.intent, decision)
        plan, asked_parts = in_scope_parts(plan, prompt, main, state, actor.get("customer_id"), order_id, policy)
        plan, required_parts = require_other_orders(plan, prompt, state, actor, seed.clock_datetime, order_id, policy, main)
        questions += asked_parts + required_parts
        plan = plan.model_copy(update={"expectations": [*plan.expectations, *told_elsewhere(plan, prompt, state, actor.get("customer_id"))]})
        plan = promise_about_target(plan, order_id, state)
    questions += prompt_seed_conflicts(prompt, order_id, state, seed.clock, policy)
    questions += scope_questions(prompt, decision, state) + unpinned_variant_questions(plan.expectations)
    scope = scope_for_parts(scope, order_id, plan, state)
    if not scope and order_id and requested_order_id(prompt, state, actor, schema) == order_id:
        # The words tell the order by its items: no question whether the prompt should name it.
        questions = [question for question in questions if "name no order id" not in question]
    if scope:
        questions.append(
            f"The customer's words alone do not tell one order (several named or asked about, or none and several on the "
            f"account): the prompt starts with '{scope}'"
            + (f", and leaves out the words about order {', '.join(asked)}" if words != user_prompt(session) else "")
            + ". Is one order the right scope for this task?"
        )
    for other in session.entity_ids.get(schema.kinds["order"], []):
        if other != order_id and other in state["order"]:
            questions.append(f"The session also touched order {other}; does the task need to mention it?")
    if not actor.get("customer_id"):
        questions.append("The session names no customer; who is the authenticated requester?")
    target = {"order_id": order_id} if order_id else {}
    return plan.model_copy(update={"review_questions": questions, "target": target, "scope": scope,
                                   "words": words if words != user_prompt(session) else ""})


def other_named_orders(session: Session, prompt: str, order_id: str | None, actor: dict[str, str], state: StateRows, schema: RetailSchema) -> list[str]:
    """The requester's other orders the session names (in the customer's words or the agent's calls): a
    task about one of them must leave the others as they are."""
    user_text = "\n".join(turn.text for turn in session.turns if turn.role == "user")
    written, read = acted_on_orders(session, set(state.get("order", {})), schema)
    named = [*order_ids_in(user_text, schema), *order_ids_in(prompt, schema), *written, *read, *session.entity_ids.get(schema.kinds["order"], [])]
    orders = state.get("order", {})
    return [other for other in dict.fromkeys(named)
            if other != order_id and other in orders and orders[other].get("customer_id") == actor.get("customer_id")]
