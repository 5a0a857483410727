"""Issue #12 (cold review of 2026-12-07, tau2 task 102): with no order id in the words, an address change asked
beside an exchange on another order is about the order the address was written to, not the last one acted on."""

from __future__ import annotations

from ingest.models import ToolCall
from retail_fixtures import make_session, make_state
from taskgen.domains.retail.plans import target_order
from taskgen.domains.retail.schema import RetailSchema


def _session():
    calls = [ToolCall(name="modify_pending_order_address", arguments={"order_id": "#W1000002", "address1": "1 Main St"}),
             ToolCall(name="exchange_delivered_order_items", arguments={"order_id": "#W1000001", "item_ids": ["1"], "new_item_ids": ["2"]})]
    return make_session("s-two", "Change the address of the order I just placed, and exchange the kettle I got.", "cus_1001", [], calls)


def test_the_target_is_the_last_order_a_call_of_the_intents_own_tools_wrote():
    state, schema = make_state(), RetailSchema.from_document(None)
    session = _session()
    prompt = session.first_user_text()
    assert target_order(session, prompt, state, schema, {"modify_pending_order_address"})[0] == "#W1000002"
    assert target_order(session, prompt, state, schema, {"exchange_delivered_order_items"})[0] == "#W1000001"
    # no call of the intent's own tools: the last order acted on, as before
    assert target_order(session, prompt, state, schema, {"cancel_pending_order"})[0] == "#W1000001"
    assert target_order(session, prompt, state, schema)[0] == "#W1000001"
