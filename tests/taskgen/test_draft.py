import re

import pytest

from taskgen.domains.retail.policy import RetailPolicy
from ingest.models import DeploySignal
from taskgen.classify import classify
from taskgen.draft import assign_splits, draft_pair, starting_seed
from taskgen.validate import validate_set
from taskgen.seeds import parse_timestamp
from taskgen.task import Expectation


def _pair(drafted, session_id):
    return next(row for row in drafted if row[0].session_id == session_id)


EXPECTED_POSITIVE = {
    "s-refund": ["refund_exists(amount_cents=8999, order_id=#W1000001)", "order_status(order_id=#W1000001, status=delivered)",
                 "address_equals(address=18 Linden Court, Dayton, OH 45402, customer_id=cus_1001)", "reply_sent()",
                 "reply_states_amount(amount_cents=8999)", "not_escalated()"],
    "s-return": ["return_label_exists(order_id=#W1000005)", "no_refund(order_id=#W1000005)", "order_status(order_id=#W1000005, status=delivered)",
                 "address_equals(address=9 Cedar Row, Austin, TX 78701, customer_id=cus_1003)", "not_escalated()"],
    "s-cancel": ["order_status(order_id=#W1000002, status=cancelled)", "cancel_reason(order_id=#W1000002, reason=no longer needed)",
                 "no_refund(order_id=#W1000002)",
                 "address_equals(address=18 Linden Court, Dayton, OH 45402, customer_id=cus_1001)", "reply_sent()", "not_escalated()"],
    "s-address": ["address_equals(address=742 Evergreen Terrace, Springfield, OR 97403, customer_id=cus_1003)", "not_escalated()"],
}


@pytest.mark.parametrize("session_id", sorted(EXPECTED_POSITIVE))
def test_positive_expectations_per_intent(drafted, session_id):
    positive = _pair(drafted, session_id)[3].positive
    assert [item.describe() for item in positive.expectations] == EXPECTED_POSITIVE[session_id]
    target = positive.target.get("order_id")
    assert all(item.args.get("order_id", target) == target for item in positive.expectations)
    assert positive.status == "draft" and positive.expectations_status == "draft" and positive.version == 1


def test_information_request_forbids_refunds(drafted):
    positive = _pair(drafted, "s-status")[3].positive
    assert "refund_order" in positive.forbidden_tools
    assert positive.expectations[0].check == "reply_sent"


def test_rollback_is_regression_and_expects_the_fixed_behaviour(drafted):
    session, _, _, pair = _pair(drafted, "s-rollback")
    positive = pair.positive
    assert positive.set == "regression" == pair.negative.set
    assert "refund_order" in positive.forbidden_tools
    assert any(item.describe() == "no_refund(order_id=#W1000003)" for item in positive.expectations)
    assert positive.provenance.incident_id == "INC-9" and positive.provenance.trace_ids == ["trace-s-rollback"]


def test_ids_prompt_budget_and_provenance(drafted, domain):
    session, classification, seed, pair = _pair(drafted, "s-refund")
    again = draft_pair(session, classification, seed, domain, members=["s-refund-dup"])
    assert again.positive.task_id == pair.positive.task_id and again.positive.task_id.endswith("-pos")
    assert again.negative.task_id.endswith("-neg") and again.negative.pair_id == again.positive.pair_id
    assert again.positive.provenance.session_ids == ["s-refund", "s-refund-dup"]
    assert pair.positive.prompt == session.first_user_text()
    # turns: (3 replies + 2 tool calls) x 2 headroom, as a trial counts them (one per model generation); tokens: ten
    # generations each re-reading the policy (with its declared write tools) and the tools' descriptions (about 1,650
    # tokens) and a context growing 500 tokens a turn
    from taskgen.draft import system_prompt_tokens, tool_descriptions

    system = system_prompt_tokens(session, domain.policy, tool_descriptions(seed, domain))
    assert 1400 < system < 1900
    assert pair.positive.budget.turns == 10 and pair.positive.budget.tokens == 10 * system + 500 * 10 * 11 // 2 and pair.positive.budget.latency_ms == 30000
    assert pair.positive.incident.usage.turns == 5
    assert pair.positive.clock == seed.clock and pair.positive.seed_id == seed.seed_id


def test_the_turn_budget_counts_tool_calls_and_covers_what_the_reference_needs(drafted, domain):
    """A tau-bench-like session is one reply after thirteen tool calls: its budget is not four turns. And
    with no headroom and no minimum, the budget still lets the reference agent finish on both seeds."""
    from ingest.models import ToolCall
    from taskgen.config import BudgetConfig, TaskgenConfig

    session, classification, seed, _ = _pair(drafted, "s-refund")
    long = session.model_copy(update={"usage": session.usage.model_copy(update={"agent_turns": 1}),
                                      "tool_calls": [ToolCall(name="get_order", arguments={"order_id": "#W1000001"})] * 13})
    assert draft_pair(long, classification, seed, domain).positive.budget.turns == 28
    bare = TaskgenConfig(budget=BudgetConfig(min_turns=1, turns_headroom=1.0))
    short = session.model_copy(update={"usage": session.usage.model_copy(update={"agent_turns": 1}), "tool_calls": []})
    pair = draft_pair(short, classification, seed, domain, config=bare)
    assert pair.positive.budget.turns == 4 == pair.negative.budget.turns  # get_order, refund_order, send_reply, last message
    # a short incident's budget still leaves a correct agent room to confirm before it acts: the headroom
    # applies to what the reference needs too (cold review: 4-turn budgets on tasks that need a confirmation)
    roomy = TaskgenConfig(budget=BudgetConfig(min_turns=1, turns_headroom=2.0))
    assert draft_pair(short, classification, seed, domain, config=roomy).positive.budget.turns == 8


