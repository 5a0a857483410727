"""The product's write tools, declared in the policy file (`tools:`), not in code: the environment simulates
the declaration (refusing an order outside the statuses a tool requires, writing what it writes), the drafter
requires and forbids the declared names and checks the fields an address or item change writes, and the
reference agent calls them. tau2-bench's declaration is checked against its own tools.py."""

from __future__ import annotations

import ast
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from retail_fixtures import run_and_grade
from taskgen.domains.retail import RetailDomain
from taskgen.domains.retail.environment import WRITE_TOOLS
from taskgen.domains.retail.grader import grade
from taskgen.domains.retail.plans import plan_for, tool_action
from taskgen.domains.retail.policy import DEFAULT_POLICY_PATH, RetailPolicy
from taskgen.domains.retail.rules import decide
from taskgen.seeds import Seed
from taskgen.task import AgentView, Budget, DraftTask, TaskProvenance

ROOT = Path(__file__).resolve().parents[2]
TAU2_TOOLS = ROOT / "docs" / "examples" / "tau2-retail.tools.yaml"
TAU2 = ROOT.parent / "shared" / "data" / "tau2-bench-retail"
CLOCK = datetime(2026, 1, 1, tzinfo=UTC)
ACTOR = {"customer_id": "c1"}
NEW_ADDRESS = "445 Maple Drive, Suite 394, Fort Worth, Texas, 76165"


def _policy(tools: list[dict] | None) -> RetailPolicy:
    document = yaml.safe_load(DEFAULT_POLICY_PATH.read_text(encoding="utf-8"))
    document.update(refundable_statuses=["delivered"], returnable_statuses=["delivered"], cancellable_statuses=["pending"],
                    address_change={"who": "account_owner", "escalate_when_order_status_in": ["processed"]})
    if tools is not None:
        document["tools"] = tools
    return RetailPolicy.model_validate(document)


