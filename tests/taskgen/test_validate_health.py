import pytest

from taskgen.health import check_set, health_check, summarize
from taskgen.task import Expectation
from taskgen.validate import validate_set, validate_task


def _tasks_with_seeds(drafted):
    for _, _, seed, pair in drafted:
        yield pair.positive, seed
        yield pair.negative, pair.negative_seed


def _refund_task(drafted):
    return next((row[3].positive, row[2]) for row in drafted if row[0].session_id == "s-refund")


def test_drafted_tasks_validate_cleanly(drafted, domain):
    for task, seed in _tasks_with_seeds(drafted):
        codes = [issue.code for issue in validate_task(task, seed, domain)]
        assert codes == [], (task.task_id, codes)
    assert validate_set([task for task, _ in _tasks_with_seeds(drafted)]) == []


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"expectations": [Expectation(check="refund_exists", args={"order_id": "#W9999999", "amount_cents": 8999})]}, "refund_order_missing"),
        ({"expectations": [Expectation(check="refund_exists", args={"order_id": "#W1000001", "amount_cents": 5000})]}, "refund_amount_mismatch"),
        ({"prompt": "Refund #W7777777 please"}, "prompt_id_missing"),
        # the requester's customer row and every order the task checks must be on the seed (cold review #12)
        ({"actor": {"customer_id": "cus_9999"}}, "requester_missing"),
        ({"target": {"order_id": "#W7777777"}}, "checked_order_missing"),
        ({"expectations": [Expectation(check="order_status", args={"order_id": "#W7777777", "status": "pending"})]}, "checked_order_missing"),
        ({"prompt": "It broke a few days ago, refund #W1000001"}, "vague_relative_date"),
        ({"clock": "", "prompt": "It broke yesterday, refund #W1000001"}, "relative_date_without_clock"),
        ({"expectations": [Expectation(check="teleported")]}, "unknown_check"),
        ({"forbidden_tools": ["refund_order"]}, "tool_conflict"),
        # a check with an empty argument cannot judge (address_equals(address=) on an emptied seed field)
        ({"expectations": [Expectation(check="address_equals", args={"customer_id": "cus_1001", "address": ""})]}, "empty_argument"),
        ({"expectations": [Expectation(check="any_of", any_of=[Expectation(check="address_equals", args={"customer_id": "cus_1001", "address": " "})])]},
         "empty_argument"),
    ],
)
def test_validator_catches_each_issue(drafted, domain, change, code):
    task, seed = _refund_task(drafted)
    issues = validate_task(task.model_copy(update=change), seed, domain)
    assert code in [issue.code for issue in issues]
    assert all("kettle" not in issue.message and "Hi," not in issue.message for issue in issues)


def test_validate_set_catches_label_problems(drafted):
    pair = next(row[3] for row in drafted if row[0].session_id == "s-rollback")
    twins = [pair.positive, pair.negative.model_copy(update={"polarity": "positive"})]
    assert "pair_polarity" in [issue.code for issue in validate_set(twins)]
    mixed = [pair.positive, pair.negative.model_copy(update={"set": "capability"})]
    assert {"pair_set_differs", "set_label"} <= {issue.code for issue in validate_set(mixed)}


def _checked(drafted):
    pairs = list(_tasks_with_seeds(drafted))
    tasks = [task for task, _ in pairs]
    seeds = {seed.seed_id: seed for _, seed in pairs}
    return tasks, seeds


def test_reference_passes_every_task_but_the_stubs(drafted, domain):
    for task, seed in _tasks_with_seeds(drafted):
        if task.boundary == "none":
            continue
        result = health_check(task, seed, domain)
        assert result.reference_passed, (task.task_id, result.reference_reasons)


def test_cross_replay_flags_pairs_that_accept_the_same_behaviour(drafted, domain):
    tasks, seeds = _checked(drafted)
    results = {result.task_id: result for result in check_set(tasks, seeds, domain)}
    by_session = {row[0].session_id: row[3] for row in drafted}
    # the refund's negative moves delivery out of the window: a refund there fails it, and the decline fails the positive
    refund = by_session["s-refund"]
    assert results[refund.positive.task_id].partner_reference_passed is False
    assert results[refund.negative.task_id].partner_reference_passed is False
    assert results[refund.positive.task_id].verdict == results[refund.negative.task_id].verdict == "works"
    # the rollback's negative crosses a boundary that changes the answer (negatives.discriminates), so the pair discriminates;
    # a pair that accepts the same behaviour is flagged (test_a_negative_that_accepts_the_positives_behaviour_flags_the_pair)
    rollback = by_session["s-rollback"]
    for task in (rollback.positive, rollback.negative):
        assert results[task.task_id].verdict == "works"
        assert "pair_not_discriminating" not in results[task.task_id].flags