def test_disagreement_between_incident_and_policy_becomes_a_review_question(drafted, domain):
    session, classification, seed, _ = _pair(drafted, "s-refund")
    strict = RetailPolicy.from_yaml().model_copy(update={"return_window_days": 2})
    pair = draft_pair(session, classification, seed, domain, policy=strict)
    assert any("points to 'refund'" in question and "'decline'" in question for question in pair.positive.review_questions)
    assert any(item.describe() == "no_refund(order_id=#W1000001)" for item in pair.positive.expectations)


@pytest.mark.parametrize(
    ("session_id", "boundary"),
    [("s-refund", "return_window"), ("s-return", "return_window"), ("s-cancel", "not_cancellable")],
)
def test_negatives_cross_the_policy_boundary(drafted, domain, session_id, boundary):
    _, _, seed, pair = _pair(drafted, session_id)
    negative = pair.negative
    assert negative.boundary == boundary and negative.synthetic and negative.polarity == "negative"
    assert negative.boundary_question in negative.review_questions
    assert negative.seed_id == pair.negative_seed.seed_id != seed.seed_id
    checks = {item.check for item in negative.expectations}
    assert checks & {"not_escalated", "escalated"}
    assert not checks & {"refund_exists", "return_label_exists"}
    assert not negative.required_tools or negative.required_tools == ["escalate_to_human"]
    assert negative.prompt == pair.positive.prompt


def test_a_default_address_change_is_the_customers_whatever_their_orders_status(drafted):
    """s-address: a default address locks on no order's status (cold review 6, finding 2; it handed over
    while any order of the customer was on its way): the positive changes it, its identity is the boundary."""
    _, _, seed, pair = _pair(drafted, "s-address")
    assert pair.positive.required_tools == ["update_address"]
    assert pair.negative.boundary == "identity_not_verified"


def test_an_address_change_without_an_address_asks_for_it_and_gets_a_real_negative(domain, taxonomy):
    """'the Ogden UT address' (no address the drafter reads): the agent asks for it, no hand-over, and the
    pair is no stub: the unverified customer's negative is refused (tau2 sample, 5 address stubs)."""
    from retail_fixtures import CLOCK, make_session, make_state

    words = "My name is Dana Whitfield, dana.whitfield@example.net. Please move my default address to the Ogden UT address."
    session = make_session("s-ogden", words, "cus_1001", [])
    pair = draft_pair(session, classify(session, taxonomy).model_copy(update={"intent": "address_change"}), starting_seed(make_state(), CLOCK, domain), domain)
    assert pair.positive.required_tools == [] and "escalate_to_human" in pair.positive.forbidden_tools
    assert "update_address" not in pair.positive.forbidden_tools
    assert pair.negative.boundary == "identity_not_verified" and "update_address" in pair.negative.forbidden_tools


def test_a_refused_request_gets_the_negative_a_correct_agent_acts_on(drafted):
    """The rollback's positive refuses (outside the window); its negative moves the order back inside,
    so the refusal fails it and the refund is expected: the two tasks accept different behaviour."""
    _, _, seed, pair = _pair(drafted, "s-rollback")
    assert pair.negative.boundary == "recently_delivered"
    checks = {item.check for item in pair.negative.expectations}
    assert "refund_exists" in checks and "refund_order" in pair.positive.forbidden_tools
    order = pair.negative_seed.state["order"]["#W1000003"]
    assert order["created_at"] < order["delivered_at"] < pair.negative_seed.clock


def test_return_window_negative_moves_delivery_outside_window(drafted, domain):
    _, _, seed, pair = _pair(drafted, "s-refund")
    order = pair.negative_seed.state["order"]["#W1000001"]
    age = parse_timestamp(seed.clock) - parse_timestamp(order["delivered_at"])
    assert age.days > domain.policy.return_window_days
    assert "30 days" in pair.negative.boundary_question


