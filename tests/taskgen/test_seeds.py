from datetime import UTC, date, datetime

from taskgen.seeds import find_relative_phrases, freeze_seed, resolve_relative_dates

from retail_fixtures import CLOCK, make_state


def test_seed_is_content_addressed_and_shared(state):
    first, second = freeze_seed(state, CLOCK), freeze_seed(make_state(), CLOCK)
    assert first.seed_id == second.seed_id and first.seed_id.startswith("seed-") and len(first.seed_id) == 21
    assert first.clock == "2024-05-10T14:00:00Z"
    state["order"]["#W1000001"]["status"] = "cancelled"
    assert freeze_seed(state, CLOCK).seed_id != first.seed_id
    assert freeze_seed(make_state(), datetime(2024, 5, 11, tzinfo=UTC)).seed_id != first.seed_id
    assert freeze_seed(make_state(), CLOCK, domain="travel").seed_id != first.seed_id


def test_seed_does_not_alias_input_state(state):
    seed = freeze_seed(state, CLOCK)
    state["order"].clear()
    assert "#W1000001" in seed.state["order"]


def test_relative_dates_resolve_against_clock():
    text = "It came yesterday; I ordered five days ago, 3 days ago, last week, two weeks ago and last Friday."
    assert resolve_relative_dates(text, CLOCK) == [
        ("yesterday", date(2024, 5, 9)), ("five days ago", date(2024, 5, 5)), ("3 days ago", date(2024, 5, 7)),
        ("last week", date(2024, 5, 3)), ("two weeks ago", date(2024, 4, 26)), ("last Friday", date(2024, 5, 3)),
    ]


def test_vague_phrases_are_found_but_not_resolved():
    text = "I wrote a few days ago and recently again"
    assert find_relative_phrases(text) == ["a few days ago", "recently"]
    assert resolve_relative_dates(text, CLOCK) == []


# ---------------------------------------------------------------- seeds as of the incident
import json as _json

from ingest.models import ToolCall
from retail_fixtures import make_session
from taskgen.seeds import state_as_of_incident


def _morning_after():
    """The state read after the incidents: #W1000002 cancelled by the session, cus_1003 moved."""
    state = make_state()
    state["order"]["#W1000002"]["status"] = "cancelled"
    state["customer"]["cus_1003"]["address"] = "742 Evergreen Terrace, Springfield, OR 97403"
    return state


def test_what_the_agent_saw_before_its_own_write_is_the_seed():
    observed = {**make_state()["order"]["#W1000002"], "items": []}
    session = make_session("s-c", "Please cancel #W1000002.", "cus_1001", ["#W1000002"], [
        ToolCall(name="get_order", arguments={"order_id": "#W1000002"}, result=_json.dumps(observed)),
        ToolCall(name="cancel_order", arguments={"order_id": "#W1000002"}, result={**observed, "status": "cancelled"}),
        ToolCall(name="get_order", arguments={"order_id": "#W1000002"}, result={**observed, "status": "cancelled"}),
    ])
    as_of = state_as_of_incident(session, _morning_after(), CLOCK)
    assert as_of.state["order"]["#W1000002"]["status"] == "processing"
    assert as_of.restored == ["order #W1000002: status"] and as_of.uncertain == []
    assert _morning_after()["order"]["#W1000002"]["status"] == "cancelled"


