"""classify_day: later contacts come from the raw zone's following days; the store keeps what decided each label."""

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ingest.models import Turn
from pipelines.config import AppConfig, StateConfig
from pipelines.stages.classify import classify_day
from pipelines.stages.context import RunContext
from pipelines.stages.partition import classifications
from pipelines.store.repository import Store
from pipelines.store.rows import ClassificationRow, RawSessionRow

sys.path.insert(0, str(Path(__file__).parents[1] / "taskgen"))
from retail_fixtures import make_session  # noqa: E402

DAY1 = datetime(2026, 11, 16, 15, 0, tzinfo=timezone.utc)


def _session(session_id, text, at, agent=None):
    session = make_session(session_id, text, "cus_1001", ["#W1000001"])
    turns = [Turn(role="user", text=text, at=at, source="traces")]
    if agent:
        turns.append(Turn(role="agent", text=agent, at=at + timedelta(minutes=1), source="traces"))
    return session.model_copy(update={"turns": turns, "started_at": at, "ended_at": turns[-1].at})


def test_a_complaint_next_day_about_the_same_order_fails_the_first_session(tmp_path):
    store = Store(f"sqlite:///{tmp_path}/store.db", f"sqlite:///{tmp_path}/raw.db")
    config = AppConfig(drop=tmp_path, state=StateConfig(location=str(tmp_path), mapping=tmp_path / "m.yaml"))
    first = _session("s-first", "Refund #W1000001 please, it broke.", DAY1, "Your refund has been processed.")
    later = _session("s-later", "You told me my refund for #W1000001 was done, nothing arrived!", DAY1 + timedelta(days=1))
    store.upsert(RawSessionRow, [dict(session_id=s.session_id, day=s.started_at.date().isoformat(),
                                      body=s.model_dump_json(), assembled_at=DAY1) for s in (first, later)])
    classify_day(store, RunContext(config), "2026-11-16", only=[])
    row = store.rows(ClassificationRow, ClassificationRow.session_id == "s-first")[0]
    assert row.outcome == "failed"
    detail = json.loads(row.detail)
    assert {"source": "later_session", "ref": "s-later", "kind": "complaint_language:en", "points_to": "failed"} in detail["signals"]
    assert detail["review_questions"] and "nothing arrived" not in row.detail
    classification = classifications(store, "2026-11-16")["s-first"]
    assert classification.review_questions == detail["review_questions"]
    store.dispose()