def test_over_limit_refund_boundary(drafted, domain):
    from taskgen.domains.retail.negatives import cross_boundary
    from taskgen.domains.retail.rules import decide

    _, _, seed, pair = _pair(drafted, "s-refund")
    actor = pair.positive.actor
    moved, requester = cross_boundary("auto_refund_limit", seed, "#W1000001", actor, domain.policy)
    assert moved["order"]["#W1000001"]["total_cents"] > domain.policy.auto_refund_limit_cents
    assert seed.state["order"]["#W1000001"]["total_cents"] == 8999
    items = [row["price_cents"] for row in moved["order_item"].values() if row["order_id"] == "#W1000001"]
    payments = [row["amount_cents"] for row in moved["payment"].values() if row["order_id"] == "#W1000001"]
    assert sum(items) == moved["order"]["#W1000001"]["total_cents"] == payments[0]
    decision = decide("refund", pair.positive.prompt, moved, requester, seed.clock_datetime, domain.policy, "#W1000001")
    assert (decision.action, decision.rule) == ("escalate", "above_auto_refund_limit")


def test_assign_splits_is_stratified_by_intent(drafted):
    tasks = [task for row in drafted for task in (row[3].positive, row[3].negative)]
    refunds = [task.model_copy(update={"pair_id": f"pair-{i}", "intent": "refund", "provenance": task.provenance.model_copy(update={"incident_id": None})})
               for i in range(10) for task in tasks[:1]]
    split = assign_splits(refunds, 0.3)
    assert sum(task.split == "heldout" for task in split) == 3
    assert assign_splits(refunds, 0.3) == split


def _hotfix_pairs(drafted, domain, count=12):
    """One hotfix (INC-9) behind many sessions of different intents: every pair drafted from it."""
    pairs = []
    for number in range(count):
        session, classification, seed, _ = drafted[number % len(drafted)]
        deploy = DeploySignal(id="dep-77", kind="hotfix", reason="agent refunded outside the window", incident_id="INC-9")
        moved = session.model_copy(update={"session_id": f"{session.session_id}-{number}",
                                           "signals": session.signals.model_copy(update={"deploys": [deploy], "tickets": [], "escalations": []})})
        pairs.append(draft_pair(moved, classification, seed, domain))
    return pairs


def test_every_pair_of_one_incident_lands_in_one_split(drafted, domain):
    pairs = _hotfix_pairs(drafted, domain)
    tasks = [task for pair in pairs for task in (pair.positive, pair.negative)]
    assert {task.provenance.incident_id for task in tasks} == {"INC-9"} and len({task.intent for task in tasks}) > 3
    assert len({task.split for task in tasks}) == 1
    loose = [task.model_copy(update={"provenance": task.provenance.model_copy(update={"incident_id": None})}) for task in tasks]
    assert len({task.split for task in assign_splits(loose, 0.5)}) == 2  # without the incident, pairs split apart
    assert len({task.split for task in assign_splits(tasks, 0.5)}) == 1
    assert validate_set(tasks) == []
    torn = [tasks[0].model_copy(update={"split": "heldout" if tasks[0].split == "dev" else "dev"}), *tasks[1:]]
    assert "incident_split_differs" in {issue.code for issue in validate_set(torn)}


def test_a_deploy_names_the_incident_before_tickets_and_escalations(drafted, domain):
    session, classification, seed, _ = next(row for row in drafted if row[0].session_id == "s-status")
    deploy = DeploySignal(id="dep-77", kind="hotfix", reason="status lookups", incident_id=None)
    with_deploy = session.model_copy(update={"signals": session.signals.model_copy(update={"deploys": [deploy]})})
    assert draft_pair(with_deploy, classification, seed, domain).positive.provenance.incident_id == "dep-77"
    assert draft_pair(session, classification, seed, domain).positive.provenance.incident_id == "T-5501"


def test_expectation_describe_either_or():
    either = Expectation(check="any_of", any_of=[Expectation(check="reply_sent"), Expectation(check="escalated")])
    assert either.describe() == "reply_sent() OR escalated()"


def _draft_one(session, domain, taxonomy, intent=None):
    from taskgen.classify import classify
    from taskgen.seeds import freeze_seed

    from retail_fixtures import CLOCK, make_state

    classification = classify(session, taxonomy)
    if intent is not None:
        classification = classification.model_copy(update={"intent": intent})
    return draft_pair(session, classification, freeze_seed(make_state(), CLOCK), domain)


def test_several_orders_named_the_task_says_which_one_the_agent_acted_on(domain, taxonomy):
    from ingest.models import ToolCall
    from retail_fixtures import make_session

    session = make_session("s-two", "Please cancel #W1000001... no sorry, I mean cancel #W1000002.", "cus_1001",
                           ["#W1000001", "#W1000002"], [ToolCall(name="cancel_order", arguments={"order_id": "#W1000002"})])
    pair = _draft_one(session, domain, taxonomy)
    assert pair.positive.target == pair.negative.target == {"order_id": "#W1000002"}
    assert "order_status(order_id=#W1000002, status=cancelled)" in [e.describe() for e in pair.positive.expectations]
    assert any("names 2 orders" in question for question in pair.positive.review_questions)
    assert not any("also touched order #W1000002" in question for question in pair.positive.review_questions)


def test_no_order_named_nor_acted_on_is_no_guess(domain, taxonomy):
    """The customer has two orders and names none: no expectation about the latest one."""
    from retail_fixtures import make_session

    pair = _draft_one(make_session("s-none", "I want a refund please.", "cus_1001", []), domain, taxonomy)
    assert pair.positive.target == {}
    assert not any(item.check in ("refund_exists", "order_status") for item in pair.positive.expectations)


