"""Issue #12: conditions only the product catalogue decides ("change the lamp to red; if it is not available, cancel the
whole order"). Where the seed holds the catalogue, the drafter requires the branch the seed makes true (the new variant
pinned), the reference agent reads the catalogue through get_product_details and takes the same branch, and the
negative's seed flips the condition so the positive's behaviour fails it: no 'write by hand' stub."""

from __future__ import annotations

import copy

from test_product_tools import ACTOR, _seed, tau2  # noqa: F401  (tau2: the fixture)

from ingest.models import Session, Turn
from retail_fixtures import run_and_grade
from taskgen.classify import Classification
from taskgen.domains.retail import RetailDomain
from taskgen.domains.retail.catalogue_branch import BOUNDARY, decide_branch
from taskgen.domains.retail.environment import RetailEnvironment
from taskgen.domains.retail.grader import expect, holds
from taskgen.domains.retail.negatives import plan_negative
from taskgen.domains.retail.policy import RetailPolicy
from taskgen.domains.retail.plans import plan_positive
from taskgen.domains.retail.reference_catalogue import wanted_variant
from taskgen.seeds import Seed
from taskgen.task import Budget, DraftTask, TaskProvenance

UNAVAILABLE = "Please change the desk lamp in order #W1234567 to red. If it is not available, cancel the whole order, I ordered it by mistake."
AVAILABLE = "Please change the desk lamp in order #W1234567 to black halogen. If it is not available, cancel the whole order, I ordered it by mistake."
OVER = ("Please change the desk lamp in order #W1234567 to black halogen. If it is not available, cancel the order because I no longer need it. "
        "If the price is more than 60 dollars, cancel the order with the reason of ordered by mistake.")
CHANGE, CANCEL = "modify_pending_order_items", "cancel_pending_order"


def _plan(policy, prompt: str, seed: Seed | None = None, intent: str = "exchange"):
    session = Session(session_id="s", turns=[Turn(role="user", text=prompt, source="traces")], entity_ids={"customer": ["c1"]})
    return plan_positive(session, Classification(intent=intent, outcome="resolved", evidence=[], signature="s"), seed or _seed(), ACTOR, policy)


def _task(plan, prompt: str, polarity: str = "positive", intent: str = "exchange") -> DraftTask:
    return DraftTask(
        task_id=f"t-{polarity[:3]}", pair_id="t", set="capability", split="dev", polarity=polarity, intent=intent, outcome="resolved",
        prompt=prompt, actor=ACTOR, clock="2026-01-01T00:00:00Z", seed_id="seed-tools", domain="retail", expectations=plan.expectations,
        required_tools=plan.required_tools, forbidden_tools=plan.forbidden_tools, may_change=plan.may_change,
        budget=Budget(turns=20, tokens=20000, latency_ms=60000), provenance=TaskProvenance(session_ids=["s"]))


def _run(policy, task: DraftTask, seed: Seed, agent: str = "reference", calls: tuple = ()):
    return run_and_grade(policy, task, seed, agent, calls)


def _modify(new: str) -> tuple:
    return ((CHANGE, dict(order_id="#W1234567", item_ids=["111"], new_item_ids=[new], payment_method_id="gift_card_1")), ("send_reply", {"text": "Done."}))


CANCELLED = ((CANCEL, {"order_id": "#W1234567", "reason": "ordered by mistake"}), ("send_reply", {"text": "Cancelled."}))


def test_an_unavailable_variant_makes_the_fallback_required_and_the_change_forbidden(tau2):
    plan = _plan(tau2, UNAVAILABLE)
    assert plan.required_tools == [CANCEL] and CHANGE in plan.forbidden_tools
    assert not any("cannot decide" in question for question in plan.review_questions)
    assert any("catalogue decides" in question and "114" in question for question in plan.review_questions)
    task = _task(plan, UNAVAILABLE)
    assert _run(tau2, task, _seed())[0].passed, _run(tau2, task, _seed())[0].reasons
    assert _run(tau2, task, _seed(), "", CANCELLED)[0].passed
    assert not _run(tau2, task, _seed(), "", _modify("112"))[0].passed  # a change to another lamp: the customer asked for red only
    assert not _run(tau2, task, _seed(), "reply_only")[0].passed


