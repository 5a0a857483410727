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


def _seed() -> Seed:
    orders = {
        "#W1234567": {"customer_id": "c1", "status": "pending", "total_cents": 5000, "shipping_address": "1 Old Rd, Austin, TX 78701",
                      "items": [{"item_id": "111", "name": "Desk Lamp"}], "payment_history": [{"payment_method_id": "gift_card_1"}]},
        "#W7654321": {"customer_id": "c1", "status": "delivered", "total_cents": 7000, "delivered_at": "2025-12-28T00:00:00Z",
                      "items": [{"item_id": "222", "name": "Water Bottle"}], "payment_history": [{"payment_method_id": "cc_1"}]},
    }
    state = {"customer": {"c1": {"id": "c1", "address": "1 Old Rd, Austin, TX 78701"}},
             "order": {key: {"id": key, **row} for key, row in orders.items()},
             "order_item": {}, "payment": {}, "refund": {}, "return_label": {}}
    return Seed(seed_id="seed-tools", clock="2026-01-01T00:00:00Z", domain="retail", state=state)


def _task(policy: RetailPolicy, intent: str, prompt: str, order_id: str | None) -> tuple[DraftTask, str]:
    domain = RetailDomain(policy)
    state = domain.environment(_seed()).state
    decision = decide(intent, prompt, state, ACTOR, CLOCK, policy, order_id)
    plan = plan_for(decision, state, "c1", order_id, prompt, policy)
    task = DraftTask(
        task_id="t-pos", pair_id="t", set="capability", split="dev", polarity="positive", intent=intent, outcome="resolved", prompt=prompt, actor=ACTOR,
        clock="2026-01-01T00:00:00Z", seed_id="seed-tools", domain="retail", expectations=plan.expectations,
        required_tools=plan.required_tools, forbidden_tools=plan.forbidden_tools, budget=Budget(turns=20, tokens=20000, latency_ms=60000),
        provenance=TaskProvenance(session_ids=["s"]),
    )
    return task, decision.action


def _run(policy: RetailPolicy, task: DraftTask, agent: str = "reference", calls: tuple = ()):
    domain = RetailDomain(policy)
    seed = _seed()
    env = domain.environment(seed)
    if agent:
        domain.agents()[agent](AgentView(prompt=task.prompt, intent=task.intent, actor=task.actor, clock=task.clock), env)
    for name, arguments in calls:
        env.call(name, **arguments)
    return grade(task, env.state, env.calls, domain.environment(seed).state), env


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
    assert {item.check for item in task.expectations} >= {"order_status", "order_recorded"}
    assert _run(tau2, task)[0].passed
    assert not _run(tau2, task, "reply_only")[0].passed
    handed = (("transfer_to_human_agents", {"summary": "exchange"}), ("send_reply", {"text": "A colleague will follow up."}))
    assert not _run(tau2, task, "", handed)[0].passed
    # the demo's tools make no exchange: still a human's
    assert _task(demo, "exchange", EXCHANGE, "#W7654321")[1] == "escalate"


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
                                                                          "forbidden_tools": plan.forbidden_tools})
    assert _run(tau2, task)[0].passed
    cancelled = (("cancel_pending_order", {"order_id": "#W1234567", "reason": "no longer needed"}), ("send_reply", {"text": "Cancelled."}))
    assert _run(tau2, task, "", cancelled)[0].passed
    assert not _run(tau2, task, "reply_only")[0].passed


def test_an_address_change_without_the_address_lets_the_agent_write_the_orders_own(tau2):
    """'Change its address to my Hamburg address': the product's order tool is not forbidden, and writing it passes."""
    task, action = _task(tau2, "address_change", "Please change the address of order #W1234567 to my other address.", "#W1234567")
    assert action == "order_address" and "modify_pending_order_address" not in task.forbidden_tools
    assert "modify_user_address" not in task.forbidden_tools and "transfer_to_human_agents" in task.forbidden_tools
    fields = dict(address1="9 New St", address2="", city="Dallas", state="TX", country="USA", zip="75001")
    written = (("modify_pending_order_address", {"order_id": "#W1234567", **fields}), ("send_reply", {"text": "Done."}))
    assert _run(tau2, task, "", written)[0].passed, _run(tau2, task, "", written)[0].reasons
    assert _run(tau2, task)[0].passed
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
                                                                          "forbidden_tools": plan.forbidden_tools})
    assert _run(tau2, task)[0].passed, _run(tau2, task)[0].reasons
    returned = (("return_delivered_order_items", {"order_id": "#W7654321", "item_ids": ["222"], "payment_method_id": "cc_1"}),
                ("send_reply", {"text": "Return requested."}))
    assert _run(tau2, task, "", returned)[0].passed, _run(tau2, task, "", returned)[0].reasons
    assert not _run(tau2, task, "reply_only")[0].passed
