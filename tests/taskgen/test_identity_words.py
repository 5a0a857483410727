"""Who is asking, told from the customer's words on a seed of several customers (identity.py), and the
identity negative that changes the words, never only a hidden flag."""

from __future__ import annotations

import pytest

from ingest.models import ToolCall
from taskgen.classify import classify
from taskgen.domains.retail import identity
from taskgen.draft import draft_pair
from taskgen.seeds import freeze_seed

from retail_fixtures import CLOCK, make_session, make_state

# tau-bench's shape of a customer: a name in parts, an e-mail, an address with its zip.
TAU_ROWS = {
    "cust_a": {"name": {"first_name": "Chen", "last_name": "Johnson"}, "email": "chen.johnson4204@example.com",
               "address": {"address1": "503 Elm Street", "city": "Houston", "state": "TX", "zip": "77004"}},
    "cust_b": {"name": {"first_name": "Chen", "last_name": "Silva"}, "email": "chen.silva@example.com",
               "address": {"address1": "2 Oak Road", "city": "Austin", "state": "TX", "zip": "46281"}},
}


@pytest.mark.parametrize(
    ("words", "who"),
    [
        ("Hi, I'm Chen Johnson from Houston TX, 77004. I want to cancel my order.", "cust_a"),
        ("My name is Chen Silva and my email is chen.silva@example.com.", "cust_b"),
        ("My name is Chen Johnson.", None),  # a name alone verifies no one
        ("I'm Chen, zip 77004.", None),  # a zip without the full name neither
        ("My name is Chen Johnson; my order id is 9977004123.", None),  # the zip inside a longer number is no zip
        ("It's chen.johnson4204@example.com here.", "cust_a"),  # an e-mail alone, as tau2-bench's policy allows
        ("My name is Chen Silva and my email is chen.silva@example.co.uk.", None),  # an e-mail that is not theirs
    ],
)
def test_a_customer_is_identified_by_email_or_full_name_and_zip(words, who):
    assert identity.identified_customer(words, TAU_ROWS) == who


def test_two_customers_that_fit_the_words_identify_neither():
    twin = {**TAU_ROWS, "cust_c": {**TAU_ROWS["cust_a"], "email": "other@example.com"}}
    assert identity.identified_customer("Hi, I'm Chen Johnson from Houston TX, 77004.", twin) is None


def test_the_words_without_the_details_identify_no_one_and_say_why():
    words = "Hi, I'm Chen Johnson from Houston TX, 77004. I want to cancel my order."
    changed = identity.without_identity(words, TAU_ROWS["cust_a"])
    assert "77004" not in changed and identity.identified_customer(changed, TAU_ROWS) is None
    assert changed.startswith(identity.CANNOT_SAY) and changed.endswith("I want to cancel my order.")
    greeted = identity.without_identity("Hi, I'm Chen Johnson. I live in Houston, 77004. Cancel my order.", TAU_ROWS["cust_a"])
    assert greeted == f"Hi, I'm Chen Johnson. {identity.CANNOT_SAY} Cancel my order."
    long = "I'm Chen Johnson and my zip is 77004 and I want to cancel order #W1000002 because it came late and I no longer need it at all."
    assert "cancel order #W1000002" in identity.without_identity(long, TAU_ROWS["cust_a"])  # the request is kept


def _words_session(text: str, orders: list[str], calls: list[ToolCall] | None = None):
    """A session that signs no one in (tau2's gold actions write without a look-up): only the words tell who asks."""
    return make_session("s-words", text, None, orders, calls)


def test_a_session_that_signs_no_one_in_takes_the_requester_from_the_words(domain, taxonomy):
    seed = freeze_seed(make_state(), CLOCK)
    said = "My name is Dana Whitfield and my email is dana.whitfield@example.net. Please cancel my order #W1000002."
    session = _words_session(said, ["#W1000002"], [ToolCall(name="cancel_pending_order", arguments={"order_id": "#W1000002"})])
    assert domain.actor(session, seed) == {"customer_id": "cus_1001"}
    assert domain.actor(session) == {}  # without the seed's customers nothing can be told
    pair = draft_pair(session, classify(session, taxonomy), seed, domain)
    assert pair.positive.actor == {"customer_id": "cus_1001"} and pair.positive.required_tools == ["cancel_order"]


def test_the_identity_negative_changes_the_words_so_the_same_rule_refuses(domain, taxonomy):
    seed = freeze_seed(make_state(), CLOCK)
    said = "My name is Dana Whitfield and my email is dana.whitfield@example.net. Please cancel my order #W1000002."
    session = _words_session(said, ["#W1000002"])
    policy = domain.policy.model_copy(update={"boundaries": {**domain.policy.boundaries, "cancellation": ["identity_not_verified"]}})
    pair = draft_pair(session, classify(session, taxonomy), seed, domain, policy=policy)
    negative = pair.negative
    assert negative.boundary == "identity_not_verified" and negative.actor == {}
    assert "dana.whitfield@example.net" not in negative.prompt and identity.CANNOT_SAY in negative.prompt
    assert "cancel my order #W1000002" in negative.prompt
    # the rule read on the negative's own words gives what the negative says: nobody
    assert domain.actor(session.model_copy(update={"turns": [session.turns[0].model_copy(update={"text": negative.prompt})]}), seed) == {}
    assert {"reply_refuses", "not_escalated"} <= {item.check for item in negative.expectations}


def test_a_signed_in_session_keeps_its_words_for_the_identity_negative(domain, taxonomy):
    """The app signed the customer in (its id is in the session): not signed in is the boundary, the words stay."""
    session = make_session("s-in", "Please cancel my order #W1000002.", "cus_1001", ["#W1000002"])
    policy = domain.policy.model_copy(update={"boundaries": {**domain.policy.boundaries, "cancellation": ["identity_not_verified"]}})
    pair = draft_pair(session, classify(session, taxonomy), freeze_seed(make_state(), CLOCK), domain, policy=policy)
    assert pair.negative.boundary == "identity_not_verified" and pair.negative.prompt == pair.positive.prompt and pair.negative.actor == {}
