"""Issue #12, fourth cold review of tau2 drafts (20 pairs): the defects it found most often, each as a general rule."""

from __future__ import annotations

from test_catalogue_branch import _plan, _run, _task
from test_product_tools import _seed, tau2  # noqa: F401  (tau2: the fixture)

from taskgen.domains.retail.parts import items_named
from taskgen.seeds import Seed


def _four_things() -> Seed:
    """The customer's delivered order holding four things."""
    seed = _seed()
    seed.state["order"]["#W7654321"]["items"] = [
        {"item_id": "222", "name": "Water Bottle"}, {"item_id": "223", "name": "Coffee Machine"},
        {"item_id": "224", "name": "Backpack"}, {"item_id": "225", "name": "Vacuum Cleaner"}]
    return seed


# ---------------------------------------------------------------- (2) which items the words ask for
def test_everything_except_an_item_names_all_the_others():
    order = _four_things().state["order"]["#W7654321"]
    assert items_named(order, "I want to return everything I just bought except the coffee machine.", "return_label") == ["222", "224", "225"]
    assert items_named(order, "I want to return everything but a vacuum cleaner in that order.", "return_label") == ["222", "223", "224"]
    assert items_named(order, "I want to return the coffee machine.", "return_label") == ["223"]
    order["items"].append({"item_id": "226", "name": "Water Bottle"})  # two of one name: both meant by 'everything'
    assert items_named(order, "I want to return everything I just bought except the coffee machine.", "return_label") == ["222", "224", "225", "226"]


def test_an_item_named_only_to_tell_the_order_is_not_returned():
    order = _four_things().state["order"]["#W7654321"]
    assert items_named(order, "I want to return the backpack I received with the vacuum cleaner.", "return_label") == ["224"]
    assert items_named(order, "I want to return the backpack and the vacuum cleaner.", "return_label") == ["224", "225"]


def test_the_return_check_and_the_reference_agree_on_everything_except(tau2):
    words = "My email is c1@example.com. I want to return everything in order #W7654321 except the coffee machine."
    plan = _plan(tau2, words, _four_things(), intent="return_label")
    described = [item.describe() for item in plan.expectations]
    assert "recorded_items(field=return_items, items=222,224,225, order_id=#W7654321)" in described, described
    reference, _ = _run(tau2, _task(plan, words, intent="return_label"), _four_things())
    assert reference.passed, reference.reasons


# ---------------------------------------------------------------- (3) no refund promised: about the task's own order
def _with_pending_order() -> Seed:
    seed = _seed()
    seed.state["order"]["#W5555555"] = {"id": "#W5555555", "customer_id": "c1", "status": "pending", "total_cents": 3000,
                                        "items": [{"item_id": "333", "name": "Yoga Mat"}], "payment_history": [{"payment_method_id": "cc_1"}]}
    return seed


def _session_plan(policy, prompt: str, seed: Seed, calls: list[tuple[str, dict]], intent: str = "exchange"):
    """The positive of a session whose agent made these calls (the orders it touched are the request's other orders)."""
    from ingest.models import Session, ToolCall, Turn
    from taskgen.classify import Classification
    from taskgen.domains.retail.plans import plan_positive
    from test_product_tools import ACTOR

    session = Session(session_id="s", turns=[Turn(role="user", text=prompt, source="traces")], entity_ids={"customer": ["c1"]},
                      tool_calls=[ToolCall(name=name, arguments=arguments) for name, arguments in calls])
    return plan_positive(session, Classification(intent=intent, outcome="resolved", evidence=[], signature="s"), seed, ACTOR, policy)


CANCEL_CALLS = [("modify_pending_order_items", dict(order_id="#W1234567", item_ids=["111"], new_item_ids=["113"], payment_method_id="gift_card_1")),
                ("cancel_pending_order", {"order_id": "#W5555555", "reason": "ordered by mistake"})]
CANCEL_TOO = ("My email is c1@example.com. I want to change the desk lamp in order #W1234567 to the black one with a halogen bulb. "
              "I also want to cancel my pending order with the yoga mat because I ordered it by mistake.")


