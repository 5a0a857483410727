"""Issue #12 (cold review of tau2-bench drafts): what a correct agent does with a request of several parts
passes the task; the task judges its own part, and a budget fits a correct agent yet fails a runaway one."""

from __future__ import annotations

from ingest.models import ToolCall
from retail_fixtures import CLOCK, make_session, make_state
from taskgen.classify import classify
from taskgen.domains.retail.grader import grade
from taskgen.draft import draft_pair, starting_seed


def _drafted(domain, taxonomy, text, orders, calls=None):
    seed = starting_seed(make_state(), CLOCK, domain)
    session = make_session("s-parts", text, "cus_1001", orders, calls=calls)
    classification = classify(session, taxonomy)
    return draft_pair(session, classification, seed, domain), seed


def _run(domain, seed, calls):
    env = domain.environment(seed)
    for name, arguments in calls:
        env.call(name, **arguments)
    return env


def test_a_correct_agent_doing_both_parts_of_a_request_passes(domain, taxonomy):
    """Cancel one order AND change the address: the cancellation task judges the order; the address change
    the customer also asks for is neither forbidden nor 'something else changed'."""
    text = ("Hi, I'm Dana Whitfield, dana.whitfield@example.net. Please cancel order #W1000002, I no longer need it, "
            "and change my address to 5 Birch Lane, Dayton, OH 45402.")
    pair, seed = _drafted(domain, taxonomy, text, ["#W1000002"],
                          [ToolCall(name="cancel_order", arguments={"order_id": "#W1000002", "reason": "no longer needed"}),
                           ToolCall(name="update_address", arguments={"customer_id": "cus_1001", "address": "5 Birch Lane, Dayton, OH 45402"})])
    positive = pair.positive
    assert positive.required_tools == ["cancel_order"]
    assert "update_address" not in positive.forbidden_tools
    assert any("also asks for update_address" in question for question in positive.review_questions)
    both = _run(domain, seed, [("cancel_order", {"order_id": "#W1000002", "reason": "no longer needed"}),
                               ("update_address", {"customer_id": "cus_1001", "address": "5 Birch Lane, Dayton, OH 45402"}),
                               ("send_reply", {"text": "Order #W1000002 is cancelled and your address is changed."})])
    verdict = grade(positive, both.state, both.calls, seed_state=domain.environment(seed).state)
    assert verdict.passed, verdict.reasons
    # the task's own part still fails when left undone, and a write nobody asked for still fails
    only_address = _run(domain, seed, [("update_address", {"customer_id": "cus_1001", "address": "5 Birch Lane, Dayton, OH 45402"}),
                                       ("send_reply", {"text": "Your address is changed."})])
    assert not grade(positive, only_address.state, only_address.calls).passed
    refunded = _run(domain, seed, [("cancel_order", {"order_id": "#W1000002", "reason": "no longer needed"}),
                                   ("refund_order", {"order_id": "#W1000001", "amount_cents": 100, "reason": "x"}),
                                   ("send_reply", {"text": "Order #W1000002 is cancelled."})])
    assert not grade(positive, refunded.state, refunded.calls).passed


def test_a_single_part_request_still_forbids_the_other_writes(domain, taxonomy):
    text = "Hi, I'm Dana Whitfield, dana.whitfield@example.net. Please cancel order #W1000002, I no longer need it."
    pair, _ = _drafted(domain, taxonomy, text, ["#W1000002"])
    assert "update_address" in pair.positive.forbidden_tools
    assert not any("also asks for" in question for question in pair.positive.review_questions)