def test_no_order_named_the_one_the_agent_acted_on_is_the_target(domain, taxonomy):
    from ingest.models import ToolCall
    from retail_fixtures import make_session

    session = make_session("s-acted", "I want a refund, the kettle arrived cracked.", "cus_1001", ["#W1000001"],
                           [ToolCall(name="get_order", arguments={"order_id": "#W1000002"}),
                            ToolCall(name="refund_order", arguments={"order_id": "#W1000001", "amount_cents": 8999, "reason": "x"})])
    pair = _draft_one(session, domain, taxonomy)
    assert pair.positive.target == {"order_id": "#W1000001"}
    assert any("name no order id" in question for question in pair.positive.review_questions)


@pytest.mark.parametrize(
    ("text", "status", "asked"),
    [
        ("Where is #W1000004? It hasn't arrived yet.", "shipped", False),
        ("Where is #W1000004? It hasn't arrived yet.", "delivered", True),
        ("Cancel #W1000004, it hasn't shipped yet.", "pending", False),
        ("Cancel #W1000004, it hasn't shipped yet.", "shipped", True),
        ("Refund #W1000004, it arrived broken.", "shipped", True),
        ("Refund #W1000004, it arrived broken.", "delivered", False),
    ],
)
def test_a_status_in_the_customers_words_that_the_seed_contradicts_is_asked(domain, taxonomy, text, status, asked):
    from ingest.models import ToolCall
    from taskgen.classify import classify
    from taskgen.seeds import freeze_seed

    from retail_fixtures import CLOCK, make_session, make_state

    state = make_state()
    state["order"]["#W1000004"].update(status=status, delivered_at="2024-05-08T10:00:00Z" if status == "delivered" else None)
    session = make_session("s-c", text, "cus_1002", ["#W1000004"], [ToolCall(name="get_order", arguments={"order_id": "#W1000004"})])
    pair = draft_pair(session, classify(session, taxonomy), freeze_seed(state, CLOCK), domain)
    assert any("customer's words say" in q for q in pair.positive.review_questions) is asked


@pytest.mark.parametrize(("phrase", "asked"), [("five days ago", False), ("yesterday", True), ("three weeks ago", True)])
def test_a_relative_date_that_the_seed_contradicts_is_asked(domain, taxonomy, phrase, asked):
    """#W1000001 was delivered five days before the clock (placed twelve days before)."""
    from taskgen.classify import classify
    from taskgen.seeds import freeze_seed

    from retail_fixtures import CLOCK, make_session, make_state

    session = make_session("s-d", f"Refund #W1000001 please, the kettle arrived cracked {phrase}.", "cus_1001", ["#W1000001"])
    pair = draft_pair(session, classify(session, taxonomy), freeze_seed(make_state(), CLOCK), domain)
    assert any(f"says '{phrase}'" in q for q in pair.positive.review_questions) is asked


def test_other_customer_negative_moves_the_order_to_a_real_customer_everywhere(domain):
    from taskgen.domains.retail.negatives import cross_boundary
    from taskgen.seeds import freeze_seed

    from retail_fixtures import CLOCK, make_state

    state = make_state()
    state["customer"]["cus_1002"]["orders"] = ["#W1000003", "#W1000004"]
    state["customer"]["cus_1003"]["orders"] = ["#W1000005"]
    moved, requester = cross_boundary("other_customer", freeze_seed(state, CLOCK), "#W1000004", {"customer_id": "cus_1002"}, domain.policy)
    owner = moved["order"]["#W1000004"]["customer_id"]
    assert owner in state["customer"] and owner != "cus_1002" and requester == {"customer_id": "cus_1002"}
    assert moved["customer"]["cus_1002"]["orders"] == ["#W1000003"]
    assert "#W1000004" in moved["customer"][owner]["orders"]
    alone = {kind: rows for kind, rows in state.items()}
    alone["customer"] = {"cus_1002": state["customer"]["cus_1002"]}
    assert cross_boundary("other_customer", freeze_seed(alone, CLOCK), "#W1000004", {"customer_id": "cus_1002"}, domain.policy) is None


