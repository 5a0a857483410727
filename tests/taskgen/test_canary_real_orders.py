"""Issue #12: with the snapshot bringing a customer's other orders, a real order the customer cancelled before the
clock is their canary, so none is made up; one the session names or touches, or one the seed cannot tell, is not."""

from __future__ import annotations

from ingest.models import ToolCall
from retail_fixtures import CLOCK, make_session, make_state
from taskgen.domains.retail.canary import real_canary
from taskgen.domains.retail.schema import RetailSchema
from taskgen.draft import starting_seed


def _with_cancelled() -> dict:
    state = make_state()
    state["order"]["#W1000009"] = dict(state["order"]["#W1000002"], id="#W1000009", status="cancelled")
    state["order_item"]["item_9"] = dict(state["order_item"]["item_2"], id="item_9", order_id="#W1000009")
    return state


def _made_up_owners(seed, state) -> list[str]:
    return sorted(seed.state["order"][order_id]["customer_id"] for order_id in set(seed.state["order"]) - set(state["order"]))


def test_a_real_cancelled_order_the_session_leaves_alone_is_the_customers_canary(domain):
    state = _with_cancelled()
    asks = make_session("s1", "Please refund order #W1000001.", "cus_1001", ["#W1000001"])
    seed = starting_seed(state, CLOCK, domain, session=asks)
    assert _made_up_owners(seed, state) == []  # cus_1001's canary is their own #W1000009; the others' their own orders
    assert seed.state["order"]["#W1000009"] == state["order"]["#W1000009"]
    schema = RetailSchema.from_document(None)
    assert real_canary(schema, state, "cus_1001", {"#W1000001"}) == "#W1000009"  # the cancelled one before #W1000002
    # named by the words, touched by a call, or uncertain: it may be acted on or be other than it reads, so it is not
    # the canary; with every other order of the customer named too, one is made
    named = make_session("s2", "Why was #W1000009 cancelled? And #W1000002, #W1000001?", "cus_1001", [])
    touched = make_session("s3", "Hello", "cus_1001", [], [ToolCall(name="get_order", arguments={"order_id": "#W1000009"}),
                                                            ToolCall(name="get_order", arguments={"order_id": "#W1000002"}),
                                                            ToolCall(name="get_order", arguments={"order_id": "#W1000001"})])
    asks_both = make_session("s4", "Please refund order #W1000001 and #W1000002.", "cus_1001", ["#W1000001", "#W1000002"])
    for session, uncertain in ((named, ()), (touched, ()), (asks_both, ["order #W1000009: changed by a later session's x"])):
        other = starting_seed(state, CLOCK, domain, uncertain=uncertain, session=session)
        assert _made_up_owners(other, state) == ["cus_1001"]


def test_a_real_order_of_any_status_the_session_leaves_alone_is_the_canary_before_a_made_up_copy(domain):
    # cold review of 2026-12-07: seeds holding only the requester's orders got a made-up copy of one of them (no
    # other customer's order to take items from), which reads as a second order of the same things
    state = make_state()
    asks = make_session("s1", "Please refund order #W1000001.", "cus_1001", ["#W1000001"])
    seed = starting_seed(state, CLOCK, domain, session=asks)
    assert "cus_1001" not in _made_up_owners(seed, state)  # #W1000002, which the session leaves alone, is the canary
    assert seed.state["order"]["#W1000002"] == state["order"]["#W1000002"]
    both = make_session("s2", "Please refund #W1000001 and cancel #W1000002.", "cus_1001", ["#W1000001", "#W1000002"])
    assert "cus_1001" in _made_up_owners(starting_seed(state, CLOCK, domain, session=both), state)
