"""The retail rules read the roles the state mapping declares, never the demo's column names or id pattern."""

import copy
import re
from pathlib import Path

import pytest

from ingest.models import ToolCall
from ingest.state_mapping import StateMapping, StateMappingError
from retail_fixtures import CLOCK, VARIANT_MAPPING, VARIANT_PATTERNS, make_session, make_variant_state
from taskgen.classify import classify
from taskgen.draft import draft_pair
from taskgen.health import health_check
from taskgen.domains.retail.schema import RetailSchema
from taskgen.seeds import freeze_seed

ROOT = Path(__file__).resolve().parents[2]


def _variant_seed(patterns=VARIANT_PATTERNS):
    schema = RetailSchema.from_mapping(StateMapping.from_document(VARIANT_MAPPING), patterns)
    return freeze_seed(make_variant_state(), CLOCK, domain_schema=schema.document())


def _draft(session, seed, domain, taxonomy):
    return draft_pair(session, classify(session, taxonomy), seed, domain)


def test_no_order_id_pattern_is_written_in_code():
    """Order ids are found by the configured entity patterns only (ingest's default is the one place)."""
    for path in [*(ROOT / "taskgen").rglob("*.py"), *(ROOT / "pipelines").rglob("*.py")]:
        assert not re.search(r"#W\\d|#W\\\\d", path.read_text(encoding="utf-8")), path


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda m: m.pop("roles"), "roles.order"),
        (lambda m: m["roles"]["order"]["columns"].update(customer="state"), "roles.order.columns.customer"),
        (lambda m: m["roles"]["order"]["columns"].update(shipped_on="x"), "roles.order.columns.shipped_on"),
        (lambda m: m["roles"].update(basket={"kind": "purchase"}), "roles.basket"),
        (lambda m: m["roles"]["order_item"]["columns"].update(order="unit_price"), "roles.order_item.columns.order"),
        (lambda m: m["roles"]["order"]["options"].update(amount_unit="mills"), "roles.order.options.amount_unit"),
    ],
)
def test_a_role_that_does_not_resolve_is_one_error_naming_it(change, named):
    mapping = copy.deepcopy(VARIANT_MAPPING)
    change(mapping)
    with pytest.raises(StateMappingError, match=re.escape(named)):
        RetailSchema.from_mapping(StateMapping.from_document(mapping), VARIANT_PATTERNS)


def test_a_role_naming_an_unknown_kind_fails_when_the_mapping_loads():
    mapping = copy.deepcopy(VARIANT_MAPPING)
    mapping["roles"]["customer"]["kind"] = "shopper"
    with pytest.raises(StateMappingError, match=r"roles\.customer\.kind"):
        StateMapping.from_document(mapping)


def test_the_demo_schema_needs_no_roles_and_seeds_carry_none():
    mapping = StateMapping.from_yaml(ROOT / "docs" / "examples" / "demo-state.mapping.yaml")
    assert RetailSchema.from_mapping(mapping, list(RetailSchema().order_id_patterns)).document() == {}


def test_refund_on_another_schema_reads_its_roles(domain, taxonomy):
    """Amount in currency units from `grand_total`, delivery from `received_on`, order ids `PO-nnnnnn`."""
    seed = _variant_seed()
    session = make_session("v-refund", "I want a refund for order PO-000001, the kettle arrived cracked five days ago.",
                           "cus_1001", ["PO-000001"], [ToolCall(name="get_order", arguments={"order_id": "PO-000001"})])
    pair = _draft(session, seed, domain, taxonomy)
    assert pair.positive.target == {"order_id": "PO-000001"}
    assert "refund_exists(amount_cents=8999, order_id=PO-000001)" in [e.describe() for e in pair.positive.expectations]
    assert not any("also touched" in question for question in pair.positive.review_questions)
    assert health_check(pair.positive, seed, domain).reference_passed
    negative_order = pair.negative_seed.state["purchase"]["PO-000001"]
    assert pair.negative.boundary == "return_window"
    assert negative_order["ordered_on"] < negative_order["received_on"] < pair.negative_seed.clock
    assert health_check(pair.negative, pair.negative_seed, domain).reference_passed


