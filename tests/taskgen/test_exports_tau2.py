"""The tau2-bench export of a pinned release, validated with tau2-bench's own pydantic `Task` model
(copied at test time from ../shared/data/tau2-bench-retail, as its README says) and its db.json."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from pipelines.cli.review import review_app
from taskgen import review
from taskgen.exports.release import ExportError, load_release_split
from taskgen.exports.tau2 import Tau2Mapping, Unmappable, export_tau2, mapping_json_schema, split_address
from retail_fixtures import fixed_splits
from taskgen.output import pretty_json, write_all

ROOT = Path(__file__).resolve().parents[2]
TAU2 = ROOT.parent / "shared" / "data" / "tau2-bench-retail"  # ../shared beside the repo
MAPPING = ROOT / "docs" / "examples" / "tau2-retail.export.yaml"
SCHEMA = ROOT / "docs" / "schemas" / "tau2-mapping.schema.json"

EVERY_BOUNDARY = ["other_customer", "not_cancellable", "not_delivered", "order_in_transit", "return_window", "auto_refund_limit"]


def _every_boundary(mapping: Tau2Mapping) -> Tau2Mapping:
    """The retail mapping as if tau2's policy drew all our boundaries: the shape tests see every kind of task."""
    return mapping.model_copy(update={"policy_boundaries": EVERY_BOUNDARY})


_STUBS = {
    "tau2/__init__.py": "",
    "tau2/data_model/__init__.py": "",
    "tau2/utils/__init__.py": "",
    "tau2/utils/utils.py": "def get_now():\n    return '2024-01-01T00:00:00'\n",
    "tau2/data_model/audio.py": (
        "from pydantic import BaseModel\n\nclass AudioFormat(BaseModel):\n    pass\n\n"
        "def audio_bytes_to_string(value):\n    return value\n\ndef audio_string_to_bytes(value):\n    return value\n"
    ),
    "tau2/data_model/audio_effects.py": (
        "from pydantic import BaseModel\n\nclass ChannelEffectsResult(BaseModel):\n    pass\n\n"
        "class SourceEffectsResult(BaseModel):\n    pass\n\nclass SpeechEffectsResult(BaseModel):\n    pass\n"
    ),
}


# tau2's retail data model is not among the copied files: this one is written from db.json's shape,
# and a test loads the whole db.json with it (unknown keys refused) before tau2's tools run on it.
_RETAIL_DATA_MODEL = """
from typing import Annotated, Literal, Optional, Union
from pydantic import BaseModel, ConfigDict, Field

class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")

class Variant(_M):
    item_id: str
    options: dict[str, str]
    available: bool
    price: float

class Product(_M):
    name: str
    product_id: str
    variants: dict[str, Variant]

class UserName(_M):
    first_name: str
    last_name: str

class UserAddress(_M):
    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str

class CreditCard(_M):
    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str

class Paypal(_M):
    source: Literal["paypal"]
    id: str

class GiftCard(_M):
    source: Literal["gift_card"]
    id: str
    balance: float

PaymentMethod = Annotated[Union[CreditCard, Paypal, GiftCard], Field(discriminator="source")]

class User(_M):
    user_id: str
    name: UserName
    address: UserAddress
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]

class OrderItem(_M):
    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]

class OrderFulfillment(_M):
    tracking_id: list[str]
    item_ids: list[str]

class OrderPayment(_M):
    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str

class Order(_M):
    order_id: str
    user_id: str
    address: UserAddress
    items: list[OrderItem]
    status: str
    fulfillments: list[OrderFulfillment]
    payment_history: list[OrderPayment]
    cancel_reason: Optional[str] = None
    exchange_items: Optional[list[str]] = None
    exchange_new_items: Optional[list[str]] = None
    exchange_payment_method_id: Optional[str] = None
    exchange_price_difference: Optional[float] = None
    return_items: Optional[list[str]] = None
    return_payment_method_id: Optional[str] = None

class RetailDB(_M):
    products: dict[str, Product]
    users: dict[str, User]
    orders: dict[str, Order]
"""
_TOOLKIT = (
    "from enum import Enum\n\nclass ToolType(str, Enum):\n    READ = 'read'\n    WRITE = 'write'\n"
    "    THINK = 'think'\n    GENERIC = 'generic'\n\ndef is_tool(tool_type):\n    return lambda function: function\n\n"
    "class ToolKitBase:\n    def __init__(self, db=None):\n        self.db = db\n"
)


