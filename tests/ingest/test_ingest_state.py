import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml

from ingest.state import StateUnavailable, open_state
from ingest.state_mapping import StateMapping, StateMappingError, values_at

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"
TAU = Path(__file__).resolve().parents[3] / "shared" / "data" / "tau-bench-retail"  # ../shared beside the repo


@pytest.fixture
def demo_db(tmp_path):
    path = tmp_path / "state.db"
    db = sqlite3.connect(path)
    db.executescript("""
    CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT, email TEXT, phone TEXT, address TEXT, created_at TEXT);
    CREATE TABLE orders (id TEXT PRIMARY KEY, customer_id TEXT, status TEXT, total_cents INTEGER, created_at TEXT,
                         delivered_at TEXT, shipping_address TEXT);
    CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id TEXT, sku TEXT, name TEXT, price_cents INTEGER, quantity INTEGER);
    CREATE TABLE payments (id INTEGER PRIMARY KEY, order_id TEXT, method TEXT, card_number TEXT, amount_cents INTEGER, created_at TEXT);
    CREATE TABLE refunds (id INTEGER PRIMARY KEY, order_id TEXT, amount_cents INTEGER, reason TEXT, created_at TEXT);
    CREATE TABLE return_labels (id INTEGER PRIMARY KEY, order_id TEXT, created_at TEXT);
    INSERT INTO customers VALUES ('cus_1', 'Maria Lopez', 'maria.lopez@example.com', '+1 415 555 0134', '12 Oak St, Denver CO', '2025-02-01T09:00:00Z');
    INSERT INTO customers VALUES ('cus_2', 'Ken Ito', 'ken@example.org', NULL, '9 Elm Rd', '2025-03-01T09:00:00Z');
    INSERT INTO orders VALUES ('#W2611340', 'cus_1', 'delivered', 5365, '2026-11-10T08:00:00Z', '2026-11-18T08:00:00Z',
                               '{"line1": "12 Oak St", "city": "Denver"}');
    INSERT INTO orders VALUES ('#W7000001', 'cus_1', 'pending', 999, '2026-11-12T08:00:00Z', NULL, '{}');
    INSERT INTO orders VALUES ('#W9000009', 'cus_2', 'pending', 100, '2026-11-12T08:00:00Z', NULL, '{}');
    INSERT INTO order_items VALUES (1, '#W2611340', 'WB-1000', 'Water Bottle', 4784, 1);
    INSERT INTO payments VALUES (7, '#W2611340', 'card', '4111111111111111', 5365, '2026-11-10T08:00:05Z');
    INSERT INTO refunds VALUES (3, '#W2611340', 5365, 'broken', '2026-11-20T11:00:00Z');
    INSERT INTO return_labels VALUES (4, '#W2611340', '2026-11-20T11:05:00Z');
    """)
    db.commit()
    db.close()
    return path


def test_sqlite_snapshot_brings_parents_children_and_respects_as_of(demo_db):
    source = open_state(f"sqlite:///{demo_db}", StateMapping.from_yaml(EXAMPLES / "demo-state.mapping.yaml"))
    as_of = datetime(2026, 11, 20, 10, 15, tzinfo=timezone.utc)
    rows = source.snapshot({"order": ["#W2611340"], "ticket": ["101"]}, as_of)
    assert {kind: sorted(ids) for kind, ids in rows.items()} == {
        "customer": ["cus_1"], "order": ["#W2611340", "#W7000001"], "order_item": ["1"], "payment": ["7"]}  # the owner's other order
    assert rows["order"]["#W2611340"]["shipping_address"] == {"line1": "12 Oak St", "city": "Denver"}
    later = source.snapshot({"order": ["#W2611340"]}, None)
    assert sorted(later) == ["customer", "order", "order_item", "payment", "refund", "return_label"]
    named_customer = source.snapshot({"customer": ["cus_1"]}, as_of)
    assert sorted(named_customer["order"]) == ["#W2611340", "#W7000001"]
    assert source.get("customer", "cus_2")["email"] == "ken@example.org"
    assert source.get("customer", "nobody") is None
    assert source.pii_fields("payment") == {"card_number": "CREDIT_CARD"}


def _owner_mapping(**customer) -> StateMapping:
    document = yaml.safe_load((EXAMPLES / "demo-state.mapping.yaml").read_text(encoding="utf-8"))
    document["kinds"]["customer"].update({"owner": False, **customer})
    return StateMapping.from_document(document)


