"""Issue #12, fifth cold review of tau2 drafts (families 4-8 and presentation): what the task tells the simulated user
agrees with what it judges, hand-overs follow the policy, and a reviewer reads what the verdict depends on."""

from __future__ import annotations

from test_catalogue_branch import _run, _task
from test_product_tools import ACTOR, _seed, tau2  # noqa: F401  (tau2: the fixture)

from ingest.models import Session, ToolCall, Turn
from taskgen.classify import Classification
from taskgen.domains.retail.negatives import negative_words
from taskgen.domains.retail.plans import plan_positive
from taskgen.domains.retail.scope import one_of_orders

LAMP_AND_BOTTLE = "I want to change the desk lamp to the black one with a halogen bulb. I also want to return the water bottle."
LAMP_CALL = ToolCall(name="modify_pending_order_items",
                     arguments={"order_id": "#W1234567", "item_ids": ["111"], "new_item_ids": ["113"], "payment_method_id": "gift_card_1"})


def _acted_plan(policy, words: str, calls: list[ToolCall], intent: str = "exchange"):
    session = Session(session_id="s", turns=[Turn(role="user", text=words, source="traces")],
                      entity_ids={"customer": ["c1"], "order": sorted({call.arguments["order_id"] for call in calls})}, tool_calls=calls)
    return plan_positive(session, Classification(intent=intent, outcome="resolved", evidence=[], signature="s"), _seed(), ACTOR, policy)


def test_a_scope_never_says_ask_about_no_other_order_when_the_task_judges_another_order(tau2):
    """Family 5: the words tell no one order (items of two orders); the task requires the return on the other order,
    so its scope sentence says the order is one of those asked about, not 'ask about no other order'."""
    plan = _acted_plan(tau2, LAMP_AND_BOTTLE, [LAMP_CALL])
    assert "return_delivered_order_items" in plan.required_tools
    assert plan.scope == one_of_orders("#W1234567")
    assert "no other order" not in " ".join(plan.review_questions)


def test_a_moved_orders_sentence_says_one_of_the_orders_where_the_scope_does(tau2):
    """Family 5, negatives: 'It is about my order #X.' is added only where the task is about one order."""
    words = "I have a problem with my orders."
    seed = _seed()
    several = negative_words("closed", words, one_of_orders("#W1234567"), seed, ACTOR, ACTOR, tau2, "#W1234567")
    assert several.endswith("Order #W1234567 is one of the orders I ask about.") and "It is about my order" not in several
    one = negative_words("closed", words, "", seed, ACTOR, ACTOR, tau2, "#W1234567")
    assert one.endswith("It is about my order #W1234567.")



ONE_LAMP = "I want to change the desk lamp in order #W1234567 to the black one with a halogen bulb."
TRANSFER = (("transfer_to_human_agents", {"summary": "customer wants a lamp change"}), ("send_reply", {"text": "I cannot change it."}))


def test_a_refusal_of_a_closed_order_fails_a_hand_over_the_policy_does_not_call_for(tau2):
    """Family 6: a transfer only where the request cannot be handled within the agent's actions. The closed negative
    of a one-order change forbids the transfer and checks none was made; so does its positive, done within the tools."""
    from taskgen.domains.retail import RetailDomain

    domain = RetailDomain(tau2)
    session = Session(session_id="s", turns=[Turn(role="user", text=ONE_LAMP, source="traces")], entity_ids={"customer": ["c1"]})
    positive = domain.plan_positive(session, Classification(intent="exchange", outcome="resolved", evidence=[], signature="s"), _seed(), ACTOR, tau2)
    negative = domain.plan_negative(ONE_LAMP, "exchange", _seed(), ACTOR, positive, tau2)
    assert negative.boundary == "closed"
    for plan, seed in ((positive, _seed()), (negative, _seed().model_copy(update={"state": negative.state}))):
        assert "transfer_to_human_agents" in plan.forbidden_tools and "not_escalated()" in [item.describe() for item in plan.expectations]
        task = _task(plan, ONE_LAMP, "negative" if plan is negative else "positive")
        assert _run(tau2, task, seed)[0].passed
        assert not _run(tau2, task, seed, agent="", calls=TRANSFER)[0].passed


