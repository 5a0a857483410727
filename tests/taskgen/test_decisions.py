"""A reviewer's decisions survive re-drafting: status, verdict history, edits, versions."""

import json

import pytest
from typer.testing import CliRunner

from ingest.models import canonical_json, sha256_hex
from pipelines.cli.review import review_app
from taskgen import decisions, review
from taskgen.config import TaskgenConfig
from taskgen.draft import draft_pair
from taskgen.output import load_task, write_all
from taskgen.task import Expectation, ReviewEdit, ReviewRecord


def _redrafted(row, domain, **budget):
    """The same session drafted again under other settings (a larger turn budget)."""
    session, classification, seed, _ = row
    config = TaskgenConfig()
    config = config.model_copy(update={"budget": config.budget.model_copy(update=budget)})
    return draft_pair(session, classification, seed, domain, config=config)


@pytest.fixture
def out(drafted, tmp_path):
    tasks = [task for row in drafted for task in (row[3].positive, row[3].negative)]
    seeds = [row[2] for row in drafted] + [row[3].negative_seed for row in drafted]
    write_all(tmp_path, "0.1.0-draft", tasks, seeds)
    return tmp_path


def _path(out, task):
    return out / "tasks" / task.set / f"{task.task_id}.json"


def test_the_same_draft_leaves_the_file_byte_identical(drafted, out):
    positive = drafted[0][3].positive
    review.set_status(out, positive.task_id, "approved", reviewer="ana", force=True)
    before = _path(out, positive).read_bytes()
    task, path = decisions.write_redraft(out, positive, [_path(out, positive)])
    assert path.read_bytes() == before and task.status == "approved"


def test_a_task_filed_before_may_change_existed_is_not_changed_by_an_empty_allowance(drafted, out):
    positive = drafted[0][3].positive
    assert positive.may_change == []
    review.set_status(out, positive.task_id, "approved", reviewer="ana", force=True)
    document = json.loads(_path(out, positive).read_text())
    del document["may_change"]  # as an older version wrote it, its digest over content without the field
    older_content = {key: value for key, value in decisions.drafted_content(positive).items() if key != "may_change"}
    document["drafted_sha256"] = sha256_hex(canonical_json(older_content))
    _path(out, positive).write_text(json.dumps(document))
    task, _ = decisions.write_redraft(out, positive, [_path(out, positive)])
    assert task.version == 1 and task.status == "approved" and not task.changed_since_review


def test_a_changed_draft_keeps_the_verdict_bumps_the_version_and_shows_the_diff(drafted, domain, out):
    positive = drafted[0][3].positive
    review.set_status(out, positive.task_id, "approved", reviewer="ana", force=True)
    again = _redrafted(drafted[0], domain, min_turns=41).positive
    assert again.budget != positive.budget and again.status == "draft" and not again.reviews

    task, _ = decisions.write_redraft(out, again, [_path(out, positive)])

    assert task.status == "approved" and [r.reviewer for r in task.reviews] == ["ana"]
    assert task.version == 2 and task.drafted_sha256 == decisions.drafted_sha256(again)
    assert [change.field for change in task.changed_since_review] == ["budget"]
    change = task.changed_since_review[0]
    assert change.before["turns"] == positive.budget.turns and change.after["turns"] == 41
    assert load_task(_path(out, positive)) == task
    # a second identical re-draft changes nothing more
    assert decisions.write_redraft(out, again, [_path(out, positive)])[0] == task


def test_a_draft_never_reviewed_takes_the_new_content_without_a_change_mark(drafted, domain, out):
    negative = drafted[0][3].negative
    again = _redrafted(drafted[0], domain, min_turns=41).negative
    task, _ = decisions.write_redraft(out, again, [_path(out, negative)])
    assert task.status == "draft" and task.version == 2 and task.budget.turns == 41 and not task.changed_since_review


def test_retired_and_rejected_tasks_stay_so(drafted, domain, out):
    pair = drafted[1][3]
    review.set_status(out, pair.positive.task_id, "retired", reviewer="ana")
    review.set_status(out, pair.negative.task_id, "rejected", reason="boundary unclear", reviewer="ana")
    again = _redrafted(drafted[1], domain, min_turns=41)
    assert decisions.write_redraft(out, again.positive, [_path(out, pair.positive)])[0].status == "retired"
    rejected = decisions.write_redraft(out, again.negative, [_path(out, pair.negative)])[0]
    assert rejected.status == "rejected" and rejected.reviews[-1].reason == "boundary unclear"


