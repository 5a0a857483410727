"""Every branch of the drafter's policy decisions, compared whole (action, rule, ids, amount, address)."""

from datetime import timedelta

import pytest

from taskgen.domains.retail.rules import Decision, address_in, customer_orders, decide, order_ids_in, refunded_cents, requested_order_id
from taskgen.domains.retail.schema import RetailSchema
from taskgen.seeds import format_timestamp

from retail_fixtures import CLOCK, make_state

ME = {"customer_id": "cus_1001"}


def _decide(intent, prompt, state, actor, clock, policy):
    """decide() about the order an agent reading only the request can tell (never a guess)."""
    schema = RetailSchema.from_document(None)
    return decide(intent, prompt, state, actor, clock, policy, requested_order_id(prompt, state, actor, schema))


def _state(**order_changes):
    state = make_state()
    state["order"]["#W1000001"].update(order_changes)
    return state


CASES = [
    ("account_access", "locked out", _state(), Decision(action="escalate", rule="account_access_needs_human", customer_id="cus_1001")),
    ("other", "gift cards?", _state(), Decision(action="inform", rule="information_only")),
    ("refund", "refund #W7777777", _state(), Decision(action="decline", rule="order_not_found", order_id="#W7777777")),
    ("refund", "refund #W1000003", _state(), Decision(action="decline", rule="not_order_owner", order_id="#W1000003")),
    ("refund", "refund #W1000001", _state(status="shipped"), Decision(action="decline", rule="status_not_refundable", order_id="#W1000001")),
    ("refund", "refund #W1000001", _state(delivered_at=format_timestamp(CLOCK - timedelta(days=40))),
     Decision(action="decline", rule="outside_return_window", order_id="#W1000001")),
    ("refund", "refund #W1000001", _state(delivered_at=None), Decision(action="decline", rule="outside_return_window", order_id="#W1000001")),
    ("refund", "refund #W1000001", _state(total_cents=0), Decision(action="decline", rule="already_refunded", order_id="#W1000001")),
    ("refund", "refund #W1000001", _state(total_cents=20001), Decision(action="escalate", rule="above_auto_refund_limit", order_id="#W1000001")),
    ("refund", "refund #W1000001", _state(), Decision(action="refund", rule="refund_allowed", order_id="#W1000001", amount_cents=8999)),
    ("return_label", "label #W1000001", _state(status="processing"), Decision(action="decline", rule="status_not_returnable", order_id="#W1000001")),
    ("return_label", "label #W1000001", _state(delivered_at=format_timestamp(CLOCK - timedelta(days=31))),
     Decision(action="decline", rule="outside_return_window", order_id="#W1000001")),
    ("return_label", "label #W1000001", _state(), Decision(action="return_label", rule="return_allowed", order_id="#W1000001")),
    ("cancellation", "cancel #W1000001", _state(), Decision(action="decline", rule="status_not_cancellable", order_id="#W1000001")),
    ("cancellation", "cancel #W1000002", _state(), Decision(action="cancel", rule="cancel_allowed", order_id="#W1000002")),
    ("order_status", "where is #W1000002", _state(), Decision(action="inform", rule="order_status_lookup", order_id="#W1000002")),
    ("order_status", "where is my order", _state(), Decision(action="decline", rule="order_not_found")),  # two orders, none named: no guess
    ("address_change", "move me to 1 Elm St, Dayton, OH 45402", _state(),
     Decision(action="update_address", rule="address_change_allowed", customer_id="cus_1001", address="1 Elm St, Dayton, OH 45402")),
    # another order on its way locks neither the default address nor a pending order's: only the order the words tell
    ("address_change", "move me to 1 Elm St, Dayton, OH 45402", _state(status="shipped"),
     Decision(action="update_address", rule="address_change_allowed", customer_id="cus_1001", address="1 Elm St, Dayton, OH 45402")),
    ("address_change", "#W1000002: ship it to 1 Elm St, Dayton, OH 45402", _state(status="shipped"),
     Decision(action="update_address", rule="address_change_allowed", customer_id="cus_1001", address="1 Elm St, Dayton, OH 45402")),
    ("address_change", "#W1000001: ship it to 1 Elm St, Dayton, OH 45402", _state(status="shipped"),
     Decision(action="escalate", rule="order_in_transit", customer_id="cus_1001", order_id="#W1000001")),
    # no address in the words: the agent asks for it, no hand-over
    ("address_change", "move me somewhere nice", _state(), Decision(action="update_address", rule="address_to_ask", customer_id="cus_1001")),
    # a change only a human can make: handed over about the order, refused for someone else's order
    ("other", "exchange the kettle in #W1000001", _state(), Decision(action="escalate", rule="outside_agent_tools", order_id="#W1000001")),
    ("other", "exchange the kettle in #W1000003", _state(), Decision(action="decline", rule="not_order_owner", order_id="#W1000003")),
    ("other", "a refund, not an exchange, for #W1000001", _state(), Decision(action="inform", rule="information_only")),
    ("return_label", "modify #W1000001: another colour", _state(status="processing"),
     Decision(action="escalate", rule="outside_agent_tools", order_id="#W1000001")),
    # the customer's own fallback where the status rules out the first request
    ("return_label", "return #W1000001. If it cannot be returned, cancel it.", _state(status="pending"),
     Decision(action="cancel", rule="customer_fallback_cancel_allowed", order_id="#W1000001")),
    ("return_label", "return #W1000001. If it cannot be returned, cancel it.", _state(status="shipped"),
     Decision(action="decline", rule="status_not_returnable", order_id="#W1000001")),
]


