import pytest

from taskgen.health import health_check, summarize
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
        ({"prompt": "It broke a few days ago, refund #W1000001"}, "vague_relative_date"),
        ({"clock": "", "prompt": "It broke yesterday, refund #W1000001"}, "relative_date_without_clock"),
        ({"expectations": [Expectation(check="teleported")]}, "unknown_check"),
        ({"forbidden_tools": ["refund_order"]}, "tool_conflict"),
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


def test_reference_passes_every_task(drafted, domain):
    for task, seed in _tasks_with_seeds(drafted):
        result = health_check(task, seed, domain)
        assert result.reference_passed, (task.task_id, result.reference_reasons)
        assert result.verdict == "works"


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
    toothless = task.model_copy(update={"expectations": [Expectation(check="no_refund", args={"order_id": "#W1000004"})], "required_tools": []})
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
    assert with_negatives.regression.tasks == 2 and with_negatives.capability.tasks == 14
