"""Issue #12, fifth cold review of tau2-bench drafts (families 1 and 3): an address change asked beside another request
was checked by `address_equals(X) OR address_changed(X)`, true whatever the address, so a half-done job passed. The
account's address asked changed to an address the words give is now required; an order's address asked changed leaves
the account's as it is."""

from __future__ import annotations

from test_product_tools import NEW_ADDRESS, tau2  # noqa: F401  (tau2: the fixture)
from test_review12_parts import _positive, _run

from taskgen.domains.retail.grader import expect

RETURN_AND_ADDRESS = f"Please return the water bottle of order #W7654321. I also want to update my address to {NEW_ADDRESS}."
RETURN = ("return_delivered_order_items", dict(order_id="#W7654321", item_ids=["222"], payment_method_id="cc_1"))
NEW = dict(address1="445 Maple Drive", address2="Suite 394", city="Fort Worth", state="Texas", country="USA", zip="76165")


def _tautologies(task) -> list:
    return [item for item in task.expectations if item.check == "any_of"
            and {option.check for option in item.any_of} >= {"address_equals", "address_changed"}]


def test_the_accounts_address_asked_beside_a_return_is_required_to_become_the_one_given(tau2):
    task = _positive(tau2, RETURN_AND_ADDRESS, "#W7654321", [], intent="return_label")
    assert not _tautologies(task)
    assert expect("address_equals", customer_id="c1", address=NEW_ADDRESS) in task.expectations
    done = _run(tau2, task, (RETURN, ("modify_user_address", dict(user_id="c1", **NEW)), ("send_reply", {"text": "Done."})))[0]
    assert done.passed, done.reasons
    half = _run(tau2, task, (RETURN, ("send_reply", {"text": "Done."})))[0]  # the return alone: half the job
    assert not half.passed
    assert _run(tau2, task, (), agent="reference")[0].passed  # the reference agent does both parts


def test_an_orders_address_asked_beside_a_return_leaves_the_accounts_as_it_is(tau2):
    words = f"Please return the water bottle of order #W7654321. I also want to change my pending order address to {NEW_ADDRESS}."
    task = _positive(tau2, words, "#W7654321", [], intent="return_label")
    assert not _tautologies(task)
    assert expect("address_equals", customer_id="c1", address="1 Old Rd, Austin, TX 78701") in task.expectations
    wrong = _run(tau2, task, (RETURN, ("modify_user_address", dict(user_id="c1", **NEW)), ("send_reply", {"text": "Done."})))[0]
    assert not wrong.passed  # the account's address was not asked changed


def test_an_address_change_with_no_address_read_is_allowed_not_checked_by_an_always_true_option(tau2):
    words = "Please return the water bottle of order #W7654321. I also want to update my address, I moved recently."
    task = _positive(tau2, words, "#W7654321", [], intent="return_label")
    assert not _tautologies(task)
    assert not any(item.check == "address_equals" for item in task.expectations)
    assert any(allowance.kind == "customer" and allowance.field == "address" for allowance in task.may_change)


def _seed_with_second_address():
    """The tools' seed with the delivered order #W7654321 shipped elsewhere (9 Elm Street, Dallas, TX 75201)."""
    import copy

    from test_product_tools import _seed

    seed = _seed()
    state = copy.deepcopy(seed.state)
    state["order"]["#W7654321"]["shipping_address"] = "9 Elm Street, Dallas, TX 75201"
    return seed.model_copy(update={"state": state})


def _options(task) -> list:
    return [option for item in task.expectations for option in (item.any_of if item.check == "any_of" else [item])]


def test_an_address_said_to_be_another_orders_is_that_orders_and_is_required(tau2):
    seed = _seed_with_second_address()
    words = "For order #W1234567, I want to change the address to be the same as order #W7654321."
    task = _positive(tau2, words, "#W1234567", [], seed=seed)
    assert expect("order_address_equals", order_id="#W1234567", address="9 Elm Street, Dallas, TX 75201") in task.expectations
    asked = _run(tau2, task, (("send_reply", {"text": "Which address should I use? Please give me the full address."}),), seed=seed)[0]
    assert not asked.passed  # the seed tells the address: asking for it does not do the job
    assert _run(tau2, task, (), agent="reference", seed=seed)[0].passed


