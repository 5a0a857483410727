"""Draft the negative of a retail task: the positive's seed moved across one policy boundary (or its words
changed), so a correct agent behaves differently and the positive's behaviour fails it."""

from __future__ import annotations

import copy
from datetime import timedelta

from ingest.models import StateRows
from taskgen.domains import NegativePlan, Plan
from taskgen.domains.retail import identity
from taskgen.domains.retail.canary import refund_payment_history
from taskgen.domains.retail.catalogue_branch import catalogue_negative
from taskgen.domains.retail.grader import allow, expect, orders_of
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.other_orders import require_other_orders
from taskgen.domains.retail.parts import distinct, promise_about_target
from taskgen.domains.retail.plans import ACTION_KINDS, in_scope_parts, main_actions, plan_for
from taskgen.domains.retail.rules import asks_outside_tools, decide, requested_order_id, words_tell_order
from taskgen.domains.retail.schema import RetailSchema
from taskgen.domains.retail.scope import one_of_orders
from taskgen.seeds import Seed, format_timestamp, parse_timestamp
from taskgen.task import Expectation, ForbiddenCall


def _shift(value: object, delta: timedelta) -> str | None:
    return format_timestamp(parse_timestamp(str(value)) + delta) if value else None


def _refund_as_closed(moved: StateRows, schema: RetailSchema, order_id: str, clock) -> None:
    """What the product's own closing of an order records beside its status: the paid amount refunded (a cancelled
    order without its refund is a state no tool leaves, and a reply promising no refund reads false on it). Kept the
    product's way: a refund entry per payment in a payment history the order keeps (tau2-bench), else a row of the
    product's refund kind where it keeps payments as rows (the demo)."""
    from taskgen.domains.retail.rules import refunded_cents

    row = next((r for key, r in moved.get(schema.kinds["order"], {}).items() if str(key) == order_id), None)
    if row is not None and refund_payment_history(row):
        return
    view = schema.canonical(moved)
    remaining = int(view["order"][order_id].get("total_cents") or 0) - refunded_cents(view, order_id)
    if remaining <= 0 or schema.kinds["payment"] not in moved:
        return
    refunds = moved.setdefault(schema.kinds["refund"], {})
    refund_id = f"refund-{order_id.lstrip('#')}-closed"
    refunds[refund_id] = {"id": refund_id, schema.columns["refund"]["order"]: order_id,
                          schema.columns["refund"]["amount"]: schema.from_cents(remaining),
                          "reason": "cancelled", "created_at": format_timestamp(clock - timedelta(minutes=1))}


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
    if boundary in ("order_in_transit", "closed"):
        # Only the order the expectations are about moves (on its way; cancelled before it shipped), never the
        # customer's other orders, which their other requests may need; the words name it (negative_words).
        statuses = policy.address_change.escalate_when_order_status_in if boundary == "order_in_transit" else policy.closed_statuses
        order = view["order"].get(order_id or "")
        if not statuses or order is None or order.get("customer_id") != actor.get("customer_id") or order.get("status") in statuses:
            return None
        schema.set_field(moved, "order", str(order_id), "status", statuses[0])
        schema.set_field(moved, "order", str(order_id), "delivered_at", None)
        if any(tool.sets_status == statuses[0] and tool.refunds for tool in policy.tools):
            _refund_as_closed(moved, schema, str(order_id), clock)
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
        "closed": f"The order is {policy.closed_statuses[0] if policy.closed_statuses else 'closed'}: must the agent refuse a "
        "change to it (nothing left to change) rather than hand it to a human?",
        "other_customer": "Should the agent act on, or disclose, an order that belongs to another customer?",
        "order_in_transit": "May the customer change the address while an order is on its way, or must a human decide?"
        if policy.address_change.in_transit == "escalate" else
        "The policy refuses an address change of an order already on its way: must the agent refuse it rather than change it or hand it on?",
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


ORDER_INDEPENDENT_BOUNDARIES = ("identity_not_verified", "order_in_transit", "outside_request", "closed")
REPLY_CONTENT_CHECKS = ("reply_states_status", "reply_withholds", "reply_refuses", "reply_asks_for")