def test_an_available_variant_makes_the_change_required_with_the_variant_pinned(tau2):
    plan = _plan(tau2, AVAILABLE)
    assert plan.required_tools == [CHANGE] and CANCEL in plan.forbidden_tools
    replaced = next(item for item in plan.expectations if item.check == "items_replaced")
    assert replaced.args["new_items"] == "113"
    task = _task(plan, AVAILABLE)
    assert _run(tau2, task, _seed())[0].passed, _run(tau2, task, _seed())[0].reasons
    assert _run(tau2, task, _seed(), "", _modify("113"))[0].passed
    assert not _run(tau2, task, _seed(), "", _modify("112"))[0].passed  # the black LED lamp is not the one asked for
    assert not _run(tau2, task, _seed(), "", CANCELLED)[0].passed


def test_a_price_over_the_customers_limit_takes_that_branch_with_its_reason(tau2):
    plan = _plan(tau2, OVER)  # the black halogen lamp costs 61.50
    assert plan.required_tools == [CANCEL]
    assert any(item.check == "cancel_reason" and item.args["reason"] == "ordered by mistake" for item in plan.expectations)
    task = _task(plan, OVER)
    assert _run(tau2, task, _seed())[0].passed, _run(tau2, task, _seed())[0].reasons
    wrong_reason = ((CANCEL, {"order_id": "#W1234567", "reason": "no longer needed"}), ("send_reply", {"text": "Cancelled."}))
    assert not _run(tau2, task, _seed(), "", wrong_reason)[0].passed
    cheaper = _seed().model_copy(update={"state": copy.deepcopy(_seed().state)})
    cheaper.state["product"]["p-lamp"]["variants"]["113"]["price"] = 59.0
    assert decide_branch(OVER, RetailDomain(tau2).environment(cheaper).state, "#W1234567", "modify_items").action == "modify_items"


def test_without_the_catalogue_or_a_variant_the_words_tell_nothing_is_decided(tau2):
    bare = _seed()
    bare.state.pop("product")
    state = RetailDomain(tau2).environment(bare).state
    assert decide_branch(UNAVAILABLE, state, "#W1234567", "modify_items") is None
    vague = "Please change the desk lamp in order #W1234567 to the other color. If it is not available, cancel the whole order."
    assert decide_branch(vague, RetailDomain(tau2).environment(_seed()).state, "#W1234567", "modify_items") is None
    issues = "Please change the desk lamp in order #W1234567 to red. If there are any issues, cancel the whole order."
    assert decide_branch(issues, RetailDomain(tau2).environment(_seed()).state, "#W1234567", "modify_items") is None


def test_the_negative_flips_the_condition_in_its_seed_and_the_pair_discriminates(tau2):
    positive = _plan(tau2, UNAVAILABLE)
    negative = plan_negative(UNAVAILABLE, "exchange", _seed(), ACTOR, positive, tau2)
    assert negative.boundary == BOUNDARY and negative.expectations
    assert negative.state["product"]["p-lamp"]["variants"]["114"]["available"] is True
    assert negative.required_tools == [CHANGE] and CANCEL in negative.forbidden_tools
    negative_seed = _seed().model_copy(update={"state": negative.state})
    positive_task, negative_task = _task(positive, UNAVAILABLE), _task(negative, UNAVAILABLE, "negative")
    verdict, positive_run = _run(tau2, positive_task, _seed())
    assert verdict.passed
    assert _run(tau2, negative_task, negative_seed)[0].passed, _run(tau2, negative_task, negative_seed)[0].reasons
    replayed = tuple((call.name, call.arguments) for call in positive_run.calls)
    assert not _run(tau2, negative_task, negative_seed, "", replayed)[0].passed  # the positive's behaviour fails the negative
    assert not _run(tau2, positive_task, _seed(), "", _modify("114"))[0].passed  # and the negative's the positive


def test_the_price_limit_is_flipped_where_availability_alone_keeps_the_same_write(tau2):
    positive = _plan(tau2, OVER)
    negative = plan_negative(OVER, "exchange", _seed(), ACTOR, positive, tau2)
    assert negative.boundary == BOUNDARY and negative.required_tools == [CHANGE]
    variant = negative.state["product"]["p-lamp"]["variants"]["113"]
    assert variant["available"] is True and variant["price"] <= 60