def test_a_negative_that_accepts_the_positives_behaviour_flags_the_pair(drafted, domain):
    pair = next(row[3] for row in drafted if row[0].session_id == "s-cancel")
    either = Expectation(check="any_of", any_of=[Expectation(check="reply_sent"),
                                                 Expectation(check="order_status", args={"order_id": "#W1000002", "status": "cancelled"})])
    lenient = pair.negative.model_copy(update={"expectations": [either], "forbidden_tools": []})
    seeds = {pair.positive.seed_id: drafted[0][2], pair.negative_seed.seed_id: pair.negative_seed}
    honest = check_set([pair.positive, pair.negative], seeds, domain)
    assert [(result.verdict, result.pair_discriminates) for result in honest] == [("works", True), ("works", True)]
    flagged = check_set([pair.positive, lenient], seeds, domain)
    assert [result.partner_reference_passed for result in flagged] == [False, True]
    assert [result.verdict for result in flagged] == ["pair_not_discriminating", "no_discriminating_power"]
    assert all(result.pair_discriminates is False for result in flagged)
    # the lenient negative is passed by a canned reply too (reply_alone_passes), which decides its verdict
    assert [result.flags for result in flagged] == [["pair_not_discriminating"], ["reply_alone_passes", "pair_not_discriminating"]]


def test_stubs_are_kept_out_of_the_figures(drafted, domain):
    tasks, seeds = _checked(drafted)
    results = check_set(tasks, seeds, domain)
    stubs = [task.task_id for task in tasks if task.boundary == "none"]
    assert sorted(stubs) == sorted(row[3].negative.task_id for row in drafted if row[0].session_id == "s-other")  # s-access: its negative is the unverified requester
    assert {result.verdict for result in results if result.task_id in stubs} == {"stub"}
    summary = summarize(results, tasks, version="v-test")
    capability, regression = summary.capability, summary.regression
    # the gift-card question's positive (s-other) is passed by a canned reply: only a judge could tell
    assert (capability.tasks, capability.works, capability.broken, capability.pair_not_discriminating) == (13, 12, 0, 0)
    assert capability.no_discriminating_power == 1
    assert (capability.pairs, capability.stub_pairs, capability.discriminating_pairs) == (7, 1, 6)
    assert capability.discriminating_share == 1.0 and capability.stub_share == round(1 / 7, 4)
    assert (regression.tasks, regression.works, regression.pair_not_discriminating, regression.discriminating_pairs) == (2, 2, 0, 1)


def test_summary_counts_each_verdict_in_its_own_column(drafted, domain):
    tasks, seeds = _checked(drafted)
    task, seed = _refund_task(drafted)
    impossible = task.model_copy(update={"task_id": "broken-pos", "pair_id": "pair-broken",
                                         "expectations": [Expectation(check="refund_exists", args={"order_id": "#W1000001", "amount_cents": 1})]})
    results = check_set([*tasks, impossible], seeds, domain)
    summary = summarize(results, [*tasks, impossible]).capability
    assert (summary.tasks, summary.works, summary.broken) == (14, 12, 1)
    assert summary.pairs == 8 and summary.discriminating_pairs == 6 and summary.discriminating_share == round(6 / 7, 4)


def test_refund_everything_fails_every_negative_and_do_nothing_fails_action_positives(drafted, domain):
    for task, seed in _tasks_with_seeds(drafted):
        result = health_check(task, seed, domain)
        if task.polarity == "negative" and "refund_order" in task.forbidden_tools and task.target:
            assert not result.refund_all_passed, task.task_id
        elif task.required_tools or any(item.check == "reply_sent" for item in task.expectations):
            assert not result.do_nothing_passed, task.task_id