def test_a_request_the_tools_cannot_do_goes_to_a_human_and_its_negative_is_another_customers_order(domain, taxonomy):
    from ingest.models import ToolCall
    from retail_fixtures import make_session

    session = make_session("s-x", "I'd like to exchange the kettle from #W1000001 for the blue one.", "cus_1001", ["#W1000001"],
                           [ToolCall(name="exchange_delivered_order_items", arguments={"order_id": "#W1000001", "item_ids": ["1"]})])
    pair = _draft_one(session, domain, taxonomy)
    assert pair.positive.intent == "exchange" and "escalate_to_human" in pair.positive.required_tools
    # the request's own boundary first (cold review 5): the order cancelled, nothing left to change, refused
    assert pair.negative.boundary == "closed" and "reply_refuses()" in {item.describe() for item in pair.negative.expectations}
    # a hand-over naming the cancelled order fails it (fifth cold review, #12 family 6); one for another request is a judge's
    assert [item.describe() for item in pair.negative.expectations if item.check == "not_escalated"] == ["not_escalated(order_id=#W1000001)"]
    assert any("hand-over to a human about order #W1000001" in item for item in pair.negative.rubric)
    from taskgen.draft import draft_pair as draft

    without_closed = domain.policy.model_copy(update={"boundaries": {**domain.policy.boundaries, "exchange": ["other_customer"]}})
    from taskgen.classify import classify as classify_session
    from taskgen.seeds import freeze_seed as freeze
    from retail_fixtures import CLOCK as clock, make_state as state_of

    pair = pair.model_copy(update={"negative": draft(session, classify_session(session, taxonomy), freeze(state_of(), clock), domain,
                                                     policy=without_closed).negative})
    # someone else's order: refused, and nothing of it said (not handed on, which would act on it)
    assert pair.negative.boundary == "other_customer" and pair.negative.actor == {"customer_id": "cus_1001"}
    assert {"reply_refuses", "not_escalated", "reply_withholds"} <= {item.check for item in pair.negative.expectations}
    assert "escalate_to_human" in pair.negative.forbidden_tools
    policy = domain.policy.model_copy(update={"boundaries": {**domain.policy.boundaries, "exchange": ["identity_not_verified"]}})
    from taskgen.classify import classify
    from taskgen.seeds import freeze_seed
    from retail_fixtures import CLOCK, make_state

    unverified = draft_pair(session, classify(session, taxonomy), freeze_seed(make_state(), CLOCK), domain, policy=policy).negative
    assert unverified.boundary == "identity_not_verified" and unverified.actor == {}
    assert {"reply_refuses", "not_escalated"} <= {item.check for item in unverified.expectations}


def test_a_request_only_a_human_can_do_also_asked_is_the_negative_of_a_question(domain, taxonomy):
    """A signed-in customer's question gets an answer; the same question with a change only a human can
    make asked too must go to a human: the negative's words ask for it (its prompt is its own)."""
    from retail_fixtures import make_session

    session = make_session("s-q", "Do you sell gift cards for the holidays?", "cus_1003", [])
    pair = _draft_one(session, domain, taxonomy)
    assert "escalate_to_human" in pair.positive.forbidden_tools and any(item.check == "not_escalated" for item in pair.positive.expectations)
    assert pair.negative.boundary == "outside_request" and pair.negative.required_tools == ["escalate_to_human"]
    assert pair.negative.prompt.startswith(pair.positive.prompt) and "exchange" in pair.negative.prompt[len(pair.positive.prompt):]
    assert validate_set([pair.positive, pair.negative]) == []  # words that differ are the boundary itself


def test_an_anonymous_general_question_is_a_stub_that_expects_nothing_of_the_positives_request(drafted):
    """No boundary can be crossed: the stub says so and judges nothing (no refusal of the positive's own request)."""
    negative = _pair(drafted, "s-other")[3].negative
    assert negative.boundary == "none" and negative.expectations == [] and negative.prompt == _pair(drafted, "s-other")[3].positive.prompt
    assert negative.rubric and "stub" in negative.rubric[0]


def test_boundaries_come_from_the_policy_file(domain, taxonomy):
    from retail_fixtures import make_session

    session = make_session("s-y", "I'd like to exchange the kettle from #W1000001 for the blue one.", "cus_1001", ["#W1000001"])
    from taskgen.classify import classify
    from taskgen.seeds import freeze_seed

    from retail_fixtures import CLOCK, make_state

    classification = classify(session, taxonomy)
    seed = freeze_seed(make_state(), CLOCK)
    assert draft_pair(session, classification, seed, domain).negative.boundary == "closed"  # the first of policy.yaml's list
    policy = domain.policy.model_copy(update={"boundaries": {**domain.policy.boundaries, classification.intent: ["identity_not_verified"]}})
    assert draft_pair(session, classification, seed, domain, policy=policy).negative.boundary == "identity_not_verified"
    policy = domain.policy.model_copy(update={"boundaries": {**domain.policy.boundaries, classification.intent: []}})
    pair = draft_pair(session, classification, seed, domain, policy=policy)
    assert pair.negative.boundary == "none"
    with pytest.raises(ValueError, match="boundaries.refund: unknown boundary 'moon_phase'"):
        RetailPolicy.model_validate({**domain.policy.model_dump(), "boundaries": {"refund": ["moon_phase"]}})