def test_exchange_variants_pins_the_new_items_where_the_check_names_them():
    order = {"items": [{"item_id": "111", "product_id": "p1"}], "exchange_items": ["111"], "exchange_new_items": ["112"]}
    catalogue = {"p1": {"product_id": "p1", "variants": {"111": {}, "112": {}, "113": {}}}}
    pinned = expect("exchange_variants", order_id="o1", field="exchange_items", new_field="exchange_new_items", new_items="113")
    assert not holds(pinned, {"order": {"o1": order}, "product": catalogue})
    assert holds(pinned, {"order": {"o1": {**order, "exchange_new_items": ["113"]}}, "product": catalogue})


def test_a_refund_of_a_pinned_changes_price_difference_is_no_validation_issue(tau2):
    plan = _plan(tau2, "Please change the desk lamp in order #W1234567 to the black LED one.")
    assert any(item.check == "refund_exists" and item.args["amount_cents"] == 500 for item in plan.expectations)
    issues = RetailDomain(tau2).check_task(_task(plan, "x"), _seed())
    assert not [issue for issue in issues if issue.code == "refund_amount_mismatch"]


def test_the_environment_answers_product_reads_from_the_seeds_catalogue(tau2):
    env = RetailEnvironment(_seed(), tau2.tools)
    assert "get_product_details" in env.tools and env.call("get_product_details", product_id="p-lamp")["variants"]["114"]["available"] is False
    assert env.call("list_all_product_types") == {"Desk Lamp": "p-lamp"}
    # offered to every agent (the exports list the domain's tools) where the product's tools change items; none to the demo's
    assert {"get_product_details", "list_all_product_types"} <= set(RetailDomain(tau2).tools)
    assert "get_product_details" not in RetailDomain(RetailPolicy.from_yaml()).tools
    bare = _seed()
    bare.state.pop("product")
    assert RetailEnvironment(bare, tau2.tools).call("get_product_details", product_id="p-lamp") is None  # no catalogue: not found
    demo = RetailEnvironment(_seed(), RetailPolicy.from_yaml().tools)
    assert "get_product_details" in demo.tools  # a seed holding the catalogue offers its reads to any product


def test_the_reference_reads_the_variant_option_by_option():
    product = {"variants": {"1": {"options": {"size": "M", "height": "5 ft", "color": "white"}},
                            "2": {"options": {"size": "M", "height": "4 ft", "color": "white"}},
                            "3": {"options": {"size": "S", "height": "4 ft", "color": "black"}}}}
    item = {"item_id": "1", "options": {"size": "M", "height": "5 ft", "color": "white"}}
    assert wanted_variant(item, product, "I'm after the 4 foot one with the same color") == "2"
    assert wanted_variant(item, product, "the 4 ft one in black, size S") == "3"
    assert wanted_variant(item, product, "something else") is None


CHEAPEST = ("What is the cheapest desk lamp and its options? If it is less than 44 dollars I want to exchange my desk lamp in order "
            "#W1234567 to it. If not, cancel the order, I ordered it by mistake.")


def test_what_the_customer_asks_to_be_told_of_the_variant_is_checked_in_the_reply(tau2):
    """tau2-bench's communicate_info: the cheapest available lamp (112, 45.00: the red one is unavailable) and its options."""
    plan = _plan(tau2, CHEAPEST)
    assert plan.required_tools == [CANCEL]  # 45.00 is not under 44
    told = {item.describe() for item in plan.expectations if item.check in ("reply_states_amount", "reply_contains")}
    assert told == {"reply_states_amount(amount_cents=4500)", "reply_contains(value=black)", "reply_contains(value=LED)"}
    task = _task(plan, CHEAPEST)
    assert _run(tau2, task, _seed())[0].passed, _run(tau2, task, _seed())[0].reasons
    assert not _run(tau2, task, _seed(), "", CANCELLED)[0].passed  # cancelled, but the customer was not told the price
    negative = plan_negative(CHEAPEST, "exchange", _seed(), ACTOR, plan, tau2)
    assert negative.boundary == BOUNDARY and negative.required_tools == [CHANGE]
    amounts = [item.args["amount_cents"] for item in negative.expectations if item.check == "reply_states_amount"]
    assert amounts == [round(negative.state["product"]["p-lamp"]["variants"]["112"]["price"] * 100)] and amounts != [4500]
    negative_seed = _seed().model_copy(update={"state": negative.state})
    negative_task = _task(negative, CHEAPEST, "negative")
    assert _run(tau2, negative_task, negative_seed)[0].passed, _run(tau2, negative_task, negative_seed)[0].reasons