def test_the_token_budget_fits_a_correct_agent_rereading_the_policy_and_fails_a_runaway(domain, taxonomy):
    """tau2-bench's policy alone is about 1,700 tokens, re-read by every generation: a correct agent reading
    three orders before it cancels must fit the budget (cold review: 4,000-7,560 token budgets), a runaway
    one must not."""
    from taskgen.config import BudgetConfig, TaskgenConfig
    from taskgen.domains.retail.grader import over_budget
    from taskgen.draft import context_tokens
    from taskgen.task import Budget

    text = "Hi, I'm Dana Whitfield, dana.whitfield@example.net. Please cancel order #W1000002, I no longer need it."
    seed = starting_seed(make_state(), CLOCK, domain)
    session = make_session("s-budget", text, "cus_1001", ["#W1000002"])
    classification = classify(session, taxonomy)
    config = TaskgenConfig(budget=BudgetConfig(system_prompt_tokens=1700))
    budget = draft_pair(session, classification, seed, domain, config=config).positive.budget
    # get_customer, three get_order, cancel_order, send_reply, and its last message: each re-reads the policy
    correct = Budget(turns=7, tokens=context_tokens(7, 1700, 400) + 7 * 150, latency_ms=20000)
    assert not over_budget(budget, correct), (budget, correct)
    runaway = Budget(turns=budget.turns, tokens=budget.tokens + 1, latency_ms=20000)
    assert over_budget(budget, runaway)
    # unknown size: estimated from the policy and the tools the trial gives the agent, never below a policy's worth a turn
    estimated = draft_pair(session, classification, seed, domain).positive.budget
    assert estimated.tokens >= estimated.turns * 500


def test_the_review_sheet_shows_review_questions_and_the_negatives_own_words(drafted):
    """A cold reader judges a pair from the sheet: each task's open review questions and, when the negative's
    words differ from the positive's, the negative's prompt must be on it."""
    from bench.review_sample import pair_lines

    _, _, seed, pair = next(row for row in drafted if row[0].session_id == "s-refund")
    negative = pair.negative.model_copy(update={"prompt": pair.positive.prompt + " It is about my order #W1000001."})
    positive = pair.positive.model_copy(update={"review_questions": ["Is the refund for every item?"]})
    seeds = {seed.seed_id: seed, pair.negative.seed_id: pair.negative_seed}
    sheet = "\n".join(pair_lines(1, positive, negative, seeds))
    assert "- review question: Is the refund for every item?" in sheet
    assert all(f"- review question: {question}" in sheet for question in negative.review_questions)
    assert "> " + negative.prompt.splitlines()[-1] in sheet.split("### negative", 1)[1]
    same = "\n".join(pair_lines(1, positive, pair.negative.model_copy(update={"prompt": positive.prompt}), seeds))
    assert "Its own prompt" not in same


def test_an_address_change_on_an_order_in_transit_follows_the_policy(domain, taxonomy):
    """tau2-bench's policy refuses an address change of an order already on its way (only pending orders can be
    modified): with `address_change.in_transit: decline`, the negative expects a refusal and no hand-over."""
    from taskgen.domains.retail.policy import RetailPolicy
    from taskgen.task import AgentView

    text = "Hi, I'm Dana Whitfield, dana.whitfield@example.net. Please change the address of order #W1000002 to 5 Birch Lane, Dayton, OH 45402."
    seed = starting_seed(make_state(), CLOCK, domain)
    session = make_session("s-transit", text, "cus_1001", ["#W1000002"])
    classification = classify(session, taxonomy)
    base = RetailPolicy.from_yaml()
    declining = base.model_copy(update={"address_change": base.address_change.model_copy(update={"in_transit": "decline"})})
    pair = draft_pair(session, classification, seed, domain, policy=declining)
    negative = pair.negative
    assert negative.boundary == "order_in_transit"
    assert "escalate_to_human" in negative.forbidden_tools and "escalate_to_human" not in negative.required_tools
    assert {"reply_refuses", "not_escalated"} <= {item.check for item in negative.expectations}
    handed_over = _run(domain, pair.negative_seed, [("escalate_to_human", {"reason": "address change"}),
                                                    ("send_reply", {"text": "A colleague will follow up; I cannot change it myself."})])
    assert not grade(negative, handed_over.state, handed_over.calls).passed
    refused = _run(domain, pair.negative_seed, [("send_reply", {"text": "I cannot change the address: the order is already on its way."})])
    assert grade(negative, refused.state, refused.calls).passed
    # the shipped policy keeps its hand-over
    assert "escalate_to_human" in draft_pair(session, classification, seed, domain).negative.required_tools
