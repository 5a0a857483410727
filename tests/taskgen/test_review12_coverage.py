"""Issue #12, cold review of tau2-bench drafts: what a task needs that its seed or words may not carry (orders,
an address the seed no longer knows, an identity the product can verify) is a review question, never silent."""

from __future__ import annotations

import copy

from retail_fixtures import CLOCK, make_session
from test_schema_roles import _tau_seed


def test_orders_the_task_may_need_but_the_seed_lacks_are_review_questions():
    from taskgen.domains.retail.coverage import missing_orders
    from taskgen.seeds import freeze_seed

    seed = _tau_seed()
    state = copy.deepcopy(seed.state)
    del state["order"]["#W0000002"]  # listed on cus_a's account, never opened by the session
    lacking = freeze_seed(state, CLOCK, domain_schema=seed.domain_schema)
    session = make_session("s-miss", "Where is order #W0000001? And the tracking number of my cancelled order?", "cus_a", ["#W0000001"])
    questions = missing_orders(session, lacking, {"customer_id": "cus_a"})
    assert len(questions) == 1 and "#W0000002" in questions[0] and "account lists" in questions[0]
    named = make_session("s-named", "Cancel order #W0000007 please.", "cus_a", ["#W0000007"])
    assert any("#W0000007" in question and "not in the seed" in question for question in missing_orders(named, lacking, {"customer_id": "cus_a"}))
    assert missing_orders(session, seed, {"customer_id": "cus_a"}) == []


def test_an_address_request_on_a_seed_that_no_longer_knows_the_address_is_a_review_question():
    from taskgen.domains.retail.coverage import unknown_addresses
    from taskgen.seeds import freeze_seed

    seed = _tau_seed()
    state = copy.deepcopy(seed.state)
    state["customer"]["cus_a"]["address"] = None  # emptied: a later session's write, its value as of the clock unknown
    emptied = freeze_seed(state, CLOCK, domain_schema=seed.domain_schema)
    words = "Please change my default address to 5 Birch Lane, Dayton, OH 45402."
    assert any("customer cus_a's address" in question for question in unknown_addresses(words, emptied, {"customer_id": "cus_a"}, None))
    assert unknown_addresses(words, seed, {"customer_id": "cus_a"}, None) == []
    assert unknown_addresses("Where is my order?", emptied, {"customer_id": "cus_a"}, None) == []


def test_a_prompt_giving_only_the_account_id_is_flagged_as_unverifiable(domain, taxonomy):
    from ingest.models import ToolCall
    from taskgen.classify import classify
    from taskgen.draft import draft_pair

    seed = _tau_seed()
    customers = seed.state["customer"]
    other = {**customers["cus_b"], "name": {"first_name": "Marcus", "last_name": "Ollie"}}
    named = seed.model_copy(update={"state": {**seed.state, "customer": {**customers, "cus_b": other}}})
    # the account id and zip, the seed knowing a name no other customer with that zip has: the prompt says it (fifth cold
    # review, family 4), nothing flagged; where cus_b has the same name and zip, the name tells no one: flagged
    for words, start, flagged in (("I am user cus_a living in Dayton OH 45402. I want a refund for order #W0000001, the kettle arrived cracked.", named, False),
                                  ("I am user cus_a living in Dayton OH 45402. I want a refund for order #W0000001, the kettle arrived cracked.", seed, True),
                                  ("I am user cus_a, cus_a@example.net. I want a refund for order #W0000001, the kettle arrived cracked.", seed, False)):
        session = make_session("s-id", words, "cus_a", ["#W0000001"], [ToolCall(name="get_order", arguments={"order_id": "#W0000001"})])
        pair = draft_pair(session, classify(session, taxonomy), start, domain)
        asked = any("only as account cus_a" in question for question in pair.positive.review_questions)
        issues = [issue.code for issue in domain.check_task(pair.positive, start)]
        assert asked == flagged and ("requester_unverifiable" in issues) == flagged, (words, issues)
        assert ("My full name is" in pair.positive.prompt) == ("45402" in words and not flagged)


def test_a_prompt_giving_another_accounts_id_for_the_requester_is_flagged_too():
    from taskgen.domains import get_domain
    from taskgen.domains.retail.coverage import account_id_only

    seed, policy = _tau_seed(), get_domain("retail").policy
    said = "I am cus_b living in Dayton OH 45402. Where is order #W0000001?"
    assert "account cus_b, while the task's requester is cus_a" in (account_id_only(said, seed, {"customer_id": "cus_a"}, policy) or "")
    assert account_id_only("Where is order #W0000001?", seed, {"customer_id": "cus_a"}, policy) is None


def _renamed_seed(order_address: bool = False, **emptied: str):
    """The tau-bench seed under kinds of its own names ('users', 'orders'), its orders keeping their own address
    where `order_address`; `emptied`: kind -> row id whose address is emptied."""
    from taskgen.domains.retail.schema import RetailSchema
    from taskgen.seeds import freeze_seed

    seed = _tau_seed()
    schema = RetailSchema.from_document(seed.domain_schema)
    columns = copy.deepcopy(schema.columns)
    if order_address:
        columns["order"]["address"] = "address"
    schema = schema.model_copy(update={"kinds": {**schema.kinds, "customer": "users", "order": "orders"}, "columns": columns})
    state = {"users": copy.deepcopy(seed.state["customer"]), "orders": copy.deepcopy(seed.state["order"])}
    for kind, row_id in emptied.items():
        state[kind][row_id]["address"] = None
    return freeze_seed(state, CLOCK, domain_schema=schema.document())


