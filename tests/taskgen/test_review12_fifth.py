"""Issue #12, fifth cold review of tau2-bench drafts (families 1 and 3): an address change asked beside another request
was checked by `address_equals(X) OR address_changed(X)`, true whatever the address, so a half-done job passed. The
account's address asked changed to an address the words give is now required; an order's address asked changed leaves
the account's as it is."""

from __future__ import annotations

from test_product_tools import NEW_ADDRESS, tau2  # noqa: F401  (tau2: the fixture)
from test_review12_parts import _positive, _run

from taskgen.domains.retail.grader import expect

RETURN_AND_ADDRESS = f"Please return the water bottle of order #W7654321. I also want to update my address to {NEW_ADDRESS}."
RETURN = ("return_delivered_order_items", dict(order_id="#W7654321", item_ids=["222"], payment_method_id="cc_1"))
NEW = dict(address1="445 Maple Drive", address2="Suite 394", city="Fort Worth", state="Texas", country="USA", zip="76165")


def _tautologies(task) -> list:
    return [item for item in task.expectations if item.check == "any_of"
            and {option.check for option in item.any_of} >= {"address_equals", "address_changed"}]


def test_the_accounts_address_asked_beside_a_return_is_required_to_become_the_one_given(tau2):
    task = _positive(tau2, RETURN_AND_ADDRESS, "#W7654321", [], intent="return_label")
    assert not _tautologies(task)
    assert expect("address_equals", customer_id="c1", address=NEW_ADDRESS) in task.expectations
    done = _run(tau2, task, (RETURN, ("modify_user_address", dict(user_id="c1", **NEW)), ("send_reply", {"text": "Done."})))[0]
    assert done.passed, done.reasons
    half = _run(tau2, task, (RETURN, ("send_reply", {"text": "Done."})))[0]  # the return alone: half the job
    assert not half.passed
    assert _run(tau2, task, (), agent="reference")[0].passed  # the reference agent does both parts


def test_an_orders_address_asked_beside_a_return_leaves_the_accounts_as_it_is(tau2):
    words = f"Please return the water bottle of order #W7654321. I also want to change my pending order address to {NEW_ADDRESS}."
    task = _positive(tau2, words, "#W7654321", [], intent="return_label")
    assert not _tautologies(task)
    assert expect("address_equals", customer_id="c1", address="1 Old Rd, Austin, TX 78701") in task.expectations
    wrong = _run(tau2, task, (RETURN, ("modify_user_address", dict(user_id="c1", **NEW)), ("send_reply", {"text": "Done."})))[0]
    assert not wrong.passed  # the account's address was not asked changed


def test_an_address_change_with_no_address_read_is_allowed_not_checked_by_an_always_true_option(tau2):
    words = "Please return the water bottle of order #W7654321. I also want to update my address, I moved recently."
    task = _positive(tau2, words, "#W7654321", [], intent="return_label")
    assert not _tautologies(task)
    assert not any(item.check == "address_equals" for item in task.expectations)
    assert any(allowance.kind == "customer" and allowance.field == "address" for allowance in task.may_change)