@pytest.fixture(scope="module")
def tau2(tmp_path_factory):
    """tau2-bench's own `Task` model and retail tools, from its source (its audio models, clock,
    toolkit base and retail data model stubbed); yields the imported package's modules."""
    if not TAU2.is_dir():
        pytest.skip("tau2-bench retail data not present in ../shared/data/tau2-bench-retail")
    root = tmp_path_factory.mktemp("tau2pkg")
    files = {**_STUBS, "tau2/domains/__init__.py": "", "tau2/domains/retail/__init__.py": "",
             "tau2/domains/retail/utils.py": "RETAIL_DB_PATH = None\n", "tau2/environment/__init__.py": "",
             "tau2/environment/toolkit.py": _TOOLKIT, "tau2/domains/retail/data_model.py": _RETAIL_DATA_MODEL}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    for name in ("tasks.py", "message.py"):
        shutil.copy(TAU2 / "data_model" / name, root / "tau2" / "data_model" / name)
    shutil.copy(TAU2 / "tools.py", root / "tau2" / "domains" / "retail" / "tools.py")
    sys.path.insert(0, str(root))
    try:
        yield {name: importlib.import_module(f"tau2.{name}") for name in ("data_model.tasks", "domains.retail.data_model", "domains.retail.tools")}
    finally:
        sys.path.remove(str(root))
        for module in [name for name in sys.modules if name == "tau2" or name.startswith("tau2.")]:
            del sys.modules[module]


@pytest.fixture(scope="module")
def tau2_task_model(tau2):
    return tau2["data_model.tasks"].Task


def _merged(base: dict, update: dict) -> dict:
    """What tau2 does with initialization_data.agent_data: a deep merge into the domain's db."""
    merged = dict(base)
    for key, value in update.items():
        merged[key] = _merged(base[key], value) if isinstance(value, dict) and isinstance(base.get(key), dict) else value
    return merged


def _valid_tau2(model, task: dict) -> None:
    """Loads with tau2's model and round-trips: a key the model does not know would be dropped and show."""
    loaded = model.model_validate(task)
    assert loaded.model_dump(mode="json", exclude_unset=True) == task


@pytest.fixture()
def released(drafted, tmp_path):
    tasks = fixed_splits([task for row in drafted for task in (row[3].positive, row[3].negative)])
    seeds = [row[2] for row in drafted] + [row[3].negative_seed for row in drafted]
    out = tmp_path / "out"
    write_all(out, "0.1.0-draft", tasks, seeds)
    for task in tasks:
        review.set_status(out, task.task_id, "approved", force=True)
    review.release(out, "1.0.0", "first pinned set")
    return out


def test_the_validation_harness_accepts_tau2s_own_tasks_and_refuses_foreign_keys(tau2_task_model):
    own = json.loads((TAU2 / "tasks.json").read_text())
    for task in own[:20]:
        tau2_task_model.model_validate(task)
    broken = json.loads(json.dumps(own[0]))
    broken["evaluation_criteria"]["gold"] = []
    with pytest.raises(AssertionError):
        _valid_tau2(tau2_task_model, broken)


def test_mapping_schema_file_is_current_and_the_example_validates():
    assert SCHEMA.read_text(encoding="utf-8") == pretty_json(mapping_json_schema())
    import yaml

    jsonschema.validate(yaml.safe_load(MAPPING.read_text()), json.loads(SCHEMA.read_text()))
    if not TAU2.is_dir():
        pytest.skip("tau2-bench retail data not present in ../shared/data/tau2-bench-retail")
    tau2_tools = (TAU2 / "tools.py").read_text()
    for target in Tau2Mapping.from_yaml(MAPPING).tools.values():
        if target != "message":
            assert f"def {target.name}(" in tau2_tools  # every mapped tool is one of tau2 retail's