def test_a_refusal_among_other_parts_fails_a_hand_over_about_its_own_order(tau2):
    """Family 6: where the request has other parts (another order's return), a hand-over about the task's own order
    still fails the refusal (its reason names the order); one about the other part is not code's to judge."""
    from taskgen.domains.retail import RetailDomain

    domain = RetailDomain(tau2)
    two = ONE_LAMP + " I also want to return the water bottle."
    session = Session(session_id="s", turns=[Turn(role="user", text=two, source="traces")], entity_ids={"customer": ["c1"]})
    positive = domain.plan_positive(session, Classification(intent="exchange", outcome="resolved", evidence=[], signature="s"), _seed(), ACTOR, tau2)
    negative = domain.plan_negative(two, "exchange", _seed(), ACTOR, positive, tau2)
    assert negative.boundary == "closed" and "transfer_to_human_agents" not in negative.forbidden_tools
    assert "not_escalated(order_id=#W1234567)" in [item.describe() for item in negative.expectations]


def test_a_prompt_giving_only_the_opaque_account_id_says_the_customers_name(tau2):
    """Family 4: 'I am cust_019f6362b3 living in Austin TX 78701' (the source said 'noah_ito_3850', a name the stand-in
    hides): the prompt adds the requester's full name from the seed, so the agent can verify them by name and zip; the
    identity negative's customer then gives neither the zip nor the account id."""
    from taskgen.domains.retail import RetailDomain
    from taskgen.domains.retail.identity import gives_identity

    zip_code = "78701"
    state = _seed().state
    row = {**state["customer"]["c1"], "name": {"first_name": "Ada", "last_name": "Quill"}, "zip_code": zip_code}
    seed = _seed().model_copy(update={"state": {**state, "customer": {"c1": row}}})
    words = f"I am user c1 living in Austin TX {zip_code}. I want to know the status of order #W1234567."
    domain = RetailDomain(tau2)
    session = Session(session_id="s", turns=[Turn(role="user", text=words, source="traces")], entity_ids={"customer": ["c1"], "order": ["#W1234567"]})
    plan = domain.plan_positive(session, Classification(intent="order_status", outcome="resolved", evidence=[], signature="s"), seed, ACTOR, tau2)
    assert plan.words.startswith(f"I am user c1 living in Austin TX {zip_code}. My full name is ") and gives_identity(plan.words, row)
    assert not any("cannot verify who asks" in question for question in plan.review_questions)
    negative = domain.plan_negative(plan.words, "order_status", seed, ACTOR, plan, tau2)
    assert negative.boundary == "identity_not_verified", negative.boundary
    assert zip_code not in negative.prompt and " c1 " not in negative.prompt, negative.prompt


def _paying_with(methods: dict):
    state = _seed().state
    customer = {**state["customer"]["c1"], "payment_methods": methods}
    return _seed().model_copy(update={"state": {**state, "customer": {"c1": customer}}})


def test_an_item_change_no_payment_method_can_pay_is_flagged(tau2):
    """Family 7: the lamp change costs 11.50 more (50.00 -> 61.50); a customer holding only a gift card of 5.00 cannot
    pay it (the product's tool refuses), so the task says so; a balance that covers it, or a card, raises nothing."""
    from taskgen.domains.retail import RetailDomain

    domain = RetailDomain(tau2)
    session = Session(session_id="s", turns=[Turn(role="user", text=ONE_LAMP, source="traces")], entity_ids={"customer": ["c1"]})
    classification = Classification(intent="exchange", outcome="resolved", evidence=[], signature="s")

    def questions(methods: dict) -> list[str]:
        plan = domain.plan_positive(session, classification, _paying_with(methods), ACTOR, tau2)
        assert "items_replaced(items=111, new_items=113, order_id=#W1234567)" in [item.describe() for item in plan.expectations]
        return [question for question in plan.review_questions if "costs 11.50 more" in question]

    assert len(questions({"gift_card_1": {"id": "gift_card_1", "source": "gift_card", "balance": 5.0}})) == 1
    assert questions({"gift_card_1": {"id": "gift_card_1", "source": "gift_card", "balance": 11.5}}) == []
    assert questions({"gift_card_1": {"id": "gift_card_1", "source": "gift_card", "balance": 5.0},
                      "cc_1": {"id": "cc_1", "source": "credit_card"}}) == []


def test_a_review_card_shows_the_seed_facts_a_verdict_depends_on_and_how_the_budget_was_set(tau2):
    """Family 7 and presentation: a cold reader sees the customer's payment methods with their balances, each order's
    payment history, the catalogue variants the checks name, and the rule the budget follows."""
    from bench.review_sample import _task_card
    from taskgen.config import BudgetConfig
    from taskgen.draft import budget_rule

    seed = _paying_with({"gift_card_1": {"id": "gift_card_1", "source": "gift_card", "balance": 5.0}})
    plan = _acted_plan(tau2, ONE_LAMP, [LAMP_CALL])
    card = _task_card(_task(plan, ONE_LAMP), seed, budget_rule(BudgetConfig(turns_headroom=2.5, min_turns=6)))
    customer = card["seed"]["customers"]["c1"]
    assert customer["payment_methods"] == ["gift_card_1 (gift_card, balance 5.0)"]
    assert card["seed"]["orders"]["#W1234567"]["payments"] == ["payment None by gift_card_1"]
    assert card["seed"]["catalogue_variants_checked"] == {"113": "Desk Lamp (color black, bulb halogen, 61.5)"}
    assert "times 2.5, at least 6" in card["budget_rule"]