def test_an_orders_address_to_ask_for_does_not_pass_on_the_accounts_address_changed(tau2):
    task = _positive(tau2, "Please change the shipping address of order #W1234567, I moved.", "#W1234567", [])
    assert not any(option.check == "address_changed" for option in _options(task))
    account = _run(tau2, task, (("modify_user_address", dict(user_id="c1", **NEW)), ("send_reply", {"text": "Done."})))[0]
    assert not account.passed
    assert _run(tau2, task, (), agent="reference")[0].passed


def test_the_accounts_address_to_ask_for_does_not_pass_on_an_orders_address_changed(tau2):
    task = _positive(tau2, "Please change my default address, I moved.", "#W1234567", [])
    assert not any(option.check == "order_address_changed" for option in _options(task))
    order = _run(tau2, task, (("modify_pending_order_address", dict(order_id="#W1234567", **NEW)), ("send_reply", {"text": "Done."})))[0]
    assert not order.passed
    assert _run(tau2, task, (), agent="reference")[0].passed


# ---------------------------------------------------------------- family 2: the variant the catalogue decides
def _state():
    from test_product_tools import _seed

    from taskgen.domains.retail import RetailDomain
    from taskgen.domains.retail.policy import RetailPolicy

    return RetailDomain(RetailPolicy.from_yaml()).environment(_seed()).state


def _seed_with_red_lamp():
    """The tools' seed whose lamp has a fourth variant, red and dearer, listed first (item id 1100)."""
    import copy

    from test_product_tools import _seed

    seed = _seed()
    state = copy.deepcopy(seed.state)
    state["product"]["p-lamp"]["variants"]["1100"] = {"item_id": "1100", "options": {"color": "red", "bulb": "LED"}, "available": True, "price": 80.0}
    return seed.model_copy(update={"state": state})


def test_the_cheapest_variant_asked_for_is_pinned_and_the_reference_agent_picks_it(tau2):
    seed = _seed_with_red_lamp()
    task = _positive(tau2, "Please change the desk lamp in order #W1234567 to the cheapest one.", "#W1234567", [], intent="exchange", seed=seed)
    assert expect("items_replaced", order_id="#W1234567", items="111", new_items="112") in task.expectations
    dearer = ("modify_pending_order_items", dict(order_id="#W1234567", item_ids=["111"], new_item_ids=["1100"], payment_method_id="gift_card_1"))
    assert not _run(tau2, task, (dearer, ("send_reply", {"text": "Done."})), seed=seed)[0].passed
    assert _run(tau2, task, (), agent="reference", seed=seed)[0].passed


def test_a_variant_asked_at_the_same_price_or_lower_is_pinned_when_one_fits():
    from taskgen.domains.retail.variants import variant_asked

    state, lamp = _state(), {"item_id": "111", "product_id": "p-lamp", "price": 50.0, "options": {"color": "white", "bulb": "LED"}}
    assert variant_asked(lamp, state, "I want the lamp in black. I want the price to be the same or lower.") == "112"
    # the one asked for costs more (61.50 > 50.00): none fits, none pinned
    assert variant_asked(lamp, state, "I want the lamp in black with a halogen bulb, the price the same or lower.") is None
    assert variant_asked(lamp, state, "I want the lamp in black, under $40.") is None  # a price code does not weigh


def test_an_option_named_with_the_items_own_value_is_kept_not_left_open():
    from taskgen.domains.retail.variants import variant_asked

    state, lamp = _state(), {"item_id": "111", "product_id": "p-lamp", "price": 50.0, "options": {"color": "white", "bulb": "LED"}}
    assert variant_asked(lamp, state, "Exchange Desk Lamp {'color': 'white', 'bulb': 'LED'} to {'color': 'black'}.") == "112"
    assert variant_asked(lamp, state, "Exchange the desk lamp for a black one with another bulb.") is None  # the bulb: not told which


