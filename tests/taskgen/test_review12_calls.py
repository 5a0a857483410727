"""Issue #12, third cold review of tau2 drafts: a negative whose boundary the product's tool enforces itself (an address
change of an order no longer pending) could only be failed through the reply, the tool being left free for the request's
other orders. A call of that tool on the negative's own order is now forbidden by a check of its own (by name and order,
not the tool everywhere), shown on the review sheet; the reference passes, the positive's behaviour fails by it."""

from __future__ import annotations

from test_product_tools import ACTOR, NEW_ADDRESS, tau2  # noqa: F401  (tau2: the fixture)
from test_review12_parts import FIELDS, _seed_with_pending_twin

from ingest.models import Session, ToolCall, Turn
from retail_fixtures import run_and_grade
from taskgen.classify import Classification
from taskgen.domains.retail.grader import grade
from taskgen.domains.retail.negatives import plan_negative
from taskgen.domains.retail.plans import plan_positive
from taskgen.seeds import Seed
from taskgen.task import Budget, DraftTask, ForbiddenCall, TaskProvenance

BOTH = f"Please change the shipping address of both orders #W1234567 and #W2222222 to {NEW_ADDRESS}."
ADDRESS = "modify_pending_order_address"


def _declining(policy):
    """tau2-bench's policy: an order on its way keeps its address, the agent refuses (no hand-over)."""
    return policy.model_copy(update={"address_change": policy.address_change.model_copy(update={"in_transit": "decline"})})


def _task(plan, prompt: str, polarity: str) -> DraftTask:
    return DraftTask(
        task_id=f"t-{polarity[:3]}", pair_id="t", set="capability", split="dev", polarity=polarity, intent="address_change",
        outcome="resolved", prompt=prompt, actor=ACTOR, clock="2026-01-01T00:00:00Z", seed_id="seed-tools", domain="retail",
        expectations=plan.expectations, required_tools=plan.required_tools, forbidden_tools=plan.forbidden_tools,
        forbidden_calls=plan.forbidden_calls, may_change=plan.may_change, budget=Budget(turns=20, tokens=20000, latency_ms=60000),
        provenance=TaskProvenance(session_ids=["s"]))


def _pair(policy, prompt: str = BOTH):
    seed = _seed_with_pending_twin()
    session = Session(session_id="s", turns=[Turn(role="user", text=prompt, source="traces")], entity_ids={"customer": ["c1"]})
    positive = plan_positive(session, Classification(intent="address_change", outcome="resolved", evidence=[], signature="s"), seed, ACTOR, policy)
    negative = plan_negative(prompt, "address_change", seed, ACTOR, positive, policy)
    return seed, positive, negative, seed.model_copy(update={"state": negative.state})


def _address_call(order_id: str) -> tuple:
    return ADDRESS, dict(order_id=order_id, **FIELDS)


def test_a_negative_forbids_the_tools_call_on_its_own_order_where_the_other_orders_need_the_tool(tau2):
    policy = _declining(tau2)
    _, positive, negative, negative_seed = _pair(policy)
    assert negative.boundary == "order_in_transit" and ADDRESS in positive.required_tools
    assert ADDRESS not in negative.forbidden_tools  # the other order may still need it
    assert [rule.describe() for rule in negative.forbidden_calls] == [f"{ADDRESS}(order_id=#W1234567)"]
    assert not any(ADDRESS in item for item in negative.rubric)  # a check now, not a line for a judge
    task = _task(negative, BOTH, "negative")
    reference, _ = run_and_grade(policy, task, negative_seed, "reference")
    assert reference.passed, reference.reasons
    # an agent that tries the order on its way (the tool refuses: nothing changes) and then says it cannot: only the
    # forbidden call fails it; without that check nothing would
    careless = (_address_call("#W1234567"), ("send_reply", {"text": "I cannot change order #W1234567: it is already processed."}))
    verdict, env = run_and_grade(policy, task, negative_seed, calls=careless)
    assert env.calls[0].status == "error"
    assert verdict.failed_checks == ["tools"] and verdict.reasons == [f"forbidden call made: {ADDRESS}(order_id=#W1234567)"]
    assert run_and_grade(policy, task.model_copy(update={"forbidden_calls": []}), negative_seed, calls=careless)[0].passed


def test_the_positives_behaviour_replayed_on_the_negative_fails_it_by_the_forbidden_call(tau2):
    policy = _declining(tau2)
    seed, positive, negative, negative_seed = _pair(policy)
    positive_run, env = run_and_grade(policy, _task(positive, BOTH, "positive"), seed, "reference")
    assert positive_run.passed, positive_run.reasons
    replayed, _ = run_and_grade(policy, _task(negative, BOTH, "negative"), negative_seed,
                                calls=tuple((call.name, call.arguments) for call in env.calls))
    assert f"forbidden call made: {ADDRESS}(order_id=#W1234567)" in replayed.reasons


def test_a_forbidden_call_is_the_tool_on_that_order_only_whatever_the_tool_answers():
    rule = ForbiddenCall(tool="cancel_pending_order", args={"order_id": "#W1"})
    task = DraftTask(task_id="t", pair_id="t", set="capability", split="dev", polarity="negative", intent="cancellation", outcome="resolved",
                     prompt="p", seed_id="s", clock="2026-01-01T00:00:00Z", domain="retail", expectations=[], forbidden_calls=[rule],
                     budget=Budget(turns=1, tokens=1, latency_ms=1), provenance=TaskProvenance(session_ids=["s"]))
    call = lambda order_id, status="ok": ToolCall(name="cancel_pending_order", arguments={"order_id": order_id}, status=status)  # noqa: E731
    assert grade(task, {}, [call("#W2")]).passed  # another order: the tool is not forbidden there
    assert not grade(task, {}, [call("#W1", "error")]).passed  # refused by the tool, still attempted
    assert not grade(task, {}, [call("w1")]).passed  # the id without its '#', another case
    assert not grade(task, {}, [ToolCall(name="cancel_pending_order", arguments={"order_id": "#W1", "reason": "x"})]).passed
    assert grade(task, {}, [ToolCall(name="modify_pending_order_address", arguments={"order_id": "#W1"})]).passed