def test_a_reply_content_check_reads_the_value_whatever_its_hyphens_case_and_spacing():
    """Family 8: 'full size' is said 'Full-Size' or 'fullsize' as well; a value is still a word of its own."""
    from taskgen.domains.retail.grader import holds
    from taskgen.domains.retail.grader import expect as check

    def says(text: str, value: str) -> bool:
        return holds(check("reply_contains", value=value), {"reply": {"r1": {"id": "r1", "text": text}}})

    assert all(says(text, "full size") for text in ("It comes Full-Size.", "the fullsize one", "full size, tactile"))
    assert not says("a full one of any size", "full size") and not says("fullsized", "full size")
    assert says("Tracking: 1Z999.", "1Z999") and not says("Tracking: 1Z9990.", "1Z999")


def test_a_question_about_the_requests_other_part_names_no_tool_the_product_lacks(tau2):
    """Presentation: tau2-bench's tools hold no refund tool; the question about the 'refund' part named the demo's
    refund_order 'neither required nor forbidden', a tool the card lists nowhere."""
    words = "I want to return the water bottle in order #W7654321 for a full refund. I also want a refund for my desk lamp."
    returned = ToolCall(name="return_delivered_order_items", arguments={"order_id": "#W7654321", "item_ids": ["222"], "payment_method_id": "cc_1"})
    plan = _acted_plan(tau2, words, [returned], intent="return_label")
    asked = [question for question in plan.review_questions if "also asks for refund" in question]
    assert asked and "refund_order" not in asked[0] and "no tool of the product makes it" in asked[0]


def test_review_questions_say_evidence_and_sources_in_a_reviewers_words(tau2):
    """Presentation: no pipeline tags ('rule:primary_request:1', 'failed:agent_path_untrusted') in questions for a reviewer."""
    from taskgen.plain import plain_evidence

    said = plain_evidence(["meaning:exchange:13", "rule:primary_request:3", "rule:boilerplate_clause:0", "tool:return_delivered_order_items",
                           "keyword:exchange", "rule:fallback_request:4"])
    assert said == ("the nearest labelled example reads it as exchange; clause 4 is the main request; the agent called "
                    "return_delivered_order_items; the keyword 'exchange'; clause 5 is a fallback")
    session = Session(session_id="s", turns=[Turn(role="user", text=ONE_LAMP, source="traces")], entity_ids={"customer": ["c1"]})
    plan = plan_positive(session, Classification(intent="exchange", outcome="failed", evidence=[], signature="s"), _seed(), ACTOR, tau2)
    asked = [question for question in plan.review_questions if "usable resolution" in question]
    assert asked and "agent_path" not in asked[0] and "the agent's own calls, not trusted in a session failed" in asked[0]


def test_an_item_change_the_products_tools_rule_out_for_the_orders_status_is_refused_not_handed_on(tau2):
    """Family 6 (pair 2): tau2-bench exchanges delivered orders and changes pending ones; an exchange of a processed
    order is refused (tau2's own gold: no write, no transfer), by the drafter and the reference agent alike."""
    from taskgen.domains.retail import RetailDomain

    state = _seed().state
    processed = {**state["order"]["#W1234567"], "status": "processed"}
    seed = _seed().model_copy(update={"state": {**state, "order": {**state["order"], "#W1234567": processed}}})
    words = "I want to exchange the desk lamp in order #W1234567 for a camera."
    session = Session(session_id="s", turns=[Turn(role="user", text=words, source="traces")], entity_ids={"customer": ["c1"], "order": ["#W1234567"]})
    plan = RetailDomain(tau2).plan_positive(session, Classification(intent="exchange", outcome="resolved", evidence=[], signature="s"), seed, ACTOR, tau2)
    assert "transfer_to_human_agents" not in plan.required_tools and "transfer_to_human_agents" in plan.forbidden_tools
    assert {"reply_refuses()", "not_escalated()"} <= {item.describe() for item in plan.expectations}
    task = _task(plan, words)
    assert _run(tau2, task, seed)[0].passed
    assert not _run(tau2, task, seed, agent="", calls=TRANSFER)[0].passed