def test_a_negative_beside_another_orders_cancellation_forbids_only_a_refund_promise_about_its_own_order(tau2):
    from taskgen.domains.retail.negatives import plan_negative
    from test_product_tools import ACTOR

    positive = _session_plan(tau2, CANCEL_TOO, _with_pending_order(), CANCEL_CALLS)
    negative = plan_negative(CANCEL_TOO, "exchange", _with_pending_order(), ACTOR, positive, tau2)
    assert negative.boundary == "closed"
    promises = [item.describe() for item in negative.expectations if item.check == "reply_promises_no_refund"]
    assert promises == ["reply_promises_no_refund(order_id=#W1234567)"], promises
    task = _task(negative, CANCEL_TOO, "negative").model_copy(update={"forbidden_calls": negative.forbidden_calls})
    seed = _with_pending_order().model_copy(update={"state": negative.state})
    cancel = ("cancel_pending_order", {"order_id": "#W5555555", "reason": "ordered by mistake"})
    right = _run(tau2, task, seed, calls=(cancel, ("send_reply", {"text": "Order #W5555555 is cancelled: your refund of 30.00 has been issued."})))[0]
    assert right.passed, right.reasons
    wrong = _run(tau2, task, seed, calls=(cancel, ("send_reply", {"text": "Your refund for order #W1234567 has been issued."})))[0]
    assert not wrong.passed


def test_a_refusal_with_nothing_else_to_do_still_forbids_any_refund_promise(tau2):
    from taskgen.domains.retail.negatives import plan_negative
    from test_product_tools import ACTOR

    words = "My email is c1@example.com. I want to change the desk lamp in order #W1234567 to the black one with a halogen bulb."
    negative = plan_negative(words, "exchange", _with_pending_order(), ACTOR, _plan(tau2, words, _with_pending_order()), tau2)
    assert [item.describe() for item in negative.expectations if item.check == "reply_promises_no_refund"] == ["reply_promises_no_refund()"]


# ---------------------------------------------------------------- (6) no forbidden tool against a requested change it accepts
def test_the_default_address_change_the_negative_accepts_is_no_forbidden_tool():
    """'change my wrong order address to the new home, and also my user default address' (the Mary Guzman pair): the
    negative crossing on the order (on its way) accepted the default address changed as the positive does, yet forbade
    the one tool that changes it, so a correct agent doing the rest of the request failed it."""
    from retail_fixtures import make_state
    from taskgen.domains import Plan
    from taskgen.domains.retail.grader import allow, expect
    from taskgen.domains.retail.negatives import rest_of_request
    from taskgen.domains.retail.policy import RetailPolicy

    state, policy = make_state(), RetailPolicy.from_yaml()
    old, new = state["customer"]["cus_1001"]["address"], "565 Maple Drive, Washington, DC 20307"
    tool = policy.tool_name("update_address", "update_address")
    positive = Plan(expectations=[expect("address_equals", customer_id="cus_1001", address=new)], required_tools=[tool],
                    forbidden_tools=[name for name in policy.write_tool_names if name != tool],
                    may_change=[allow("order", "#W1000002", "shipping_address")])
    negative = Plan(expectations=[expect("reply_refuses"), expect("address_equals", customer_id="cus_1001", address=old),
                                  expect("order_status", order_id="#W1000002", status="shipped")], forbidden_tools=list(policy.write_tool_names))
    judged = rest_of_request(negative, positive, "#W1000002", state, policy)
    assert tool not in judged.forbidden_tools
    assert set(judged.forbidden_tools) == set(policy.write_tool_names) - {tool}
    # where the positive forbids it too (the address is not part of the request), it stays forbidden
    unasked = positive.model_copy(update={"required_tools": [], "forbidden_tools": list(policy.write_tool_names)})
    assert tool in rest_of_request(negative, unasked, "#W1000002", state, policy).forbidden_tools