def test_an_owner_reached_as_a_parent_brings_its_other_rows_with_theirs_as_of_the_clock(demo_db):
    """issue #12: a customer pulled in only as the named order's parent brings their other orders (with items and
    payments), not another customer's, not one placed after the clock; the rows it brings bring no further owner's."""
    db = sqlite3.connect(demo_db)
    db.executescript("""
    INSERT INTO order_items VALUES (2, '#W7000001', 'LB-1', 'Lamp', 999, 1);
    INSERT INTO payments VALUES (8, '#W7000001', 'card', '4111111111111111', 999, '2026-11-12T08:00:05Z');
    INSERT INTO orders VALUES ('#W7000002', 'cus_1', 'pending', 10, '2026-11-25T08:00:00Z', NULL, '{}');
    INSERT INTO order_items VALUES (3, '#W9000009', 'KB-1', 'Keyboard', 100, 1);
    """)
    db.commit()
    db.close()
    as_of = datetime(2026, 11, 20, 10, 15, tzinfo=timezone.utc)
    source = open_state(f"sqlite:///{demo_db}", _owner_mapping(owner=True))
    rows = source.snapshot({"order": ["#W2611340"]}, as_of)
    assert sorted(rows["customer"]) == ["cus_1"] and sorted(rows["order"]) == ["#W2611340", "#W7000001"]
    assert sorted(rows["order_item"]) == ["1", "2"] and sorted(rows["payment"]) == ["7", "8"]
    assert "refund" not in rows  # dated after the clock, as for the named order
    assert source.snapshot({"order": ["#W2611340"]}, None)["order"].keys() == {"#W2611340", "#W7000001", "#W7000002"}
    assert source.mapping.owners_at_cap(rows) == []
    # without the declaration, the parent comes alone (the behaviour before)
    plain = open_state(f"sqlite:///{demo_db}", _owner_mapping()).snapshot({"order": ["#W2611340"]}, as_of)
    assert sorted(plain["order"]) == ["#W2611340"]
    # a named owner brings its orders' items too; another customer's order brings its own customer's
    named = source.snapshot({"customer": ["cus_1"], "order": ["#W9000009"]}, as_of)
    assert sorted(named["order"]) == ["#W2611340", "#W7000001", "#W9000009"] and sorted(named["order_item"]) == ["1", "2", "3"]


def test_an_owner_brings_at_most_its_cap_of_each_child_kind_newest_first_and_the_seed_says_so(demo_db):
    as_of = datetime(2026, 11, 20, 10, 15, tzinfo=timezone.utc)
    source = open_state(f"sqlite:///{demo_db}", _owner_mapping(owner=True, max_owned_rows=1))
    rows = source.snapshot({"customer": ["cus_1"]}, as_of)
    assert sorted(rows["order"]) == ["#W7000001"]  # placed 2026-11-12, after #W2611340
    assert source.mapping.owners_at_cap(rows) == [
        "customer cus_1: holds 1 order rows, the mapping's max_owned_rows: any beyond the cap are left out of the seed"]
    # a named order beyond the cap stays in (named), and the owner is still flagged
    both = source.snapshot({"order": ["#W2611340"]}, as_of)
    assert sorted(both["order"]) == ["#W2611340", "#W7000001"] and source.mapping.owners_at_cap(both)
    with pytest.raises(StateMappingError, match="max_owned_rows"):
        _owner_mapping(owner=True, max_owned_rows=0)


def test_state_is_read_only_and_unavailable_db_is_one_line(demo_db, tmp_path):
    mapping = StateMapping.from_yaml(EXAMPLES / "demo-state.mapping.yaml")
    with pytest.raises(StateUnavailable) as missing:
        open_state(f"sqlite:///{tmp_path / 'absent.db'}", mapping)
    assert "\n" not in str(missing.value)
    with pytest.raises(StateUnavailable) as refused:
        open_state("postgresql://app:s3cr3t-pw@127.0.0.1:9/shop", mapping)
    assert "s3cr3t-pw" not in str(refused.value) and "\n" not in str(refused.value)
    source = open_state(f"sqlite:///{demo_db}", mapping)
    with pytest.raises(Exception):
        with source._engine.connect() as connection:
            connection.exec_driver_sql("DELETE FROM customers")


