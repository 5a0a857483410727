"""Issue 13, outcome from the last attempt of each change (cold review: retried calls were misread). An agent whose
first return, refund or cancellation of an order fails and whose retry on the same order succeeds recovered from
the error; a change that succeeded and is followed by a failing one of the same kind on the same order ended in
failure. Sessions shaped like tau2-bench's retail ones (its tool names, order, item and user ids, error messages)."""

from datetime import timedelta

import pytest

from ingest.models import ErrorSignal, Signals, ToolCall, Turn
from taskgen import calls
from taskgen.classify import classify

from retail_fixtures import CLOCK, make_session


@pytest.fixture(scope="module")
def taxonomy(taxonomy):
    """Outcome rules need no meaning model: the keyword taxonomy."""
    return taxonomy.model_copy(update={"examples": {}})


ORDER, OTHER = "#W2378156", "#W4817420"
RETURN = "return_delivered_order_items"


def _call(n, name, order=ORDER, error=None, **arguments):
    """Call n of the session (a second apart), failing with tau2's `error` when given."""
    return ToolCall(name=name, arguments={"order_id": order, **arguments}, at=CLOCK + timedelta(seconds=n),
                    status="error" if error else "ok", error=error)


def _return(n, payment, error=None, order=ORDER):
    return _call(n, RETURN, order, error, item_ids=["4983901480", "7251508981"], payment_method_id=payment)


def _session(text, tool_calls, signals=None, claim="The return of #W2378156 is requested; $265.47 goes back to you."):
    session = make_session("t2", text, "yusuf_rossi_9620", [ORDER], tool_calls, signals)
    return session.model_copy(update={"turns": [session.turns[0], Turn(role="agent", text=claim, source="traces")]})


RETURN_ASK = "You want to return the keyboard and the thermostat of your delivered order #W2378156."
LOOKUP = ToolCall(name="get_order_details", arguments={"order_id": ORDER}, at=CLOCK)


def _done(c):
    return sorted(s.ref for s in c.signals if s.kind == "action_done")


def test_a_return_that_fails_and_succeeds_on_retry_is_a_recovered_error_not_errored(taxonomy):
    retried = [LOOKUP, _return(1, "credit_card_9513926", "Payment method not found"), _return(2, "paypal_3024827")]
    c = classify(_session(RETURN_ASK, retried), taxonomy)
    assert c.outcome == "resolved", c.signals
    assert _done(c) == [f"tool:{RETURN}"]
    assert "traces:calls:2->3:recovered_error" in c.evidence, c.evidence  # counted from 1: the lookup is call 1
    assert not any(s.points_to == "errored" for s in c.signals)
    # a retry on another order makes nothing good: the first order's return ended in error
    elsewhere = [LOOKUP, _return(1, "credit_card_9513926", "Payment method not found"), _return(2, "paypal_3024827", order=OTHER)]
    c = classify(_session(RETURN_ASK, elsewhere), taxonomy)
    assert c.outcome == "errored" and not any("recovered_error" in item for item in c.evidence)
    # nor does a change of another kind on the same order
    exchanged = [_call(1, "exchange_delivered_order_items", error="Non-delivered order cannot be exchanged",
                       item_ids=["4983901480"], new_item_ids=["9025753381"], payment_method_id="paypal_3024827"),
                 _call(2, "modify_pending_order_items", item_ids=["4983901480"], new_item_ids=["9025753381"],
                       payment_method_id="paypal_3024827")]
    assert classify(_session("You want the keyboard in the clicky switch instead.", exchanged), taxonomy).outcome == "errored"
    # a retry that fails too makes nothing good (the demo's errored sessions retry so)
    twice = [_return(1, "credit_card_9513926", "Payment method not found"), _return(2, "paypal_3024827", "Payment method not found")]
    c = classify(_session(RETURN_ASK, twice), taxonomy)
    assert c.outcome == "errored" and "traces:2:failed_tool_calls" in c.evidence, c.evidence
    # a lookup retried on the same order is grouped the same way: its first error was made good
    looked = [_call(1, "get_order_details", error="Order not found"), _call(2, "get_order_details"), _return(3, "paypal_3024827")]
    c = classify(_session(RETURN_ASK, looked), taxonomy)
    assert c.outcome == "resolved" and "traces:calls:1->2:recovered_error" in c.evidence


def test_a_change_that_succeeded_then_failed_on_the_same_order_ended_in_failure(taxonomy):
    cancel = [_call(1, "cancel_pending_order", reason="no longer needed"),
              _call(2, "cancel_pending_order", error="Non-pending order cannot be cancelled", reason="ordered by mistake")]
    c = classify(_session("You want to cancel your pending order #W2378156.", cancel,
                          claim="Order #W2378156 is cancelled."), taxonomy)
    assert c.outcome == "errored" and "traces:1:failed_tool_calls" in c.evidence, c.evidence
    assert _done(c) == []  # the last attempt failed: no change of that kind is claimed by deed
    assert not any("recovered_error" in item for item in c.evidence)


