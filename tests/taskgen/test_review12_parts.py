"""Issue #12, cold review of tau2-bench drafts (pairs 3, 9, 10, 17): a request of several parts judged on one
order must let a correct agent do the other parts. An item change the product's own tools make ("change the lamp",
"exchange the bottle") is such a part: its tools are not forbidden, and the orders it writes on may end in the
status it sets, with what it records allowed."""

from __future__ import annotations

import copy

from test_product_tools import ACTOR, CLOCK, NEW_ADDRESS, _seed, tau2  # noqa: F401  (tau2: the fixture)

from retail_fixtures import run_and_grade
from taskgen.domains.retail import RetailDomain
from taskgen.domains.retail.parts import in_scope_parts, main_actions, other_parts
from taskgen.domains.retail.other_orders import untouched_orders
from taskgen.domains.retail.plans import plan_for
from taskgen.domains.retail.rules import decide
from taskgen.task import Budget, DraftTask, TaskProvenance

ADDRESS_AND_ITEMS = (f"Please change the shipping address of order #W1234567 to {NEW_ADDRESS}. I also want to change the desk lamp "
                     "in that order to the brass one, and to exchange the water bottle in order #W7654321 for a blue one.")
FIELDS = dict(address1="445 Maple Drive", address2="Suite 394", city="Fort Worth", state="Texas", country="USA", zip="76165")
EVERYTHING = (("modify_pending_order_address", dict(order_id="#W1234567", **FIELDS)),
              ("modify_pending_order_items", dict(order_id="#W1234567", item_ids=["111"], new_item_ids=["112"], payment_method_id="gift_card_1")),
              ("exchange_delivered_order_items", dict(order_id="#W7654321", item_ids=["222"], new_item_ids=["223"], payment_method_id="cc_1")),
              ("send_reply", {"text": "All three changes are made."}))


def _seed_with_pending_twin():
    """The tools' seed with a second pending order of the customer (#W2222222, 30.00 paid by gift card)."""
    seed = _seed()
    state = copy.deepcopy(seed.state)
    state["order"]["#W2222222"] = dict(state["order"]["#W1234567"], id="#W2222222", total_cents=3000)
    return seed.model_copy(update={"state": state})


def _run(policy, task: DraftTask, calls: tuple, seed=None, agent: str = ""):
    return run_and_grade(policy, task, seed or _seed(), agent, calls)


def _positive(policy, prompt: str, order_id: str, others: list[str], intent: str = "address_change", seed=None) -> DraftTask:
    """The positive as plan_positive builds it: the plan, the other orders held as they are, the other parts freed."""
    state = RetailDomain(policy).environment(seed or _seed()).state
    decision = decide(intent, prompt, state, ACTOR, CLOCK, policy, order_id)
    plan = plan_for(decision, state, "c1", order_id, prompt, policy)
    plan = plan.model_copy(update={"expectations": [*plan.expectations, *untouched_orders(others, state)]})
    plan, _ = in_scope_parts(plan, prompt, main_actions(intent, decision), state, "c1", order_id, policy)
    return DraftTask(
        task_id="t-pos", pair_id="t", set="capability", split="dev", polarity="positive", intent=intent, outcome="resolved",
        prompt=prompt, actor=ACTOR, clock="2026-01-01T00:00:00Z", seed_id="seed-tools", domain="retail", expectations=plan.expectations,
        required_tools=plan.required_tools, forbidden_tools=plan.forbidden_tools, may_change=plan.may_change,
        budget=Budget(turns=20, tokens=20000, latency_ms=60000), provenance=TaskProvenance(session_ids=["s"]),
    )


def test_an_item_change_the_products_tools_make_is_another_part_of_the_request(tau2):
    assert "change_items" in other_parts(ADDRESS_AND_ITEMS, {"update_address"}, tau2)
    # an item change and an address change in one sentence (pair 3), a payment for an item change (tau2 100)
    for words in ("I also want to change my pending order item to red, and change the address of the order to my default home.",
                  "For the pending order modification, I want to use my credit card."):
        assert "change_items" in other_parts(words, {"return_label"}, tau2), words
    # an address or a payment method changed, a change of mind: no item change
    for words in (f"Please change the address of order #W1234567 to {NEW_ADDRESS}.", "I changed my mind, cancel order #W1234567.",
                  "Please change the payment method of order #W1234567 to my gift card.",
                  "I want to modify the laptop order to my Hamburg address."):
        assert "change_items" not in other_parts(words, {"update_address"}, tau2), words