def test_a_cancellation_asked_under_the_catalogues_condition_is_followed_by_the_reference_too(tau2):
    """Filed as a cancellation ("if it is available but the price is more than 70, cancel"): under the limit, the item
    change is the answer, and the reference agent, reading the catalogue, makes it rather than cancelling."""
    prompt = ("I want to know if the desk lamp in order #W1234567 is halogen. If not, modify it to black halogen. If black halogen is "
              "not available, cancel the order because I no longer need it. If it is available but the price is more than 70, "
              "cancel the order with the reason of ordered by mistake.")
    plan = _plan(tau2, prompt, intent="cancellation")
    assert plan.required_tools == [CHANGE] and CANCEL in plan.forbidden_tools
    task = _task(plan, prompt, intent="cancellation")
    verdict, env = _run(tau2, task, _seed())
    assert verdict.passed, verdict.reasons
    assert [call.name for call in env.calls if call.name == "get_product_details"]  # read through the backend


def test_the_reference_keeps_the_options_the_words_do_not_change(tau2):
    """'to red': the red shirt in the customer's own size L, not the red one in size S (whose 's' any word holds)."""
    seed = _seed().model_copy(update={"state": copy.deepcopy(_seed().state)})
    seed.state["order"]["#W1234567"]["items"] = [{"item_id": "701", "name": "T-Shirt", "product_id": "p-shirt", "price": 20.0,
                                                  "options": {"size": "L", "color": "black"}}]
    seed.state["product"]["p-shirt"] = {"product_id": "p-shirt", "name": "T-Shirt", "variants": {
        "701": {"item_id": "701", "options": {"size": "L", "color": "black"}, "available": True, "price": 20.0},
        "702": {"item_id": "702", "options": {"size": "S", "color": "red"}, "available": True, "price": 20.0},
        "703": {"item_id": "703", "options": {"size": "L", "color": "red"}, "available": True, "price": 20.0}}}
    prompt = "I want to exchange my T-Shirt in order #W1234567 to red."
    plan = _plan(tau2, prompt, seed)
    assert next(item for item in plan.expectations if item.check == "items_replaced").args["new_items"] == "703"
    verdict, env = _run(tau2, _task(plan, prompt), seed)
    assert verdict.passed, verdict.reasons


def test_an_exchange_of_a_delivered_order_pins_the_variant_the_catalogue_tells(tau2):
    seed = _seed().model_copy(update={"state": copy.deepcopy(_seed().state)})
    seed.state["order"]["#W7654321"]["items"] = [{"item_id": "111", "name": "Desk Lamp", "product_id": "p-lamp", "price": 50.0,
                                                  "options": {"color": "white", "bulb": "LED"}}]
    prompt = "I want to exchange the desk lamp in order #W7654321 for the black halogen one."
    plan = _plan(tau2, prompt, seed)
    pinned = next(item for item in plan.expectations if item.check == "exchange_variants")
    assert pinned.args["new_items"] == "113"
    task = _task(plan, prompt)
    assert _run(tau2, task, seed)[0].passed, _run(tau2, task, seed)[0].reasons
    other = (("exchange_delivered_order_items", dict(order_id="#W7654321", item_ids=["111"], new_item_ids=["112"], payment_method_id="cc_1")),
             ("send_reply", {"text": "Exchange requested."}))
    assert not _run(tau2, task, seed, "", other)[0].passed  # the black LED lamp is not the one asked for


def test_the_reference_reads_in_the_same_order_as_no_option_kept():
    """tau2 task 107's words: "return the skateboard in the same order to get a new one with features {'length': '34 inch',
    'design': 'custom'}": 'the same order' keeps no option, so the length changes too."""
    from taskgen.domains.retail.reference_catalogue import wanted_variant

    item = {"item_id": "5312063289", "options": {"deck material": "bamboo", "length": "31 inch", "design": "graphic"}}
    product = {"variants": {
        "5312063289": {"options": {"deck material": "bamboo", "length": "31 inch", "design": "graphic"}},
        "6313971174": {"options": {"deck material": "bamboo", "length": "31 inch", "design": "custom"}},
        "6956751343": {"options": {"deck material": "bamboo", "length": "34 inch", "design": "custom"}},
        "9594745976": {"options": {"deck material": "plastic", "length": "34 inch", "design": "custom"}},
    }}
    words = "return I skateboard in the same order to get a new one with features {'length': '34 inch', 'design': 'custom'}"
    assert wanted_variant(item, product, words) == "6956751343"
    assert wanted_variant(item, product, "a custom design, the same length") == "6313971174"  # 'same' still keeps
