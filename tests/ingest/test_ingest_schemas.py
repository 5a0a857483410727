import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from ingest.state_mapping import StateMapping, StateMappingError

DOCS = Path(__file__).parents[2] / "docs"


def schema(name):
    document = json.loads((DOCS / "schemas" / name).read_text())
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


@pytest.mark.parametrize("schema_name, example", [("escalation.schema.json", "escalations.jsonl"), ("deploy.schema.json", "deploys.jsonl")])
def test_jsonl_examples_validate(schema_name, example):
    validator = schema(schema_name)
    lines = (DOCS / "examples" / example).read_text().splitlines()
    assert lines
    for line in lines:
        validator.validate(json.loads(line))
    assert not validator.is_valid({**json.loads(lines[0]), "id": 5})


@pytest.mark.parametrize("example", ["demo-state.mapping.yaml", "tau-bench-retail.mapping.yaml", "tau2-bench-retail.mapping.yaml"])
def test_mapping_examples_validate_and_load(example):
    path = DOCS / "examples" / example
    schema("state-mapping.schema.json").validate(yaml.safe_load(path.read_text()))
    assert StateMapping.from_yaml(path).kinds


def test_bad_mapping_names_the_key(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("kinds:\n  order:\n    table: orders\n    key: id\n    foreign_keys: {customer_id: client}\n")
    with pytest.raises(StateMappingError, match="foreign_keys.customer_id"):
        StateMapping.from_yaml(path)
    path.write_text("kinds:\n  order:\n    table: orders\n    primary: id\n")
    with pytest.raises(StateMappingError, match="kinds.order.key"):
        StateMapping.from_yaml(path)