def discriminates(positive: Plan, negative: Plan) -> bool:
    """Code can tell the two answers apart: one requires a tool the other forbids, or their checks on
    what the reply says differ. (A positive that only replies and a negative that only replies can both
    be passed by one reply, whatever the rules behind them.)"""
    tools = set(positive.required_tools) & set(negative.forbidden_tools) or set(negative.required_tools) & set(positive.forbidden_tools)
    content = {item.describe() for item in positive.expectations if item.check in REPLY_CONTENT_CHECKS} != {
        item.describe() for item in negative.expectations if item.check in REPLY_CONTENT_CHECKS
    }
    return bool(tools) or content


IDENTITY_BOUNDARIES = ("identity_not_verified", "identity_verified", "other_customer")
"""Boundaries that change who asks: nothing of the request is the requester's to have done, so the negative
keeps every rule of its own."""


def _about_customer_address(item: Expectation) -> bool:
    """A check of the customer's own address (kept, changed, or asked for instead), not an order's."""
    options = item.any_of if item.check == "any_of" else [item]
    return any(option.check in ("address_equals", "address_changed") for option in options) and all(
        option.check in ("address_equals", "address_changed", "reply_asks_for") for option in options)


def _order_address_task(positive: Plan, order_id: str) -> bool:
    """The positive changes (or allows) the target order's own shipping address, not the customer's."""
    checks = [option for item in positive.expectations for option in (item.any_of if item.check == "any_of" else [item])]
    return any(allowance.kind == "order" and allowance.row_id == order_id and "address" in (allowance.field or "")
               for allowance in positive.may_change) or any(
        option.check in ("order_address_equals", "order_address_changed") and str(option.args.get("order_id")) == order_id
        for option in checks)


def rest_of_request(plan: Plan, positive: Plan, order_id: str | None, state: StateRows, policy: RetailPolicy) -> Plan:
    """The negative judged like the positive on everything but its own order (cold review of tau2 drafts, #12):
    the boundary is crossed on the target order only, so what the request asks of the customer's other orders is
    judged as the positive judges it (its checks on those orders, with their allowances, replace the negative's),
    and where the request is about several orders, a tool the positive allows stays allowed (the other orders may need
    it), a call of it on the target order forbidden by a check of its own (`forbidden_calls`)."""
    if not order_id:
        return plan
    rest = [item for item in positive.expectations if orders_of(item) - {order_id}]
    several = bool(rest) or "one of the orders" in (positive.scope or "").lower()
    expectations = [item for item in plan.expectations if not orders_of(item) - {order_id}] + rest
    # the positive's checks of the customer's own address; from an either-or mixing it with the order's ("ask for the
    # address, or change the account's, or the order's": tau2 task 110), its options about the customer's address
    own_address = [option for item in positive.expectations
                   for option in ((item.any_of or [item]) if _about_customer_address(item)
                                  else [option for option in item.any_of if option.check in ("address_equals", "address_changed")])]
    if own_address and _order_address_task(positive, order_id):
        # the task is about an order's own address; the customer's (default) address is no order: a change the
        # request asks of it too passes as the positive judges it, as does the refusal's keeping it ("all my pending
        # orders' address, along with my default address", tau2 task 87: the refusal of the order on its way may
        # come alone). (Where the customer's address is the task's own, it crosses with the order.)
        kept = [option for item in expectations if _about_customer_address(item) for option in (item.any_of or [item])]
        options = list({option.describe(): option for option in [*kept, *own_address]}.values())
        # 'the address is X, or it is not X' holds whatever it is (fifth cold review, #12): no check, the change allowed
        either = [option for option in options if option.check == "address_changed" and any(
            other.check == "address_equals" and other.args == option.args for other in options)]
        options = [] if either else options
        plan = plan.model_copy(update={"may_change": [*plan.may_change, *(allow("customer", str(option.args["customer_id"]), "address")
                                                                          for option in either)]})
        expectations = [item for item in expectations if not _about_customer_address(item)] + (
            [Expectation(check="any_of", any_of=options)] if len(options) > 1 else options)
        address_tool = policy.tool_name("update_address", "update_address")
        if address_tool not in positive.forbidden_tools and (len(options) > 1 or either):
            # the customer's address change the request asks too (the Mary Guzman pair of the fourth cold review, #12: 'my
            # wrong order address ... and also my user default address'), accepted above as the positive accepts it, is no
            # forbidden call: its tool stays free on the negative as on the positive
            plan = plan.model_copy(update={"forbidden_tools": [tool for tool in plan.forbidden_tools if tool != address_tool]})
    if not several:
        return plan.model_copy(update={"expectations": expectations})
    order = state.get("order", {}).get(order_id, {})
    about_address = {"order_address_equals", "order_address_changed", "order_recorded"}
    if order.get("shipping_address") and not any(
            option.check in about_address and str(option.args.get("order_id")) == order_id
            for item in expectations for option in (item.any_of if item.check == "any_of" else [item])):
        expectations.append(expect("order_address_equals", order_id=order_id, address=order["shipping_address"]))
    # a hand-over stays as the negative's own answer has it (a refusal is said, not handed on)
    freed = [tool for tool in plan.forbidden_tools if tool not in positive.forbidden_tools and tool != policy.escalation_tool]
    on_orders = [name for name in freed if any(tool.name == name and tool.order_arg for tool in policy.tools)]
    return plan.model_copy(update={
        "expectations": expectations, "forbidden_tools": [tool for tool in plan.forbidden_tools if tool not in freed],
        "forbidden_calls": [*plan.forbidden_calls, *(call_on(name, order_id, policy) for name in on_orders)],
        "may_change": distinct([*plan.may_change, *(allowance for allowance in positive.may_change if allowance.row_id != order_id)]),
    })