def test_broken_and_powerless_tasks_are_caught(drafted, domain):
    task, seed = _refund_task(drafted)
    impossible = task.model_copy(update={"expectations": [Expectation(check="refund_exists", args={"order_id": "#W1000001", "amount_cents": 1})]})
    assert health_check(impossible, seed, domain).verdict == "broken"
    other = next(row[3].positive for row in drafted if row[0].session_id == "s-other")
    toothless = other.model_copy(update={"expectations": [Expectation(check="no_refund", args={"order_id": "#W1000004"})],
                                         "actor": {"customer_id": "cus_without_orders"}})
    assert health_check(toothless, seed, domain).verdict == "no_discriminating_power"


def test_deleting_negatives_raises_refund_everything_pass_rate(drafted, domain):
    pairs = list(_tasks_with_seeds(drafted))
    results = [health_check(task, seed, domain) for task, seed in pairs]
    tasks = [task for task, _ in pairs]
    with_negatives = summarize(results, tasks, version="v-test")
    refusing = [t for t in tasks if t.polarity == "positive" or ("refund_order" in t.forbidden_tools and t.target)]
    positives = [task for task in tasks if task.polarity == "positive"]
    kept = summarize([r for r in results if r.task_id in {t.task_id for t in refusing}], refusing, version="v-test")
    without = summarize([r for r in results if r.task_id in {t.task_id for t in positives}], positives, version="v-test")
    assert with_negatives.version == "v-test"
    assert without.capability.refund_all_pass_rate > kept.capability.refund_all_pass_rate
    assert with_negatives.regression.tasks == 2 and with_negatives.capability.tasks == 13  # 14 drafted, the stub left out


def test_positives_carry_the_incidents_own_behaviour(drafted):
    pair = next(row[3] for row in drafted if row[0].session_id == "s-cancel")
    behaviour = pair.positive.incident
    assert [(call.name, call.status) for call in behaviour.calls] == [("cancel_order", "error")]
    assert behaviour.reply == "Let me look into that for you." and pair.negative.incident is None


@pytest.mark.parametrize("session_id", ["s-cancel", "s-rollback"])
def test_the_incident_replay_fails_the_positive_of_a_failed_incident(drafted, domain, session_id):
    pair = next(row[3] for row in drafted if row[0].session_id == session_id)
    result = health_check(pair.positive, drafted[0][2], domain)
    assert result.incident_replay_passed is False and "incident_behaviour_passes" not in result.flags


def test_a_positive_the_incidents_own_behaviour_passes_is_flagged(drafted, domain):
    """An errored cancellation whose call had in fact gone through: the positive no longer captures the bug."""
    pair = next(row[3] for row in drafted if row[0].session_id == "s-cancel")
    # (with the reason the customer gave, which the positive checks: "I don't want it anymore")
    succeeded = pair.positive.incident.model_copy(update={"calls": [
        call.model_copy(update={"status": "ok", "arguments": {**call.arguments, "reason": "no longer needed"}}) for call in pair.positive.incident.calls]})
    task = pair.positive.model_copy(update={"incident": succeeded})
    result = health_check(task, drafted[0][2], domain)
    assert result.incident_replay_passed is True
    assert result.flags == ["incident_behaviour_passes"] and result.verdict == "incident_passes"
    resolved = health_check(task.model_copy(update={"outcome": "resolved"}), drafted[0][2], domain)
    assert resolved.incident_replay_passed is True and resolved.verdict == "works"


def test_summary_counts_the_failed_incidents_the_replay_fails(drafted, domain):
    tasks, seeds = _checked(drafted)
    summary = summarize(check_set(tasks, seeds, domain), tasks)
    # capability: the errored cancellation and the failed status lookup (its reply states no status)
    assert (summary.capability.incident_replayed, summary.capability.incident_replay_fails) == (2, 2)
    assert summary.capability.incident_fail_share == 1.0
    assert (summary.regression.incident_replayed, summary.regression.incident_replay_fails) == (1, 1)