def test_over_limit_move_keeps_lines_and_payment_in_currency_units(domain, taxonomy):
    from taskgen.domains.retail.negatives import cross_boundary

    seed = _variant_seed()
    moved, _ = cross_boundary("auto_refund_limit", seed, "PO-000001", {"customer_id": "cus_1001"}, domain.policy)
    total = moved["purchase"]["PO-000001"]["grand_total"]
    assert total == (domain.policy.auto_refund_limit_cents + 5000) / 100
    assert moved["line"]["item_1"]["unit_price"] == total == moved["payment"]["pay_1"]["paid"]


def test_orders_are_found_by_the_configured_pattern_only(domain, taxonomy):
    """With the demo's pattern the prompt names no order: the target comes from the agent's calls."""
    seed = _variant_seed(patterns=list(RetailSchema().order_id_patterns))
    session = make_session("v-status", "Where is my order PO-000004? It hasn't arrived.", "cus_1002", ["PO-000004"],
                           [ToolCall(name="get_order", arguments={"order_id": "PO-000004"})])
    pair = _draft(session, seed, domain, taxonomy)
    assert pair.positive.target == {"order_id": "PO-000004"}
    assert any("name no order id" in question for question in pair.positive.review_questions)


def test_an_amount_inside_a_list_is_read_and_written_by_its_path():
    """tau-bench keeps an order's amount in its first payment: `payment_history.0.amount`, in currency units."""
    from taskgen.domains.retail.schema import RetailSchema

    schema = RetailSchema(columns={**RetailSchema().columns, "order": {**RetailSchema().columns["order"], "amount": "payment_history.0.amount"}},
                          amount_unit="currency")
    state = {"order": {"#W1": {"customer_id": "c", "payment_history": [{"amount": 536.65}, {"amount": 1.0}]}}}
    assert schema.canonical(state)["order"]["#W1"]["total_cents"] == 53665
    assert schema.set_field(state, "order", "#W1", "amount", 25000)
    assert state["order"]["#W1"]["payment_history"] == [{"amount": 250.0}, {"amount": 1.0}]


@pytest.mark.parametrize("example", ["tau-bench-retail.mapping.yaml", "tau2-bench-retail.mapping.yaml"])
def test_the_tau_mappings_declare_their_roles(example):
    schema = RetailSchema.from_mapping(StateMapping.from_yaml(ROOT / "docs" / "examples" / example), ["#W\\d{7}"])
    assert schema.column("order", "customer") == "user_id" and schema.amount_unit == "currency"


def _tau_seed(total: float = 89.99):
    """A tau-bench-shaped state (no dates at all; the amount in the first payment, in dollars) under its example mapping."""
    schema = RetailSchema.from_mapping(StateMapping.from_yaml(ROOT / "docs" / "examples" / "tau-bench-retail.mapping.yaml"), ["#W\\d{7}"])
    address = {"address1": "18 Linden Court", "address2": "", "city": "Dayton", "state": "OH", "country": "USA", "zip": "45402"}
    users = {cid: {"user_id": cid, "name": {"first_name": "Dana", "last_name": "Whitfield"}, "address": address, "email": f"{cid}@example.net",
                   "payment_methods": {}, "orders": orders} for cid, orders in (("cus_a", ["#W0000001", "#W0000002"]), ("cus_b", ["#W0000003"]))}
    orders = {oid: {"order_id": oid, "user_id": cid, "status": status, "address": address,
                    "items": [{"name": name, "item_id": "1008292230", "price": total, "options": {}}], "fulfillments": [],
                    "payment_history": [{"transaction_type": "payment", "amount": total, "payment_method_id": "card_1"}]}
              for oid, cid, status, name in (("#W0000001", "cus_a", "delivered", "Kettle"), ("#W0000002", "cus_a", "pending", "Desk Lamp"),
                                             ("#W0000003", "cus_b", "delivered", "Kettle"))}
    return freeze_seed({"customer": users, "order": orders}, CLOCK, domain_schema=schema.document())


