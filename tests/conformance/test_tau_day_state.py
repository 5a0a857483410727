"""tau_day.py --day-state: the day's sessions share one shop, so a session reading an order or an account an earlier
session wrote sees the write, exactly as the soundness bench's morning-after state holds it (one `apply_write`)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.check import check_drop
from ingest.config import IngestConfig

PRODUCERS = Path(__file__).resolve().parent / "producers"
sys.path.insert(0, str(PRODUCERS))

from tau_day import apply_write  # noqa: E402

ADDRESS = {"address1": "1 New St", "address2": "", "city": "Town", "state": "TX", "country": "USA", "zip": "11111"}
OLD = {**ADDRESS, "address1": "9 Old St", "zip": "99999"}


def _state(variant: bool) -> tuple[dict, dict]:
    if variant:
        users = {"u_1": {"user_id": "u_1", "name": {"first_name": "A", "last_name": "B"}, "email": "a@b.c", "home_address": OLD}}
        orders = {oid: {"order_ref": oid, "buyer_id": "u_1", "state": "pending", "ship_to": OLD} for oid in ("PO-0000001", "PO-0000002")}
    else:
        users = {"u_1": {"user_id": "u_1", "name": {"first_name": "A", "last_name": "B"}, "email": "a@b.c", "address": OLD}}
        orders = {oid: {"order_id": oid, "user_id": "u_1", "status": "pending", "address": OLD} for oid in ("#W0000001", "#W0000002")}
    return users, orders


def _day(first: str, second: str) -> list[dict]:
    return [
        {"instruction": "Cancel my order.", "actions": [
            {"name": "cancel_pending_order", "arguments": {"order_id": first, "reason": "no longer needed"}},
            {"name": "modify_pending_order_address", "arguments": {"order_id": second, **ADDRESS}},
            {"name": "modify_user_address", "arguments": {"user_id": "u_1", **ADDRESS}}]},
        {"instruction": "Where are my orders?", "actions": [
            {"name": "get_order_details", "arguments": {"order_id": first}},
            {"name": "get_order_details", "arguments": {"order_id": second}},
            {"name": "get_user_details", "arguments": {"user_id": "u_1"}}]},
    ]


@pytest.mark.parametrize("variant", [False, True], ids=["tau", "variant"])
def test_apply_write_changes_status_and_addresses_under_either_schema(variant):
    users, orders = _state(variant)
    first, second = sorted(orders)
    for action in _day(first, second)[0]["actions"]:
        apply_write(action, users, orders)
    status, address, home = ("state", "ship_to", "home_address") if variant else ("status", "address", "address")
    assert orders[first][status] == "cancelled" and orders[first][address] == OLD
    assert orders[second][status] == "pending" and orders[second][address] == ADDRESS
    assert users["u_1"][home] == ADDRESS and set(users["u_1"]) == set(_state(variant)[0]["u_1"])


def _run(tmp_path: Path, variant: bool, *flags: str) -> dict[str, list]:
    users, orders = _state(variant)
    first, second = sorted(orders)
    state = tmp_path / "state"
    state.mkdir(parents=True)
    for name, rows in (("users", users), ("orders", orders), ("products", {})):
        (state / f"{name}.json").write_text(json.dumps(rows), encoding="utf-8")
    (tmp_path / "tasks.json").write_text(json.dumps(_day(first, second)), encoding="utf-8")
    completed = subprocess.run([sys.executable, str(PRODUCERS / "tau_day.py"), str(tmp_path / "tasks.json"), str(state),
                                str(tmp_path / "drop"), *flags], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    sessions = {s.session_id: s for s in check_drop(tmp_path / "drop", IngestConfig()).sessions}
    results = [call.result for call in sessions["tau-1"].tool_calls]
    return [json.loads(r) if isinstance(r, str) else r for r in results]


@pytest.mark.skipif(importlib.util.find_spec("opentelemetry.instrumentation.openai") is None,
                    reason="openllmetry: its packages are not installed (pip install -e '.[conformance]')")
@pytest.mark.parametrize("variant", [False, True], ids=["tau", "variant"])
def test_a_later_session_reads_what_an_earlier_session_wrote(tmp_path, variant):
    from bench.soundness import morning_after

    status, address, home = ("state", "ship_to", "home_address") if variant else ("status", "address", "address")
    first_read, second_read, user_read = _run(tmp_path / "day", variant, "--day-state")
    assert first_read[status] == "cancelled" and second_read[address] == ADDRESS and user_read[home] == ADDRESS
    # what the last session read is the bench's morning-after state: one function applies the writes
    users, orders = _state(variant)
    morning_after(users, orders, _day(*sorted(orders)))
    assert [first_read, second_read, user_read] == [*(orders[oid] for oid in sorted(orders)), users["u_1"]]
    # without the flag (the conformance test's tau tasks, each from its own fresh state) every read is of the day before
    first_read, second_read, user_read = _run(tmp_path / "fresh", variant)
    assert first_read[status] == "pending" and second_read[address] == OLD and user_read[home] == OLD