def test_a_row_the_incident_wrote_before_seeing_it_is_uncertain_and_asked_about(domain, taxonomy):
    from taskgen.classify import classify
    from taskgen.draft import draft_pair

    address = "742 Evergreen Terrace, Springfield, OR 97403"
    session = make_session("s-a", f"I moved. Please update my address to {address}.", "cus_1003", [], [
        ToolCall(name="update_address", arguments={"customer_id": "cus_1003", "address": address}, result={"ok": True}),
    ])
    as_of = state_as_of_incident(session, _morning_after(), CLOCK)
    assert as_of.uncertain == ["customer cus_1003: changed by the incident's own update_address before the agent saw it"]
    # the incident's own write never stays in its seed (cold review 5): the field it set is emptied, its old value unknown
    assert as_of.state["customer"]["cus_1003"]["address"] is None
    assert "customer cus_1003: address (emptied: it held the incident's own update_address)" in as_of.restored
    assert as_of.state["customer"]["cus_1003"]["name"] == make_state()["customer"]["cus_1003"]["name"]
    # seen before the write: the value the agent observed is the seed's, never emptied, nothing uncertain
    seen = {**make_state()["customer"]["cus_1003"], "address": "9 Old Mill Rd, Eugene, OR 97401"}
    looked = make_session("s-b", f"I moved. Please update my address to {address}.", "cus_1003", [], [
        ToolCall(name="get_customer", arguments={"customer_id": "cus_1003"}, result=_json.dumps(seen)),
        ToolCall(name="update_address", arguments={"customer_id": "cus_1003", "address": address}, result={"ok": True}),
    ])
    as_seen = state_as_of_incident(looked, _morning_after(), CLOCK)
    assert as_seen.state["customer"]["cus_1003"]["address"] == "9 Old Mill Rd, Eugene, OR 97401" and as_seen.uncertain == []
    seed = freeze_seed(as_of.state, CLOCK, uncertain=as_of.uncertain)
    pair = draft_pair(session, classify(session, taxonomy), seed, domain)
    assert pair.positive.seed_uncertain == as_of.uncertain == pair.negative.seed_uncertain
    assert any("cannot tell how customer cus_1003 stood" in q for q in pair.positive.review_questions)
    assert not any("already holds on the seed" in q for q in pair.positive.review_questions)
    from taskgen.validate import validate_task

    assert "satisfied_by_seed" not in [issue.code for issue in validate_task(pair.positive, seed, domain)]
    # a structured address (tau-bench's `address` object, written field by field) is emptied the same way
    structured = {"address1": "742 Evergreen Terrace", "city": "Springfield", "state": "OR", "zip": "97403"}
    state = _morning_after()
    state["customer"]["cus_1003"]["address"] = dict(structured)
    written = make_session("s-t", "Move me.", "cus_1003", [], [
        ToolCall(name="modify_user_address", arguments={"user_id": "cus_1003", **structured}, result={"ok": True})])
    assert state_as_of_incident(written, state, CLOCK).state["customer"]["cus_1003"]["address"] is None
    before = freeze_seed(_morning_after() | {"customer": make_state()["customer"]}, CLOCK)
    redrafted = draft_pair(session, classify(session, taxonomy), before, domain)
    assert "satisfied_by_seed" not in [issue.code for issue in validate_task(redrafted.positive, before, domain)]
    assert not any("already holds on the seed" in q for q in redrafted.positive.review_questions)


def test_a_failed_write_leaves_the_row_certain():
    session = make_session("s-f", "Cancel #W1000002", "cus_1001", ["#W1000002"], [
        ToolCall(name="cancel_order", arguments={"order_id": "#W1000002"}, status="error", error="timeout")])
    assert state_as_of_incident(session, make_state(), CLOCK).uncertain == []


def test_a_row_changed_after_the_clock_and_never_seen_is_uncertain():
    state = make_state()
    state["order"]["#W1000001"]["updated_at"] = "2024-05-11T09:00:00Z"
    state["order"]["#W1000002"]["updated_at"] = "2024-05-09T09:00:00Z"
    state["order"]["#W1000004"]["updated_at"] = "2024-05-12T09:00:00Z"
    seen = ToolCall(name="get_order", arguments={"order_id": "#W1000004"}, result=state["order"]["#W1000004"])
    session = make_session("s-u", "Where is #W1000004?", "cus_1002", ["#W1000004"], [seen])
    as_of = state_as_of_incident(session, state, CLOCK, {"order": "updated_at"})
    assert as_of.uncertain == ["order #W1000001: changed after the incident (updated_at 2024-05-11T09:00:00Z)"]
    assert state_as_of_incident(session, state, CLOCK).uncertain == []


def test_an_object_that_only_mentions_an_id_is_not_that_row():
    """A customer's result lists its order ids: the orders' fields are not overwritten by it."""
    customer = {**make_state()["customer"]["cus_1001"], "status": "gold", "orders": ["#W1000001"]}
    session = make_session("s-m", "Hi", "cus_1001", [], [ToolCall(name="get_customer", arguments={"customer_id": "cus_1001"}, result=customer)])
    as_of = state_as_of_incident(session, make_state(), CLOCK)
    assert as_of.state["order"]["#W1000001"]["status"] == "delivered"
    assert as_of.restored == []


def test_seed_uncertainty_changes_the_seed_id():
    assert freeze_seed(make_state(), CLOCK).seed_id != freeze_seed(make_state(), CLOCK, uncertain=["order x: y"]).seed_id


