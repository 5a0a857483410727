"""traces/: OTLP exports as the Collector's file exporter and the OTLP JSON file exporter write them.

One export request per line (`*.jsonl`), a whole `*.json` file, either gzipped, or OTLP
protobuf (`*.pb`, see otlp_files.py), in the spec's camelCase or in snake_case, ids in hex
or in the protobuf JSON mapping's base64. A request may hold spans, log records (the GenAI
events some instrumentations emit as logs, read as in error_logs/) or metrics (skipped).

Each span becomes a RawRecord (kind "span") whose payload keeps the span as read (ids in
hex, field names in camelCase) with its resource and scope alongside, so it stands on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ingest.config import IngestConfig
from ingest.otlp import BadId, attributes, camel_keys, normalise_id, session_attribute
from ingest.readers.base import Item, Skip, Where
from ingest.readers.logs import log_records
from ingest.timestamps import BadTimestamp, parse_unix_nanos

METRICS_SKIPPED = Skip("metrics are not read")


def spans_from_line(line: dict[str, Any], where: Where, config: IngestConfig) -> Iterator[Item]:
    """Every span (or GenAI log event) of one OTLP export request."""
    request = camel_keys(line)
    if "resourceSpans" not in request and "resourceLogs" in request:
        yield from log_records(request, where, config)
        return
    if "resourceSpans" not in request and "resourceMetrics" in request:
        yield METRICS_SKIPPED
        return
    resource_spans = request.get("resourceSpans")
    if not isinstance(resource_spans, list):
        yield where.quarantine("missing field 'resourceSpans'")
        return
    index = 0
    for resource_span in resource_spans:
        scope_spans = resource_span.get("scopeSpans", []) if isinstance(resource_span, dict) else None
        if not isinstance(scope_spans, list):
            index += 1
            yield where.at(index).quarantine("invalid field 'resourceSpans': not an object with a scopeSpans list")
            continue
        resource = resource_span.get("resource") if isinstance(resource_span.get("resource"), dict) else {}
        for scope_span in scope_spans:
            spans = scope_span.get("spans") if isinstance(scope_span, dict) else None
            if not isinstance(spans, list):
                index += 1
                yield where.at(index).quarantine("invalid field 'scopeSpans': spans is not a list")
                continue
            scope = scope_span.get("scope") if isinstance(scope_span.get("scope"), dict) else {}
            for span in spans:
                index += 1
                yield _span_record(span, resource, scope, where.at(index), config)
    if index == 0:
        yield where.quarantine("line holds no spans")


def _span_record(span: Any, resource: dict, scope: dict, where: Where, config: IngestConfig) -> Item:
    if not isinstance(span, dict):
        return where.quarantine("span is not a JSON object")
    ids: dict[str, str | None] = {}
    for field in ("traceId", "spanId", "parentSpanId"):
        try:
            ids[field] = normalise_id(span.get(field))
        except BadId:
            return where.quarantine(f"invalid field '{field}': not a hex or base64 id")
    if ids["traceId"] is None:
        return where.quarantine("missing field 'traceId'")
    if ids["spanId"] is None:
        return where.quarantine("missing field 'spanId'")
    if not isinstance(span.get("name"), str):
        return where.quarantine("missing field 'name'")
    if "attributes" in span and not isinstance(span["attributes"], list):
        return where.quarantine("invalid field 'attributes': not a list")
    try:
        started = parse_unix_nanos(span.get("startTimeUnixNano"))
    except BadTimestamp as error:
        return where.quarantine(f"invalid field 'startTimeUnixNano': {error}")
    try:
        if "endTimeUnixNano" in span:
            parse_unix_nanos(span["endTimeUnixNano"])
    except BadTimestamp as error:
        return where.quarantine(f"invalid field 'endTimeUnixNano': {error}")
    stored = {**span, **{field: value or "" for field, value in ids.items() if field in span or value}}
    keys = config.session_attributes
    session_id = session_attribute(attributes(span.get("attributes")), keys) or session_attribute(
        attributes(resource.get("attributes")), keys
    )
    return where.record(
        kind="span",
        external_id=f"{ids['traceId']}/{ids['spanId']}",
        payload={"resource": resource, "scope": scope, "span": stored},
        occurred_at=started,
        session_id=session_id,
        trace_id=ids["traceId"],
        max_bytes=config.max_record_bytes,
    )