def test_an_item_change_whose_variant_is_not_told_carries_a_review_question():
    from taskgen.domains.retail.variants import unpinned_variant_questions

    open_ended = [expect("items_replaced", order_id="#W1234567", items="111")]
    assert len(unpinned_variant_questions(open_ended)) == 1
    assert not unpinned_variant_questions([expect("items_replaced", order_id="#W1234567", items="111", new_items="112")])


def test_a_negative_keeping_the_accounts_address_does_not_turn_the_positives_change_into_an_always_true_option(tau2):
    """Pair 14's negative (the order on its way): the positive's 'ask for the address, or change the account's or the
    order's' met the negative's 'the account's address as on the seed' and made 'it is X, or it is not X'."""
    from test_product_tools import _seed

    from taskgen.domains import Plan
    from taskgen.domains.retail import RetailDomain
    from taskgen.domains.retail.grader import allow
    from taskgen.domains.retail.negatives import rest_of_request
    from taskgen.task import Expectation

    state, old = RetailDomain(tau2).environment(_seed()).state, "1 Old Rd, Austin, TX 78701"
    positive = Plan(expectations=[Expectation(check="any_of", any_of=[
        expect("reply_asks_for", about="address"), expect("address_changed", customer_id="c1", address=old),
        expect("order_address_changed", order_id="#W1234567", address=old)])], may_change=[allow("order", "#W1234567", "shipping_address")])
    negative = Plan(expectations=[expect("reply_refuses"), expect("address_equals", customer_id="c1", address=old)])
    judged = rest_of_request(negative, positive, "#W1234567", state, tau2)
    options = [option for item in judged.expectations for option in (item.any_of if item.check == "any_of" else [item])]
    assert not any(option.check in ("address_equals", "address_changed") for option in options)
    assert allow("customer", "c1", "address") in judged.may_change  # either is right: allowed, not checked


def test_a_cancelled_order_is_no_cancellation_asked(tau2):
    """Pair 12: 'the tracking number of my cancelled order' freed the cancellation tool and let the pending order end
    cancelled. ('Cancel the skateboard in my other order' stays a cancellation: tau2 task 98's gold cancels that order.)"""
    from taskgen.domains.retail.parts import other_parts

    assert "cancel" not in other_parts("I also want to get the tracking number of my cancelled order.", {"return_label"}, tau2)
    assert "cancel" in other_parts("Lastly, I want to cancel my other order.", {"return_label"}, tau2)
    words = "Please return the water bottle of order #W7654321. I want to get the tracking number of my cancelled order."
    task = _positive(tau2, words, "#W7654321", ["#W1234567"], intent="return_label")
    assert "cancel_pending_order" in task.forbidden_tools
    cancelled = _run(tau2, task, (RETURN, ("cancel_pending_order", dict(order_id="#W1234567", reason="no longer needed")),
                                  ("send_reply", {"text": "Done."})))[0]
    assert not cancelled.passed
    assert _run(tau2, task, (), agent="reference")[0].passed


def test_an_orders_address_asked_changed_to_the_default_one_beside_a_return_is_required(tau2):
    """Pair 12: 'I also want to change my pending order address to the default one' was only allowed."""
    import copy

    from test_product_tools import _seed

    seed = _seed()
    state = copy.deepcopy(seed.state)
    state["order"]["#W1234567"]["shipping_address"] = "9 Elm Street, Dallas, TX 75201"
    seed = seed.model_copy(update={"state": state})
    words = "Please return the water bottle of order #W7654321. I also want to change my pending order address to the default one."
    task = _positive(tau2, words, "#W7654321", [], intent="return_label", seed=seed)
    assert expect("order_address_equals", order_id="#W1234567", address="1 Old Rd, Austin, TX 78701") in task.expectations
    assert not _run(tau2, task, (RETURN, ("send_reply", {"text": "Done."})), seed=seed)[0].passed  # half the job
    assert _run(tau2, task, (), agent="reference", seed=seed)[0].passed


