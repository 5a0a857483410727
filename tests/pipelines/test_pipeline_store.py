"""The store on SQLite and on PostgreSQL: idempotent landing, cursors, incident lookup."""

from datetime import datetime, timezone

import pytest

from demo_world import throwaway_postgres
from ingest.models import QuarantinedRecord, RawRecord, canonical_json, sha256_hex
from pipelines.store.rows import CursorRow, LedgerRow, QuarantineRow, RawRecordRow
from pipelines.store.repository import Store, StoreUnavailable


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(request, tmp_path):
    if request.param == "sqlite":
        store = Store(f"sqlite:///{tmp_path}/store.db", f"sqlite:///{tmp_path}/raw.db")
        yield store
        store.dispose()
        return
    with throwaway_postgres() as url:
        store = Store(url, url)
        yield store
        store.dispose()


def test_each_table_is_read_from_its_own_database(tmp_path):
    """The raw zone's tables live only in the raw database: a call names the table, the store picks."""
    store = Store(f"sqlite:///{tmp_path}/store.db", f"sqlite:///{tmp_path}/raw.db")
    store.land([_record(1)], [], run_id="r1", quarantine_day="2026-11-16")
    assert (store.count(RawRecordRow), store.count(LedgerRow)) == (1, 1)
    assert store.tally(RawRecordRow.source) == {"escalations": 1}
    assert store.values(LedgerRow.sha256) == store.values(RawRecordRow.sha256)
    with pytest.raises(ValueError, match="one query reads one database"):
        store.tally(RawRecordRow.source, LedgerRow.run_id)
    store.dispose()

def _record(n: int, **extra) -> RawRecord:
    payload = {"id": f"esc-{n}", "session_id": f"s-{n % 3}", "reason": "wants a human", **extra}
    return RawRecord(
        source="escalations", kind="escalation", external_id=f"esc-{n}", file="escalations/a.jsonl", position=n,
        occurred_at=datetime(2026, 11, 16, 10, n % 60, tzinfo=timezone.utc), session_id=payload["session_id"],
        payload=payload, sha256=sha256_hex(canonical_json(payload)),
    )


def test_landing_twice_adds_nothing(store):
    records = [_record(n) for n in range(30)]
    bad = [QuarantinedRecord(source="escalations", file="escalations/a.jsonl", position=31, reason="invalid JSON")]
    cursor = CursorRow(source="escalations", file="escalations/a.jsonl", byte_offset=10, line=31, size=10, prefix_sha256="x")
    assert store.land(records, bad, run_id="r1", quarantine_day="2026-11-16", cursors=[cursor]) == 30
    assert store.land(records, bad, run_id="r2", quarantine_day="2026-11-16", cursors=[cursor]) == 0
    assert store.count(RawRecordRow) == 30
    assert store.count(LedgerRow) == 30
    assert store.count(QuarantineRow) == 1
    assert store.cursors("escalations")["escalations/a.jsonl"].line == 31


def test_incident_lookup_by_record_id_session_and_deploy_link(store):
    records = [_record(n) for n in range(6)]
    deploy_payload = {"id": "dep-9", "kind": "rollback", "session_ids": ["s-1", "s-2"]}
    deploy = RawRecord(
        source="deploys", kind="deploy", external_id="dep-9", file="deploys/d.jsonl", position=1,
        occurred_at=datetime(2026, 11, 17, tzinfo=timezone.utc), payload=deploy_payload,
        sha256=sha256_hex(canonical_json(deploy_payload)),
    )
    store.land([*records, deploy], [], run_id="r", quarantine_day="2026-11-16",
               links={deploy.sha256: ["s-1", "s-2"]})
    assert store.resolve_incident("esc-4") == ["s-1"]
    assert store.resolve_incident("s-0") == ["s-0"]
    assert store.resolve_incident("dep-9") == ["s-1", "s-2"]
    assert store.resolve_incident("nope") == []
    assert store.incident_day(["s-1"]) == "2026-11-16"
    assert {r.sha256 for r in store.raw_records_for_sessions(["s-2"])} >= {deploy.sha256}


def test_an_unreachable_store_is_one_line_without_password():
    with pytest.raises(StoreUnavailable) as error:
        Store("postgresql+psycopg2://someone:hunter2@127.0.0.1:1/none", "sqlite:///:memory:")
    assert "hunter2" not in str(error.value) and "\n" not in str(error.value)