def test_a_correct_agent_doing_every_part_passes_and_the_other_orders_are_still_checked(tau2):
    task = _positive(tau2, ADDRESS_AND_ITEMS, "#W1234567", ["#W7654321"])
    assert not {"modify_pending_order_items", "exchange_delivered_order_items"} & set(task.forbidden_tools)
    result, _ = _run(tau2, task, EVERYTHING)
    assert result.passed, result.reasons
    # the address change alone still passes (the other parts are allowed, not required); a wrong write on the other
    # order (a return instead of the exchange) still fails
    assert _run(tau2, task, (EVERYTHING[0], EVERYTHING[-1]))[0].passed
    wrong = ("return_delivered_order_items", dict(order_id="#W7654321", item_ids=["222"], payment_method_id="cc_1"))
    assert not _run(tau2, task, (EVERYTHING[0], wrong, EVERYTHING[-1]))[0].passed


def test_a_request_of_one_part_still_holds_its_other_orders_as_they_are(tau2):
    prompt = f"Please change the shipping address of order #W1234567 to {NEW_ADDRESS}."
    task = _positive(tau2, prompt, "#W1234567", ["#W7654321"])
    assert "exchange_delivered_order_items" in task.forbidden_tools
    assert not _run(tau2, task, (EVERYTHING[0], EVERYTHING[2], EVERYTHING[-1]))[0].passed


def test_a_cancellation_asked_beside_lets_the_other_order_end_cancelled_and_refunded(tau2):
    seed = _seed_with_pending_twin()
    prompt = f"Please change the shipping address of order #W1234567 to {NEW_ADDRESS}. Also cancel order #W2222222, I no longer need it."
    task = _positive(tau2, prompt, "#W1234567", ["#W2222222"], seed=seed)
    cancel = ("cancel_pending_order", dict(order_id="#W2222222", reason="no longer needed"))
    result, _ = _run(tau2, task, (EVERYTHING[0], cancel, EVERYTHING[-1]), seed)
    assert result.passed, result.reasons
    assert _run(tau2, task, (EVERYTHING[0], EVERYTHING[-1]), seed)[0].passed  # allowed, not required


def test_the_tasks_own_kind_of_change_asked_on_another_order_is_left_to_the_agent_there_only(tau2):
    """Returns asked from two orders, the task's own (pending: refused) and a delivered one: the return tool is not
    forbidden by name, the other order may end returned, and a return of the task's own order still fails."""
    prompt = "I want to return the desk lamp in order #W1234567. I also want to return the water bottle in order #W7654321."
    task = _positive(tau2, prompt, "#W1234567", ["#W7654321"], intent="return_label")
    assert "return_delivered_order_items" not in task.forbidden_tools
    other = ("return_delivered_order_items", dict(order_id="#W7654321", item_ids=["222"], payment_method_id="cc_1"))
    alone, _ = _run(tau2, task, (), agent="reference")
    both, _ = _run(tau2, task, (other,), agent="reference")
    assert alone.passed and both.passed, (alone.reasons, both.reasons)
    # one return asked: the tool stays forbidden
    single = _positive(tau2, "I want to return the desk lamp in order #W1234567.", "#W1234567", ["#W7654321"], intent="return_label")
    assert "return_delivered_order_items" in single.forbidden_tools