def test_a_write_named_after_the_state_it_needs_tells_the_state_before_it():
    """tau2-bench's agents cancel without looking: `cancel_pending_order` on an order now 'cancelled' says it
    was 'pending'; the row stays listed as uncertain (its other fields)."""
    state = make_state()
    state["order"]["#W1000002"]["status"] = "cancelled"  # the morning after
    state["order"]["#W1000005"]["status"] = "return requested"  # the morning after, too
    state["order"]["#W1000004"]["status"] = "pending (item modified)"
    session = make_session("s-p", "Cancel #W1000002 and return #W1000005", "cus_1001", ["#W1000002", "#W1000005"], [
        ToolCall(name="cancel_pending_order", arguments={"order_id": "#W1000002"}, result={"ok": True}),
        ToolCall(name="return_delivered_order_items", arguments={"order_id": "#W1000005"}, result={"ok": True}),
        ToolCall(name="cancel_order", arguments={"order_id": "#W1000001"}, result={"ok": True}),  # names no state
        ToolCall(name="modify_pending_order_items", arguments={"order_id": "#W1000004"}, result={"ok": True}),
        ToolCall(name="modify_pending_order_address", arguments={"order_id": "#W1000003"}, result={"ok": True}),  # status not its doing
    ])
    as_of = state_as_of_incident(session, state, CLOCK)
    assert as_of.state["order"]["#W1000002"]["status"] == "pending"
    assert as_of.state["order"]["#W1000005"]["status"] == "delivered"
    assert as_of.state["order"]["#W1000004"]["status"] == "pending"
    assert as_of.state["order"]["#W1000001"]["status"] == "delivered"  # untouched: the name says nothing
    assert as_of.state["order"]["#W1000003"]["status"] == "delivered"  # 'delivered' carries no 'modif'
    assert as_of.restored == ["order #W1000002: status (named by the incident's own cancel_pending_order)",
                              "order #W1000004: status (named by the incident's own modify_pending_order_items)",
                              "order #W1000005: status (named by the incident's own return_delivered_order_items)"]
    assert len(as_of.uncertain) == 5


def test_a_later_sessions_write_on_a_row_this_session_never_saw_is_undone_from_the_ledger():
    """tau2-bench retail tasks 60 and 61 both change the earbuds of one pending order: read the morning after,
    the earlier session's target already carries the later one's `modify_pending_order_items`. The day's
    ledger says whose write it is and, by its name, what the row was before it; a write whose name says
    nothing keeps the row flagged instead."""
    from datetime import timedelta

    state = make_state()
    state["order"]["#W1000002"]["status"] = "pending (item modified)"  # the later session's doing
    state["order"]["#W1000001"]["status"] = "refunded"  # a later write whose name tells nothing
    earlier = make_session("s-early", "I want to change the kettle in #W1000002 to a blue one.", "cus_1001", ["#W1000002"], [
        ToolCall(name="get_customer", arguments={"customer_id": "cus_1001"}, result={"ok": True})])
    later = make_session("s-late", "Change the kettle in #W1000002.", "cus_1001", ["#W1000002"], [
        ToolCall(name="modify_pending_order_items", arguments={"order_id": "#W1000002"}, result={"ok": True}),
        ToolCall(name="frobnicate", arguments={"order_id": "#W1000001"}, result={"ok": True}),
        ToolCall(name="get_order", arguments={"order_id": "#W1000003"}, status="ok", result={"ok": True})])
    later = later.model_copy(update={"started_at": CLOCK + timedelta(hours=1)})
    before = later.model_copy(update={"session_id": "s-before", "started_at": CLOCK - timedelta(hours=1)})
    as_of = state_as_of_incident(earlier, state, CLOCK, later_sessions=[earlier, later])
    assert as_of.state["order"]["#W1000002"]["status"] == "pending"
    assert "order #W1000002: status (undone: a later session's modify_pending_order_items)" in as_of.restored
    assert as_of.state["order"]["#W1000001"]["status"] == "refunded"
    assert as_of.uncertain == ["order #W1000001: changed by a later session's frobnicate, which cannot be undone"]
    # a session that ran before the clock is already in what this session saw: nothing of it is undone
    assert state_as_of_incident(earlier, state, CLOCK, later_sessions=[before]).state["order"]["#W1000002"]["status"] == "pending (item modified)"
    # without the ledger, nothing is undone
    assert state_as_of_incident(earlier, state, CLOCK).state["order"]["#W1000002"]["status"] == "pending (item modified)"


def test_a_later_sessions_address_write_on_a_row_this_session_never_saw_is_emptied_and_flagged():
    """A later session of the day moved the customer (the write's arguments are the address the row now
    holds): read the morning after, that address is not the one this session started from."""
    from datetime import timedelta

    address = "742 Evergreen Terrace, Springfield, OR 97403"
    state = make_state()
    state["customer"]["cus_1001"]["address"] = address
    earlier = make_session("s-early", "Where is #W1000002?", "cus_1001", ["#W1000002"])
    later = make_session("s-late", f"Move me to {address}.", "cus_1001", [], [
        ToolCall(name="update_address", arguments={"customer_id": "cus_1001", "address": address}, result={"ok": True})])
    later = later.model_copy(update={"started_at": CLOCK + timedelta(hours=1)})
    as_of = state_as_of_incident(earlier, state, CLOCK, later_sessions=[earlier, later])
    assert as_of.state["customer"]["cus_1001"]["address"] is None
    assert as_of.uncertain == ["customer cus_1001: address held a later session's update_address, emptied: its value as of the clock is unknown"]
