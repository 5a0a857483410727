"""Outcome evidence and intent scores, compared whole: what the sample's strata and signatures rest on."""

from ingest.models import DeploySignal, ErrorSignal, EscalationSignal, Signals, TicketSignal, ToolCall
from taskgen.classify import _classify_intent, _classify_outcome, classify, reason_category

from retail_fixtures import make_session


def _session(text="hello", calls=(), **signals):
    return make_session("s", text, "cus_1001", [], list(calls), Signals(**signals))


def test_outcome_evidence_and_signature_detail(taxonomy):
    deploys = [DeploySignal(id="dep-2", kind="hotfix"), DeploySignal(id="dep-1", kind="rollback")]
    assert _classify_outcome(_session(deploys=deploys), taxonomy) == (
        "rolled_back", ["deploy:dep-1:rollback", "deploy:dep-2:hotfix"], "dep-1,dep-2")
    escalations = [EscalationSignal(id="e2", reason="Refund refused 3 times"), EscalationSignal(id="e1", reason="angry customer")]
    assert _classify_outcome(_session(escalations=escalations), taxonomy) == (
        "escalated", ["escalation:e1", "escalation:e2"], "angry customer,refund refused times")
    failed = [ToolCall(name="cancel_order", status="error"), ToolCall(name="get_order")]
    errors = [ErrorSignal(message="upstream timeout after 300 ms", template="upstream timeout after <*> ms"), ErrorSignal(message="Disk 9 full")]
    assert _classify_outcome(_session(calls=failed, errors=errors, span_errors=2), taxonomy) == (
        "errored", ["error_logs:2", "span_errors:2", "failed_tool_calls:1"], "disk full,upstream timeout after <*> ms,tool:cancel_order")
    assert _classify_outcome(_session(span_errors=1), taxonomy) == ("errored", ["span_errors:1"], "")
    tickets = [TicketSignal(id="T2", status="Reopened", tags=[]), TicketSignal(id="T1", status="open", tags=["Angry", "shipping"])]
    assert _classify_outcome(_session(tickets=tickets), taxonomy) == ("failed", ["ticket:T1:tag:angry"], "tag:angry")
    assert _classify_outcome(_session(tickets=tickets[:1]), taxonomy) == ("failed", ["ticket:T2:status"], "status:reopened")
    calm = [TicketSignal(id="T3", status="solved", tags=["shipping"])]
    assert _classify_outcome(_session(calls=failed[1:], tickets=calm), taxonomy) == ("resolved", ["rule:no_failure_signal"], "get_order")


def test_intent_scores_tools_over_phrases_over_keywords(taxonomy):
    assert _classify_intent(_session("where is my order"), taxonomy) == ("order_status", ["phrase:where is my order", "keyword:where"])
    # one refund keyword (1) loses to a cancel_order call (3)
    assert _classify_intent(_session("refund", [ToolCall(name="cancel_order")]), taxonomy)[0] == "cancellation"
    # a tie goes to the intent listed first in the taxonomy
    assert _classify_intent(_session("refund or cancel"), taxonomy) == ("refund", ["keyword:refund"])
    assert _classify_intent(_session("good morning"), taxonomy) == ("other", ["rule:fallback"])
    subject = make_session("s", "hi", "cus_1001", [], [], Signals(tickets=[TicketSignal(id="T", subject="Password reset")]))
    assert _classify_intent(subject, taxonomy)[0] == "account_access"
    assert _classify_intent(_session("prefunded"), taxonomy)[0] == "other"  # whole words only


def test_reason_category_and_signature(taxonomy):
    assert reason_category("Order #W123 refund of 45.00 refused by agent v2 after two tries today") == "order refund of refused by agent"
    first = classify(_session("refund please", deploys=[DeploySignal(id="dep-1", kind="rollback")]), taxonomy)
    again = classify(_session("refund now", deploys=[DeploySignal(id="dep-1", kind="rollback")]), taxonomy)
    other = classify(_session("refund now", deploys=[DeploySignal(id="dep-2", kind="rollback")]), taxonomy)
    assert first.signature == again.signature != other.signature and first.signature.startswith("refund:rolled_back:")
    assert first.evidence == ["keyword:refund", "deploy:dep-1:rollback"]