@pytest.fixture(scope="module")
def tau2() -> RetailPolicy:
    return _policy(yaml.safe_load(TAU2_TOOLS.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def demo() -> RetailPolicy:
    return _policy(None)


LAMPS = {"product_id": "p-lamp", "name": "Desk Lamp", "variants": {
    "111": {"item_id": "111", "options": {"color": "white", "bulb": "LED"}, "available": True, "price": 50.0},
    "112": {"item_id": "112", "options": {"color": "black", "bulb": "LED"}, "available": True, "price": 45.0},
    "113": {"item_id": "113", "options": {"color": "black", "bulb": "halogen"}, "available": True, "price": 61.5},
    "114": {"item_id": "114", "options": {"color": "red", "bulb": "LED"}, "available": False, "price": 40.0}}}
"""The seed's catalogue of the pending order's lamp (tau2-bench's products: variants by item id, price in dollars)."""


def _seed() -> Seed:
    orders = {
        "#W1234567": {"customer_id": "c1", "status": "pending", "total_cents": 5000, "shipping_address": "1 Old Rd, Austin, TX 78701",
                      "items": [{"item_id": "111", "name": "Desk Lamp", "product_id": "p-lamp", "price": 50.0, "options": {"color": "white", "bulb": "LED"}}],
                      "payment_history": [{"payment_method_id": "gift_card_1"}]},
        "#W7654321": {"customer_id": "c1", "status": "delivered", "total_cents": 7000, "delivered_at": "2025-12-28T00:00:00Z",
                      "items": [{"item_id": "222", "name": "Water Bottle"}], "payment_history": [{"payment_method_id": "cc_1"}]},
    }
    methods = {"gift_card_1": {"id": "gift_card_1", "source": "gift_card"}, "cc_1": {"id": "cc_1", "source": "credit_card"}}
    state = {"customer": {"c1": {"id": "c1", "address": "1 Old Rd, Austin, TX 78701", "payment_methods": methods}},
             "order": {key: {"id": key, **row} for key, row in orders.items()},
             "order_item": {}, "payment": {}, "refund": {}, "return_label": {}, "product": {"p-lamp": LAMPS}}
    return Seed(seed_id="seed-tools", clock="2026-01-01T00:00:00Z", domain="retail", state=state)


def _task(policy: RetailPolicy, intent: str, prompt: str, order_id: str | None) -> tuple[DraftTask, str]:
    domain = RetailDomain(policy)
    state = domain.environment(_seed()).state
    decision = decide(intent, prompt, state, ACTOR, CLOCK, policy, order_id)
    plan = plan_for(decision, state, "c1", order_id, prompt, policy)
    task = DraftTask(
        task_id="t-pos", pair_id="t", set="capability", split="dev", polarity="positive", intent=intent, outcome="resolved", prompt=prompt, actor=ACTOR,
        clock="2026-01-01T00:00:00Z", seed_id="seed-tools", domain="retail", expectations=plan.expectations,
        required_tools=plan.required_tools, forbidden_tools=plan.forbidden_tools, may_change=plan.may_change,
        budget=Budget(turns=20, tokens=20000, latency_ms=60000),
        provenance=TaskProvenance(session_ids=["s"]),
    )
    return task, decision.action


def _run(policy: RetailPolicy, task: DraftTask, agent: str = "reference", calls: tuple = ()):
    return run_and_grade(policy, task, _seed(), agent, calls)


# ---------------------------------------------------------------- the declaration
def test_the_shipped_policy_declares_the_demos_tools():
    policy = RetailPolicy.from_yaml()
    assert tuple(policy.write_tool_names) == WRITE_TOOLS and policy.escalation_tool == "escalate_to_human"
    assert "tools:" in DEFAULT_POLICY_PATH.read_text(encoding="utf-8")  # in the configuration, not only a code default


def test_a_tool_declared_twice_is_refused():
    document = yaml.safe_load(DEFAULT_POLICY_PATH.read_text(encoding="utf-8"))
    document["tools"] = [*document["tools"], document["tools"][0]]
    with pytest.raises(ValueError, match="declared twice"):
        RetailPolicy.model_validate(document)


def _tau2_source_tools() -> dict[str, ast.FunctionDef]:
    tree = ast.parse((TAU2 / "tools.py").read_text(encoding="utf-8"))
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            kinds = [ast.unparse(decorator) for decorator in node.decorator_list]
            if any("is_tool" in kind for kind in kinds):
                found[node.name] = (node, kinds)
    return found


@pytest.mark.skipif(not (TAU2 / "tools.py").is_file(), reason="../shared/data/tau2-bench-retail is absent: tau2-bench's tools.py cannot be read")
def test_the_tau2_declaration_matches_tau2_benchs_own_tools():
    """Every write tool of tools.py is declared, with its arguments, the statuses it checks, the status and fields it writes."""
    declared = {tool["name"]: tool for tool in yaml.safe_load(TAU2_TOOLS.read_text(encoding="utf-8"))}
    source = _tau2_source_tools()
    writes = {name for name, (_, kinds) in source.items() if any("WRITE" in kind for kind in kinds)}
    assert writes and writes <= set(declared), sorted(writes - set(declared))
    assert set(declared) - writes == {"transfer_to_human_agents"} and declared["transfer_to_human_agents"]["action"] == "escalate"
    assert "transfer_to_human_agents" in source
    db = json.loads((TAU2 / "db.json").read_text(encoding="utf-8"))
    set_statuses = set()
    for name, (node, _) in source.items():
        text = ast.unparse(node)
        set_statuses |= {value for value in __import__("re").findall(r"order\.status = '([^']+)'", text)}
    known = {order["status"] for order in db["orders"].values()} | set_statuses
    import re

    for name in sorted(writes):
        node, _ = source[name]
        text, tool = ast.unparse(node), declared[name]
        assert [arg.arg for arg in node.args.args if arg.arg != "self"] == tool["arguments"], name
        required = set(re.findall(r"order\.status != '([^']+)'", text))
        if "_is_pending_order(order)" in text:
            required |= {status for status in known if "pending" in status}
        assert set(tool.get("requires_status", [])) == required, (name, sorted(required))
        written = re.findall(r"order\.status = '([^']+)'", text)
        assert tool.get("sets_status") == (written[0] if written else None), name
        arguments = tool["arguments"]
        recorded = {field: next(argument for argument in arguments if re.search(rf"\b{argument}\b", value))
                    for field, value in re.findall(r"order\.(\w+) = (.*)", text)
                    if field not in ("status", "address", "cancel_reason") and any(re.search(rf"\b{a}\b", value) for a in arguments)}
        assert tool.get("records", {}) == recorded, name  # a field it computes (a price difference) is not a record of an argument
        assert ("order.address = " in text) == (tool["action"] == "order_address"), name
        assert ("user.address = " in text) == (tool["action"] == "update_address"), name
        assert ("order.cancel_reason = reason" in text) == (tool.get("reason_field") == "cancel_reason"), name
        assert ("transaction_type='refund'" in text and tool["action"] == "cancel") == bool(tool.get("refunds")), name
        assert ("item.item_id = new_item_id" in text) == bool(tool.get("rewrites_items")), name  # the order's items rewritten
        assert ("payment_history.append" in text and "diff_price" in text) == bool(tool.get("settles_difference")), name
        for role in ("order_arg", "customer_arg", "items_arg", "new_items_arg", "payment_arg", "reason_arg"):
            assert tool.get(role) is None or tool[role] in tool["arguments"], (name, role)


# ---------------------------------------------------------------- the environment simulates the declaration
def test_a_call_on_an_order_outside_the_tools_statuses_is_refused_and_changes_nothing(tau2):
    env = RetailDomain(tau2).environment(_seed())
    before = json.dumps(env.state, sort_keys=True)
    fields = dict(address1="9 New St", address2="", city="Dallas", state="TX", country="USA", zip="75001")
    assert env.call("modify_pending_order_address", order_id="#W7654321", **fields) is None  # delivered, not pending
    assert env.call("exchange_delivered_order_items", order_id="#W1234567", item_ids=["111"], new_item_ids=["112"],
                    payment_method_id="gift_card_1") is None  # pending, not delivered
    assert [call.status for call in env.calls] == ["error", "error"] and json.dumps(env.state, sort_keys=True) == before
    assert env.call("modify_pending_order_address", order_id="#W1234567", **fields) is not None
    assert env.state["order"]["#W1234567"]["shipping_address"] == "9 New St, Dallas, TX 75001"


def test_an_exchange_writes_the_declared_status_and_records(tau2):
    env = RetailDomain(tau2).environment(_seed())
    env.call("exchange_delivered_order_items", order_id="#W7654321", item_ids=["222"], new_item_ids=["223"], payment_method_id="cc_1")
    order = env.state["order"]["#W7654321"]
    assert (order["status"], order["exchange_items"], order["exchange_new_items"]) == ("exchange requested", ["222"], ["223"])
    assert env.call("exchange_delivered_order_items", order_id="#W7654321", item_ids=["999"], new_item_ids=["223"],
                    payment_method_id="cc_1") is None  # an item the order does not hold (and it is no longer delivered)


# ---------------------------------------------------------------- the drafter and the reference agent
ORDER_ADDRESS = f"Please change the shipping address of order #W1234567 to {NEW_ADDRESS}."
EXCHANGE = "I want to exchange the water bottle in order #W7654321 for a blue one."


def test_an_order_address_change_is_checked_on_the_orders_written_address(tau2):
    task, action = _task(tau2, "address_change", ORDER_ADDRESS, "#W1234567")
    assert action == "order_address" and task.required_tools == ["modify_pending_order_address"]
    assert any(item.check == "order_address_equals" and item.args["address"] == NEW_ADDRESS for item in task.expectations)
    assert _run(tau2, task)[0].passed, _run(tau2, task)[0].reasons
    assert not _run(tau2, task, "reply_only")[0].passed  # a reply alone does not pass
    # the customer's own address changed instead of the order's: fails
    wrong = [("modify_user_address", dict(user_id="c1", address1="445 Maple Drive", address2="Suite 394", city="Fort Worth",
                                          state="Texas", country="USA", zip="76165")), ("send_reply", {"text": "Done."})]
    assert not _run(tau2, task, "", tuple(wrong))[0].passed


def test_an_exchange_the_product_makes_is_required_not_handed_over(tau2, demo):
    task, action = _task(tau2, "exchange", EXCHANGE, "#W7654321")
    assert action == "exchange" and task.required_tools == ["exchange_delivered_order_items"]
    assert {item.check for item in task.expectations} >= {"order_status", "recorded_items", "exchange_variants", "recorded_payment"}
    assert "order_recorded" not in {item.check for item in task.expectations}  # every recorded field pinned, none presence-only
    assert _run(tau2, task)[0].passed
    assert not _run(tau2, task, "reply_only")[0].passed
    handed = (("transfer_to_human_agents", {"summary": "exchange"}), ("send_reply", {"text": "A colleague will follow up."}))
    assert not _run(tau2, task, "", handed)[0].passed
    # the demo's tools make no exchange: still a human's
    assert _task(demo, "exchange", EXCHANGE, "#W7654321")[1] == "escalate"


def _exchange(order_id: str = "#W7654321", items=("222",), new=("223",), payment: str = "cc_1") -> tuple:
    return (("exchange_delivered_order_items", {"order_id": order_id, "item_ids": list(items), "new_item_ids": list(new),
                                                "payment_method_id": payment}), ("send_reply", {"text": "Exchange requested."}))


def test_an_exchange_is_pinned_to_the_items_the_words_name_and_a_payment_method_the_customer_holds(tau2):
    """tau2-bench's gold actions name the item ids and the payment method: the positive checks the items recorded are
    the ones the words name, and the payment method one the customer holds, not only that something was recorded."""
    task, _ = _task(tau2, "exchange", EXCHANGE, "#W7654321")
    assert _run(tau2, task, "", _exchange())[0].passed, _run(tau2, task, "", _exchange())[0].reasons
    assert not _run(tau2, task, "", _exchange(payment="paypal_9"))[0].passed  # a method of no one's (or another customer's)
    assert not _run(tau2, task, "", _exchange(new=("223", "224")))[0].passed  # fewer items replaced than new ones
    two = _seed()
    two.state["order"]["#W7654321"]["items"].append({"item_id": "333", "name": "Desk Lamp"})
    domain = RetailDomain(tau2)
    env = domain.environment(two)
    for name, arguments in _exchange(items=("333",)):
        env.call(name, **arguments)
    assert env.calls[0].status == "ok"
    assert not grade(task, env.state, env.calls, domain.environment(two).state).passed  # the lamp, not the bottle the words name


def test_the_reference_returns_only_the_items_the_words_name(tau2):
    two = _seed()
    two.state["order"]["#W7654321"]["items"].append({"item_id": "333", "name": "Desk Lamp"})
    task, _ = _task(tau2, "return_label", "I want to return the water bottles of order #W7654321.", "#W7654321")
    assert any(item.check == "recorded_items" and item.args["items"] == "222" for item in task.expectations)
    domain = RetailDomain(tau2)
    env = domain.environment(two)
    domain.agents()["reference"](AgentView(prompt=task.prompt, intent=task.intent, actor=task.actor, clock=task.clock), env)
    assert env.state["order"]["#W7654321"]["return_items"] == ["222"]
    assert grade(task, env.state, env.calls, domain.environment(two).state).passed


def test_a_return_pays_back_to_the_orders_own_method_or_a_gift_card(tau2):
    from taskgen.domains.retail.grader import holds

    task, action = _task(tau2, "return_label", "I want to return the water bottle of order #W7654321.", "#W7654321")
    assert action == "return_label" and any(item.check == "recorded_payment" and item.args.get("original_or_gift_card") for item in task.expectations)
    check = next(item for item in task.expectations if item.check == "recorded_payment")
    state = _seed().state
    for method, held in (("cc_1", True), ("gift_card_1", True), ("paypal_9", False)):
        state["order"]["#W7654321"]["return_payment_method_id"] = method
        assert holds(check, state) is held, method
    state["customer"]["c1"]["payment_methods"]["cc_2"] = {"id": "cc_2", "source": "credit_card"}
    state["order"]["#W7654321"]["return_payment_method_id"] = "cc_2"
    assert not holds(check, state)  # the customer's, but neither the order's own method nor a gift card


def test_where_the_seed_holds_the_catalogue_the_new_item_is_another_available_variant_of_the_same_product():
    from taskgen.domains.retail.grader import expect, holds

    check = expect("exchange_variants", order_id="o1", field="exchange_items", new_field="exchange_new_items")
    order = {"id": "o1", "items": [{"item_id": "111", "product_id": "p1", "name": "Bookshelf"}, {"item_id": "555", "product_id": "p2", "name": "Mug"}],
             "exchange_items": ["111"]}
    catalogue = {"p1": {"product_id": "p1", "variants": {"111": {"available": True}, "112": {"available": True}, "113": {"available": False}}},
                 "p2": {"product_id": "p2", "variants": {"555": {"available": True}, "556": {"available": True}}}}
    for new, held in ((["112"], True), (["111"], False), (["113"], False), (["556"], False), (["112", "556"], False), ([], False)):
        assert holds(check, {"order": {"o1": {**order, "exchange_new_items": new}}, "product": catalogue}) is held, new
    # no catalogue in the seed: the count alone
    assert holds(check, {"order": {"o1": {**order, "exchange_new_items": ["999"]}}})
    assert not holds(check, {"order": {"o1": {**order, "exchange_new_items": ["998", "999"]}}})


def test_the_items_the_words_name_are_none_when_the_order_holds_two_of_that_name():
    from taskgen.domains.retail.parts import items_named

    order = {"items": [{"item_id": "1", "name": "Cycling Helmet"}, {"item_id": "2", "name": "Cycling Helmet"}, {"item_id": "3", "name": "Bookshelf"}]}
    assert items_named(order, "I want to exchange the book shelf for a 4 foot one.", "exchange") == ["3"]
    assert items_named(order, "I want to exchange the helmet for a bigger one.", "exchange") == []
    assert items_named(order, "I love the helmet. I want to return the bookshelf.", "return_label") == ["3"]  # the return's own sentence
    assert items_named(order, "I want to return all bookshelves I received.", "return_label") == ["3"]  # a plural
    tablets = {"items": [{"item_id": "7", "name": "Tablet", "price": 310.5}, {"item_id": "8", "name": "Tablet", "price": 289.0},
                         {"item_id": "9", "name": "Mug", "price": 9.0}]}
    assert items_named(tablets, "I received two tablets and I only need one. I want to return the less expensive one.", "return_label") == ["8"]
    assert items_named(tablets, "I want to return the more expensive tablet.", "return_label") == ["7"]
    assert items_named(tablets, "I want to return a tablet.", "return_label") == []  # the words do not tell which
    from taskgen.domains.retail.reference import _says  # the reference agent reads the words its own way, to the same end

    assert _says("all bookshelves", "Bookshelf") and _says("the book shelf", "Bookshelf") and _says("two puzzles", "Jigsaw Puzzle")
    assert _says("both batteries", "Battery") and not _says("it may happen", "Pen") and not _says("the lamp", "Bookshelf")


def test_an_item_change_of_a_pending_order_uses_the_products_modify_tool(tau2):
    task, action = _task(tau2, "exchange", "Please change the desk lamp in order #W1234567 to the other color.", "#W1234567")
    assert action == "modify_items" and task.required_tools == ["modify_pending_order_items"]
    assert any(item.check == "order_status" and item.args["status"] == "pending (item modified)" for item in task.expectations)
    assert _run(tau2, task)[0].passed and not _run(tau2, task, "reply_only")[0].passed


def test_forbidden_and_required_tools_use_the_declared_names(tau2):
    for intent, prompt, order_id in (("exchange", EXCHANGE, "#W7654321"), ("address_change", ORDER_ADDRESS, "#W1234567"),
                                     ("cancellation", "Cancel order #W7654321 please.", "#W7654321"),
                                     ("cancellation", "Cancel order #W1234567, I ordered it by mistake.", "#W1234567")):
        task, _ = _task(tau2, intent, prompt, order_id)
        named = set(task.required_tools) | set(task.forbidden_tools)
        assert named and named <= {tool.name for tool in tau2.tools}, (intent, named)
        assert _run(tau2, task)[0].passed, (prompt, _run(tau2, task)[0].reasons)


def test_a_refunding_cancellation_expects_the_refund_it_gives(tau2):
    task, _ = _task(tau2, "cancellation", "Cancel order #W1234567, I ordered it by mistake.", "#W1234567")
    assert any(item.check == "refund_exists" and item.args["amount_cents"] == 5000 for item in task.expectations)
    verdict, env = _run(tau2, task)
    assert verdict.passed and env.state["order"]["#W1234567"]["cancel_reason"] == "ordered by mistake"


def test_an_incidents_call_of_a_declared_tool_reads_as_its_declared_action(tau2):
    assert tool_action("modify_pending_order_address", tau2) == "order_address"
    assert tool_action("exchange_delivered_order_items", tau2) == "exchange"
    assert tool_action("return_delivered_order_items", tau2) == "return_label"
    assert tool_action("exchange_delivered_order_items") == "escalate"  # no declaration: read by its verb, as before


def test_an_item_change_with_a_fallback_on_the_catalogue_lets_either_pass(tau2):
    """'If it is not available, cancel the whole order': the item change or the cancellation, nothing else."""
    from ingest.models import Session, Turn
    from taskgen.classify import Classification
    from taskgen.domains.retail.plans import plan_positive

    prompt = "Please change the desk lamp in order #W1234567 to the other color. If it is not available, cancel the whole order."
    session = Session(session_id="s", turns=[Turn(role="user", text=prompt, source="traces")], entity_ids={"customer": ["c1"]})
    classification = Classification(intent="exchange", outcome="resolved", evidence=[], signature="s")
    plan = plan_positive(session, classification, _seed(), ACTOR, tau2)
    assert plan.required_tools == [] and "cancel_pending_order" not in plan.forbidden_tools
    task = _task(tau2, "exchange", prompt, "#W1234567")[0].model_copy(update={"expectations": plan.expectations, "required_tools": [],
                                                                          "forbidden_tools": plan.forbidden_tools, "may_change": plan.may_change})
    assert _run(tau2, task)[0].passed
    cancelled = (("cancel_pending_order", {"order_id": "#W1234567", "reason": "no longer needed"}), ("send_reply", {"text": "Cancelled."}))
    assert _run(tau2, task, "", cancelled)[0].passed
    assert not _run(tau2, task, "reply_only")[0].passed


def _vacuous(expectations) -> list[str]:
    """Either-or checks with an option every replying trial meets (the reply): they check nothing."""
    return [item.describe() for item in expectations if item.check == "any_of" and any(option.check == "reply_sent" for option in item.any_of)]


def test_an_optional_exchange_names_what_may_change_instead_of_an_option_that_always_holds(tau2):
    """'If it is less than 200 bucks I want to exchange it. If not, I want to return it': what either tool records on
    the order is allowed (may_change), not an either-or with the reply; writing it passes, writing anything else fails."""
    from ingest.models import Session, Turn
    from taskgen.classify import Classification
    from taskgen.domains.retail.plans import plan_positive

    prompt = ("I want to know the cheapest water bottle of order #W7654321. If it is less than 200 bucks I want to exchange my "
              "current one to it. If not, I want to return my current one.")
    session = Session(session_id="s", turns=[Turn(role="user", text=prompt, source="traces")], entity_ids={"customer": ["c1"]})
    plan = plan_positive(session, Classification(intent="exchange", outcome="resolved", evidence=[], signature="s"), _seed(), ACTOR, tau2)
    assert plan.required_tools == [] and not _vacuous(plan.expectations)
    assert not any(item.check == "order_recorded" for item in plan.expectations)
    allowed = [(item.kind, item.row_id, item.field) for item in plan.may_change]
    assert set(allowed) >= {("order", "#W7654321", "exchange_items"), ("order", "#W7654321", "exchange_new_items")}
    assert len(allowed) == len(set(allowed))  # each allowance once
    task = _task(tau2, "exchange", prompt, "#W7654321")[0].model_copy(update={
        "expectations": plan.expectations, "required_tools": [], "forbidden_tools": plan.forbidden_tools, "may_change": plan.may_change})
    exchanged = (("exchange_delivered_order_items", {"order_id": "#W7654321", "item_ids": ["222"], "new_item_ids": ["223"],
                                                     "payment_method_id": "cc_1"}), ("send_reply", {"text": "Exchange requested."}))
    assert _run(tau2, task, "", exchanged)[0].passed, _run(tau2, task, "", exchanged)[0].reasons
    returned = (("return_delivered_order_items", {"order_id": "#W7654321", "item_ids": ["222"], "payment_method_id": "gift_card_1"}),
                ("send_reply", {"text": "Return requested."}))
    assert _run(tau2, task, "", returned)[0].passed  # the fallback: the exchange's fields left unwritten
    elsewhere = ((returned[0][0], {**returned[0][1], "payment_method_id": "paypal_9"}), returned[1])
    assert not _run(tau2, task, "", elsewhere)[0].passed  # made, the fallback's record is pinned too
    unowned = ((exchanged[0][0], {**exchanged[0][1], "payment_method_id": "paypal_9"}), exchanged[1])
    assert not _run(tau2, task, "", unowned)[0].passed  # made, the write records a payment method the customer holds
    moved = (*exchanged, ("modify_pending_order_address", {"order_id": "#W1234567", "address1": "9 New St", "address2": "",
                                                          "city": "Dallas", "state": "TX", "country": "USA", "zip": "75001"}))
    assert not _run(tau2, task, "", moved)[0].passed


def test_an_address_change_without_the_address_lets_the_agent_write_the_orders_own(tau2):
    """'Change its address to my Hamburg address': the product's order tool is not forbidden, and writing it passes."""
    task, action = _task(tau2, "address_change", "Please change the address of order #W1234567 to my other address.", "#W1234567")
    assert action == "order_address" and "modify_pending_order_address" not in task.forbidden_tools
    assert "modify_user_address" not in task.forbidden_tools and "transfer_to_human_agents" in task.forbidden_tools
    fields = dict(address1="9 New St", address2="", city="Dallas", state="TX", country="USA", zip="75001")
    written = (("modify_pending_order_address", {"order_id": "#W1234567", **fields}), ("send_reply", {"text": "Done."}))
    assert _run(tau2, task, "", written)[0].passed, _run(tau2, task, "", written)[0].reasons
    assert _run(tau2, task)[0].passed
    assert not _vacuous(task.expectations) and [item.describe() for item in task.may_change] == ["order #W1234567: shipping_address"]
    # a refusal alone neither asks for the address nor writes one (order_address_changed, reply_asks_for)
    assert not _run(tau2, task, "", (("send_reply", {"text": "Sorry, I cannot change that order."}),))[0].passed


def test_an_item_change_the_product_makes_is_scoped_to_its_order_when_the_words_do_not_tell_it(tau2, demo):
    """The words name no order and the account has two: the prompt names the one the incident changed, so the
    reference agent (and a simulated user) can tell it; the demo's tools make no item change: no scope, as before."""
    from ingest.models import Session, ToolCall, Turn
    from taskgen.classify import Classification
    from taskgen.domains.retail.plans import plan_positive

    prompt = "Hi, I would like to exchange an item I got for another color."
    call = ToolCall(name="exchange_delivered_order_items", arguments={"order_id": "#W7654321", "item_ids": ["222"],
                                                                        "new_item_ids": ["223"], "payment_method_id": "cc_1"})
    session = Session(session_id="s", turns=[Turn(role="user", text=prompt, source="traces")], tool_calls=[call],
                      entity_ids={"customer": ["c1"], "order": ["#W7654321"]})
    classification = Classification(intent="exchange", outcome="resolved", evidence=[], signature="s")
    plan = plan_positive(session, classification, _seed(), ACTOR, tau2)
    assert "#W7654321" in plan.scope and plan.required_tools == ["exchange_delivered_order_items"]
    task = _task(tau2, "exchange", f"{plan.scope} {prompt}", "#W7654321")[0]
    assert _run(tau2, task)[0].passed
    assert plan_positive(session, classification, _seed(), ACTOR, demo).scope == ""


def test_a_conditional_exchange_with_a_return_fallback_passes_either_write_and_nothing_else(tau2):
    """'If it is less than 200 bucks I want to exchange it. If not, I want to return it': either write passes,
    with what it records on the order; a reply alone does not."""
    from ingest.models import Session, Turn
    from taskgen.classify import Classification
    from taskgen.domains.retail.plans import plan_positive

    prompt = ("What is the cheapest water bottle in blue? If it is less than 200 bucks I want to exchange my water bottle in order "
              "#W7654321 to it. If not, I want to return my water bottle.")
    session = Session(session_id="s", turns=[Turn(role="user", text=prompt, source="traces")], entity_ids={"customer": ["c1"]})
    classification = Classification(intent="exchange", outcome="resolved", evidence=[], signature="s")
    plan = plan_positive(session, classification, _seed(), ACTOR, tau2)
    task = _task(tau2, "exchange", prompt, "#W7654321")[0].model_copy(update={"expectations": plan.expectations, "required_tools": plan.required_tools,
                                                                          "forbidden_tools": plan.forbidden_tools, "may_change": plan.may_change})
    assert _run(tau2, task)[0].passed, _run(tau2, task)[0].reasons
    returned = (("return_delivered_order_items", {"order_id": "#W7654321", "item_ids": ["222"], "payment_method_id": "cc_1"}),
                ("send_reply", {"text": "Return requested."}))
    assert _run(tau2, task, "", returned)[0].passed, _run(tau2, task, "", returned)[0].reasons
    assert not _run(tau2, task, "reply_only")[0].passed


# ---------------------------------------------------------------- an item change rewrites the items and settles the difference
def test_an_item_change_rewrites_the_orders_items_and_refunds_or_charges_the_difference(tau2):
    env = RetailDomain(tau2).environment(_seed())
    env.call("modify_pending_order_items", order_id="#W1234567", item_ids=["111"], new_item_ids=["112"], payment_method_id="gift_card_1")
    order = env.state["order"]["#W1234567"]
    assert (order["status"], order["items"][0]["item_id"], order["items"][0]["price"]) == ("pending (item modified)", "112", 45.0)
    assert [(row["order_id"], row["amount_cents"]) for row in env.state["refund"].values()] == [("#W1234567", 500)]  # cheaper: refunded
    dearer = RetailDomain(tau2).environment(_seed())
    dearer.call("modify_pending_order_items", order_id="#W1234567", item_ids=["111"], new_item_ids=["113"], payment_method_id="gift_card_1")
    assert not dearer.state["refund"] and [row["amount_cents"] for row in dearer.state["payment"].values()] == [1150]
    refused = RetailDomain(tau2).environment(_seed())
    for new in ("114", "111", "222"):  # unavailable, the same item, another product's
        assert refused.call("modify_pending_order_items", order_id="#W1234567", item_ids=["111"], new_item_ids=[new],
                            payment_method_id="gift_card_1") is None
    assert refused.state["order"]["#W1234567"]["status"] == "pending" and not refused.state["refund"]


def test_an_item_change_to_the_variant_the_words_name_is_pinned_with_its_refund(tau2):
    task, action = _task(tau2, "exchange", "Please change the desk lamp in order #W1234567 to the black LED one.", "#W1234567")
    checks = {item.check: item.args for item in task.expectations}
    assert action == "modify_items" and checks["items_replaced"]["new_items"] == "112"
    assert checks["refund_exists"] == {"order_id": "#W1234567", "amount_cents": 500} and "no_refund" not in checks
    assert not any("records no item change" in line for line in task.rubric)
    assert _run(tau2, task)[0].passed, _run(tau2, task)[0].reasons  # the gold change, refund and all, passes
    careless = (("modify_pending_order_items", dict(order_id="#W1234567", item_ids=["111"], new_item_ids=["113"], payment_method_id="gift_card_1")),
                ("send_reply", {"text": "Done."}))
    assert not _run(tau2, task, "", careless)[0].passed  # another variant (the halogen one) fails


def test_an_item_change_the_words_do_not_pin_allows_the_difference_and_checks_the_product(tau2):
    task, _ = _task(tau2, "exchange", "Please change the desk lamp in order #W1234567 to the other color.", "#W1234567")
    checks = {item.check: item.args for item in task.expectations}
    assert checks["items_replaced"] == {"order_id": "#W1234567", "items": "111"} and not {"no_refund", "refund_exists"} & set(checks)
    assert _run(tau2, task)[0].passed, _run(tau2, task)[0].reasons
    for new, passes in (("112", True), ("113", True)):  # cheaper (refunded) or dearer (charged): either variant of the lamp
        calls = (("modify_pending_order_items", dict(order_id="#W1234567", item_ids=["111"], new_item_ids=[new], payment_method_id="gift_card_1")),
                 ("send_reply", {"text": "Done."}))
        assert _run(tau2, task, "", calls)[0].passed is passes, new


def test_an_order_its_payment_history_shows_refunded_is_checked_against_that_refund_not_against_none(tau2):
    from taskgen.domains.retail.grader import holds

    seed = _seed()
    refunded = {"id": "#W5550000", "customer_id": "c1", "status": "cancelled", "total_cents": 7000, "items": [{"item_id": "222", "name": "Water Bottle"}],
                "payment_history": [{"transaction_type": "payment", "amount": 70.0, "payment_method_id": "cc_1"},
                                    {"transaction_type": "refund", "amount": 70.0, "payment_method_id": "cc_1"}]}
    seed.state["order"]["#W5550000"] = refunded
    state = RetailDomain(tau2).environment(seed).state
    prompt = "Please return the water bottle in order #W5550000."
    decision = decide("return_label", prompt, state, ACTOR, CLOCK, tau2, "#W5550000")
    plan = plan_for(decision, state, "c1", "#W5550000", prompt, tau2)
    about = [item for item in plan.expectations if item.args.get("order_id") == "#W5550000" and item.check in ("no_refund", "refunded_total")]
    assert [(item.check, item.args["amount_cents"]) for item in about] == [("refunded_total", 7000)]
    assert holds(about[0], state)  # the seed's own refund meets it ...
    state["refund"]["r1"] = {"id": "r1", "order_id": "#W5550000", "amount_cents": 100}
    assert not holds(about[0], state)  # ... and a new one fails it


def test_the_cancellation_reason_the_words_state_is_pinned_one_of_them_where_they_state_several(tau2):
    from taskgen.domains.retail.grader import holds

    def reasons(task):
        return [item for item in task.expectations if "cancel_reason" in item.describe()]

    task, _ = _task(tau2, "cancellation", "Please cancel order #W1234567: I found a better deal elsewhere.", "#W1234567")
    assert [item.describe() for item in reasons(task)] == ["cancel_reason(order_id=#W1234567, reason=no longer needed)"]
    assert _run(tau2, task)[0].passed, _run(tau2, task)[0].reasons
    wrong = (("cancel_pending_order", {"order_id": "#W1234567", "reason": "ordered by mistake"}), ("send_reply", {"text": "Cancelled."}))
    assert not _run(tau2, task, "", wrong)[0].passed
    both = ("Cancel order #W1234567 with the reason of no longer needed if the lamp ships late; "
            "if it is on time, cancel it with the reason of ordered by mistake.")
    task, _ = _task(tau2, "cancellation", both, "#W1234567")
    (pinned,) = reasons(task)
    assert pinned.check == "any_of" and {option.args["reason"] for option in pinned.any_of} == {"no longer needed", "ordered by mistake"}
    for reason, held in (("no longer needed", True), ("ordered by mistake", True), ("other", False)):
        state = {"order": {"#W1234567": {"status": "cancelled", "cancel_reason": reason}}}
        assert holds(pinned, state) is held, reason


def test_an_optional_cancellation_made_carries_the_reason_the_words_state():
    from taskgen.domains.retail.parts import optional_write
    from taskgen.domains import Plan
    from taskgen.domains.retail.grader import expect, holds
    from taskgen.domains.retail.rules import Decision

    state = {"order": {"o1": {"id": "o1", "status": "pending", "customer_id": "c1"}}, "customer": {"c1": {"id": "c1"}}}
    plan = Plan(expectations=[expect("order_status", order_id="o1", status="cancelled"),
                              expect("cancel_reason", order_id="o1", reason="ordered by mistake")])
    decision = Decision(action="cancel", rule="cancel_allowed", order_id="o1", customer_id="c1")
    optional = optional_write(plan, decision, state, "o1")
    for end, held in (({"status": "pending"}, True), ({"status": "cancelled", "cancel_reason": "ordered by mistake"}, True),
                      ({"status": "cancelled", "cancel_reason": "no longer needed"}, False)):
        assert all(holds(item, {"order": {"o1": {"id": "o1", **end}}}) for item in optional.expectations) is held, end