def test_a_task_with_validation_issues_is_never_reported_as_working(drafted, domain):
    from taskgen.health import with_issues

    tasks, seeds = _checked(drafted)
    results = check_set(tasks, seeds, domain)
    first = next(index for index, result in enumerate(results) if result.verdict == "works")
    flagged = with_issues(results[first], ["vague_relative_date", "vague_relative_date"])
    assert flagged.verdict == "invalid" and flagged.flags == ["validation:vague_relative_date"]
    assert with_issues(results[first], []) == results[first]
    broken = results[first].model_copy(update={"verdict": "broken", "flags": ["reference_fails"]})
    assert with_issues(broken, ["tool_conflict"]).verdict == "broken"
    before = summarize(results, tasks).capability
    after = summarize([flagged if index == first else result for index, result in enumerate(results)], tasks).capability
    assert (after.works, after.invalid) == (before.works - 1, before.invalid + 1) == (11, 1)


def test_validate_set_names_each_issue_and_its_subject(drafted):
    from taskgen.task import ValidationIssue

    pair = next(row[3] for row in drafted if row[0].session_id == "s-rollback")
    positive, negative = pair.positive, pair.negative
    pid = positive.pair_id
    twins = [positive, negative.model_copy(update={"polarity": "positive"})]
    assert validate_set(twins) == [ValidationIssue(code="pair_polarity", message=f"{pid} has polarities ['positive', 'positive']", subject=pid)]
    for label, value in (("intent", "refund_x"), ("split", "heldout" if positive.split == "dev" else "dev"), ("prompt", "other words")):
        odd = [positive, negative.model_copy(update={label: value})]
        issues = [issue for issue in validate_set(odd) if issue.code != "incident_split_differs"]
        assert issues == [ValidationIssue(code=f"pair_{label}_differs", message=f"{pid} members differ in {label}", subject=pid)], label
    named = [positive, negative.model_copy(update={"prompt": f"{positive.prompt} It is about my order #W1000009."})]
    assert [issue for issue in validate_set(named) if issue.code != "incident_split_differs"] == []  # the moved order named
    shortened = [positive.model_copy(update={"prompt": f"{positive.prompt} It is about my order #W1000009."}), negative]
    assert [issue.code for issue in validate_set(shortened)] == ["pair_prompt_differs"]  # words taken away are other words
    capability = [positive.model_copy(update={"set": "capability"}), negative.model_copy(update={"set": "capability"})]
    assert validate_set(capability) == [
        ValidationIssue(code="set_label", message=f"{task.task_id} comes from a rollback but is not in the regression set", subject=task.task_id)
        for task in capability
    ]
    torn = [positive, negative.model_copy(update={"split": "heldout" if positive.split == "dev" else "dev"})]
    incident = [issue for issue in validate_set(torn) if issue.code == "incident_split_differs"]
    assert incident == [ValidationIssue(code="incident_split_differs", message="tasks of incident INC-9 are in both splits", subject=task.task_id)
                        for task in torn]
    assert validate_set([positive, negative]) == []


def test_validate_task_names_each_issue_exactly(drafted, domain):
    from taskgen.task import ValidationIssue

    task, seed = _refund_task(drafted)
    assert validate_task(task.model_copy(update={"seed_id": "seed-x"}), seed, domain) == [
        ValidationIssue(code="seed_mismatch", message=f"task names seed seed-x, got {seed.seed_id}")]
    assert validate_task(task.model_copy(update={"clock": "2024-05-11T00:00:00Z"}), seed, domain) == [
        ValidationIssue(code="clock_mismatch", message="task clock differs from its seed's frozen clock")]
    assert validate_task(task.model_copy(update={"clock": ""}), seed, domain) == [  # no clock: nothing to compare, "five days ago" unpinned
        ValidationIssue(code="relative_date_without_clock", message="1 relative date(s) but no frozen clock")]
    assert validate_task(task.model_copy(update={"expectations": []}), seed, domain) == [
        ValidationIssue(code="no_expectations", message="task has no end-state expectation")]
    assert validate_task(task.model_copy(update={"forbidden_tools": ["refund_order"]}), seed, domain) == [
        ValidationIssue(code="tool_conflict", message="a tool is both required and forbidden")]
    unmarked = ValidationIssue(code="negative_unmarked", message="a negative must be synthetic and carry a boundary question")
    negative = drafted[0][3].negative
    negative_seed = drafted[0][3].negative_seed
    assert validate_task(negative, negative_seed, domain) == []
    assert validate_task(negative.model_copy(update={"synthetic": False}), negative_seed, domain) == [unmarked]
    assert validate_task(negative.model_copy(update={"boundary_question": None}), negative_seed, domain) == [unmarked]
    assert validate_task(task.model_copy(update={"prompt": "It broke a few days ago and recently, refund #W1000001"}), seed, domain) == [
        ValidationIssue(code="vague_relative_date", message="2 relative date(s) cannot be pinned to a day")]
    assert validate_task(task.model_copy(update={"prompt": "It broke a few days ago, yesterday, refund #W1000001", "clock": ""}), seed, domain) == [
        ValidationIssue(code="relative_date_without_clock", message="2 relative date(s) but no frozen clock")]
    no_clock_seed = seed.model_copy(update={"clock": ""})
    assert [issue.code for issue in validate_task(task.model_copy(update={"prompt": "yesterday, refund #W1000001"}), no_clock_seed, domain)] == [
        "relative_date_without_clock"]
    assert validate_task(task.model_copy(update={"prompt": "It broke yesterday, refund #W1000001"}), seed, domain) == []
    issues = validate_task(task.model_copy(update={"seed_id": "seed-x", "expectations": [], "forbidden_tools": ["refund_order"]}), seed, domain)
    assert [issue.code for issue in issues] == ["no_expectations", "seed_mismatch", "tool_conflict"]  # sorted by code


