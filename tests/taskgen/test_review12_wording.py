"""Issue #12, cold review of tau2-bench drafts: the rubric reads right from the product's tools and policy."""

from __future__ import annotations

import yaml

from retail_fixtures import make_state
from taskgen.domains.retail.plans import _RUBRIC, plan_for
from taskgen.domains.retail.policy import DEFAULT_POLICY_PATH, RetailPolicy
from taskgen.domains.retail.rules import Decision
from test_schema_roles import ROOT


def _tau2_policy() -> RetailPolicy:
    document = yaml.safe_load(DEFAULT_POLICY_PATH.read_text(encoding="utf-8"))
    document["tools"] = yaml.safe_load((ROOT / "docs" / "examples" / "tau2-retail.tools.yaml").read_text(encoding="utf-8"))
    return RetailPolicy.model_validate(document)


def test_a_return_the_product_records_on_the_order_asks_for_no_label():
    state = make_state()
    decision = Decision(action="return_label", rule="return_allowed", order_id="#W1000001")
    tau2 = plan_for(decision, state, policy=_tau2_policy())
    assert not any("label" in item and "give the return label" in item for item in tau2.rubric)
    assert any("as the product records it" in item for item in tau2.rubric)
    assert plan_for(decision, state).rubric[0] == _RUBRIC["return_label"]  # the demo's tool makes a label


def test_a_refusal_about_an_order_still_cancellable_may_offer_the_cancellation_and_its_refund():
    state = make_state()
    decline = Decision(action="decline", rule="status_not_returnable", order_id="#W1000002")  # processing
    pending = plan_for(decline, state, "cus_1001")
    assert "reply_promises_no_refund" not in [item.check for item in pending.expectations]
    assert any("except with a cancellation" in item and "processing" in item for item in pending.rubric)
    # to a requester who is not the verified owner, nothing is offered
    for requester in (None, "cus_1002"):
        assert "reply_promises_no_refund" in [item.check for item in plan_for(decline, state, requester).expectations]
    unverified = plan_for(Decision(action="decline", rule="identity_not_verified", order_id="#W1000002"), state)
    assert "reply_promises_no_refund" in [item.check for item in unverified.expectations]
    delivered = plan_for(Decision(action="decline", rule="outside_return_window", order_id="#W1000001"), state)
    assert "reply_promises_no_refund" in [item.check for item in delivered.expectations]