@pytest.mark.skipif(not TAU.is_dir(), reason="tau-bench retail data not present in ../shared/data/tau-bench-retail")
def test_tau_bench_folder_loads_through_mapping_alone():
    mapping = StateMapping.from_yaml(EXAMPLES / "tau-bench-retail.mapping.yaml")
    source = open_state(str(TAU), mapping)
    orders = json.loads((TAU / "orders.json").read_text())
    order_id, order = next(iter(sorted(orders.items())))
    rows = source.snapshot({"order": [order_id]}, None)
    users = json.loads((TAU / "users.json").read_text())
    assert sorted(rows["order"]) == sorted(users[order["user_id"]]["orders"])  # the owner's other orders come too
    assert list(rows["customer"]) == [order["user_id"]]
    customer = rows["customer"][order["user_id"]]
    assert customer["user_id"] == order["user_id"] and customer["email"]
    cards = values_at(customer, "payment_methods.*.last_four")
    assert all(path.startswith("payment_methods.") and path.endswith(".last_four") for path, _ in cards)
    assert source.pii_fields("customer")["email"] == "EMAIL_ADDRESS"
    user_orders = source.snapshot({"customer": [order["user_id"]]}, None)["order"]
    assert order_id in user_orders


def test_rows_with_person_fields_stream_every_row_of_their_kinds(demo_db):
    source = open_state(f"sqlite:///{demo_db}", StateMapping.from_yaml(EXAMPLES / "demo-state.mapping.yaml"))
    rows = list(source.rows_with_pii({"PERSON"}))
    assert sorted((kind, row["name"]) for kind, row in rows) == [("customer", "Ken Ito"), ("customer", "Maria Lopez")]
    assert all("email" not in row for _, row in rows)  # a SQL source reads only the columns asked for
    assert list(source.rows_with_pii({"NO_SUCH_TYPE"})) == []


@pytest.mark.skipif(not TAU.is_dir(), reason="tau-bench retail data not present in ../shared/data/tau-bench-retail")
def test_tau_bench_people_come_with_their_name_parts():
    source = open_state(str(TAU), StateMapping.from_yaml(EXAMPLES / "tau-bench-retail.mapping.yaml"))
    rows = list(source.rows_with_pii({"PERSON"}))
    users = json.loads((TAU / "users.json").read_text())
    assert len(rows) == len(users) and {kind for kind, _ in rows} == {"customer"}
    assert all(row["name"]["first_name"] and row["name"]["last_name"] for _, row in rows)


TAU2 = TAU.parent / "tau2-bench-retail"


@pytest.mark.skipif(not TAU2.is_dir(), reason="tau2-bench retail data not present in ../shared/data/tau2-bench-retail")
def test_tau2_single_db_json_loads_through_keys_inside_the_file():
    mapping = StateMapping.from_yaml(EXAMPLES / "tau2-bench-retail.mapping.yaml")
    source = open_state(str(TAU2), mapping)
    db = json.loads((TAU2 / "db.json").read_text())
    order_id, order = next(iter(sorted(db["orders"].items())))
    rows = source.snapshot({"order": [order_id]}, None)
    assert sorted(rows["order"]) == sorted(db["users"][order["user_id"]]["orders"]) and list(rows["customer"]) == [order["user_id"]]
    assert order_id in source.snapshot({"customer": [order["user_id"]]}, None)["order"]
    product_id = order["items"][0]["product_id"]
    assert source.get("product", product_id)["name"] == db["products"][product_id]["name"]
    assert len(list(source.rows_with_pii({"PERSON"}))) == len(db["users"])


def test_a_key_inside_a_file_that_is_not_there_is_named(tmp_path):
    (tmp_path / "db.json").write_text(json.dumps({"users": {"u1": {"name": "x"}}}))
    mapping = StateMapping.from_document({"kinds": {"customer": {"file": "db.json#people", "key": "user_id"}}})
    with pytest.raises(StateMappingError, match="no key 'people'"):
        open_state(str(tmp_path), mapping).get("customer", "u1")
    ok = StateMapping.from_document({"kinds": {"customer": {"file": "db.json#users", "key": "user_id"}}})
    assert open_state(str(tmp_path), ok).get("customer", "u1") == {"user_id": "u1", "name": "x"}
    with pytest.raises(StateMappingError, match="db.json#users"):
        open_state(str(tmp_path), StateMapping.from_document({"kinds": {"customer": {"file": "db.json#", "key": "user_id"}}}))


