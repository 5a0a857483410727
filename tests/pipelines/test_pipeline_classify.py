"""classify_day: later contacts come from the landed records of the following days, whether or not
those days have been assembled; the day's run keeps their fingerprint, so a complaint landing later
opens the day again; the store keeps what decided each label."""

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from ingest.models import RawRecord, Turn, canonical_json, sha256_hex
from pipelines.config import AppConfig, StateConfig
from pipelines.stages import contacts, day_records
from pipelines.stages.classify import classify_day
from pipelines.stages.context import RunContext
from pipelines.stages.fingerprint import unchanged_partitions
from pipelines.stages.partition import classifications
from pipelines.store.repository import Store
from pipelines.store.rows import ClassificationRow, RawSessionRow, RunRow

sys.path.insert(0, str(Path(__file__).parents[1] / "taskgen"))
from retail_fixtures import make_session  # noqa: E402

DAY1 = datetime(2026, 11, 16, 15, 0, tzinfo=timezone.utc)
DAY = "2026-11-16"
COMPLAINT = "You told me my refund for #W1000001 was done, nothing arrived!"


def _session(session_id, text, at, agent=None):
    session = make_session(session_id, text, "cus_1001", ["#W1000001"])
    turns = [Turn(role="user", text=text, at=at, source="traces")]
    if agent:
        turns.append(Turn(role="agent", text=agent, at=at + timedelta(minutes=1), source="traces"))
    return session.model_copy(update={"turns": turns, "started_at": at, "ended_at": turns[-1].at})


def _escalation(session_id: str, text: str, at: datetime, position: int) -> RawRecord:
    """A landed escalation whose transcript is the whole session: a record nobody has assembled yet."""
    payload = {"reason": "customer asked for a person", "queue": "tier1", "resolution": None,
               "transcript": [{"role": "user", "text": text, "at": at.isoformat().replace("+00:00", "Z")}]}
    return RawRecord(source="escalations", kind="escalation", external_id=f"esc-{session_id}", file="escalations/e.jsonl",
                     position=position, occurred_at=at, session_id=session_id, payload=payload,
                     sha256=sha256_hex(canonical_json([session_id, payload])))


@pytest.fixture
def world(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACE2TASK_SECRET", "classify-test-secret-of-32-bytes-x")
    store = Store(f"sqlite:///{tmp_path}/store.db", f"sqlite:///{tmp_path}/raw.db")
    config = AppConfig(drop=tmp_path, state=StateConfig(location=str(tmp_path), mapping=tmp_path / "m.yaml"))
    first = _session("s-first", "Refund #W1000001 please, it broke.", DAY1, "Your refund for #W1000001 has been processed.")
    store.upsert(RawSessionRow, [dict(session_id="s-first", day=DAY, body=first.model_dump_json(), assembled_at=DAY1)])
    yield store, config
    store.dispose()


def _land(store, *records):
    store.land(list(records), [], run_id="land", quarantine_day=DAY)


def _outcome(store) -> tuple[str, str]:
    row = store.rows(ClassificationRow, ClassificationRow.session_id == "s-first")[0]
    return row.outcome, row.detail


def test_a_complaint_landed_for_the_next_day_fails_the_first_session_before_that_day_is_assembled(world):
    store, config = world
    _land(store, _escalation("s-later", COMPLAINT, DAY1 + timedelta(days=1), 1))
    classify_day(store, RunContext(config), DAY, only=[])  # the next day has not run: no raw_session row for s-later
    outcome, detail_json = _outcome(store)
    assert outcome == "failed"
    detail = json.loads(detail_json)
    assert {"source": "later_session", "ref": "s-later", "kind": "complaint_language:en", "points_to": "failed"} in detail["signals"]
    assert detail["review_questions"] and "nothing arrived" not in detail_json
    classification = classifications(store, DAY)["s-first"]
    assert classification.review_questions == detail["review_questions"]

    # the next day assembled (its session now in the raw zone, here with other words) changes nothing:
    # the label is the landed records', not the one of whichever days ran before
    later = _session("s-later", "Thanks, all good with #W1000001.", DAY1 + timedelta(days=1))
    store.upsert(RawSessionRow, [dict(session_id="s-later", day="2026-11-17", body=later.model_dump_json(), assembled_at=DAY1)])
    classify_day(store, RunContext(config), DAY, only=[])
    assert _outcome(store) == (outcome, detail_json)


def test_a_contact_outside_the_window_or_about_another_order_does_not_count(world):
    store, config = world
    _land(store, _escalation("s-other", COMPLAINT.replace("W1000001", "W1000009"), DAY1 + timedelta(days=1), 1),
          _escalation("s-late", COMPLAINT, DAY1 + timedelta(days=4), 2))
    classify_day(store, RunContext(config), DAY, only=[])
    assert _outcome(store)[0] == "resolved"


def _finished_run(store, run, run_id):
    settings = run.settings_digest
    started = datetime.now(timezone.utc)
    store.upsert(RunRow, [dict(run_id=run_id, kind="nightly", partition=DAY, scope="nightly", started_at=started,
                               summary=canonical_json({"fingerprint": day_records.streamed_fingerprint(store, DAY, settings),
                                                       "settings": settings}))])
    classify_day(store, run, DAY, only=[], run_id=run_id)
    row = store.rows(RunRow, RunRow.run_id == run_id)[0]
    store.upsert(RunRow, [dict(row.model_dump(), finished_at=datetime.now(timezone.utc))])


def test_a_complaint_about_the_days_order_landing_later_opens_the_day_again(world):
    store, config = world
    run = RunContext(config)
    _finished_run(store, run, "r1")
    assert _outcome(store)[0] == "resolved"
    assert "contacts" in json.loads(store.rows(RunRow, RunRow.run_id == "r1")[0].summary)

    _land(store, _escalation("s-other", COMPLAINT.replace("W1000001", "W1000009"), DAY1 + timedelta(days=1), 1))
    assert unchanged_partitions(store, run, [DAY]) == {DAY}  # a record about another order: nothing to redo

    _land(store, _escalation("s-later", COMPLAINT, DAY1 + timedelta(days=1), 2))
    assert unchanged_partitions(store, run, [DAY]) == set()  # the day's own records did not change; its contacts did
    _finished_run(store, run, "r2")
    assert _outcome(store)[0] == "failed"
    assert unchanged_partitions(store, run, [DAY]) == {DAY}


def test_the_contacts_fingerprint_is_the_one_classification_records(world):
    store, config = world
    run = RunContext(config)
    _land(store, _escalation("s-later", COMPLAINT, DAY1 + timedelta(days=1), 1))
    _finished_run(store, run, "r1")
    recorded = json.loads(store.rows(RunRow, RunRow.run_id == "r1")[0].summary)["contacts"]
    assert recorded == contacts.contacts_fingerprint(store, config.ingest, run.taxonomy.later_contact_window, DAY)


def test_an_outcome_resting_only_on_the_agents_claim_is_counted_as_uncertain_in_the_coverage(world):
    """The store keeps the outcome's low evidence, and the nightly sample (streamed from the store) counts it."""
    from pipelines.stages.classify import sample_day

    store, config = world
    run = RunContext(config)
    classify_day(store, run, DAY, only=[])
    detail = json.loads(_outcome(store)[1])
    assert detail["outcome_uncertain"] and detail["outcome_uncertain_because"] == ["claimed_success_only"]
    row = next(row for row in sample_day(store, run, DAY, scope="nightly", only=[]).coverage if row.outcome == "resolved")
    assert (row.before, row.uncertain_outcome) == (1, 1)
    assert classifications(store, DAY)["s-first"].outcome_uncertain
