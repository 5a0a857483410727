from ingest.models import Signals, TicketSignal
from taskgen.classify import classify
from taskgen.config import SamplingConfig
from taskgen.sample import coverage_markdown, stratified_sample

from retail_fixtures import make_session, make_sessions

EXPECTED = {
    "s-refund": ("refund", "resolved"),
    "s-return": ("return_label", "escalated"),
    "s-cancel": ("cancellation", "errored"),
    "s-address": ("address_change", "resolved"),
    "s-status": ("order_status", "failed"),
    "s-access": ("account_access", "escalated"),
    "s-rollback": ("refund", "rolled_back"),
    "s-other": ("other", "resolved"),
}


def test_every_intent_and_outcome_is_classified(taxonomy, sessions):
    got = {session.session_id: (c.intent, c.outcome) for session in sessions for c in [classify(session, taxonomy)]}
    assert got == EXPECTED


def test_evidence_names_rules_not_user_text(taxonomy, sessions):
    rollback = classify(next(s for s in sessions if s.session_id == "s-rollback"), taxonomy)
    assert "deploys:dep-42:rollback" in rollback.evidence
    for session in sessions:
        for item in classify(session, taxonomy).evidence:
            assert item.split(":")[0] in {"meaning", "tool", "phrase", "keyword", "rule", "deploys", "escalations", "error_logs",
                                          "traces", "tickets", "later_session"}


def test_complaint_tag_means_failed(taxonomy):
    session = make_session("s-x", "Where is my order #W1000004?", "cus_1002", ["#W1000004"],
                           signals=Signals(tickets=[TicketSignal(id="T-1", status="solved", tags=["Complaint"])]))
    assert classify(session, taxonomy).outcome == "failed"


def _variants(taxonomy, count, text, outcome_signals=None):
    return [(f"dup-{index:02d}", classify(make_session(f"dup-{index:02d}", text, "cus_1001", [], signals=outcome_signals), taxonomy))
            for index in range(count)]


def test_sampling_covers_every_intent_caps_easy_cells_and_collapses(taxonomy, sessions):
    items = [(session.session_id, classify(session, taxonomy)) for session in sessions + [
        make_session("s-exchange", "Can I swap the kettle for the other colour?", "cus_1001", ["#W1000001"])]]
    # Ten resolved refunds with different tool paths would be ten easy sessions; same text+path collapses them.
    easy = [(f"easy-{i}", classify(make_session(f"easy-{i}", "I want a refund please", "cus_1001", []), taxonomy)) for i in range(10)]
    config = SamplingConfig(easy_cell_cap=1, seed=7)
    sample = stratified_sample(items + easy, config, expected_intents=taxonomy.intent_names)
    assert sample.missing_intents == []
    assert {c.intent for _, c in items} <= {c.intent for sid, c in items + easy if sid in sample.selected}
    refund_resolved = next(row for row in sample.coverage if (row.intent, row.outcome) == ("refund", "resolved"))
    assert refund_resolved.before == 11 and refund_resolved.after == 1
    collapsed = [members for members in sample.members.values() if len(members) == 10]
    assert collapsed and collapsed[0] == sorted(f"easy-{i}" for i in range(10))
    # the ten easy refunds claim nothing and change nothing: their `resolved` has low evidence, and the table says so
    assert refund_resolved.uncertain_outcome == 10 + classify(sessions[0], taxonomy).outcome_uncertain
    assert f"| refund | resolved | 11 | 1 | 0 | {refund_resolved.uncertain_outcome} |" in coverage_markdown(sample)


def test_sampling_is_deterministic_and_weights_failures(taxonomy):
    def distinct(prefix, n, template):
        from ingest.models import ErrorSignal
        return [(f"{prefix}-{i}", classify(make_session(f"{prefix}-{i}", "I want a refund", "cus_1001", [],
                                                        signals=Signals(errors=[ErrorSignal(message="x", template=f"{template}{i}")])), taxonomy))
                for i in range(n)]
    items = distinct("err", 8, "template ")
    config = SamplingConfig(default_quota=2, failure_weight=2.0, seed=3)
    first = stratified_sample(items, config)
    assert first == stratified_sample(list(reversed(items)), config)
    assert len(first.selected) == 4
    assert stratified_sample(items, config.model_copy(update={"seed": 4})).selected != first.selected or len(items) == 4


def test_missing_intent_reported(taxonomy):
    items = [("a", classify(make_sessions()[0], taxonomy))]
    assert "cancellation" in stratified_sample(items, SamplingConfig(), expected_intents=taxonomy.intent_names).missing_intents