def test_a_reject_reason_survives_a_later_approve_and_reviewers_disagree(drafted, out):
    positive = drafted[0][3].positive
    review.set_status(out, positive.task_id, "rejected", reason="expectation unclear", reviewer="ana")
    task = review.set_status(out, positive.task_id, "approved", reviewer="ben", force=True)
    assert [(r.reviewer, r.status, r.reason) for r in task.reviews] == [
        ("ana", "rejected", "expectation unclear"), ("ben", "approved", None)]
    assert task.status == "approved" and decisions.disagreement(task)
    task = review.set_status(out, positive.task_id, "approved", reviewer="ana", force=True)
    assert not decisions.disagreement(task) and len(task.reviews) == 3


def test_a_reviewers_expectations_win_over_a_redraft_and_are_confirmed(drafted, domain, out):
    positive = drafted[0][3].positive
    assert positive.expectations_status == "draft"
    mine = [Expectation(check="no_refund", args={"order_id": "#W1000001"})]
    task = review.edit(out, positive.task_id, ReviewEdit(field="expectations", value=mine, reviewer="ana"))
    assert task.expectations == mine and task.expectations_status == "confirmed"
    assert task.edits[0].drafted == positive.expectations
    review.set_status(out, positive.task_id, "approved", reviewer="ana", force=True)

    again = _redrafted(drafted[0], domain, min_turns=41).positive
    task, _ = decisions.write_redraft(out, again, [_path(out, positive)])
    assert task.expectations == mine and task.expectations_status == "confirmed" and task.status == "approved"
    assert [c.field for c in task.changed_since_review] == ["budget"]


def test_answers_close_review_questions(drafted, out):
    negative = drafted[0][3].negative
    assert decisions.open_questions(negative)
    for question in negative.review_questions:
        task = review.edit(out, negative.task_id, ReviewEdit(field="answer", value="yes", question=question, reviewer="ana"))
    assert not decisions.open_questions(task)
    with pytest.raises(review.ReviewError):
        review.edit(out, negative.task_id, ReviewEdit(field="answer", value="yes", question="not asked", reviewer="ana"))


def test_a_reviewed_task_keeps_its_id_when_the_intent_changes(drafted, out):
    positive = drafted[0][3].positive
    review.set_status(out, positive.task_id, "approved", reviewer="ana", force=True)
    relabelled = positive.model_copy(update={"intent": "other_intent", "task_id": "other_intent-x-pos"})
    task, path = decisions.write_redraft(out, relabelled, [_path(out, positive)])
    assert task.task_id == positive.task_id and task.status == "approved" and task.intent == "other_intent"
    assert [c.field for c in task.changed_since_review] == ["intent"]


def test_an_unreviewed_draft_under_an_older_id_is_replaced(drafted, out):
    positive = drafted[0][3].positive
    relabelled = positive.model_copy(update={"intent": "other_intent", "task_id": "other_intent-x-pos"})
    task, path = decisions.write_redraft(out, relabelled, [_path(out, positive)])
    assert task.task_id == "other_intent-x-pos" and path.is_file() and not _path(out, positive).exists()


def test_decisions_come_back_from_the_store_mirror_when_the_file_is_gone(drafted, domain, out):
    positive = drafted[0][3].positive
    approved = review.set_status(out, positive.task_id, "approved", reviewer="ana", force=True)
    rows = decisions.events(approved)
    _path(out, positive).unlink()
    task, _ = decisions.write_redraft(out, positive, [_path(out, positive)], rows)
    assert task.status == "approved" and task.reviews == approved.reviews and not task.changed_since_review
    _path(out, positive).unlink()
    again = _redrafted(drafted[0], domain, min_turns=41).positive
    task, _ = decisions.write_redraft(out, again, [_path(out, positive)], rows)
    assert task.status == "approved" and [c.field for c in task.changed_since_review] == ["drafted content"]


