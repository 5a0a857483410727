"""Issue #12 (third and fourth cold reviews): what the drafter requires on another order of the customer, for given words
and seed, beyond tests/taskgen/test_review12_other_orders.py: an item change on another order (pending: modified;
delivered: exchanged), the words that make it required or leave it allowed, and cancellations told by id, count or status."""

from __future__ import annotations

from test_product_tools import ACTOR, _seed, tau2  # noqa: F401  (tau2: the fixture)

from taskgen.domains.retail.other_orders import asked_on_other_orders, require_other_orders
from taskgen.domains.retail.plans import plan_for
from taskgen.domains.retail.rules import Decision, decide
from taskgen.seeds import Seed

LAMP_ASKED = "I also want to change the desk lamp to the black one."


def _with_yoga_mat(status: str = "pending", order_id: str = "#W5555555") -> Seed:
    """The customer's third order, holding one yoga mat."""
    seed = _seed()
    seed.state["order"][order_id] = {"id": order_id, "customer_id": "c1", "status": status, "total_cents": 3000,
                                     "items": [{"item_id": "333", "name": "Yoga Mat"}], "payment_history": [{"payment_method_id": "cc_1"}]}
    return seed


def _asked(words: str, seed: Seed, target: str | None, policy, own_actions: set[str] | None = None) -> list[tuple[str, Decision, str]]:
    return asked_on_other_orders(words, seed.state, ACTOR, seed.clock_datetime, target, policy, own_actions)


def _lamp_change(order_id: str = "#W1234567", action: str = "modify_items") -> Decision:
    return Decision(action=action, rule=f"{action}_allowed", order_id=order_id, customer_id="c1")


def test_an_item_change_asked_on_another_pending_order_is_a_modification_of_it(tau2):
    words = "I want to return the water bottle. I also want to change the desk lamp to the black one with a halogen bulb."
    # the words naming what changes, without the 'with ...' clause that only tells the order
    assert _asked(words, _seed(), "#W7654321", tau2) == [("#W1234567", _lamp_change(), "I also want to change the desk lamp to the black one  .")]


def test_an_item_change_asked_on_another_delivered_order_is_an_exchange_of_it(tau2):
    seed = _seed()
    seed.state["order"]["#W1234567"].update(status="delivered", delivered_at="2025-12-28T00:00:00Z")
    seed.state["order"]["#W7654321"]["status"] = "pending"
    words = "I want to change the water bottle to a bigger one. I also want to exchange the desk lamp to the black one."
    assert _asked(words, seed, "#W7654321", tau2) == [("#W1234567", _lamp_change(action="exchange"), "I also want to exchange the desk lamp to the black one.")]


def test_a_sentence_telling_nothing_does_not_pass_over_the_next_one(tau2):
    seed = _with_yoga_mat()
    own_return = "I want to return the water bottle. "
    # the kettle is in no order; the yoga mat's order is pending, which the return tool refuses: the lamp's change still counts
    for middle in ("I also want to return the kettle. ", "I also want to return the yoga mat. "):
        assert _asked(own_return + middle + LAMP_ASKED, seed, "#W7654321", tau2) == [("#W1234567", _lamp_change(), LAMP_ASKED)], middle
    # the same order asked twice: the first words stand
    twice = own_return + LAMP_ASKED + " Please change the desk lamp to a brighter one too."
    assert _asked(twice, seed, "#W7654321", tau2) == [("#W1234567", _lamp_change(), LAMP_ASKED)]


def test_a_single_request_beside_words_asking_nothing_stays_the_tasks_own(tau2):
    for words in ("My name is Bob. I want to return the water bottle.", "My name is Bob. I want to change the water bottle to a bigger one."):
        assert _asked(words, _seed(), "#W1234567", tau2) == [], words


def test_what_the_customer_says_they_do_not_want_is_not_required(tau2):
    seed = _seed()
    lamp = "I want to change the desk lamp in order #W1234567 to the black one. "
    assert _asked(lamp + "I also want to return the water bottle. Actually I don't want to return it.", seed, "#W1234567", tau2) == []
    # not wanting a return says nothing of an item change, and the reverse
    no_return = "I don't want to return anything else. I want to change the water bottle to a bigger one. " + LAMP_ASKED
    assert _asked(no_return, seed, "#W7654321", tau2) == [("#W1234567", _lamp_change(), LAMP_ASKED)]
    no_swap = "I want to return the water bottle. " + LAMP_ASKED + " I don't want you to swap anything else."
    assert _asked(no_swap, seed, "#W7654321", tau2) == []


def test_another_customers_order_holding_the_same_item_does_not_count(tau2):
    seed = _seed()
    seed.state["order"]["#W9999999"] = {**seed.state["order"]["#W1234567"], "id": "#W9999999", "customer_id": "c2"}
    assert _asked("I want to return the water bottle. " + LAMP_ASKED, seed, "#W7654321", tau2) == [("#W1234567", _lamp_change(), LAMP_ASKED)]


