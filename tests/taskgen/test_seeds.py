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
from retail_fixtures import CLOCK, make_session, make_state
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
    seed = freeze_seed(as_of.state, CLOCK, uncertain=as_of.uncertain)
    pair = draft_pair(session, classify(session, taxonomy), seed, domain)
    assert pair.positive.seed_uncertain == as_of.uncertain == pair.negative.seed_uncertain
    assert any("cannot tell how customer cus_1003 stood" in q for q in pair.positive.review_questions)
    assert any("already holds on the seed" in q for q in pair.positive.review_questions)
    # and the task is refused, not only asked about: a validation issue, so health never calls it working
    from taskgen.validate import validate_task

    assert "satisfied_by_seed" in [issue.code for issue in validate_task(pair.positive, seed, domain)]
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