def test_tau2_export_validates_with_tau2s_model_and_db_shape(released, domain, tmp_path, tau2_task_model):
    mapping = _every_boundary(Tau2Mapping.from_yaml(MAPPING))
    summary = json.loads(export_tau2(load_release_split(released, "1.0.0", "dev"), tmp_path / "a", domain, mapping).read_text())
    exported = json.loads((tmp_path / "a" / "tasks.json").read_text())
    assert summary["release"] == "1.0.0" and summary["split"] == "dev" and summary["counts"]["total"] == len(exported) > 0
    for task in exported:
        _valid_tau2(tau2_task_model, task)

    db = json.loads((TAU2 / "db.json").read_text())
    user_shape = {key: set(value) if isinstance(value, dict) else None for key, value in next(iter(db["users"].values())).items()}
    order_keys = set(next(iter(db["orders"].values())))
    item_keys = {key for order in db["orders"].values() for item in order["items"] for key in item}
    method_shapes = {tuple(sorted(method)) for user in db["users"].values() for method in user["payment_methods"].values()}
    statuses = {order["status"] for order in db["orders"].values()}
    for task in exported:
        data = task["initial_state"]["initialization_data"]["agent_data"]
        assert data["users"] and data["orders"]
        for user in data["users"].values():
            assert set(user) == set(user_shape) and set(user["name"]) == user_shape["name"] and set(user["address"]) == user_shape["address"]
            assert all(tuple(sorted(method)) in method_shapes for method in user["payment_methods"].values())
        for order in data["orders"].values():
            assert set(order) == order_keys and order["status"] in statuses and order["items"]
            assert all(set(item) == item_keys for item in order["items"])
            if order["user_id"] in data["users"]:  # else another customer's order, as the negative's seed has it
                assert all(payment["payment_method_id"] in data["users"][order["user_id"]]["payment_methods"]
                           for payment in order["payment_history"])

    by_id = {task["id"]: task for task in exported}
    cancel = next(task for task_id, task in by_id.items() if task_id.startswith("cancellation-") and task_id.endswith("-pos"))
    names = [action["name"] for action in cancel["evaluation_criteria"]["actions"]]
    assert names == ["get_order_details", "cancel_pending_order"]
    order_id = cancel["evaluation_criteria"]["actions"][1]["arguments"]["order_id"]
    assert cancel["initial_state"]["initialization_data"]["agent_data"]["orders"][order_id]["status"] == "pending"
    assert "The agent replies to the customer about the request." in cancel["evaluation_criteria"]["nl_assertions"]
    address = next(task for task_id, task in by_id.items() if task_id.startswith("address_change-") and task_id.endswith("-pos"))
    (modify,) = [action for action in address["evaluation_criteria"]["actions"] if action["name"] == "modify_user_address"]
    assert modify["arguments"] | {"user_id": "x"} == {"user_id": "x", "address1": "742 Evergreen Terrace", "address2": "",
                                                     "city": "Springfield", "state": "OR", "zip": "97403", "country": "USA"}
    negative = next(task for task_id, task in by_id.items() if task_id.endswith("-neg") and "relevant_policies" in task["description"]
                    and task["description"]["relevant_policies"])
    assert any("policy boundary" in item for item in negative["evaluation_criteria"]["nl_assertions"])

    export_tau2(load_release_split(released, "1.0.0", "dev"), tmp_path / "b", domain, mapping)
    assert (tmp_path / "a" / "tasks.json").read_bytes() == (tmp_path / "b" / "tasks.json").read_bytes()
    assert (tmp_path / "a" / "export.json").read_bytes() == (tmp_path / "b" / "export.json").read_bytes()


def test_tasks_whose_tools_have_no_mapping_are_listed_and_left_out_with_their_pair(released, domain, tmp_path):
    mapping = _every_boundary(Tau2Mapping.from_yaml(MAPPING))
    heldout = json.loads(export_tau2(load_release_split(released, "1.0.0", "held-out"), tmp_path / "heldout", domain, mapping).read_text())
    reasons = {entry["task_id"]: entry["reason"] for entry in heldout["left_out"]}
    refund = next(task_id for task_id, reason in reasons.items() if reason == "tool refund_order has no mapping to tau2")
    assert reasons[refund.replace("-pos", "-neg")] == f"its pair's positive {refund} is left out"
    held = json.loads((tmp_path / "heldout" / "tasks.json").read_text())
    kept = {task["id"] for task in held}
    assert kept and not kept & set(reasons) and heldout["counts"]["total"] == len(kept)
    label = next(task for task in held if task["id"].startswith("return_label-") and task["id"].endswith("-pos"))
    (returned,) = [action for action in label["evaluation_criteria"]["actions"] if action["name"] == "return_delivered_order_items"]
    order = label["initial_state"]["initialization_data"]["agent_data"]["orders"][returned["arguments"]["order_id"]]
    assert returned["arguments"]["item_ids"] == [item["item_id"] for item in order["items"]]
    assert returned["arguments"]["payment_method_id"] == order["payment_history"][0]["payment_method_id"]
    nothing = mapping.model_copy(update={"tools": {}})
    with pytest.raises(ExportError, match="no task can be mapped"):
        export_tau2(load_release_split(released, "1.0.0", "held-out"), tmp_path / "none", domain, nothing)
    assert not (tmp_path / "none").exists()
    without_cancel = mapping.model_copy(update={"tools": {k: v for k, v in mapping.tools.items() if k != "cancel_order"}})
    summary = json.loads(export_tau2(load_release_split(released, "1.0.0", "dev"), tmp_path / "dev", domain, without_cancel).read_text())
    left = {entry["task_id"]: entry["reason"] for entry in summary["left_out"]}
    exported = {task["id"] for task in json.loads((tmp_path / "dev" / "tasks.json").read_text())}
    cancel_ids = {task_id for task_id in left if task_id.startswith("cancellation-")}
    assert len(cancel_ids) == 2 and not cancel_ids & exported  # the positive needs cancel_order; its negative goes with it
    assert any("cancel_order has no mapping" in reason for reason in left.values())
    assert any("its pair's positive" in reason for reason in left.values())
    assert summary["counts"]["total"] == len(exported)