def _said(session_id: str, *texts: str, orders: list[str] | None = None):
    from ingest.models import Session, Turn

    return Session(session_id=session_id, turns=[Turn(role="user", text=text, source="traces") for text in texts],
                   entity_ids={"users": ["cus_a"], "orders": orders or []})  # by the product's kinds, as ingest keys them


def test_the_missing_orders_question_names_each_order_once_in_the_words_of_one_or_several():
    from taskgen.domains.retail.coverage import missing_orders

    seed, actor = _renamed_seed(), {"customer_id": "cus_a"}
    assert missing_orders(_said("s-held", "Where is order #W0000001?"), seed, actor) == []  # the seed's kinds read by its schema
    one = missing_orders(_said("s-one", "Cancel order #W0000007 please."), seed, actor)
    assert one == ["Order #W0000007, named by the customer or touched by the agent's calls, is not in the seed: a correct agent "
                   "cannot look it up or change it. Add it to the seed, or reject the task."]
    # an id opening a turn written without its sign, one said twice, and one only the session's entities know
    two = missing_orders(_said("s-two", "Cancel order #W0000007", "W0000008 too, and #W0000007 again.", orders=["#W0000009"]), seed, actor)
    assert two == ["Orders #W0000007, #W0000008, #W0000009, named by the customer or touched by the agent's calls, are not in the "
                   "seed: a correct agent cannot look it up or change it. Add it to the seed, or reject the task."]


def test_the_unheld_orders_question_names_the_accounts_orders_the_seed_lacks():
    from taskgen.domains.retail.coverage import missing_orders

    seed = _renamed_seed()
    del seed.state["orders"]["#W0000001"], seed.state["orders"]["#W0000002"]
    questions = missing_orders(_said("s-acc", "Where are my orders?"), seed, {"customer_id": "cus_a"})
    assert questions == ["The customer's account lists orders #W0000001, #W0000002, which the seed does not hold: an agent that reads "
                         "the account finds an order it cannot open. Does the request need one (an order asked about without its id)? "
                         "Add it to the seed, or reject the task."]
    del seed.state["users"]  # a drop without the customers' table: no account to read
    assert missing_orders(_said("s-acc", "Where are my orders?"), seed, {"customer_id": "cus_a"}) == []


def test_an_order_address_the_seed_no_longer_knows_is_asked_alone_or_with_the_customers():
    from taskgen.domains.retail.coverage import unknown_addresses

    words, actor = "Please change the address of order #W0000001 to 5 Birch Lane, Dayton, OH 45402.", {"customer_id": "cus_a"}
    tail = (" (emptied: its value as of the session is unknown), so no check can tell whether the agent changed it: the task judges "
            "the address change by the reply alone. Restore the address as it stood when the session started, or reject the task.")
    assert unknown_addresses(words, _renamed_seed(order_address=True), actor, "#W0000001") == []
    order_only = _renamed_seed(order_address=True, orders="#W0000001")
    assert unknown_addresses(words, order_only, actor, "#W0000001") == ["The seed does not know order #W0000001's shipping address" + tail]
    assert unknown_addresses(words, order_only, actor, None) == []  # no target order: only the customer's address is read
    both = _renamed_seed(order_address=True, orders="#W0000001", users="cus_a")
    assert unknown_addresses(words, both, actor, "#W0000001") == [
        "The seed does not know customer cus_a's address or order #W0000001's shipping address" + tail]
    # a product keeping no order address: the order's emptiness tells nothing
    assert unknown_addresses(words, _renamed_seed(orders="#W0000001"), actor, "#W0000001") == []


def test_the_unverifiable_requester_question_in_full_for_their_own_id_another_or_both():
    from taskgen.domains import get_domain
    from taskgen.domains.retail.coverage import account_id_only

    seed, policy, actor = _renamed_seed(), get_domain("retail").policy, {"customer_id": "cus_a"}
    own = ("The prompt gives the requester only as account cus_a, without the e-mail address or the full name and zip code a "
           "customer is looked up by: the agent cannot verify who asks. Give the customer those details, or reject the task.")
    other = ("The prompt gives the requester only as account cus_b, while the task's requester is cus_a, without the e-mail "
             "address or the full name and zip code a customer is looked up by: the agent cannot verify who asks. Give the "
             "customer those details, or reject the task.")
    assert account_id_only("I am cus_a. Where is order #W0000001?", seed, actor, policy) == own
    assert account_id_only("I am cus_b. Where is order #W0000001?", seed, actor, policy) == other
    # both ids said: the requester's own is the one they give themselves as
    assert account_id_only("I am cus_b's partner, cus_a. Where is order #W0000001?", seed, actor, policy) == own
    assert account_id_only("I am cus_a, cus_a@example.net. Where is order #W0000001?", seed, actor, policy) is None
    assert account_id_only("I am cus_a, Dana Whitfield, 45402. Where is order #W0000001?", seed, actor, policy) is None
    assert account_id_only("I am cus_c. Where is order #W0000001?", seed, {"customer_id": "cus_c"}, policy) is None  # no such row
    assert account_id_only("I am cus_a's partner, cus_b. Where is order #W0000003?", seed, {"customer_id": "cus_b"}, policy) == (
        own.replace("cus_a", "cus_b"))  # the requester's own id first, whatever the ids' order
    no_accounts = _renamed_seed()
    del no_accounts.state["users"]
    assert account_id_only("I am cus_a. Where is order #W0000001?", no_accounts, actor, policy) is None
    unverified = policy.model_copy(update={"identity_required": False})
    assert account_id_only("I am cus_a. Where is order #W0000001?", seed, actor, unverified) is None  # nothing to verify