def test_a_file_with_the_older_single_review_block_loads_as_history(drafted, out):
    positive = drafted[0][3].positive
    document = positive.model_dump(mode="json")
    document["status"] = "approved"
    document["review"] = {"status": "approved", "reason": None, "reviewer": "ana", "at": "2026-11-20T10:00:00Z"}
    _path(out, positive).write_text(json.dumps(document))
    task, _ = decisions.write_redraft(out, positive, [_path(out, positive)])
    assert task.status == "approved" and task.reviews == [ReviewRecord(status="approved", reviewer="ana", at="2026-11-20T10:00:00Z")]


def test_release_refuses_changed_tasks_and_lone_positives_and_pins_versions(drafted, domain, out):
    pair = drafted[0][3]
    runner, where = CliRunner(), ["--out", str(out)]
    assert runner.invoke(review_app, ["approve", pair.positive.task_id, "--force", *where]).exit_code == 0
    lone = runner.invoke(review_app, ["release", "1.0.0", "--notes", "n", *where])
    assert lone.exit_code == 1 and "no approved negative" in lone.output
    assert runner.invoke(review_app, ["approve", pair.positive.pair_id, "--force", *where]).exit_code == 0

    again = _redrafted(drafted[0], domain, min_turns=41).positive
    decisions.write_redraft(out, again, [_path(out, pair.positive)])
    changed = runner.invoke(review_app, ["list", "--changed", *where])
    assert pair.positive.task_id in changed.output and pair.negative.task_id not in changed.output
    refused = runner.invoke(review_app, ["release", "1.0.0", "--notes", "n", *where])
    assert refused.exit_code == 1 and "changed since it was approved" in refused.output

    assert runner.invoke(review_app, ["approve", pair.positive.task_id, "--force", *where]).exit_code == 0
    assert runner.invoke(review_app, ["release", "1.0.0", "--notes", "n", *where]).exit_code == 0
    manifest = json.loads((out / "releases" / "1.0.0" / "manifest.json").read_text())
    assert manifest["tasks"][pair.positive.task_id]["version"] == 2
    assert manifest["tasks"][pair.negative.task_id]["version"] == 1


def test_show_and_list_put_two_reviewers_verdicts_side_by_side(drafted, out):
    positive = drafted[0][3].positive
    runner, where = CliRunner(), ["--out", str(out)]
    assert runner.invoke(review_app, ["reject", positive.task_id, "--reason", "refund amount wrong", "--reviewer", "ana", *where]).exit_code == 0
    assert runner.invoke(review_app, ["approve", positive.task_id, "--force", "--reviewer", "ben", *where]).exit_code == 0
    shown = runner.invoke(review_app, ["show", positive.task_id, *where], env={"COLUMNS": "300"})
    assert "reviewers disagree" in shown.output and "refund amount wrong" in shown.output
    listed = runner.invoke(review_app, ["list", "--disagreements", *where])
    assert positive.task_id in listed.output and drafted[1][3].positive.task_id not in listed.output


def _with_members(task, *members):
    return task.model_copy(update={"provenance": task.provenance.model_copy(update={"session_ids": sorted(members)})})


@pytest.mark.parametrize("oncall_first", [True, False])
def test_near_duplicates_are_the_nightly_samples_whichever_path_writes_last_and_bump_no_version(drafted, tmp_path, oncall_first):
    """The on-call path drafts its session without the day's near-duplicates; the nightly run knows them."""
    positive = drafted[0][3].positive
    own = positive.provenance.session_ids[0]
    nightly, oncall = _with_members(positive, own, "sess-duplicate"), _with_members(positive, own)
    path = [_path(tmp_path, positive)]
    writes = [(oncall, True), (nightly, False)] if oncall_first else [(nightly, False), (oncall, True)]
    for drafted_task, keep in writes:
        task, _ = decisions.write_redraft(tmp_path, drafted_task, path, keep_members=keep)
    assert task.provenance.session_ids == sorted([own, "sess-duplicate"]) and task.version == 1
    # a later nightly sample without the duplicate drops it; the on-call path then keeps it out
    task, _ = decisions.write_redraft(tmp_path, oncall, path)  # the nightly run, its sample now without it
    assert task.provenance.session_ids == [own] and task.version == 1
    assert decisions.write_redraft(tmp_path, oncall, path, keep_members=True)[0].provenance.session_ids == [own]
