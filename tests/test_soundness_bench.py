"""`make soundness` fails loudly, with the reason, when its figures do not measure a whole run."""

import subprocess

from bench.soundness import run_failures


def test_a_failed_pipeline_or_an_empty_run_is_a_reason_to_fail():
    failed = subprocess.CompletedProcess([], 1, stdout="drafting...\nreference_passes_every_task failed: 3 tasks\n", stderr="")
    reasons = run_failures(failed, {"pairs": 0, "sessions_scrubbed": 26})
    assert reasons == ["the pipeline exited 1: reference_passes_every_task failed: 3 tasks",
                       "no pair was drafted from 26 scrubbed sessions"]
    assert run_failures(subprocess.CompletedProcess([], 0, "", ""), {"pairs": 26}) == []
    silent = run_failures(subprocess.CompletedProcess([], 2, "", ""), {"pairs": 3})
    assert silent == ["the pipeline exited 2: it said nothing about why"]


def test_a_cold_reader_sees_each_items_options():
    """Cold review 5: prompts ask for 'the 1000ml bottle' or 'the silicone watch'; the sample showed names only."""
    from bench.review_sample import _item_text

    assert _item_text({"name": "Water Bottle", "options": {"capacity": "1000ml", "color": "red"}}) == "Water Bottle (capacity 1000ml, color red)"
    assert _item_text({"name": "Kettle"}) == "Kettle"


def test_a_cold_reader_sees_prices_and_payment_methods():
    """Cold review 6: 'the seed has no prices, no payment methods' (the seed kept them; the excerpt left them out)."""
    from bench.review_sample import _item_text, _payment_methods

    assert _item_text({"name": "Tablet", "options": {"color": "black"}, "price": 299.5}) == "Tablet (color black, 299.5)"
    assert _item_text({"name": "Kettle", "price": 20}) == "Kettle (20)"
    row = {"payment_methods": {"gift_card_1": {"id": "gift_card_1", "source": "gift_card", "balance": 12}}}
    assert _payment_methods(row) == ["gift_card_1 (gift_card, balance 12)"] and _payment_methods({}) == []


def _one_order_pair(status: str, intent: str, prompt: str):
    """A seed holding one customer's one order in `status`, and the fields a pair's two tasks share about it."""
    from taskgen.seeds import Seed
    from taskgen.task import Budget, TaskProvenance

    seed = Seed(seed_id="seed-x", clock="2026-01-01T00:00:00Z", domain="retail",
                state={"customer": {"c1": {"id": "c1"}}, "order": {"#W1": {"id": "#W1", "customer_id": "c1", "status": status}}})
    common = dict(pair_id="p", set="capability", split="dev", domain="retail", intent=intent, outcome="resolved", prompt=prompt,
                  actor={"customer_id": "c1"}, seed_id="seed-x", clock=seed.clock, budget=Budget(turns=1, tokens=1, latency_ms=1),
                  provenance=TaskProvenance(session_ids=["s"]), target={"order_id": "#W1"})
    return seed, common


def test_a_cold_reader_sees_what_may_change_apart_from_the_checks():
    """Cold review 7: `order_recorded OR reply_sent` read as a check that always passes; an allowance is shown as one."""
    from bench.review_sample import pair_lines
    from taskgen.domains.retail.grader import allow, expect
    from taskgen.task import DraftTask

    seed, common = _one_order_pair("pending", "exchange", "Swap it.")
    positive = DraftTask(task_id="p-pos", polarity="positive", expectations=[expect("reply_sent")],
                         may_change=[allow("order", "#W1", "exchange_items")], **common)
    negative = DraftTask(task_id="p-neg", polarity="negative", expectations=[expect("reply_refuses")], boundary="closed", **common)
    lines = pair_lines(1, positive, negative, {"seed-x": seed})
    assert "- may change (not required, not a check): order #W1: exchange_items" in lines
    assert sum(line.startswith("- may change") for line in lines) == 1  # the negative allows nothing: no line
    assert "- expectations: reply_sent()" in lines


