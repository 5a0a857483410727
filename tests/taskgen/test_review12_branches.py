"""Issue #12, third cold review of tau2 drafts: where the seed's catalogue decides the customer's condition ("if it is not
available, cancel"), the task carried judge lines about the branch not taken (the item change's confirmation on a task
requiring the cancellation, and the other way on its negative), and a variant the catalogue picks for an item the
change's own sentence does not name ("exchange my current one to it") was left to a judge."""

from __future__ import annotations

from test_catalogue_branch import AVAILABLE, OVER, UNAVAILABLE, _plan, _run, _task
from test_product_tools import ACTOR, _seed, tau2  # noqa: F401  (tau2: the fixture)

from taskgen.domains.retail.negatives import plan_negative

CHANGE_LINE = "Judge: does the reply confirm which items of the order change"
CANCEL_LINE = "Judge: does the reply confirm the cancellation"
CHEAPEST = ("I want to know what is the cheapest available desk lamp right now and its options. If it is less than 48 bucks I want "
            "to exchange my current one in order #W1234567 to it. If not, I want to cancel order #W1234567.")


def test_no_judge_line_of_the_branch_not_taken_on_either_side(tau2):
    for prompt, positive_line, negative_line in ((UNAVAILABLE, CANCEL_LINE, CHANGE_LINE), (AVAILABLE, CHANGE_LINE, CANCEL_LINE),
                                                 (OVER, CANCEL_LINE, CHANGE_LINE)):
        positive = _plan(tau2, prompt)
        negative = plan_negative(prompt, "exchange", _seed(), ACTOR, positive, tau2)
        assert negative.boundary == "catalogue"
        for plan, taken, other in ((positive, positive_line, negative_line), (negative, negative_line, positive_line)):
            assert any(line.startswith(taken) for line in plan.rubric), (prompt, plan.rubric)
            assert not any(line.startswith(other) for line in plan.rubric), (prompt, plan.rubric)
            # a cancellation taken leaves nothing of the new variants to judge
            if taken == CANCEL_LINE:
                assert not any("variants the customer asked for" in line for line in plan.rubric), plan.rubric


def test_the_cheapest_variant_the_catalogue_picks_is_pinned_where_the_change_names_no_item(tau2):
    positive = _plan(tau2, CHEAPEST)
    assert positive.required_tools == ["modify_pending_order_items"]
    replaced = [item.describe() for item in positive.expectations if item.check == "items_replaced"]
    assert replaced == ["items_replaced(items=111, new_items=112, order_id=#W1234567)"]  # 112: the cheapest available lamp, 45.00
    assert not any("variants" in line for line in positive.rubric), positive.rubric
    task = _task(positive, CHEAPEST)
    reference, _ = _run(tau2, task, _seed())
    assert reference.passed, reference.reasons
    other = (("modify_pending_order_items", dict(order_id="#W1234567", item_ids=["111"], new_item_ids=["113"], payment_method_id="gift_card_1")),
             ("send_reply", {"text": "Changed to the halogen lamp."}))
    assert not _run(tau2, task, _seed(), agent="", calls=other)[0].passed  # another available variant: not the one asked for
