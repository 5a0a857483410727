"""Outcome evidence and intent scores, compared whole: what the sample's strata and signatures rest on.

These run on the keyword taxonomy (no labelled examples): the keyword rules are intent's fallback and its
explanation, and outcome needs no meaning model. Intent by meaning is tested in test_classify_meaning.py."""

import pytest

from ingest.models import DeploySignal, ErrorSignal, EscalationSignal, Signals, TicketSignal, ToolCall
from taskgen.classify import OutcomeSignal, _classify_intent, _classify_outcome, classify, reason_category

from retail_fixtures import make_session


@pytest.fixture(scope="module")
def taxonomy(taxonomy):
    return taxonomy.model_copy(update={"examples": {}})


def _session(text="hello", calls=(), **signals):
    return make_session("s", text, "cus_1001", [], list(calls), Signals(**signals))


def _signals(*rows):
    return [OutcomeSignal(source=source, ref=ref, kind=kind, points_to=points_to) for source, ref, kind, points_to in rows]


def test_outcome_evidence_and_signature_detail(taxonomy):
    deploys = [DeploySignal(id="dep-2", kind="hotfix"), DeploySignal(id="dep-1", kind="rollback")]
    assert _classify_outcome(_session(deploys=deploys), taxonomy, "other", ()) == (
        "rolled_back",
        _signals(("deploys", "dep-1", "rollback", "rolled_back"), ("deploys", "dep-2", "hotfix", "rolled_back")),
        "dep-1,dep-2")
    escalations = [EscalationSignal(id="e2", reason="Refund refused 3 times"), EscalationSignal(id="e1", reason="angry customer")]
    assert _classify_outcome(_session(escalations=escalations), taxonomy, "other", ()) == (
        "escalated",
        _signals(("escalations", "e1", "escalation", "escalated"), ("escalations", "e2", "escalation", "escalated")),
        "angry customer,refund refused times")
    failed = [ToolCall(name="cancel_order", status="error"), ToolCall(name="get_order")]
    errors = [ErrorSignal(message="upstream timeout after 300 ms", template="upstream timeout after <*> ms"), ErrorSignal(message="Disk 9 full")]
    assert _classify_outcome(_session(calls=failed, errors=errors, span_errors=2), taxonomy, "cancellation", ()) == (
        "errored",
        _signals(("error_logs", "2", "error_logs", "errored"), ("traces", "2", "span_errors", "errored"),
                 ("traces", "1", "failed_tool_calls", "errored")),
        "disk full,upstream timeout after <*> ms,tool:cancel_order")
    assert _classify_outcome(_session(span_errors=1), taxonomy, "other", ()) == (
        "errored", _signals(("traces", "1", "span_errors", "errored")), "")
    tickets = [TicketSignal(id="T2", status="Reopened", tags=[]), TicketSignal(id="T1", status="open", tags=["Angry", "shipping"])]
    assert _classify_outcome(_session(tickets=tickets), taxonomy, "other", ()) == (
        "failed",
        _signals(("tickets", "T1", "complaint_tag:angry", "failed"), ("tickets", "T2", "negative_status:reopened", "failed")),
        "complaint_tag,negative_status")
    assert _classify_outcome(_session(tickets=tickets[:1]), taxonomy, "other", ()) == (
        "failed", _signals(("tickets", "T2", "negative_status:reopened", "failed")), "negative_status")
    calm = [TicketSignal(id="T3", status="solved", tags=["shipping"])]
    assert _classify_outcome(_session(calls=failed[1:], tickets=calm), taxonomy, "other", ()) == ("resolved", [], "get_order")
    done = [ToolCall(name="refund_order"), ToolCall(name="get_order")]
    assert _classify_outcome(_session(calls=done), taxonomy, "refund", ()) == (
        "resolved", _signals(("traces", "tool:refund_order", "action_done", "resolved")), "get_order,refund_order")


def _intent(session, taxonomy):
    found = _classify_intent(session, taxonomy)
    return found.intent, found.evidence, found.confidence


def test_intent_scores_phrases_over_keywords_and_the_calls_do_not_outvote_the_words(taxonomy):
    assert _intent(_session("where is my order"), taxonomy) == (
        "order_status", ["phrase:where is my order", "keyword:where"], 1.0)
    # the customer asked for a refund, the agent cancelled: the intent is the refund, the cancellation a conflict
    found = _classify_intent(_session("refund", [ToolCall(name="cancel_order")]), taxonomy)
    assert (found.intent, found.executed, found.conflict) == ("refund", ["cancellation"], True)
    # words that match no rule: the calls say what was wanted
    assert _intent(_session("good morning", [ToolCall(name="cancel_order")]), taxonomy)[:2] == (
        "cancellation", ["rule:intent_from_tools", "tool:cancel_order"])
    # a tie goes to the intent listed first in the taxonomy
    assert _intent(_session("refund or cancel"), taxonomy) == ("refund", ["keyword:refund"], 1.0)
    # no rule matched: the fallback, with no confidence at all
    assert _intent(_session("good morning"), taxonomy) == ("other", ["rule:fallback"], 0.0)
    subject = make_session("s", "hi", "cus_1001", [], [], Signals(tickets=[TicketSignal(id="T", subject="Password reset")]))
    assert _intent(subject, taxonomy)[0] == "account_access"
    assert _intent(_session("prefunded"), taxonomy)[0] == "other"  # whole words only


def test_reason_category_and_signature(taxonomy):
    assert reason_category("Order #W123 refund of 45.00 refused by agent v2 after two tries today") == "order refund of refused by agent"
    first = classify(_session("refund please", deploys=[DeploySignal(id="dep-1", kind="rollback")]), taxonomy)
    again = classify(_session("refund now", deploys=[DeploySignal(id="dep-1", kind="rollback")]), taxonomy)
    other = classify(_session("refund now", deploys=[DeploySignal(id="dep-2", kind="rollback")]), taxonomy)
    assert first.signature == again.signature != other.signature and first.signature.startswith("refund:rolled_back:")
    assert first.evidence == ["keyword:refund", "deploys:dep-1:rollback"]