# ---------------------------------------------------------------- (1) a cancellation asked outright of another order
def test_a_cancellation_asked_outright_of_another_order_is_required_with_its_reason(tau2):
    from taskgen.domains.retail.other_orders import asked_on_other_orders
    from test_product_tools import ACTOR

    positive = _session_plan(tau2, CANCEL_TOO, _with_pending_order(), CANCEL_CALLS)
    assert set(positive.required_tools) == {"modify_pending_order_items", "cancel_pending_order"}
    described = [item.describe() for item in positive.expectations]
    for check in ("order_status(order_id=#W5555555, status=cancelled)", "cancel_reason(order_id=#W5555555, reason=ordered by mistake)",
                  "refund_exists(amount_cents=3000, order_id=#W5555555)"):
        assert check in described, described
    task = _task(positive, CANCEL_TOO)
    reference, _ = _run(tau2, task, _with_pending_order())
    assert reference.passed, reference.reasons
    assert not _run(tau2, task, _with_pending_order(), agent="", calls=CANCEL_CALLS[:1])[0].passed  # the cancellation left undone
    seed, clock = _with_pending_order(), _with_pending_order().clock_datetime
    told = lambda words: [order for order, _, _ in asked_on_other_orders(words, seed.state, ACTOR, clock, "#W1234567", tau2)]  # noqa: E731
    lamp = "I want to change the desk lamp in order #W1234567 to the black one. "
    assert told(lamp + "Finally, I want to cancel order #W5555555 because I ordered by mistake.") == ["#W5555555"]  # by its id
    assert told(lamp + "I also have a pending order with one item, and I want to cancel it because I no longer need it.") == ["#W5555555"]
    assert told(lamp + "Lastly, I want to cancel the yoga mat in my other order.") == []  # an item, not the order: cancelled whole or not
    assert told(lamp + "If it is too dear, cancel order #W5555555.") == []  # under a condition
    delivered = _with_pending_order()
    delivered.state["order"]["#W5555555"]["status"] = "delivered"  # the policy refuses it: a correct agent says so
    assert [order for order, _, _ in asked_on_other_orders(lamp + "I want to cancel order #W5555555.", delivered.state, ACTOR, clock,
                                                           "#W1234567", tau2)] == []


def test_the_negative_requires_the_other_orders_cancellation_too_and_the_reference_passes_it(tau2):
    from taskgen.domains.retail.negatives import plan_negative
    from test_product_tools import ACTOR

    positive = _session_plan(tau2, CANCEL_TOO, _with_pending_order(), CANCEL_CALLS)
    negative = plan_negative(CANCEL_TOO, "exchange", _with_pending_order(), ACTOR, positive, tau2)
    assert negative.boundary == "closed" and "cancel_pending_order" in negative.required_tools
    assert "order_status(order_id=#W5555555, status=cancelled)" in [item.describe() for item in negative.expectations]
    task = _task(negative, CANCEL_TOO, "negative").model_copy(update={"forbidden_calls": negative.forbidden_calls})
    reference, _ = _run(tau2, task, _with_pending_order().model_copy(update={"state": negative.state}))
    assert reference.passed, reference.reasons


# ---------------------------------------------------------------- (1) an item change beside an address change, on the same order
ADDRESS_AND_LAMP = ("My email is c1@example.com. I want to change the shipping address of order #W1234567 to 445 Maple Drive, Suite 394, "
                    "Fort Worth, Texas, 76165. I also want to change the desk lamp to the black one with a halogen bulb.")


def test_an_item_change_asked_beside_an_address_change_on_the_same_order_is_required(tau2):
    from test_product_tools import ACTOR

    positive = _plan(tau2, ADDRESS_AND_LAMP, intent="address_change")
    assert {"modify_pending_order_address", "modify_pending_order_items"} <= set(positive.required_tools), positive.required_tools
    described = [item.describe() for item in positive.expectations]
    assert "items_replaced(items=111, new_items=113, order_id=#W1234567)" in described, described
    assert "order_status(order_id=#W1234567, status=pending (item modified))" in described
    assert any(item.startswith("order_address_equals(") for item in described)  # the task's own write still checked
    task = _task(positive, ADDRESS_AND_LAMP, intent="address_change")
    reference, _ = _run(tau2, task, _seed())
    assert reference.passed, reference.reasons
    address = ("modify_pending_order_address", dict(order_id="#W1234567", address1="445 Maple Drive", address2="Suite 394",
                                                    city="Fort Worth", state="Texas", country="USA", zip="76165"))
    assert not _run(tau2, task, _seed(), agent="", calls=(address, ("send_reply", {"text": "Done."})))[0].passed  # the lamp left as it was
    # a task whose own request is the item change, or an address change alone, requires nothing more
    assert "modify_pending_order_items" not in _plan(tau2, ADDRESS_AND_LAMP.split(" I also")[0], intent="address_change").required_tools