def test_a_seed_without_orders_asks_nothing(tau2):
    seed = _seed()
    del seed.state["order"]
    assert _asked("I want to return the water bottle. " + LAMP_ASKED + " Cancel order #W1234567.", seed, None, tau2) == []


def test_an_item_change_beside_an_address_change_on_the_own_order_is_decided_for_that_order(tau2):
    words = ("I want to change the shipping address of order #W1234567 to 445 Maple Drive, Suite 394, Fort Worth, Texas, 76165. "
             "I also want to change the desk lamp to the black one with a halogen bulb.")
    assert _asked(words, _seed(), "#W1234567", tau2, {"order_address"}) == [
        ("#W1234567", _lamp_change(), "I also want to change the desk lamp to the black one with a halogen bulb.")]
    # a return of its item asked beside it is no item change
    returned = words.replace("change the desk lamp to the black one with a halogen bulb", "return the desk lamp")
    assert _asked(returned, _seed(), "#W1234567", tau2, {"order_address"}) == []


def _cancel(order_id: str, words: str) -> tuple[str, Decision, str]:
    return order_id, Decision(action="cancel", rule="cancel_allowed", order_id=order_id, customer_id="c1"), words


LAMP_OWN = "I want to change the desk lamp in order #W1234567 to the black one. "


def test_a_cancellation_is_told_by_the_id_count_and_status_the_words_give(tau2):
    seed = _with_yoga_mat()
    for words in ("Finally, I want to cancel order #W5555555 because I ordered by mistake.",
                  "I want to cancel my pending order with 1 item.",  # two orders of one item: the pending one
                  "I want to cancel the Pending order with one item."):  # a status word in any case
        assert _asked(LAMP_OWN + words, seed, "#W1234567", tau2) == [_cancel("#W5555555", words)], words
    # asked twice: the first words stand
    assert _asked(LAMP_OWN + "I want to cancel order #W5555555. Also cancel order #W5555555 now.", seed, "#W1234567", tau2) == [
        _cancel("#W5555555", "I want to cancel order #W5555555.")]
    # two orders named by id: the words cannot tell which
    seed.state["order"]["#W7654321"]["status"] = "pending"
    assert _asked(LAMP_OWN + "I want to cancel order #W5555555 and order #W7654321.", seed, "#W1234567", tau2) == []


def test_an_order_id_without_a_hash_is_told_too(tau2):
    seed = _with_yoga_mat(order_id="X5555555")
    words = "I want to cancel order X5555555."
    assert _asked(LAMP_OWN + words, seed, "#W1234567", tau2) == [_cancel("X5555555", words)]


def test_a_cancellation_the_customer_says_they_do_not_want_is_not_required(tau2):
    words = LAMP_OWN + "I don't want to cancel the whole order. Cancel order #W5555555."
    assert _asked(words, _with_yoga_mat(), "#W1234567", tau2) == []


def test_the_other_orders_return_is_required_in_place_of_being_forbidden(tau2):
    seed, words = _seed(), "I want to change the desk lamp in order #W1234567 to the black one with a halogen bulb. I also want to return the water bottle."
    own = plan_for(decide("exchange", words, seed.state, ACTOR, seed.clock_datetime, tau2, "#W1234567"), seed.state, "c1", "#W1234567", words, tau2)
    assert "return_delivered_order_items" in own.forbidden_tools
    plan, questions = require_other_orders(own, words, seed.state, ACTOR, seed.clock_datetime, "#W1234567", tau2)
    assert plan.required_tools == [*own.required_tools, "return_delivered_order_items"]
    assert plan.forbidden_tools == [tool for tool in own.forbidden_tools if tool != "return_delivered_order_items"]
    assert plan.rubric == own.rubric
    # the order's own checks, then the other order's return with its items and its payment, told by the customer
    assert [item.describe() for item in plan.expectations] == [item.describe() for item in own.expectations] + [
        "order_status(order_id=#W7654321, status=return requested)", "recorded_items(field=return_items, items=222, order_id=#W7654321)",
        "recorded_payment(customer_id=c1, field=return_payment_method_id, order_id=#W7654321, original_or_gift_card=1)",
        "no_refund(order_id=#W7654321)"]
    assert questions == ["The customer also asks, outright, for 'return_label' on order #W7654321 (\"I also want to return the water bottle.\"): "
                         "the task requires it there (return_delivered_order_items), with what it records. Is that the order they mean?"]


def test_an_item_the_tasks_own_order_holds_too_is_left_to_the_task(tau2):
    seed = _seed()
    seed.state["order"]["#W1234567"]["items"].append({"item_id": "112", "name": "Water Bottle"})
    words = "I want to change the desk lamp in order #W1234567 to the black one. I also want to return the water bottle."
    assert _asked(words, seed, "#W1234567", tau2) == []  # its own order's part, or the words cannot tell