# ---------------------------------------------------------------- family 1: the payment method the words ask for
def test_the_payment_method_the_words_ask_for_is_pinned_and_the_reference_agent_uses_it(tau2):
    """Pair 10: 'return them and refund to credit card' was checked only for a method the customer holds."""
    task = _positive(tau2, "Please return the water bottle of order #W7654321 and refund it to my gift card.", "#W7654321", [],
                     intent="return_label")
    assert any(item.check == "recorded_payment" and item.args.get("method") == "gift_card_1" for item in task.expectations)
    assert not _run(tau2, task, (RETURN, ("send_reply", {"text": "Done."})))[0].passed  # refunded to the card instead
    assert _run(tau2, task, (), agent="reference")[0].passed


def test_method_asked_reads_one_kind_the_customer_holds_once():
    from taskgen.domains.retail.payment_words import method_asked

    methods = {"gift_card_1": {"source": "gift_card"}, "cc_1": {"source": "credit_card"}, "cc_2": {"source": "credit_card"}}
    anything = lambda method: True  # noqa: E731
    assert method_asked("Refund it to my gift card.", methods, "cc_1", anything) == "gift_card_1"
    assert method_asked("Refund it to my credit card.", methods, "cc_1", anything) is None  # two credit cards: which one?
    assert method_asked("Refund it to the original payment method.", methods, "cc_1", anything) == "cc_1"
    assert method_asked("I do not want it on my gift card.", methods, "cc_1", anything) is None  # a negation: not told
    assert method_asked("Refund it to my gift card.", methods, "cc_1", lambda method: method != "gift_card_1") is None
    assert method_asked("Please return the lamp.", methods, "cc_1", anything) is None


def test_the_orders_address_part_is_on_the_customers_other_order_even_when_the_tasks_own_order_takes_the_tool_too(tau2):
    """Pair 12's negative: its own order not delivered (pending) made two orders the order-address tool takes, and the
    reference agent changed neither; the task's own order is not the one the other part means."""
    import copy

    from test_product_tools import _seed

    seed = _seed()
    state = copy.deepcopy(seed.state)
    state["order"]["#W1234567"]["shipping_address"] = "9 Elm Street, Dallas, TX 75201"
    state["order"]["#W7654321"].update(status="pending", shipping_address="9 Elm Street, Dallas, TX 75201")
    seed = seed.model_copy(update={"state": state})
    words = "Please return the water bottle of order #W7654321. I also want to change my pending order address to the default one."
    task = _positive(tau2, words, "#W7654321", [], intent="return_label", seed=seed)
    assert expect("order_address_equals", order_id="#W1234567", address="1 Old Rd, Austin, TX 78701") in task.expectations
    assert _run(tau2, task, (), agent="reference", seed=seed)[0].passed


def test_the_review_question_says_the_address_part_is_required_where_it_is(tau2):
    from test_product_tools import ACTOR, CLOCK, _seed

    from taskgen.domains.retail import RetailDomain
    from taskgen.domains.retail.parts import in_scope_parts, main_actions
    from taskgen.domains.retail.plans import plan_for
    from taskgen.domains.retail.rules import decide

    state = RetailDomain(tau2).environment(_seed()).state
    decision = decide("return_label", RETURN_AND_ADDRESS, state, ACTOR, CLOCK, tau2, "#W7654321")
    plan = plan_for(decision, state, "c1", "#W7654321", RETURN_AND_ADDRESS, tau2)
    _, questions = in_scope_parts(plan, RETURN_AND_ADDRESS, main_actions("return_label", decision), state, "c1", "#W7654321", tau2)
    assert any("the address change it asks for is required" in question and NEW_ADDRESS in question for question in questions), questions
