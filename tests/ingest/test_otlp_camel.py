"""`camel_keys`: OTLP/JSON field names in the spec's camelCase, whatever spelling came in; a
request already in camelCase is not copied (every line of most exports)."""

import copy

from ingest.otlp import camel_keys

CAMEL = {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "a_b"}}]},
                            "scopeSpans": [{"spans": [{"traceId": "ab", "attributes": [
                                {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]}]}]}]}


def _snake(value):
    if isinstance(value, dict):
        return {"".join(f"_{c.lower()}" if c.isupper() else c for c in k): _snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snake(v) for v in value]
    return value


def test_a_camel_case_request_comes_back_as_it_is():
    before = copy.deepcopy(CAMEL)
    assert camel_keys(CAMEL) is CAMEL
    assert CAMEL == before  # attribute names and values with underscores are values, not keys


def test_a_snake_case_request_or_one_snake_key_deep_inside_is_rewritten_whole():
    assert camel_keys(_snake(CAMEL)) == CAMEL
    mixed = copy.deepcopy(CAMEL)
    span = mixed["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["parent_span_id"] = span.pop("traceId")
    expected = copy.deepcopy(mixed)
    expected["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["parentSpanId"] = span["parent_span_id"]
    del expected["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["parent_span_id"]
    got = camel_keys(mixed)
    assert got == expected and got is not mixed
    assert mixed["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["parent_span_id"] == "ab"  # the input is not changed