def test_a_whole_order_refund_of_several_items_and_a_request_about_several_orders_are_asked(domain, taxonomy):
    from ingest.models import ToolCall
    from taskgen.classify import classify
    from taskgen.seeds import freeze_seed

    from retail_fixtures import CLOCK, make_session, make_state

    session = make_session("s-i", "I want a refund for #W1000001, the kettle arrived cracked.", "cus_1001", ["#W1000001"],
                           [ToolCall(name="get_order", arguments={"order_id": "#W1000001"})])
    state = make_state()
    pair = draft_pair(session, classify(session, taxonomy), freeze_seed(state, CLOCK), domain)
    assert not any("items and the task expects the whole order" in q for q in pair.positive.review_questions)
    state["order_item"]["item_9"] = {**state["order_item"]["item_1"], "id": "item_9", "price_cents": 1000}
    pair = draft_pair(session, classify(session, taxonomy), freeze_seed(state, CLOCK), domain)
    assert any("has 2 items and the task expects the whole order" in q for q in pair.positive.review_questions)
    several = session.model_copy(update={"turns": [session.turns[0].model_copy(update={"text": "Refund all my orders, starting with #W1000001."}), *session.turns[1:]]})
    pair = draft_pair(several, classify(several, taxonomy), freeze_seed(make_state(), CLOCK), domain)
    assert any("asks about several orders" in q for q in pair.positive.review_questions)


def test_a_pair_that_one_reply_passes_on_both_sides_does_not_discriminate():
    """An order-status answer and a refusal both only reply: without a check on what the reply says,
    one reply passes both, so such a negative is not drafted (the pair is a stub)."""
    from taskgen.domains import Plan
    from taskgen.domains.retail.negatives import discriminates

    reply = Expectation(check="reply_sent")
    inform = Plan(expectations=[reply], forbidden_tools=["refund_order"])
    refuse = Plan(expectations=[reply, Expectation(check="not_escalated")], forbidden_tools=["refund_order", "escalate_to_human"])
    escalate = Plan(expectations=[Expectation(check="escalated")], required_tools=["escalate_to_human"])
    assert not discriminates(inform, refuse)
    assert discriminates(escalate, refuse) and discriminates(refuse, escalate)
    withheld = refuse.model_copy(update={"expectations": [*refuse.expectations, Expectation(check="reply_withholds", args={"order_id": "#W1"})]})
    assert discriminates(inform, withheld)


def test_an_order_the_words_do_not_tell_is_named_by_the_tasks_scope(domain, taxonomy):
    """cus_1001 has two orders (both with a kettle) and names none: both prompts start with a scope sentence
    naming the order the agent acted on, so an agent can find it and the negative may move it."""
    from ingest.models import ToolCall
    from retail_fixtures import make_session
    from taskgen.health import check_set

    session = make_session("s-g", "I want a refund, the kettle arrived cracked.", "cus_1001", ["#W1000001"],
                           [ToolCall(name="refund_order", arguments={"order_id": "#W1000001", "amount_cents": 8999, "reason": "x"})])
    pair = _draft_one(session, domain, taxonomy)
    assert pair.positive.target == {"order_id": "#W1000001"}
    scope = "(The order you ask about is #W1000001: give the agent this order id, and ask about no other order.)"
    assert pair.positive.prompt == pair.negative.prompt == scope + "\n\nI want a refund, the kettle arrived cracked."
    assert any(scope in question for question in pair.positive.review_questions)
    assert pair.negative.boundary == "return_window"
    from taskgen.seeds import freeze_seed
    from retail_fixtures import CLOCK, make_state

    seeds = {pair.positive.seed_id: freeze_seed(make_state(), CLOCK), pair.negative_seed.seed_id: pair.negative_seed}
    assert [result.verdict for result in check_set([pair.positive, pair.negative], seeds, domain)] == ["works", "works"]


def test_words_that_tell_the_order_get_no_scope_sentence(domain, taxonomy):
    from ingest.models import ToolCall
    from retail_fixtures import make_session

    session = make_session("s-n", "I want a refund for #W1000001, the kettle arrived cracked.", "cus_1001", ["#W1000001"],
                           [ToolCall(name="refund_order", arguments={"order_id": "#W1000001", "amount_cents": 8999, "reason": "x"})])
    pair = _draft_one(session, domain, taxonomy)
    assert pair.positive.prompt == "I want a refund for #W1000001, the kettle arrived cracked."


_AGENTS_PART = re.compile(r"\bagent must\b|\bhandle\b|\bleave\b.*\bas it is\b|\btask\b", re.IGNORECASE)


@pytest.mark.parametrize("text, words", [
    # two orders asked about in one request: the other one is taken out of the list
    ("Refund #W1000001 and #W1000002 please.", "Refund #W1000001 please."),
    # a request about the other order in a sentence of its own: the sentence goes
    ("Refund #W1000001, the kettle arrived cracked. Please also cancel #W1000002, I no longer need it.",
     "Refund #W1000001, the kettle arrived cracked."),
])
def test_a_task_about_one_of_the_orders_asked_about_leaves_the_others_words_out(domain, taxonomy, text, words):
    """The prompt goes to the simulated user: the scope sentence says what the user asks about (never what
    the agent must do), and the words asking for a change on the other order are left out, so a correct
    agent is never asked to do what the task forbids (the other order keeps its status, gets no refund)."""
    from taskgen.health import check_set
    from taskgen.seeds import freeze_seed
    from retail_fixtures import CLOCK, make_session, make_state

    several = make_session("s-s", text, "cus_1001", ["#W1000001", "#W1000002"])
    pair = _draft_one(several, domain, taxonomy, intent="refund")
    positive = pair.positive
    scope = "(Ask about order #W1000001 only, and about no other order.)"
    assert positive.prompt == scope + "\n\n" + words
    assert pair.negative.prompt.startswith(scope) and "#W1000002" not in pair.negative.prompt
    assert not _AGENTS_PART.search(scope)
    described = [item.describe() for item in positive.expectations]
    assert "order_status(order_id=#W1000002, status=processing)" in described and "no_refund(order_id=#W1000002)" in described
    assert any("leaves out the words about order #W1000002" in question for question in positive.review_questions)
    seeds = {positive.seed_id: freeze_seed(make_state(), CLOCK), pair.negative_seed.seed_id: pair.negative_seed}
    assert [result.verdict for result in check_set([positive, pair.negative], seeds, domain)] == ["works", "works"]


