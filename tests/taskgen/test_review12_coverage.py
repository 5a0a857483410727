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
    for words, flagged in (("I am user cus_a living in Dayton OH 45402. I want a refund for order #W0000001, the kettle arrived cracked.", True),
                           ("I am user cus_a, cus_a@example.net. I want a refund for order #W0000001, the kettle arrived cracked.", False)):
        session = make_session("s-id", words, "cus_a", ["#W0000001"], [ToolCall(name="get_order", arguments={"order_id": "#W0000001"})])
        pair = draft_pair(session, classify(session, taxonomy), seed, domain)
        asked = any("only as account cus_a" in question for question in pair.positive.review_questions)
        issues = [issue.code for issue in domain.check_task(pair.positive, seed)]
        assert asked == flagged and ("requester_unverifiable" in issues) == flagged, (words, issues)


def test_a_prompt_giving_another_accounts_id_for_the_requester_is_flagged_too():
    from taskgen.domains import get_domain
    from taskgen.domains.retail.coverage import account_id_only

    seed, policy = _tau_seed(), get_domain("retail").policy
    said = "I am cus_b living in Dayton OH 45402. Where is order #W0000001?"
    assert "account cus_b, while the task's requester is cus_a" in (account_id_only(said, seed, {"customer_id": "cus_a"}, policy) or "")
    assert account_id_only("Where is order #W0000001?", seed, {"customer_id": "cus_a"}, policy) is None