def test_an_address_change_on_an_order_the_tool_refuses_lets_the_agent_re_address_the_order_the_words_mean(tau2):
    """The words name no order id and the task's order is one the address tool refuses (delivered, pair 9): the
    customer's pending order, named in the session, may be the one they mean; a call on the task's own order is refused."""
    prompt = f"I just placed an order with a desk lamp, I want to change the shipping address of that order to {NEW_ADDRESS}."
    task = _positive(tau2, prompt, "#W7654321", ["#W1234567"])
    assert "modify_pending_order_address" not in task.forbidden_tools
    user = ("modify_user_address", dict(user_id="c1", **FIELDS))  # what the task asks (plan_for's ruling), then the pending order
    result, _ = _run(tau2, task, (user, EVERYTHING[0], EVERYTHING[-1]))
    assert result.passed, result.reasons
    # the words name the task's order: nothing else is theirs to change
    named = _positive(tau2, f"I want to change the address of order #W7654321 to {NEW_ADDRESS}.", "#W7654321", ["#W1234567"])
    assert "modify_pending_order_address" in named.forbidden_tools
    assert not _run(tau2, named, (user, EVERYTHING[0], EVERYTHING[-1]))[0].passed


def test_an_order_a_cancellation_and_an_item_change_may_both_reach_ends_in_either_status(tau2):
    """Pair 3: the other pending order may be cancelled (a part the words ask for) or its items changed (another):
    its check allows both statuses, not only the first part's."""
    seed = _seed_with_pending_twin()
    prompt = (f"Please change the shipping address of order #W1234567 to {NEW_ADDRESS}. Also cancel order #W2222222, "
              "or rather change its desk lamp to the brass one.")
    task = _positive(tau2, prompt, "#W1234567", ["#W2222222"], seed=seed)
    change = ("modify_pending_order_items", dict(order_id="#W2222222", item_ids=["111"], new_item_ids=["112"], payment_method_id="gift_card_1"))
    cancel = ("cancel_pending_order", dict(order_id="#W2222222", reason="no longer needed"))
    for call in (change, cancel):
        result, _ = _run(tau2, task, (EVERYTHING[0], call, EVERYTHING[-1]), seed)
        assert result.passed, (call[0], result.reasons)


def test_an_item_change_asked_under_a_condition_on_the_catalogue_is_left_to_the_agent(tau2):
    """tau2 task 91: 'I also want to return the e-reader. If the same item is available online, I'm willing to exchange
    it to the same item.' Whether the item is available is the catalogue's to say, and either branch is right until a
    person decides: the exchange on the other order was forbidden, so the agent doing it failed the positive."""
    words = (f"Please change the shipping address of order #W1234567 to {NEW_ADDRESS}. If the same water bottle is available "
             "in blue, I'm willing to exchange the one in order #W7654321 for it.")
    assert "change_items" in other_parts(words, {"update_address"}, tau2)
    # a condition on the customer's side or on the order's status is no such part
    assert "change_items" not in other_parts("If it has not shipped yet, exchange the water bottle for a blue one.", {"update_address"}, tau2)
    task = _positive(tau2, words, "#W1234567", ["#W7654321"])
    assert "exchange_delivered_order_items" not in task.forbidden_tools
    for calls in ((EVERYTHING[0], EVERYTHING[2], EVERYTHING[-1]), (EVERYTHING[0], EVERYTHING[-1])):
        result, _ = _run(tau2, task, calls)
        assert result.passed, result.reasons


def test_an_item_change_under_a_condition_on_the_catalogue_is_allowed_on_the_other_orders_only(tau2):
    """tau2 task 91's negative (the skateboards' order past its return window) accepted the order exchanged instead of the
    refusal: the condition is about the e-reader of the other order, so the target order's checks stay as they are."""
    from taskgen.domains import Plan
    from taskgen.domains.retail.grader import expect

    words = "Please update my address. If the same water bottle is available in blue, I am willing to exchange mine for it."
    state = RetailDomain(tau2).environment(_seed()).state
    kept = expect("order_status", order_id="#W7654321", status=state["order"]["#W7654321"]["status"])
    on_target, _ = in_scope_parts(Plan(expectations=[kept]), words, {"update_address"}, state, "c1", "#W7654321", tau2)
    assert [item.describe() for item in on_target.expectations] == [kept.describe()]
    on_other, _ = in_scope_parts(Plan(expectations=[kept]), words, {"update_address"}, state, "c1", "#W1234567", tau2)
    assert "exchange requested" in on_other.expectations[0].describe()