def test_each_verdict_has_its_own_count_and_an_empty_set_has_zero_rates(drafted, domain):
    tasks, seeds = _checked(drafted)
    results = check_set(tasks, seeds, domain)
    capability = [index for index, task in enumerate(tasks) if task.set == "capability" and results[index].verdict == "works"]
    for index, verdict in zip(capability, ("no_discriminating_power", "incident_passes", "pair_not_discriminating", "broken")):
        results[index] = results[index].model_copy(update={"verdict": verdict, "reference_passed": verdict != "broken",
                                                            "do_nothing_passed": verdict == "no_discriminating_power"})
    summary = summarize(results, tasks)
    assert summary.version == "unreleased"
    counts = summary.capability
    assert (counts.works, counts.no_discriminating_power, counts.incident_passes, counts.pair_not_discriminating, counts.broken) == (8, 2, 1, 1, 1)
    assert (counts.reference_pass_rate, counts.refund_all_pass_rate, counts.do_nothing_pass_rate) == (round(12 / 13, 4), round(2 / 13, 4), round(1 / 13, 4))
    empty = summarize([], [])
    assert empty.capability.reference_pass_rate == empty.capability.discriminating_share == empty.regression.stub_share == 0.0
    assert empty.capability.tasks == 0


def test_a_folder_fails_on_a_flagged_task_but_not_on_a_stub(drafted, tmp_path):
    from taskgen.output import write_all
    from taskgen.report import check_folder

    rows = [row for row in drafted if row[0].session_id != "s-rollback"]  # made not to discriminate below
    tasks = [task for row in rows for task in (row[3].positive, row[3].negative)]
    write_all(tmp_path / "ok", "0.1.0", tasks, [row[2] for row in rows] + [row[3].negative_seed for row in rows])
    report = check_folder(tmp_path / "ok")
    other = next(row[3].positive.task_id for row in rows if row[0].session_id == "s-other")
    # the stub negative fails nothing; the only failure is the question a canned reply passes
    assert sum(check.health.stub for check in report.checks) == 1
    assert [check.task.task_id for check in report.checks if check.issues or (check.health.flags and not check.health.stub)] == [other]
    assert report.summary.capability.works == 12
    rollback = next(row[3] for row in drafted if row[0].session_id == "s-rollback")
    # its negative made to accept what the positive's reference does: the pair no longer discriminates
    lenient = rollback.negative.model_copy(update={"expectations": [Expectation(check="reply_sent")], "required_tools": [], "forbidden_tools": []})
    every = [lenient if task.task_id == lenient.task_id else task for row in drafted for task in (row[3].positive, row[3].negative)]
    write_all(tmp_path / "all", "0.1.0", every, [row[2] for row in drafted] + [row[3].negative_seed for row in drafted])
    flagged = check_folder(tmp_path / "all")
    assert flagged.failed and {check.task.pair_id for check in flagged.checks if check.health.flags and not check.health.stub} == {
        next(row[3].positive.pair_id for row in drafted if row[0].session_id == session) for session in ("s-rollback", "s-other")}