def call_on(name: str, order_id: str, policy: RetailPolicy) -> ForbiddenCall:
    """A call of tool `name` on this order (by the tool's declared order argument), forbidden there only."""
    tool = next(tool for tool in policy.tools if tool.name == name)
    return ForbiddenCall(tool=name, args={str(tool.order_arg): order_id})


def calls_refused_on_target(plan: Plan, order_id: str | None, state: StateRows, policy: RetailPolicy) -> Plan:
    """The negative with a call forbidden on its own order for each write tool it leaves free or requires (the request's
    other orders may need it) that refuses the order in its status on this seed: the boundary the tool enforces itself (a cancellation
    of an order no longer pending, a return of one not delivered) leaves no end state a wrong attempt could change, so
    without it only the reply could fail the negative (cold review of tau2 drafts, #12). The positive's own call on its
    order, replayed here, fails it by this check."""
    status = state.get("order", {}).get(order_id or "", {}).get("status")
    if status is None:
        return plan
    forbidden = {rule.describe() for rule in plan.forbidden_calls}
    added = [call_on(tool.name, str(order_id), policy) for tool in policy.tools
             if tool.order_arg and tool.name not in plan.forbidden_tools
             and ((tool.requires_status and status not in tool.requires_status) or tool.sets_status == status)]
    return plan.model_copy(update={"forbidden_calls": [*plan.forbidden_calls, *(rule for rule in added if rule.describe() not in forbidden)]})


def _customer_row(seed: Seed, schema: RetailSchema, customer_id: str | None) -> dict | None:
    """The product's own row of the customer (its names, e-mail and zip as the product keeps them)."""
    return seed.state.get(schema.kinds["customer"], {}).get(customer_id or "")


def _outside_sentence(policy: RetailPolicy) -> str | None:
    """A request only a human can carry out, in the customer's words: the policy's first one-word phrase."""
    verbs = [phrase for phrase in policy.requests_outside_tools if len(phrase.split()) == 1]
    return f"I would also like to {verbs[0]} one of the items of my order for another one." if verbs else None