def test_a_store_from_an_earlier_version_gains_new_columns(tmp_path):
    url = f"sqlite:///{tmp_path}/store.db"
    Store(url, f"sqlite:///{tmp_path}/raw.db").dispose()
    import sqlite3

    con = sqlite3.connect(tmp_path / "store.db")
    con.execute("ALTER TABLE task DROP COLUMN scope")
    con.commit()
    con.close()
    store = Store(url, f"sqlite:///{tmp_path}/raw.db")
    from pipelines.store.rows import TaskRow

    store.upsert(TaskRow, [dict(task_id="t", day="2026-11-16", session_id="s", task_set="capability", polarity="positive",
                               pair_id="p", seed_id="seed", path="tasks/x.json", sha256="0", issues="[]", health="{}")])
    assert [row.scope for row in store.rows(TaskRow)] == ["nightly"]


def test_purge_removes_raw_records_past_retention_and_keeps_the_ledger(store):
    from datetime import timedelta

    store.land([_record(n) for n in range(4)], [], run_id="r", quarantine_day="2026-11-16")
    assert store.purge_raw(datetime.now(timezone.utc) - timedelta(days=1)) == 0
    assert store.purge_raw(datetime.now(timezone.utc) + timedelta(seconds=1)) == 4
    assert store.count(RawRecordRow) == 0
    assert store.count(LedgerRow) == 4  # a purged record is still known: it is not read again


def test_a_source_of_many_files_lands_in_few_transactions_with_every_cursor(store, tmp_path, monkeypatch):
    """Files are written a batch at a time, not a transaction each; every file still gets its
    cursor, a quarantined line keeps the day its file is named for, and a rerun reads nothing."""
    from datetime import date

    from ingest.config import IngestConfig
    from ingest.demo import generate_drop
    from ingest.readers import list_source_files
    from pipelines.stages.land import land_source

    drop = tmp_path / "drop"
    generate_drop(drop, sessions=30, days=2, seed=5, start=date(2026, 11, 16))
    (drop / "error_logs" / "2026-11-17.log").open("a").write("not a log line at all\n")
    calls = []
    land = store.land
    monkeypatch.setattr(store, "land", lambda *a, **k: (calls.append(1), land(*a, **k))[1])

    files = {source: list_source_files(drop, source) for source in ("tickets", "error_logs")}
    transactions = {}  # store.land calls: one transaction each, per zone
    for source in files:
        first = land_source(store, drop, source, IngestConfig(), run_id="r1", default_day="2026-11-18")
        transactions[source] = len(calls)
        calls.clear()
        assert first.files_read == len(files[source]) and first.new == first.read > 0
        assert set(store.cursors(source)) == {p.relative_to(drop).as_posix() for p in files[source]}
    assert len(files["tickets"]) > 5 and transactions["tickets"] == 1

    bad = [row for row in store.rows(QuarantineRow) if row.file == "error_logs/2026-11-17.log"]
    assert bad and {row.day for row in bad} == {"2026-11-17"}
    again = land_source(store, drop, "tickets", IngestConfig(), run_id="r2", default_day="2026-11-18")
    assert (again.files_read, again.new, again.files_skipped) == (0, 0, len(files["tickets"]))


def test_each_bad_record_of_a_line_is_its_own_quarantine_row(store):
    bad = [QuarantinedRecord(source="traces", file="traces/t.jsonl", position=1, record=n, reason="missing field 'spanId'")
           for n in range(1, 16)]
    store.land([], bad, run_id="r1", quarantine_day="2026-11-16")
    store.land([], bad, run_id="r2", quarantine_day="2026-11-16")
    assert sorted(row.record for row in store.rows(QuarantineRow)) == list(range(1, 16))


def test_a_store_whose_quarantine_key_predates_the_record_still_lands(tmp_path):
    import sqlite3

    con = sqlite3.connect(tmp_path / "store.db")
    con.execute("CREATE TABLE quarantine (source VARCHAR NOT NULL, file VARCHAR NOT NULL, position INTEGER NOT NULL, "
                "reason VARCHAR NOT NULL, sha256 VARCHAR, day VARCHAR NOT NULL, stage VARCHAR NOT NULL, "
                "run_id VARCHAR NOT NULL, PRIMARY KEY (source, file, position, reason))")
    con.commit()
    con.close()
    store = Store(f"sqlite:///{tmp_path}/store.db", f"sqlite:///{tmp_path}/raw.db")
    bad = [QuarantinedRecord(source="traces", file="t.jsonl", position=1, record=n, reason="r") for n in (1, 2)]
    store.land([], bad, run_id="r", quarantine_day="2026-11-16")
    assert len(store.rows(QuarantineRow)) == 1  # the old key keeps one row a line, as that version did