def test_the_negative_on_its_way_requires_no_item_change_of_that_order(tau2):
    from taskgen.domains.retail.negatives import plan_negative
    from test_product_tools import ACTOR

    positive = _plan(tau2, ADDRESS_AND_LAMP, intent="address_change")
    negative = plan_negative(ADDRESS_AND_LAMP, "address_change", _seed(), ACTOR, positive, tau2)
    assert negative.boundary == "order_in_transit" and "modify_pending_order_items" not in negative.required_tools
    task = _task(negative, ADDRESS_AND_LAMP, "negative", intent="address_change").model_copy(update={"forbidden_calls": negative.forbidden_calls})
    reference, _ = _run(tau2, task, _seed().model_copy(update={"state": negative.state}))
    assert reference.passed, reference.reasons


# ---------------------------------------------------------------- (1) the orders' own address asked beside the account's
def _tau2_policy():
    from pathlib import Path

    import yaml

    from taskgen.domains.retail.policy import DEFAULT_POLICY_PATH, RetailPolicy

    document = yaml.safe_load(DEFAULT_POLICY_PATH.read_text(encoding="utf-8"))
    document["tools"] = yaml.safe_load((Path(__file__).resolve().parents[2] / "docs" / "examples" / "tau2-retail.tools.yaml").read_text(encoding="utf-8"))
    return RetailPolicy.model_validate(document)


def test_the_orders_address_asked_with_the_accounts_is_required_where_the_words_tell_which_orders():
    from retail_fixtures import make_state
    from taskgen.domains.retail.plans import plan_for
    from taskgen.domains.retail.rules import Decision

    policy, state, new = _tau2_policy(), make_state(), "565 Maple Drive, Washington, DC 20307"
    state["order"]["#W1000002"]["status"] = "pending"
    state["order"]["#W1000009"] = {**state["order"]["#W1000002"], "id": "#W1000009", "shipping_address": new}  # already there
    decision = Decision(action="update_address", rule="address_change_allowed", customer_id="cus_1001", address=new)
    one = "I want to change my wrong order address to the new home, and also my user default address to the new home."
    plan = plan_for(decision, state, "cus_1001", prompt=one, policy=policy)
    assert plan.required_tools == ["modify_user_address", "modify_pending_order_address"]
    assert f"order_address_equals(address={new}, order_id=#W1000002)" in [item.describe() for item in plan.expectations]
    assert [allowance.describe() for allowance in plan.may_change] == ["order #W1000009: shipping_address"]
    # two orders still elsewhere and the words speak of one: which one is the customer's to say, so neither is required
    state["order"]["#W1000009"]["shipping_address"] = "1 Elsewhere Rd, Austin, TX 78701"
    plan = plan_for(decision, state, "cus_1001", prompt=one, policy=policy)
    assert plan.required_tools == ["modify_user_address"] and len(plan.may_change) == 2
    # 'all my pending orders': every one still elsewhere
    every = "I want to modify all my pending order address to the Washington address, along with my user default address."
    plan = plan_for(decision, state, "cus_1001", prompt=every, policy=policy)
    assert plan.required_tools == ["modify_user_address", "modify_pending_order_address"] and plan.may_change == []
    assert {item.args.get("order_id") for item in plan.expectations if item.check == "order_address_equals"} == {"#W1000002", "#W1000009"}


def test_the_reference_changes_the_order_address_the_task_requires_beside_the_accounts(tau2):
    words = ("My email is c1@example.com. I want to change my wrong order address and also my user default address to "
             "445 Maple Drive, Suite 394, Fort Worth, Texas, 76165.")
    plan = _plan(tau2, words, intent="address_change")
    assert {"modify_user_address", "modify_pending_order_address"} <= set(plan.required_tools), plan.required_tools
    task = _task(plan, words, intent="address_change")
    reference, _ = _run(tau2, task, _seed())
    assert reference.passed, reference.reasons
    account = ("modify_user_address", dict(user_id="c1", address1="445 Maple Drive", address2="Suite 394", city="Fort Worth", state="Texas",
                                           country="USA", zip="76165"))
    assert not _run(tau2, task, _seed(), agent="", calls=(account, ("send_reply", {"text": "Done."})))[0].passed  # the order left at the old address
