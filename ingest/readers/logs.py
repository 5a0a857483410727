"""error_logs/: OTLP logs (*.jsonl, *.json, gzipped, *.pb) and plain-text application logs (*.log).

Only errors are kept (severityNumber >= config.error_severity_min); lower severities are
valid records, counted as skipped, never quarantined. A log record named as a GenAI event
(`gen_ai.user.message`, `gen_ai.choice`, ...) is a message of a model call, not an error:
it is kept (kind "genai_event") whatever its severity, which such events usually lack.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ingest.config import IngestConfig
from ingest.models import RawRecord
from ingest.otlp import BadId, attributes, camel_keys, normalise_id, session_attribute
from ingest.readers.base import Item, Skip, Where
from ingest.timestamps import BadTimestamp, parse_rfc3339, parse_unix_nanos

LEVEL_SEVERITY: dict[str, int] = {
    "TRACE": 1,
    "DEBUG": 5,
    "INFO": 9,
    "NOTICE": 10,
    "WARN": 13,
    "WARNING": 13,
    "ERROR": 17,
    "ERR": 17,
    "CRITICAL": 21,
    "FATAL": 21,
    "PANIC": 21,
}
"""Plain-text level names -> OTLP severity numbers (OpenTelemetry log data model ranges)."""


GENAI_EVENT_PREFIX = "gen_ai."
"""Log records whose event name starts so carry a model call's messages (GenAI semantic conventions)."""


def below_threshold(config: IngestConfig) -> Skip:
    return Skip(f"severity below {config.error_severity_min}")


def otlp_logs_from_line(line: dict[str, Any], where: Where, config: IngestConfig) -> Iterator[Item]:
    yield from log_records(camel_keys(line), where, config)


def log_records(request: dict[str, Any], where: Where, config: IngestConfig) -> Iterator[Item]:
    """Every log record of one OTLP export request (camelCase), each quarantined on its own."""
    resource_logs = request.get("resourceLogs")
    if not isinstance(resource_logs, list):
        yield where.quarantine("missing field 'resourceLogs'")
        return
    index = 0
    for resource_log in resource_logs:
        scope_logs = resource_log.get("scopeLogs", []) if isinstance(resource_log, dict) else None
        if not isinstance(scope_logs, list):
            index += 1
            yield where.at(index).quarantine("invalid field 'resourceLogs': not an object with a scopeLogs list")
            continue
        resource = resource_log.get("resource") if isinstance(resource_log.get("resource"), dict) else {}
        for scope_log in scope_logs:
            records = scope_log.get("logRecords") if isinstance(scope_log, dict) else None
            if not isinstance(records, list):
                index += 1
                yield where.at(index).quarantine("invalid field 'scopeLogs': logRecords is not a list")
                continue
            for log_record in records:
                index += 1
                yield _log_record(log_record, resource, where.at(index), config)
    if index == 0:
        yield where.quarantine("line holds no log records")


def event_name(log: dict[str, Any], attrs: dict[str, Any]) -> str | None:
    """A log record's event name: the LogRecord field, else the older `event.name` attribute."""
    name = log.get("eventName") or attrs.get("event.name")
    return name if isinstance(name, str) and name else None


def _log_record(log: Any, resource: dict, where: Where, config: IngestConfig) -> Item:
    if not isinstance(log, dict):
        return where.quarantine("log record is not a JSON object")
    if "attributes" in log and not isinstance(log["attributes"], list):
        return where.quarantine("invalid field 'attributes': not a list")
    attrs = attributes(log.get("attributes"))
    name = event_name(log, attrs)
    if name is not None and name.startswith(GENAI_EVENT_PREFIX):
        return _genai_event(log, resource, attrs, where, config)
    severity = log.get("severityNumber")
    if isinstance(severity, str) and severity.isdigit():
        severity = int(severity)
    if not isinstance(severity, int) or isinstance(severity, bool):
        severity = LEVEL_SEVERITY.get(str(log.get("severityText", "")).upper())
    if severity is None:
        return where.quarantine("missing field 'severityNumber' (and no GenAI event name)")
    if severity < config.error_severity_min:
        return below_threshold(config)
    try:
        occurred = parse_unix_nanos(log.get("timeUnixNano") or log.get("observedTimeUnixNano"))
    except BadTimestamp as error:
        return where.quarantine(f"invalid log time: {error}")
    body = log.get("body")
    if not isinstance(body, dict) or not isinstance(body.get("stringValue"), str):
        return where.quarantine("missing field 'body.stringValue'")
    try:
        trace_id = normalise_id(log.get("traceId"))
    except BadId:
        return where.quarantine("invalid field 'traceId': not a hex or base64 id")
    payload = {"resource": resource, "log": log}
    record = where.record(
        kind="log",
        external_id="",
        payload=payload,
        occurred_at=occurred,
        session_id=_session(attrs, resource, config),
        trace_id=trace_id,
        max_bytes=config.max_record_bytes,
    )
    return _content_keyed(record)