def test_words_about_one_order_keep_what_is_no_request_about_another():
    from taskgen.domains.retail.schema import RetailSchema
    from taskgen.domains.retail.scope import words_about

    schema = RetailSchema()
    text = ("Your name is Yara.\nFor order #W5056519, change the address to the same as order #W8277957. "
            "Finally, cancel orders #W5995614 or #W8277957, and #W1111111.\n\nThanks!")
    assert words_about(text, "#W5056519", ["#W8277957", "#W5995614", "#W1111111"], schema) == (
        "Your name is Yara.\nFor order #W5056519, change the address to the same as order #W8277957.\n\nThanks!")
    assert words_about("Refund orders #W1111111, #W5995614 and #W5056519.", "#W5056519", ["#W1111111", "#W5995614"], schema) == (
        "Refund orders #W5056519.")
    assert words_about("Cancel W1111111 please.", "#W5056519", ["#W1111111"], schema) == ""


def test_the_order_whose_items_the_request_names_is_the_one_an_agent_can_find(domain):
    from taskgen.domains.retail.rules import requested_order_id
    from taskgen.domains.retail.schema import RetailSchema

    from retail_fixtures import make_state

    state = make_state()
    actor = {"customer_id": "cus_1001"}
    assert requested_order_id("Refund the kettle please", state, actor, RetailSchema()) is None  # both orders hold a kettle
    state["order_item"]["item_2"]["name"] = "Linen apron"
    assert requested_order_id("Refund the kettle please", state, actor, RetailSchema()) == "#W1000001"
    assert requested_order_id("Refund the aprons please", state, actor, RetailSchema()) == "#W1000002"
    assert requested_order_id("Refund the kettle and the apron", state, actor, RetailSchema()) is None
    embedded = {"order": {"#W9": {"id": "#W9", "customer_id": "c", "items": [{"name": "Office Chair"}]},
                          "#W8": {"id": "#W8", "customer_id": "c", "items": [{"name": "Water Bottle"}]}}}
    assert requested_order_id("the office chair came broken", embedded, {"customer_id": "c"}, RetailSchema()) == "#W9"


def test_the_requester_is_the_id_a_customer_lookup_answered(domain):
    from ingest.models import ToolCall
    from retail_fixtures import make_session

    session = make_session("s-l", "Hi", "cus_1001", [], [ToolCall(name="find_user_id_by_name_zip", arguments={"zip": "1"}, result="cus_1003")])
    assert domain.actor(session.model_copy(update={"entity_ids": {}})) == {"customer_id": "cus_1003"}
    failed = ToolCall(name="find_user_id_by_name_zip", arguments={}, result="user not found")
    assert domain.actor(session.model_copy(update={"entity_ids": {}, "tool_calls": [failed]})) == {}


def test_the_classifications_review_questions_travel_with_both_tasks(drafted, domain):
    session, classification, seed, _ = _pair(drafted, "s-refund")
    doubtful = classification.model_copy(update={"review_questions": ["Outcome 'failed' from ...: is it right?"]})
    pair = draft_pair(session, doubtful, seed, domain)
    assert pair.positive.review_questions[0] == pair.negative.review_questions[0] == "Outcome 'failed' from ...: is it right?"


def test_a_question_only_is_answered_with_no_write_and_no_hand_over(domain, taxonomy):
    """tau2-bench retail tasks 67/68 (`I want to check how much I paid for the order that I most recently
    placed`), classified under an action intent: still a question, answered with the order's total."""
    from retail_fixtures import make_session

    words = "Hi, I'm Dana Whitfield. I want to check how much I paid for my order #W1000002, and what items are in it?"
    session = make_session("s-q", words, "cus_1001", ["#W1000002"])
    for intent in ("cancellation", "exchange", "order_status"):
        positive = _draft_one(session, domain, taxonomy, intent=intent).positive
        assert positive.required_tools == [] and {"escalate_to_human", "cancel_order", "refund_order"} <= set(positive.forbidden_tools)
        described = [item.describe() for item in positive.expectations]
        assert "not_escalated()" in described and "reply_states_amount(amount_cents=4500)" in described, (intent, described)
        assert not any(item.startswith("reply_states_status") for item in described)  # the price was asked, not the status
    # the reference agent (written apart from the drafter) answers it too: the pair works
    from taskgen.health import check_set
    from taskgen.seeds import freeze_seed
    from retail_fixtures import CLOCK, make_state

    pair = _draft_one(session, domain, taxonomy, intent="cancellation")
    seeds = {pair.positive.seed_id: freeze_seed(make_state(), CLOCK), pair.negative_seed.seed_id: pair.negative_seed}
    assert [result.verdict for result in check_set([pair.positive, pair.negative], seeds, domain)] == ["works", "works"]


