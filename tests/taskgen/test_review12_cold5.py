"""Issue #12, fifth cold review of tau2 drafts (families 4-8 and presentation): what the task tells the simulated user
agrees with what it judges, hand-overs follow the policy, and a reviewer reads what the verdict depends on."""

from __future__ import annotations

from test_catalogue_branch import _plan
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