def _session(attrs: dict[str, Any], resource: dict, config: IngestConfig) -> str | None:
    keys = config.session_attributes
    return session_attribute(attrs, keys) or session_attribute(attributes(resource.get("attributes")), keys)


def _genai_event(log: dict[str, Any], resource: dict, attrs: dict[str, Any], where: Where, config: IngestConfig) -> Item:
    """A GenAI event (`gen_ai.user.message`, `gen_ai.choice`, ...) emitted as a log record: a
    message of the model call whose span it names. It needs no severity, only its span."""
    ids: dict[str, str | None] = {}
    for field in ("traceId", "spanId"):
        try:
            ids[field] = normalise_id(log.get(field))
        except BadId:
            return where.quarantine(f"invalid field '{field}': not a hex or base64 id")
    if ids["traceId"] is None or ids["spanId"] is None:
        return where.quarantine(f"missing field '{'traceId' if ids['traceId'] is None else 'spanId'}' of a GenAI event")
    try:
        occurred = parse_unix_nanos(log.get("timeUnixNano") or log.get("observedTimeUnixNano"))
    except BadTimestamp as error:
        return where.quarantine(f"invalid field 'timeUnixNano': {error}")
    record = where.record(
        kind="genai_event",
        external_id="",
        payload={"resource": resource, "log": {**log, "traceId": ids["traceId"], "spanId": ids["spanId"]}},
        occurred_at=occurred,
        session_id=_session(attrs, resource, config),
        trace_id=ids["traceId"],
        max_bytes=config.max_record_bytes,
    )
    return _content_keyed(record)


CONTINUATION = re.compile(
    r"^(?:\s|Traceback \(most recent call last\)|Caused by:|During handling of the above exception"
    r"|The above exception was the direct cause|\.\.\. \d+ (?:more|common frames omitted)"
    r"|[A-Za-z_][\w$]*(?:\.[\w$]+)*(?:Error|Exception|Throwable)\b)"
)
"""Lines that go on the record above them: a stack trace's frames (indented), its header, a
chained cause, and the exception line itself (`ValueError: ...`, `java.io.IOException: ...`)."""


def text_log_from_line(
    text: str, where: Where, config: IngestConfig, pattern: re.Pattern[str], continuation: list[str] | None = None
) -> Item:
    """One log record from its first line and the stack-trace lines that follow it."""
    match = pattern.match(text)
    if match is None:
        return where.quarantine("line does not match the text log pattern")
    fields = {name: value for name, value in match.groupdict().items() if value is not None}
    if continuation:
        fields["message"] = "\n".join([fields.get("message", ""), *continuation])
        text = "\n".join([text, *continuation])
    severity = LEVEL_SEVERITY.get(fields.get("level", "").upper())
    if severity is None:
        return where.quarantine("unknown log level")
    if severity < config.error_severity_min:
        return below_threshold(config)
    try:
        occurred = parse_rfc3339(fields.get("timestamp"), assume_utc=True)
    except BadTimestamp as error:
        return where.quarantine(f"invalid field 'timestamp': {error}")
    payload = {"line": text, "fields": fields, "severityNumber": severity}
    record = where.record(
        kind="log",
        external_id="",
        payload=payload,
        occurred_at=occurred,
        session_id=fields.get("session_id"),
        trace_id=_text_trace_id(fields.get("trace_id")),
        max_bytes=config.max_record_bytes,
    )
    return _content_keyed(record)


def _content_keyed(record: Item) -> Item:
    """Log records carry no id of their own: they are known by their content hash."""
    if isinstance(record, RawRecord):
        return record.model_copy(update={"external_id": record.sha256[:16]})
    return record


def _text_trace_id(value: str | None) -> str | None:
    try:
        return normalise_id(value)
    except BadId:
        return None
