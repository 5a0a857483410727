"""A day assembled a chunk of sessions at a time, from the store's queries, is the day assembled
at once from its records (the records of the day and everything one link away)."""

from datetime import date

import pytest

from ingest.assemble import assemble_sessions
from ingest.config import IngestConfig
from ingest.demo import generate_drop
from ingest.models import SOURCES, QuarantinedRecord, Session
from pipelines.stages import day_records
from pipelines.stages.land import land_source
from pipelines.stages.partition import raw_sessions
from pipelines.stages.windows import hours_of, landed_counts, landed_hours
from pipelines.store.repository import day_of
from pipelines.store.rows import RawLinkRow, RawRecordRow, RawSessionRow

from test_pipeline_store import store  # noqa: F401 - the store fixture, on SQLite and on PostgreSQL


def _one_link_away(rows, links, day):
    """The records a day's assembly reads, found in Python over every record."""
    found = {r.sha256 for r in rows if r.day == day}
    sessions = {r.session_id for r in rows if r.sha256 in found and r.session_id}
    sessions |= {link.session_id for link in links if link.sha256 in found}
    traces = {r.trace_id for r in rows if r.sha256 in found and r.trace_id}
    found |= {r.sha256 for r in rows if r.session_id in sessions or r.trace_id in traces}
    threads = {r.thread for r in rows if r.sha256 in found and r.thread}
    found |= {r.sha256 for r in rows if r.thread in threads}
    found |= {link.sha256 for link in links if link.session_id in sessions}
    return sorted(found & {r.sha256 for r in rows})


@pytest.fixture
def landed(store, tmp_path, monkeypatch):  # noqa: F811 - the imported fixture
    generate_drop(tmp_path / "drop", sessions=40, days=2, seed=3, start=date(2026, 11, 16))
    for source in SOURCES:
        land_source(store, tmp_path / "drop", source, IngestConfig(), run_id="t", default_day="2026-11-16")
    monkeypatch.setattr(day_records, "CHUNK", 3)  # many chunks, so sessions meet across them
    return store


def _assemble(store, config, day, by):
    """The day's sessions as the pipeline makes them: its windows (the day, or its 24 hours)
    assembled one by one, then the day's error templates."""
    written, quarantined = 0, []
    for window in ([day] if by == "day" else hours_of(day)):
        n, unclaimed = day_records.assemble_window(store, config, window)
        written, quarantined = written + n, quarantined + unclaimed
    list(day_records.apply_day_templates(store, day, raw_sessions(store, day)))
    return written, sorted({(q.source, q.file, q.position, q.reason): q for q in quarantined}.values(),
                           key=lambda q: (q.source, q.file, q.position, q.reason))


@pytest.mark.parametrize("by", ["day", "hour"])
def test_chunked_days_equal_the_day_assembled_at_once(landed, by):
    config = IngestConfig()
    rows, links = landed.rows(RawRecordRow), landed.rows(RawLinkRow)
    days = sorted({r.day for r in rows if r.day})
    assert len(days) >= 2
    templated = unclaimed = 0
    for day in days:
        hashes = _one_link_away(rows, links, day)
        assert list(day_records.day_hashes(landed, day)) == hashes
        records = [day_records.raw_record(r) for r in rows if r.sha256 in set(hashes)]
        whole = assemble_sessions(records, config)
        expected = [s for s in whole.sessions if day_of(s.started_at or s.ended_at) in (day, None)]
        landed.delete(RawSessionRow)
        written, quarantined = _assemble(landed, config, day, by)
        got = sorted(landed.rows(RawSessionRow), key=lambda r: r.session_id)
        assert written == len(expected)
        assert [Session.model_validate_json(r.body) for r in got] == expected
        assert quarantined == sorted(whole.quarantined, key=lambda q: (q.source, q.file, q.position, q.reason))
        templated += sum(e.template != e.message for s in expected for e in s.signals.errors)
        unclaimed += len(quarantined)
    assert templated and unclaimed  # the drop has templated errors and dangling records to get right


def test_a_day_by_hour_runs_only_the_hours_holding_records(landed):
    rows = landed.rows(RawRecordRow)
    hours = {}
    for r in rows:
        if r.day:
            hours.setdefault(r.day, set()).add(f"{r.day}-{r.occurred_at:%H}:00")
    assert any(len(found) < 24 for found in hours.values())  # else launching every hour would pass too
    for day, found in hours.items():
        assert landed_hours(landed, day) == sorted(found)
    assert landed_hours(landed, "2026-12-25") == []


def test_the_quarantine_check_counts_landings_quarantine_not_assemblys(landed):
    """By hour, an hour's check would otherwise see what the hours assembled before it quarantined."""
    day = "2026-11-16"
    before = landed_counts(landed, "tickets", f"{day}-05:00")
    entry = QuarantinedRecord(source="tickets", file="tickets/x.json", position=1, reason="dangling link: test")
    landed.quarantine([entry], day=day, stage="assemble", run_id="earlier-hour")
    assert landed_counts(landed, "tickets", f"{day}-05:00") == before
    landed.quarantine([entry.model_copy(update={"reason": "not JSON"})], day=day, stage="ingest", run_id="t")
    assert landed_counts(landed, "tickets", f"{day}-05:00")[2] == before[2] + 1


def test_records_a_session_claims_are_not_read_again_for_dangling_links(landed, monkeypatch):
    """Only the records no assembled session holds go to the dangling-link pass (most of a day's
    comments and deploys name no session, and a session holds them)."""
    seen: list[list[str]] = []
    unclaimed = day_records._unclaimed
    monkeypatch.setattr(day_records, "_unclaimed", lambda store, ids, continued: seen.append(ids) or unclaimed(store, ids, continued))
    dangling, claimed_unnamed = 0, set()
    for day in sorted({r.day for r in landed.rows(RawRecordRow) if r.day}):
        seen.clear()
        scan = day_records.scan_window(landed, day)
        landed.delete(RawSessionRow)
        _, quarantined = day_records.assemble_window(landed, IngestConfig(), day, scan)
        (looked_at,) = seen
        claimed = {p.sha256 for row in landed.rows(RawSessionRow) for p in Session.model_validate_json(row.body).provenance}
        assert {q.sha256 for q in quarantined} <= set(looked_at)
        assert not claimed & set(looked_at)
        assert looked_at == sorted(looked_at)
        dangling += len(quarantined)
        claimed_unnamed |= claimed & set(scan.unnamed_records)
    assert dangling and claimed_unnamed  # dangling records found, and sessions that claim records naming none