def test_an_error_on_the_last_attempt_still_makes_it_errored_and_a_recovered_one_stays_as_evidence(taxonomy):
    tried = [_return(1, "credit_card_9513926", "Payment method not found"), _return(2, "paypal_3024827"),
             _call(3, "cancel_pending_order", OTHER, "Non-pending order cannot be cancelled", reason="no longer needed")]
    c = classify(_session(RETURN_ASK, tried), taxonomy)
    assert c.outcome == "errored"
    assert "traces:calls:1->2:recovered_error" in c.evidence
    failed = next(s for s in c.signals if s.kind == "failed_tool_calls")
    assert failed.ref == "1"  # the cancellation only: the return's first error was made good
    only_cancel = classify(_session(RETURN_ASK, [tried[2]]), taxonomy)
    assert c.signature.split(":")[2] == only_cancel.signature.split(":")[2]  # the same errored detail: tool:cancel_pending_order


def test_a_recovered_calls_own_span_error_is_recovered_with_it_but_not_another_services_error_log(taxonomy):
    """A failed tool span is also a span error and an error from the traces (its status message, at its start):
    the same failure, made good with the call. An error log of a service is a source of its own."""
    first = _return(1, "credit_card_9513926", "Payment method not found")
    own = ErrorSignal(at=first.at, message="Payment method not found", source="traces")
    c = classify(_session(RETURN_ASK, [first, _return(2, "paypal_3024827")], Signals(errors=[own], span_errors=1)), taxonomy)
    assert c.outcome == "resolved" and "traces:calls:1->2:recovered_error" in c.evidence, c.signals
    logged = ErrorSignal(at=first.at, message="payments: gateway timeout after 3000 ms", source="error_logs")
    c = classify(_session(RETURN_ASK, [first, _return(2, "paypal_3024827")], Signals(errors=[own, logged], span_errors=1)),
                 taxonomy)
    assert c.outcome == "errored" and [s.kind for s in c.signals if s.points_to == "errored"] == ["error_logs"]
    other_span = ErrorSignal(at=first.at + timedelta(seconds=5), message="model call failed", source="traces")
    c = classify(_session(RETURN_ASK, [first, _return(2, "paypal_3024827")], Signals(errors=[own, other_span], span_errors=2)),
                 taxonomy)
    assert {(s.kind, s.ref) for s in c.signals if s.points_to == "errored"} == {("error_logs", "1"), ("span_errors", "1")}


def test_attempts_are_grouped_by_order_and_kind_and_the_last_one_decides(taxonomy):
    tried = [LOOKUP, _return(1, "a", "Payment method not found"), _return(2, "b"), _return(3, "c", "Non-delivered order"),
             _return(4, "d", order=OTHER), _return(5, "e", "Payment method not found"), _return(6, "f")]
    session = _session(RETURN_ASK, tried)
    groups = calls.attempts(session, taxonomy)
    assert [(g.target, g.kind, g.indexes) for g in groups] == [
        (ORDER, "get_order_details", (0,)), (ORDER, RETURN, (1, 2, 3, 5, 6)), (OTHER, RETURN, (4,))]
    ours = groups[1]
    assert ours.ok and ours.recovered == (1, 3, 5) and ours.errors == () and ours.recovered_by == 6
    assert not groups[0].changes_state and groups[1].changes_state
    assert calls.carried_out(groups) == [RETURN]
    ended = calls.attempts(_session(RETURN_ASK, tried[:4]), taxonomy)[1]
    assert not ended.ok and ended.recovered == (1,) and ended.errors == (3,) and ended.recovered_by == 2
    assert calls.unrecovered_errors(calls.attempts(_session(RETURN_ASK, tried[:4]), taxonomy)) == [3]
    never = calls.attempts(_session(RETURN_ASK, [tried[1], tried[3]]), taxonomy)[0]  # every attempt failed
    assert not never.ok and never.recovered == () and never.errors == (0, 1) and never.recovered_by is None
    user = ToolCall(name="modify_user_address", arguments={"user_id": "yusuf_rossi_9620", "zip": "19122"})
    assert calls.target(user) == "yusuf_rossi_9620" and calls.target(ToolCall(name="think")) is None


def test_attempts_on_orders_under_the_products_own_argument_name_are_told_apart(taxonomy):
    """Another product names the argument `orderNumber`: the ids the session names (found by the configured
    entity patterns) say which order each call acts on, so a failed cancellation of one order is not made good
    by a successful one of another (without them, both calls had no target and the second decided for both)."""
    def cancel(n, order, error=None):
        return ToolCall(name="cancel_pending_order", arguments={"orderNumber": order, "reason": "no longer needed"},
                        at=CLOCK + timedelta(seconds=n), status="error" if error else "ok", error=error)

    session = make_session("t3", "Please cancel my orders #W2378156 and #W4817420.", "yusuf_rossi_9620", [ORDER, OTHER],
                           [cancel(1, ORDER, "Order is not pending"), cancel(2, OTHER)])
    groups = calls.attempts(session, taxonomy)
    assert [(g.target, g.indexes) for g in groups] == [(ORDER, (0,)), (OTHER, (1,))]
    assert calls.unrecovered_errors(groups) == [0]
