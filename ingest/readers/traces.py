"""traces/*.jsonl: OTLP/JSON as the Collector file exporter writes it, one export per line.

Each span becomes a RawRecord (kind "span") whose payload keeps the span exactly as read,
with its resource and scope alongside so the record stands on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ingest.config import IngestConfig
from ingest.otlp import attributes, normalise_id, session_attribute
from ingest.readers.base import Item, Where
from ingest.timestamps import BadTimestamp, parse_unix_nanos


def spans_from_line(line: dict[str, Any], where: Where, config: IngestConfig) -> Iterator[Item]:
    resource_spans = line.get("resourceSpans")
    if not isinstance(resource_spans, list):
        yield where.quarantine("missing field 'resourceSpans'")
        return
    found = False
    for resource_span in resource_spans:
        if not isinstance(resource_span, dict) or not isinstance(resource_span.get("scopeSpans", []), list):
            yield where.quarantine("invalid field 'resourceSpans': not an object with a scopeSpans list")
            found = True
            continue
        resource = resource_span.get("resource") if isinstance(resource_span.get("resource"), dict) else {}
        for scope_span in resource_span.get("scopeSpans", []):
            spans = scope_span.get("spans") if isinstance(scope_span, dict) else None
            if not isinstance(spans, list):
                yield where.quarantine("invalid field 'scopeSpans': spans is not a list")
                found = True
                continue
            scope = scope_span.get("scope") if isinstance(scope_span.get("scope"), dict) else {}
            for span in spans:
                found = True
                yield _span_record(span, resource, scope, where, config)
    if not found:
        yield where.quarantine("line holds no spans")


def _span_record(span: Any, resource: dict, scope: dict, where: Where, config: IngestConfig) -> Item:
    if not isinstance(span, dict):
        return where.quarantine("span is not a JSON object")
    trace_id = normalise_id(span.get("traceId"))
    span_id = normalise_id(span.get("spanId"))
    if trace_id is None:
        return where.quarantine("missing field 'traceId'")
    if span_id is None:
        return where.quarantine("missing field 'spanId'")
    if not isinstance(span.get("name"), str):
        return where.quarantine("missing field 'name'")
    if "attributes" in span and not isinstance(span["attributes"], list):
        return where.quarantine("invalid field 'attributes': not a list")
    try:
        started = parse_unix_nanos(span.get("startTimeUnixNano"))
        if "endTimeUnixNano" in span:
            parse_unix_nanos(span["endTimeUnixNano"])
    except BadTimestamp as error:
        return where.quarantine(f"invalid span time: {error}")
    attrs = attributes(span.get("attributes"))
    session_id = session_attribute(attrs) or session_attribute(attributes(resource.get("attributes")))
    return where.record(
        kind="span",
        external_id=f"{trace_id}/{span_id}",
        payload={"resource": resource, "scope": scope, "span": span},
        occurred_at=started,
        session_id=session_id,
        trace_id=trace_id,
        max_bytes=config.max_record_bytes,
    )