def test_health_details_the_reference_reasons_the_greedy_agent_and_the_incident_budget(drafted, domain):
    from taskgen.health import replay
    from ingest.models import ToolCall

    seed = drafted[0][2]
    status = next(row[3].positive for row in drafted if row[0].session_id == "s-status")
    # it only asks for a reply: refunding the customer's orders (the canary too) fails it by changing rows
    assert health_check(status, seed, domain).refund_all_passed is False
    # a visitor's general question touches no order: the greedy agent has nothing to refund (a stub pair)
    visitor = next(row[3].positive for row in drafted if row[0].session_id == "s-other")
    assert health_check(visitor, seed, domain).refund_all_passed is True
    task, _ = _refund_task(drafted)
    impossible = task.model_copy(update={"expectations": [Expectation(check="refund_exists", args={"order_id": "#W1000001", "amount_cents": 1})]})
    assert health_check(impossible, seed, domain).reference_reasons == ["unmet: refund_exists(amount_cents=1, order_id=#W1000001)"]
    assert health_check(task.model_copy(update={"incident": None}), seed, domain).incident_replay_passed is None
    cancel = next(row[3].positive for row in drafted if row[0].session_id == "s-cancel")
    ok_calls = [call.model_copy(update={"status": "ok", "arguments": {**call.arguments, "reason": "no longer needed"}}) for call in cancel.incident.calls]
    slow = cancel.incident.model_copy(update={"calls": ok_calls, "reply": "Your order is cancelled.",
                                              "usage": cancel.budget.model_copy(update={"latency_ms": cancel.budget.latency_ms + 1})})
    assert health_check(cancel.model_copy(update={"incident": slow}), seed, domain).incident_replay_passed is False
    assert health_check(cancel.model_copy(update={"incident": slow.model_copy(update={"usage": cancel.budget})}), seed,
                        domain).incident_replay_passed is True
    failed = ToolCall(name="refund_order", arguments={"order_id": "#W1000001"}, status="error", error="x")
    env = replay([failed, ToolCall(name="send_reply", arguments={"text": "hi"})], seed, domain)
    assert env.calls[0] == failed and "refund" not in {kind for kind, rows in env.state.items() if rows and kind == "refund"}


def test_a_relative_date_count_names_only_the_vague_ones(drafted, domain):
    from taskgen.task import ValidationIssue

    task, seed = _refund_task(drafted)
    changed = task.model_copy(update={"prompt": "It came yesterday and broke a few days ago, refund #W1000001"})
    assert validate_task(changed, seed, domain) == [ValidationIssue(code="vague_relative_date", message="1 relative date(s) cannot be pinned to a day")]


def test_a_negative_crossing_in_the_words_or_only_adding_to_them_is_no_prompt_difference(drafted):
    """A negative whose boundary is in the customer's words says other words; one whose words add a sentence to a
    positive ending in white space only adds to them."""
    pair = next(row[3] for row in drafted if row[0].session_id == "s-rollback")
    positive, negative = pair.positive, pair.negative
    other_words = negative.model_copy(update={"boundary": "identity_not_verified", "prompt": "I cannot say who I am. " + positive.prompt})
    assert validate_set([positive, other_words]) == []
    trailing = positive.model_copy(update={"prompt": positive.prompt + " \n"})
    assert validate_set([trailing, negative.model_copy(update={"prompt": f"{positive.prompt} It is about my order #W1000009."})]) == []


def test_every_check_with_an_empty_argument_is_named_wherever_it_stands(drafted, domain):
    from taskgen.domains.retail.grader import expect
    from taskgen.task import ValidationIssue

    task, seed = _refund_task(drafted)
    blank = expect("address_equals", customer_id="cus_1001", address=" ")
    either = Expectation(check="any_of", any_of=[expect("reply_contains", value=""), *task.expectations[:1]])
    changed = task.model_copy(update={"expectations": [blank, either, *task.expectations]})
    assert [issue for issue in validate_task(changed, seed, domain) if issue.code == "empty_argument"] == [
        ValidationIssue(code="empty_argument", message=f"check {blank.describe()} has an empty argument"),
        ValidationIssue(code="empty_argument", message="check reply_contains(value=) has an empty argument"),
    ]