def test_a_shop_that_keeps_no_dates_has_no_return_window(domain, taxonomy):
    """tau-bench keeps no delivery date (declared ''): a delivered order is refunded, not declined as 'outside
    the window', and no negative moves a date the shop never had."""
    seed = _tau_seed()
    schema = RetailSchema.from_document(seed.domain_schema)
    assert schema.column("order", "delivered_at") is None
    assert "delivered_at" not in schema.canonical(seed.state)["order"]["#W0000001"]
    session = make_session("t-refund", "I want a refund for order #W0000001, the kettle arrived cracked.", "cus_a", ["#W0000001"],
                           [ToolCall(name="get_order", arguments={"order_id": "#W0000001"})])
    pair = _draft(session, seed, domain, taxonomy)
    assert "refund_exists(amount_cents=8999, order_id=#W0000001)" in [e.describe() for e in pair.positive.expectations]
    assert health_check(pair.positive, seed, domain).reference_passed
    assert pair.negative.boundary not in ("return_window", "recently_delivered", "none")
    assert all("delivered_at" not in order and "created_at" not in order for order in pair.negative_seed.state["order"].values())
    assert health_check(pair.negative, pair.negative_seed, domain, (pair.positive, seed)).verdict == "works"


def test_where_the_shop_keeps_no_dates_a_refused_order_is_moved_to_delivered(domain, taxonomy):
    """A refund of a pending order is refused; with no delivery date to move, the negative delivers the
    order (status only) and a correct agent must now refund it: the pair discriminates."""
    from taskgen.health import check_set

    seed = _tau_seed()
    session = make_session("t-pending", "I want a refund for my desk lamp, order #W0000002.", "cus_a", ["#W0000002"],
                           [ToolCall(name="get_order", arguments={"order_id": "#W0000002"})])
    pair = _draft(session, seed, domain, taxonomy)
    assert "reply_refuses()" in [e.describe() for e in pair.positive.expectations]
    assert pair.negative.boundary == "delivered"
    moved = pair.negative_seed.state["order"]["#W0000002"]
    assert moved["status"] == "delivered" and "delivered_at" not in moved
    assert "refund_exists(amount_cents=8999, order_id=#W0000002)" in [e.describe() for e in pair.negative.expectations]
    results = check_set([pair.positive, pair.negative], {seed.seed_id: seed, pair.negative_seed.seed_id: pair.negative_seed}, domain)
    assert [result.verdict for result in results] == ["works", "works"]


def test_a_shop_with_dates_is_never_moved_by_status_alone(domain):
    from taskgen.domains.retail.negatives import cross_boundary

    assert cross_boundary("delivered", _variant_seed(), "PO-000002", {"customer_id": "cus_1001"}, domain.policy) is None


def test_an_address_change_gets_no_order_scope(domain, taxonomy):
    seed = _tau_seed()
    session = make_session("t-address", "I moved: please update my address to 9 Cedar Row, Austin, TX 78701.", "cus_a", [],
                           [ToolCall(name="get_order", arguments={"order_id": "#W0000002"})])
    pair = _draft(session, seed, domain, taxonomy)
    assert pair.positive.intent == "address_change" and pair.positive.prompt.startswith("I moved")


def test_a_status_question_asking_for_tracking_expects_the_seeds_tracking_number_in_the_reply(domain, taxonomy):
    """tau-bench keeps tracking numbers in `fulfillments` (role `tracking`): asked for, the reply must carry it."""
    from taskgen.domains.retail.grader import grade

    seed = _tau_seed()
    seed = freeze_seed({**seed.state, "order": {**seed.state["order"], "#W0000001": {
        **seed.state["order"]["#W0000001"], "fulfillments": [{"tracking_id": ["357962501027"], "item_ids": ["1008292230"]}]}}},
        CLOCK, domain_schema=seed.domain_schema)
    session = make_session("t-track", "What is the tracking number of order #W0000001?", "cus_a", ["#W0000001"],
                           [ToolCall(name="get_order", arguments={"order_id": "#W0000001"})])
    pair = _draft(session, seed, domain, taxonomy)
    assert "reply_contains(value=357962501027)" in [e.describe() for e in pair.positive.expectations]
    assert health_check(pair.positive, seed, domain).reference_passed
    env = domain.environment(seed)
    env.call("send_reply", text="Your order #W0000001 is delivered.")
    assert grade(pair.positive, env.state, env.calls).reasons == ["unmet: reply_contains(value=357962501027)"]


