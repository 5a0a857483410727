"""The one walker over a JSON value's scalar leaves (`ingest.leaves`), shared by the entity
finder, the grader's private values and the identity rules."""

from ingest.leaves import json_container, leaves


def test_every_scalar_leaf_with_its_dotted_key_path_and_no_none_or_boolean():
    row = {"name": {"first": "Ada", "last": "Lovelace"}, "zip": 10115, "vip": True, "note": None,
           "emails": ["a@x.org", ["b@x.org"]], "address": {"lines": [{"street": "Main St 1"}]}}
    assert list(leaves(row)) == [
        ("name.first", "Ada"), ("name.last", "Lovelace"), ("zip", 10115),
        ("emails", "a@x.org"), ("emails", "b@x.org"), ("address.lines.street", "Main St 1"),
    ]
    assert list(leaves(["x", 0, 1.5, False])) == [("", "x"), ("", 0), ("", 1.5)]
    assert list(leaves("alone", "key")) == [("key", "alone")]


def test_json_inside_a_string_is_walked_only_when_asked():
    payload = {"result": '{"order_id": "#W1", "items": [{"name": "Lamp"}]}', "text": "[not json"}
    assert list(leaves(payload)) == [("result", payload["result"]), ("text", "[not json")]
    assert list(leaves(payload, json_in_strings=True)) == [
        ("result", payload["result"]), ("result.order_id", "#W1"), ("result.items.name", "Lamp"), ("text", "[not json"),
    ]


def test_json_container_is_an_object_or_array_only():
    assert json_container(' {"a": 1} ') == {"a": 1}
    assert json_container("[1]") == [1]
    assert json_container('"a string"') is None and json_container("12") is None and json_container("{broken") is None