@pytest.mark.parametrize(("intent", "prompt", "state", "expected"), CASES, ids=[f"{c[0]}-{c[3].rule}-{i}" for i, c in enumerate(CASES)])
def test_every_decision_branch(domain, intent, prompt, state, expected):
    assert _decide(intent, prompt, state, ME, CLOCK, domain.policy) == expected


def test_decisions_without_a_known_requester(domain):
    state = make_state()
    unverified = Decision(action="decline", rule="identity_not_verified")
    assert _decide("address_change", "1 Elm St, Dayton, OH 45402", state, {"customer_id": "cus_9"}, CLOCK, domain.policy) == unverified
    assert _decide("refund", "my money back please", state, {}, CLOCK, domain.policy) == unverified


def test_helpers():
    state = make_state()
    assert order_ids_in("#W1000001 and #W1000002, again #W1000001; #W12 is short", RetailSchema.from_document(None)) == ["#W1000001", "#W1000002"]
    assert address_in("no address here") is None
    assert address_in("to 742  Evergreen Terrace, Apt. 4, Springfield, OR 97403 please") == "742 Evergreen Terrace, Apt. 4, Springfield, OR 97403"
    state["refund"] = {"r1": {"order_id": "#W1000001", "amount_cents": 100}, "r2": {"order_id": "#W1000001", "amount_cents": 50},
                       "r3": {"order_id": "#W1000002", "amount_cents": 7}}
    assert refunded_cents(state, "#W1000001") == 150 and refunded_cents(state, "#W1000005") == 0
    assert [order["id"] for order in customer_orders(state, "cus_1001")] == ["#W1000001", "#W1000002"]
    schema = RetailSchema.from_document(None)
    assert requested_order_id("refund #W1000001", state, ME, schema) == "#W1000001"
    assert requested_order_id("refund my order", state, ME, schema) is None  # two orders, none named: no guess
    assert requested_order_id("refund my order", state, {"customer_id": "cus_9"}, schema) is None


def test_refund_amount_edges_one_cent_and_no_total(domain):
    assert _decide("refund", "refund #W1000001", _state(total_cents=1), ME, CLOCK, domain.policy) == Decision(
        action="refund", rule="refund_allowed", order_id="#W1000001", amount_cents=1)
    no_total = make_state()
    del no_total["order"]["#W1000001"]["total_cents"]
    assert _decide("refund", "refund #W1000001", no_total, ME, CLOCK, domain.policy).rule == "already_refunded"
    assert refunded_cents({}, "#W1000001") == 0
    assert refunded_cents({"refund": {"r": {"order_id": "#W1000001"}}}, "#W1000001") == 0


def _reference_text() -> str:
    """What a reviewer can read: the policy and taxonomy files, the README and the docs."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = [root / "taskgen/domains/retail/policy.yaml", root / "taskgen/domains/retail/taxonomy.yaml", root / "README.md",
             *sorted((root / "docs").glob("*.md"))]
    return "\n".join(file.read_text(encoding="utf-8") for file in files)


def test_every_rule_and_check_a_task_can_cite_is_written_where_a_reviewer_can_find_it(drafted):
    """A review question says '(rule order_in_transit)': the name must be findable verbatim (docs/retail-rules.md)."""
    import inspect
    import re

    from taskgen.domains.retail import grader, rules

    source = inspect.getsource(rules)
    names = set(re.findall(r'rule="([a-z_]+)"', source))  # (lower case: a mutation tester's copies spell theirs XX…XX or upper)
    assert 'f"customer_fallback_{instead.rule}"' in source  # the fallback's rule is the one it falls back to, prefixed
    names |= {f"customer_fallback_{name}" for name in ("refund_allowed", "return_allowed", "cancel_allowed")}
    names |= set(grader.CHECKS)
    for _, _, _, pair in drafted:
        for task in (pair.positive, pair.negative):
            said = " ".join([*task.review_questions, *task.rubric])
            names |= set(re.findall(r"\brule (\w+)", said)) | {item.check for item in task.expectations}
            names |= {task.boundary} if task.boundary else set()
    text = _reference_text()
    missing = sorted(name for name in names if not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text))
    assert len(names) > 30 and not missing, missing