def test_a_cold_reader_sees_a_call_forbidden_on_one_order_as_a_check():
    """Cold review 8: the negative's 'no call on this order' was a line for a judge; it is a check, shown as one."""
    from bench.review_sample import _task_card, pair_lines
    from taskgen.domains.retail.grader import expect
    from taskgen.task import DraftTask, ForbiddenCall

    seed, common = _one_order_pair("processed", "address_change", "Move it.")
    positive = DraftTask(task_id="p-pos", polarity="positive", expectations=[expect("reply_sent")], **common)
    negative = DraftTask(task_id="p-neg", polarity="negative", expectations=[expect("reply_refuses")], boundary="order_in_transit",
                         forbidden_calls=[ForbiddenCall(tool="modify_pending_order_address", args={"order_id": "#W1"})], **common)
    lines = pair_lines(1, positive, negative, {"seed-x": seed})
    shown = [line for line in lines if line.startswith("- forbidden calls")]
    assert shown == ["- forbidden calls (a check: attempted, even refused by the tool, fails the task): modify_pending_order_address(order_id=#W1)"]
    assert _task_card(negative, seed, "")["forbidden_calls"] == ["modify_pending_order_address(order_id=#W1)"]


def test_the_rest_of_a_request_is_the_incidents_writes_on_anything_but_the_tasks_order():
    from types import SimpleNamespace

    from bench.soundness_reading import rest_of_request_calls

    domain = SimpleNamespace(policy=SimpleNamespace(write_tool_names=["return_delivered_order_items", "modify_user_address"]))
    session = {"tool_calls": [
        {"name": "return_delivered_order_items", "arguments": {"order_id": "#W1"}, "status": "ok"},
        {"name": "return_delivered_order_items", "arguments": {"order_id": "#W2"}, "status": "ok"},
        {"name": "return_delivered_order_items", "arguments": {"order_id": "#W3"}, "status": "error"},
        {"name": "get_order_details", "arguments": {"order_id": "#W4"}, "status": "ok"},
        {"name": "modify_user_address", "arguments": {"user_id": "cust_1", "zip": "1"}, "status": "ok"}]}
    calls = rest_of_request_calls(session, "#W1", domain)
    assert [(call.name, call.arguments.get("order_id")) for call in calls] == [("return_delivered_order_items", "#W2"), ("modify_user_address", None)]


def test_a_day_takes_no_task_repeating_a_write_on_an_order_or_an_account_address():
    """tau-bench repeats a scenario in several tasks: as one day of one shop, the repeat would find its request done."""
    from bench.soundness import one_session_per_written_row

    orders = {"#W1": {"user_id": "ann_1"}, "#W2": {"user_id": "ann_1"}, "#W3": {"user_id": "bob_2"}}
    get, ret = "get_order_details", "return_delivered_order_items"
    tasks = [
        {"id": "a", "actions": [{"name": get, "arguments": {"order_id": "#W1"}}, {"name": ret, "arguments": {"order_id": "#W1"}}]},
        {"id": "b", "actions": [{"name": get, "arguments": {"order_id": "#W1"}}]},  # reads what a wrote: a repeat
        {"id": "c", "actions": [{"name": "modify_user_address", "arguments": {"user_id": "bob_2"}}]},
        {"id": "d", "actions": [{"name": ret, "arguments": {"order_id": "#W3"}}]},  # bob's zip has moved
        {"id": "e", "actions": [{"name": get, "arguments": {"order_id": "#W2"}}, {"name": ret, "arguments": {"order_id": "#W2"}}]},
        {"id": "f", "actions": [{"name": get, "arguments": {"order_id": "#W3"}}]},
    ]
    assert [task["id"] for task in one_session_per_written_row(tasks, orders)] == ["a", "c", "e"]