def negative_words(
    boundary: str, prompt: str, scope: str, seed: Seed, actor: dict[str, str], requester: dict[str, str], policy: RetailPolicy,
    target_order: str | None = None,
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
        account_id = actor.get("customer_id") or ""
        if row is not None and not identity.gives_identity(body, row) and account_id and identity.said(body, account_id):
            # The words name the account ("I am user cust_019f6362b3 living in … 57284"): not a verification
            # by the policy, but a reader takes it for one, so the negative's customer cannot give it either.
            changed = identity.without_identity(body, row, also=(account_id,))
            return head + changed if identity.identified_customer(changed, customers) is None else None
        if row is None or not identity.gives_identity(body, row):
            return "" if identity.identified_customer(body, customers) is None else None
        changed = identity.without_identity(body, row, also=(account_id,) if account_id and identity.said(body, account_id) else ())
        return head + changed if identity.identified_customer(changed, customers) is None else None
    if boundary == "identity_verified":
        row = _customer_row(seed, schema, requester.get("customer_id"))
        if row is None:
            return None
        changed = identity.with_identity(body, row)
        if changed is None or identity.identified_customer(changed, customers) != requester.get("customer_id"):
            return ""  # the session signs the owner in; nothing of it is in the words
        return head + changed
    if boundary in ("order_in_transit", "closed"):
        # The moved order is the one the words tell; when they tell none (the agent found it), they name it.
        view = schema.canonical(seed.state)
        order_id = str(target_order or "")
        if not order_id or words_tell_order(body, order_id, view, actor):
            return ""
        # Said as one order among several where the task's scope says so (its other parts are on other orders).
        said = f"Order {order_id} is one of the orders I ask about." if scope == one_of_orders(order_id) else f"It is about my order {order_id}."
        return f"{prompt.rstrip()} {said}"
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
    positive_decision = decide(intent, prompt, view, actor, clock, policy, order_id, schema)
    boundaries = list(policy.boundaries.get(intent, ()))
    if positive_decision.action in ACTION_KINDS and not positive.required_tools and positive_decision.rule != "address_to_ask":
        # The positive's write hangs on a condition a person decides (plan_positive): a refusal or an
        # answer alone passes it too, so no moved seed makes a negative it does not accept. (An address the
        # agent must ask for is no condition: it forbids a hand-over, so a refusal's negative still differs.)
        boundaries = []
    if order_id and requested_order_id(prompt, view, actor, schema) != order_id:
        # The request does not tell which of the customer's orders it means (by id or by its items):
        # a move of that order would ask the agent to guess it; only a boundary that holds for every
        # order is crossed.
        boundaries = [boundary for boundary in boundaries if boundary in ORDER_INDEPENDENT_BOUNDARIES]
    if (flipped := catalogue_negative(prompt, seed, actor, positive, policy)) is not None:
        # the customer's own condition, crossed in the catalogue (catalogue_branch.py)
        return promise_about_target(calls_refused_on_target(flipped, order_id, schema.canonical(flipped.state), policy), order_id,
                                    schema.canonical(flipped.state))
    for boundary in boundaries:
        crossed = cross_boundary(boundary, seed, order_id, actor, policy)
        if crossed is None:
            continue
        moved, requester = crossed
        words = negative_words(boundary, prompt, positive.scope, seed, actor, requester, policy, order_id)
        if words is None:
            continue
        said = words or prompt
        view = schema.canonical(moved)
        decision = decide(intent, said, view, requester, clock, policy, order_id, schema)
        plan = plan_for(decision, view, requester.get("customer_id"), target_order_id=order_id, prompt=said, policy=policy)
        if decision.rule != "identity_not_verified":
            # The customer's other parts are the agent's to do on this side too (plans.in_scope_parts).
            plan, _ = in_scope_parts(plan, said, main_actions(intent, positive_decision, decision), view,
                                     requester.get("customer_id"), order_id, policy)
            plan, _ = require_other_orders(plan, said, view, requester, clock, order_id, policy, main_actions(intent, positive_decision, decision))
        if boundary not in IDENTITY_BOUNDARIES:
            plan = rest_of_request(plan, positive, order_id, view, policy)
        plan = promise_about_target(calls_refused_on_target(plan, order_id, view, policy), order_id, view)
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
        review_questions=[
            "The positive's write depends on a condition the seed cannot decide, so no boundary makes a negative it does not "
            "accept; write the negative by hand once the condition is settled."
            if positive_decision.action in ACTION_KINDS and not positive.required_tools else
            f"No policy boundary of intent '{intent}' could be crossed on this seed; write the negative by hand."],
        state=copy.deepcopy(seed.state),
        actor=actor,
        boundary="none",
        boundary_question="Which request on this seed must the agent refuse?",
    )