def test_an_unverified_request_is_crossed_to_the_signed_in_owner(domain, taxonomy):
    """The session never tells who asks (tau2's gold actions skip the look-up): the positive refuses; its
    negative is the same request from the order's signed-in owner, who gets the refund."""
    from taskgen.health import check_set

    seed = _tau_seed()
    session = make_session("t-anon", "I want a refund for order #W0000001, the kettle arrived cracked.", "cus_a", ["#W0000001"],
                           [ToolCall(name="get_order", arguments={"order_id": "#W0000001"})])
    session = session.model_copy(update={"entity_ids": {"order": ["#W0000001"]}})
    pair = _draft(session, seed, domain, taxonomy)
    assert pair.positive.actor == {} and "reply_refuses()" in [e.describe() for e in pair.positive.expectations]
    assert pair.negative.boundary == "identity_verified" and pair.negative.actor == {"customer_id": "cus_a"}
    assert pair.negative_seed.state == seed.state
    assert "refund_exists(amount_cents=8999, order_id=#W0000001)" in [e.describe() for e in pair.negative.expectations]
    results = check_set([pair.positive, pair.negative], {seed.seed_id: seed, pair.negative_seed.seed_id: pair.negative_seed}, domain)
    assert [result.verdict for result in results] == ["works", "works"]


def test_a_seed_under_another_schema_carries_a_canary_in_its_own_names(domain, taxonomy):
    """tau-bench's schema (order rows keyed `order_id`, owned by `user_id`): each customer whose orders the session
    all names gets a made-up canary that no correct trial touches."""
    from taskgen.draft import starting_seed
    from taskgen.domains.retail.grader import grade

    plain = _tau_seed()
    every_order = make_session("t-all", "About " + " and ".join(sorted(plain.state["order"])) + ".", "cus_a", sorted(plain.state["order"]))
    seed = starting_seed(plain.state, CLOCK, domain, plain.domain_schema, session=every_order)
    canaries = sorted(set(seed.state["order"]) - set(plain.state["order"]))
    assert len(canaries) == 2  # cus_a and cus_b
    for order_id in canaries:
        row = seed.state["order"][order_id]
        assert row["order_id"] == order_id and row["status"] == "cancelled" and row["user_id"] in ("cus_a", "cus_b")
        # cancelled as the shop records it (cold review #12): its payment refunded in full, no parcel
        payments = [entry for entry in row["payment_history"] if entry["transaction_type"] == "payment"]
        refunds = [entry for entry in row["payment_history"] if entry["transaction_type"] == "refund"]
        assert payments and [entry["amount"] for entry in refunds] == [entry["amount"] for entry in payments]
        assert row["fulfillments"] == []
    assert seed.state["customer"] == plain.state["customer"]  # the rows the agent saw stay as it saw them
    pair = _draft(make_session("t-c", "I want a refund for order #W0000001.", "cus_a", ["#W0000001"]), seed, domain, taxonomy)
    canary = next(order_id for order_id in canaries if seed.state["order"][order_id]["user_id"] == "cus_a")
    start = domain.environment(seed).state
    refused = domain.environment(seed)  # refunded in full, as its payment history shows: a refund on it is an over-refund
    assert refused.call("refund_order", order_id=canary, amount_cents=100, reason="r") is None and refused.calls[-1].status == "error"
    for extra in ([], [("create_return_label", {"order_id": canary})]):
        env = domain.environment(seed)
        for name, arguments in [("refund_order", {"order_id": "#W0000001", "amount_cents": 8999, "reason": "r"}), *extra,
                                ("send_reply", {"text": "Refunded 89.99."})]:
            env.call(name, **arguments)
        verdict = grade(pair.positive, env.state, env.calls, start)
        assert ("nothing_else_changed" in verdict.failed_checks) if extra else verdict.failed_checks == []