def test_a_role_column_missing_from_its_table_is_named_when_the_state_opens(demo_db):
    document = yaml.safe_load((EXAMPLES / "demo-state.mapping.yaml").read_text(encoding="utf-8"))
    document["roles"] = {"order": {"columns": {"placed_at": "created_at", "delivered_at": "received_on"}}}
    with pytest.raises(StateMappingError, match=r"roles\.order\.columns\.delivered_at: column 'received_on' not in table 'orders'"):
        open_state(f"sqlite:///{demo_db}", StateMapping.from_document(document))
    document["roles"]["order"]["columns"]["delivered_at"] = "delivered_at"
    assert open_state(f"sqlite:///{demo_db}", StateMapping.from_document(document)).get("order", "#W7000001")

@pytest.mark.skipif(not TAU.is_dir(), reason="tau-bench retail data not present in ../shared/data/tau-bench-retail")
def test_tau_bench_identifiers_are_its_ids_of_every_shape_and_never_a_name():
    """Ten-digit item ids (nested in orders and products), order ids and product ids; never a user id
    built from a name, never a personal field."""
    source = open_state(str(TAU), StateMapping.from_yaml(EXAMPLES / "tau-bench-retail.mapping.yaml"))
    identifiers = source.identifiers()
    orders = json.loads((TAU / "orders.json").read_text())
    products = json.loads((TAU / "products.json").read_text())
    order_id, order = next(iter(sorted(orders.items())))
    item_ids = {item["item_id"] for item in order["items"]}
    assert order_id in identifiers and item_ids <= identifiers and all(len(i) == 10 for i in item_ids)
    assert set(products) <= identifiers
    assert order["user_id"] not in identifiers
    assert not any(user_id in identifiers for user_id in json.loads((TAU / "users.json").read_text()))
    assert not {order["address"]["zip"], order["address"]["address1"]} & identifiers


def test_sql_identifiers_are_keys_and_id_columns_but_never_personal_columns(demo_db):
    source = open_state(f"sqlite:///{demo_db}", StateMapping.from_yaml(EXAMPLES / "demo-state.mapping.yaml"))
    assert source.identifiers() == {"#W2611340", "#W7000001", "#W9000009"}  # no card number, no 'cus_1'


def _shop(tmp_path):
    (tmp_path / "db.json").write_text(json.dumps({
        "users": {"u1": {"orders": ["#W1", "#W2"]}, "u2": {"orders": ["#W3"]}},
        "orders": {"#W1": {"user_id": "u1", "items": [{"item_id": "11", "product_id": "p1"}, {"item_id": "21", "product_id": "p2"}]},
                   "#W2": {"user_id": "u1", "items": [{"item_id": "31", "product_id": "p3"}]},
                   "#W3": {"user_id": "u2", "items": [{"item_id": "12", "product_id": "p1"}]}},
        "products": {f"p{n}": {"name": f"thing {n}", "variants": {f"{n}1": {"item_id": f"{n}1", "available": True}}} for n in (1, 2, 3, 4)},
    }))
    return StateMapping.from_document({"kinds": {
        "customer": {"file": "db.json#users", "key": "user_id", "owner": True},
        "order": {"file": "db.json#orders", "key": "order_id", "foreign_keys": {"user_id": "customer", "items.*.product_id": "product"}},
        "product": {"file": "db.json#products", "key": "product_id"},
    }})


def test_an_order_brings_the_products_its_items_name_and_so_do_the_owners_other_orders(tmp_path):
    source = open_state(str(tmp_path), _shop(tmp_path))
    rows = source.snapshot({"order": ["#W1"]}, None)
    assert sorted(rows["order"]) == ["#W1", "#W2"]
    assert sorted(rows["product"]) == ["p1", "p2", "p3"]  # #W2's product too; p4 is in no order of the seed
    assert rows["product"]["p1"]["variants"]["11"]["available"] is True


def test_a_named_product_brings_no_orders_holding_it(tmp_path):
    """A nested foreign key is a reference up only: the product the agent read brings itself, not every order of it."""
    source = open_state(str(tmp_path), _shop(tmp_path))
    rows = source.snapshot({"order": ["#W3"], "product": ["p4"]}, None)
    assert sorted(rows["order"]) == ["#W3"] and sorted(rows["product"]) == ["p1", "p4"]
    assert _shop(tmp_path).children_of("product") == []