def test_addresses_split_into_tau2_fields_or_refuse():
    assert split_address("4410 Hargrove Ave, Apt 3, Fresno, CA 93722", "USA") == {
        "address1": "4410 Hargrove Ave", "address2": "Apt 3", "city": "Fresno", "state": "CA", "zip": "93722", "country": "USA"}
    assert split_address("12 Rue Oberkampf, 75011 Paris", "USA")["city"] == "Paris"
    assert split_address("48796 Caitlin Shore, Suite 701, Whitemouth", "USA") == {
        "address1": "48796 Caitlin Shore", "address2": "Suite 701", "city": "Whitemouth", "state": "", "zip": "", "country": "USA"}
    with pytest.raises(Unmappable):
        split_address("somewhere", "USA")


def test_cli_exports_tau2_with_the_mapping_from_the_configuration(released, tmp_path):
    config = tmp_path / "trace2task.yaml"
    config.write_text(f"drop: drop\nstate: {{location: state, mapping: state/mapping.yaml}}\noutput: {released}\n"
                      f"taskgen:\n  exports:\n    tau2_mapping: {MAPPING}\n")
    runner = CliRunner()
    result = runner.invoke(review_app, ["export", "--format", "tau2", "--version", "1.0.0", "--out", str(tmp_path / "t"),
                                        "--config", str(config)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "1.0.0" in result.output and (tmp_path / "t" / "tasks.json").is_file()
    config.write_text(f"drop: drop\nstate: {{location: state, mapping: state/mapping.yaml}}\noutput: {released}\n")
    missing = runner.invoke(review_app, ["export", "--format", "tau2", "--version", "1.0.0", "--out", str(tmp_path / "u"),
                                         "--config", str(config)])
    assert missing.exit_code == 2 and "tau2_mapping" in missing.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("domain: retail\ntools: {get_order: {name: get_order_details, argument: {order_id: order_id}}}\n")
    config.write_text(f"drop: drop\nstate: {{location: state, mapping: state/mapping.yaml}}\noutput: {released}\n"
                      f"taskgen:\n  exports:\n    tau2_mapping: {bad}\n")
    refused = runner.invoke(review_app, ["export", "--format", "tau2", "--version", "1.0.0", "--out", str(tmp_path / "v"),
                                         "--config", str(config)], env={"COLUMNS": "300"})
    assert refused.exit_code == 1 and "bad setting 'tools.get_order" in refused.output and not (tmp_path / "v").exists()


def test_negatives_across_a_boundary_the_target_policy_lacks_are_left_out_and_their_positives_unpaired(released, domain, tmp_path):
    mapping = Tau2Mapping.from_yaml(MAPPING)
    summary = json.loads(export_tau2(load_release_split(released, "1.0.0", "dev"), tmp_path / "a", domain, mapping).read_text())
    left = {entry["task_id"]: entry["reason"] for entry in summary["left_out"]}
    address_negative = next(task_id for task_id in left if task_id.startswith("address_change-") and task_id.endswith("-neg"))
    # a default address locks on no order: the fixture's address negative crosses identity (cold review 6)
    assert left[address_negative] == "boundary identity_not_verified is not one the target's policy draws"
    unverified = next(task_id for task_id in left if task_id.startswith("account_access-") and task_id.endswith("-neg"))
    assert left[unverified] == "boundary identity_not_verified is not one the target's policy draws"
    stub = next(task_id for task_id in left if task_id.startswith("other-") and task_id.endswith("-neg"))
    assert left[stub] == "boundary none is not one the target's policy draws"  # a stub negative is never exported
    exported = {task["id"] for task in json.loads((tmp_path / "a" / "tasks.json").read_text())}
    positive = address_negative.replace("-neg", "-pos")  # sound under both policies: exported, listed as unpaired
    assert positive in exported and positive in summary["unpaired"] and stub.replace("-neg", "-pos") in summary["unpaired"]
    # negatives across boundaries tau2's policy draws: the order already shipped, and another customer's order
    assert {task_id.split("-")[0] for task_id in exported if task_id.endswith("-neg")} == {"cancellation", "order_status"}
    assert not {task_id for task_id in exported if task_id.endswith("-neg")} & set(left)
    assert not set(summary["unpaired"]) & {task_id.replace("-pos", "-neg") for task_id in exported}
    drawn_too = mapping.model_copy(update={"policy_boundaries": [*mapping.policy_boundaries, "identity_not_verified"]})
    export_tau2(load_release_split(released, "1.0.0", "dev"), tmp_path / "b", domain, drawn_too)
    assert address_negative in {task["id"] for task in json.loads((tmp_path / "b" / "tasks.json").read_text())}


def test_another_customers_order_keeps_its_owner_as_the_seed_has_it():
    from taskgen.exports.tau2 import tau2_db

    state = {
        "customer": {"cus_1": {"id": "cus_1", "name": "Ada Byron", "email": "a@example.org", "address": "1 Main St, Troy, NY 12180"}},
        "order": {"#W1": {"id": "#W1", "customer_id": "customer-other-1", "status": "shipped", "total_cents": 500,
                          "shipping_address": "9 Elm St, Troy, NY 12180"}},
        "order_item": {"i1": {"id": "i1", "order_id": "#W1", "sku": "S1", "name": "Mug", "price_cents": 250, "quantity": 2}},
        "payment": {"p1": {"id": "p1", "order_id": "#W1", "method": "paypal", "amount_cents": 500}},
    }
    mapping = Tau2Mapping.from_yaml(MAPPING)
    db = tau2_db(state, mapping)
    order = db["orders"]["#W1"]
    assert order["user_id"] == "customer-other-1" and order["status"] == "processed" and db["users"]["cus_1"]["orders"] == []
    assert [item["price"] for item in order["items"]] == [2.5, 2.5]
    assert order["payment_history"] == [{"amount": 5.0, "payment_method_id": "paypal_p1", "transaction_type": "payment"}]
    state["order"]["#W1"]["status"] = "lost"
    with pytest.raises(Unmappable, match="status 'lost'"):
        tau2_db(state, mapping)
    state["order"]["#W1"]["status"] = "shipped"
    del state["order_item"]["i1"]["price_cents"]  # another schema's column name: refused, not priced at 0
    with pytest.raises(Unmappable, match="order_item row has no price_cents"):
        tau2_db(state, mapping)


def test_gold_actions_run_in_tau2s_retail_tools_on_the_exported_state(released, domain, tmp_path, tau2):
    models, tools = tau2["domains.retail.data_model"], tau2["domains.retail.tools"]
    db_json = json.loads((TAU2 / "db.json").read_text())
    models.RetailDB.model_validate(db_json)  # the stub data model holds tau2's own db whole
    exported = []
    for split in ("dev", "held-out"):
        export_tau2(load_release_split(released, "1.0.0", split), tmp_path / split, domain, _every_boundary(Tau2Mapping.from_yaml(MAPPING)))
        exported += json.loads((tmp_path / split / "tasks.json").read_text())
    ran = []
    for task in exported:
        agent_data = task["initial_state"]["initialization_data"]["agent_data"]
        toolkit = tools.RetailTools(models.RetailDB.model_validate(_merged(db_json, agent_data)))
        for action in task["evaluation_criteria"]["actions"]:
            getattr(toolkit, action["name"])(**action["arguments"])  # raises ValueError where tau2 would refuse
            ran.append(action["name"])
        if task["id"].startswith("cancellation-") and task["id"].endswith("-pos"):
            (order_id,) = {action["arguments"]["order_id"] for action in task["evaluation_criteria"]["actions"]}
            assert toolkit.db.orders[order_id].status == "cancelled"
            assert [payment.transaction_type for payment in toolkit.db.orders[order_id].payment_history][-1] == "refund"
        if task["id"].startswith("address_change-") and task["id"].endswith("-pos"):
            (user_id,) = {action["arguments"]["user_id"] for action in task["evaluation_criteria"]["actions"]
                          if action["name"] == "modify_user_address"}
            assert toolkit.db.users[user_id].address.address1 == "742 Evergreen Terrace"
        if task["id"].startswith("return_label-") and task["id"].endswith("-pos"):
            (order_id,) = {action["arguments"]["order_id"] for action in task["evaluation_criteria"]["actions"]}
            assert toolkit.db.orders[order_id].status == "return requested"
    assert {"cancel_pending_order", "modify_user_address", "transfer_to_human_agents", "get_order_details",
            "return_delivered_order_items"} <= set(ran)