def test_a_write_asked_for_only_under_a_condition_the_seed_cannot_decide_is_not_required(domain, taxonomy):
    """tau2-bench retail task 10-style words (`If 10x zoom is not available, cancel the order`): the cancel
    is allowed, not required, and a review question says why; asked outright, it is required."""
    from retail_fixtures import make_session

    words = ("I want to know if the kettle in my order #W1000002 is the 2-litre one. If it is not available in 2 litres, "
             "cancel the order with the reason of no longer needed.")
    positive = _draft_one(make_session("s-c", words, "cus_1001", ["#W1000002"]), domain, taxonomy, intent="cancellation").positive
    assert "cancel_order" not in positive.required_tools and "cancel_order" not in positive.forbidden_tools
    assert "order_status(order_id=#W1000002, status=cancelled) OR order_status(order_id=#W1000002, status=processing)" in [
        item.describe() for item in positive.expectations]
    assert any("only under a condition the seed cannot decide" in question for question in positive.review_questions)
    assert positive.rubric and "only as it holds" in positive.rubric[0]  # not "does the reply confirm the cancellation"
    # a refusal passes such a positive too: its negative is a stub saying why, never a pair that cannot discriminate
    negative = _draft_one(make_session("s-c", words, "cus_1001", ["#W1000002"]), domain, taxonomy, intent="cancellation").negative
    assert negative.boundary == "none"
    assert any("condition the seed cannot decide" in question for question in negative.review_questions)
    outright = _draft_one(make_session("s-o", "Please cancel my order #W1000002.", "cus_1001", ["#W1000002"]), domain, taxonomy,
                          intent="cancellation").positive
    assert outright.required_tools == ["cancel_order"]
    # a fallback on the order's status is the seed's to decide: a return asked outright is ruled out on a
    # processing order, so the cancel the customer falls back to is required (tau2-bench retail task 20's words)
    fallback = ("I want to return the kettle of my order #W1000002 for a full refund. If it cannot be returned, "
                "see if it can be canceled.")
    decided = _draft_one(make_session("s-f", fallback, "cus_1001", ["#W1000002"]), domain, taxonomy, intent="cancellation").positive
    assert decided.required_tools == ["cancel_order"] and not any("condition" in question for question in decided.review_questions)


def test_a_positive_a_canned_reply_passes_is_not_rated_works(domain, taxonomy):
    """Cold review 3: a write asked for only under a condition a person decides is allowed, not required,
    so any trial that replies passes the positive. The `reply_only` probe finds it; a write asked outright
    is still a task that works."""
    from taskgen.health import health_check
    from taskgen.seeds import freeze_seed
    from retail_fixtures import CLOCK, make_session, make_state

    seed = freeze_seed(make_state(), CLOCK)
    words = ("I want to know if the kettle in my order #W1000002 is the 2-litre one. If it is not available in 2 litres, "
             "cancel the order with the reason of no longer needed.")
    conditional = _draft_one(make_session("s-c", words, "cus_1001", ["#W1000002"]), domain, taxonomy, intent="cancellation").positive
    result = health_check(conditional, seed, domain)
    assert result.reference_passed and "reply_alone_passes" in result.flags and result.verdict == "no_discriminating_power"
    outright = _draft_one(make_session("s-o", "Please cancel my order #W1000002, I no longer need it.", "cus_1001", ["#W1000002"]),
                          domain, taxonomy, intent="cancellation").positive
    result = health_check(outright, seed, domain)
    assert "reply_alone_passes" not in result.flags and result.verdict == "works", result.flags


def test_an_identity_negative_takes_out_the_account_id_the_words_give(domain):
    """Cold review 4 (tau2-bench words "I am user cust_019f6362b3 living in Rapid City SD 57284"): the
    identity negative kept the id and zip, so a reader took its customer for a verified one."""
    from taskgen.domains.retail.negatives import negative_words
    from taskgen.seeds import freeze_seed
    from retail_fixtures import CLOCK, make_state

    seed = freeze_seed(make_state(), CLOCK)
    words = "I am user cus_1001. Please cancel my order #W1000002 because I no longer need it."
    changed = negative_words("identity_not_verified", words, "", seed, {"customer_id": "cus_1001"}, {"customer_id": "cus_1001"}, domain.policy)
    assert changed and "cus_1001" not in changed and "#W1000002" in changed
    assert changed.startswith("I can't give the e-mail address")
    plain = "Please cancel my order #W1000002 because I no longer need it."  # the app signed the session in: words unchanged
    assert negative_words("identity_not_verified", plain, "", seed, {"customer_id": "cus_1001"}, {"customer_id": "cus_1001"}, domain.policy) == ""
