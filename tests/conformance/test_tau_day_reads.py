"""tau_day.py --read-before-write: a look-up before the first write to an order or an account, none where the gold
actions read it already, none before a read or for a key only a read names."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "producers"))

from tau_day import with_reads  # noqa: E402


def test_a_write_to_an_order_or_account_not_yet_read_is_preceded_by_its_look_up():
    gold = [
        {"name": "find_user_id_by_name_zip", "arguments": {"first_name": "A", "last_name": "B", "zip": "1"}},
        {"name": "get_order_details", "arguments": {"order_id": "#W1"}},
        {"name": "modify_pending_order_address", "arguments": {"order_id": "#W1", "zip": "2"}},
        {"name": "modify_pending_order_address", "arguments": {"order_id": "#W2", "zip": "2"}},
        {"name": "modify_user_address", "arguments": {"user_id": "u_1", "zip": "2"}},
        {"name": "cancel_pending_order", "arguments": {"order_id": "#W2", "reason": "no longer needed"}},
    ]
    assert [(a["name"], a["arguments"]) for a in with_reads(gold)] == [
        (gold[0]["name"], gold[0]["arguments"]), (gold[1]["name"], gold[1]["arguments"]), (gold[2]["name"], gold[2]["arguments"]),
        ("get_order_details", {"order_id": "#W2"}), (gold[3]["name"], gold[3]["arguments"]),
        ("get_user_details", {"user_id": "u_1"}), (gold[4]["name"], gold[4]["arguments"]),
        (gold[5]["name"], gold[5]["arguments"]),
    ]
