"""error_logs/: OTLP/JSON logs (*.jsonl) and plain-text application logs (*.log).

Only errors are kept (severityNumber >= config.error_severity_min); lower severities are
valid records, counted as skipped, never quarantined.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ingest.config import IngestConfig
from ingest.models import RawRecord
from ingest.otlp import attributes, normalise_id, session_attribute
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


def below_threshold(config: IngestConfig) -> Skip:
    return Skip(f"severity below {config.error_severity_min}")


def otlp_logs_from_line(line: dict[str, Any], where: Where, config: IngestConfig) -> Iterator[Item]:
    resource_logs = line.get("resourceLogs")
    if not isinstance(resource_logs, list):
        yield where.quarantine("missing field 'resourceLogs'")
        return
    found = False
    for resource_log in resource_logs:
        scope_logs = resource_log.get("scopeLogs", []) if isinstance(resource_log, dict) else None
        if not isinstance(scope_logs, list):
            yield where.quarantine("invalid field 'resourceLogs': not an object with a scopeLogs list")
            found = True
            continue
        resource = resource_log.get("resource") if isinstance(resource_log.get("resource"), dict) else {}
        for scope_log in scope_logs:
            log_records = scope_log.get("logRecords") if isinstance(scope_log, dict) else None
            if not isinstance(log_records, list):
                yield where.quarantine("invalid field 'scopeLogs': logRecords is not a list")
                found = True
                continue
            for log_record in log_records:
                found = True
                yield _log_record(log_record, resource, where, config)
    if not found:
        yield where.quarantine("line holds no log records")


def _log_record(log: Any, resource: dict, where: Where, config: IngestConfig) -> Item:
    if not isinstance(log, dict):
        return where.quarantine("log record is not a JSON object")
    severity = log.get("severityNumber")
    if isinstance(severity, str) and severity.isdigit():
        severity = int(severity)
    if not isinstance(severity, int) or isinstance(severity, bool):
        severity = LEVEL_SEVERITY.get(str(log.get("severityText", "")).upper())
    if severity is None:
        return where.quarantine("missing field 'severityNumber'")
    if severity < config.error_severity_min:
        return below_threshold(config)
    try:
        occurred = parse_unix_nanos(log.get("timeUnixNano") or log.get("observedTimeUnixNano"))
    except BadTimestamp as error:
        return where.quarantine(f"invalid log time: {error}")
    if "attributes" in log and not isinstance(log["attributes"], list):
        return where.quarantine("invalid field 'attributes': not a list")
    body = log.get("body")
    if not isinstance(body, dict) or not isinstance(body.get("stringValue"), str):
        return where.quarantine("missing field 'body.stringValue'")
    attrs = attributes(log.get("attributes"))
    session_id = session_attribute(attrs) or session_attribute(attributes(resource.get("attributes")))
    payload = {"resource": resource, "log": log}
    record = where.record(
        kind="log",
        external_id="",
        payload=payload,
        occurred_at=occurred,
        session_id=session_id,
        trace_id=normalise_id(log.get("traceId")),
        max_bytes=config.max_record_bytes,
    )
    return _content_keyed(record)


def text_log_from_line(text: str, where: Where, config: IngestConfig, pattern: re.Pattern[str]) -> Item:
    match = pattern.match(text)
    if match is None:
        return where.quarantine("line does not match the text log pattern")
    fields = {name: value for name, value in match.groupdict().items() if value is not None}
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
        trace_id=normalise_id(fields.get("trace_id")),
        max_bytes=config.max_record_bytes,
    )
    return _content_keyed(record)


def _content_keyed(record: Item) -> Item:
    """Log records carry no id of their own: they are known by their content hash."""
    if isinstance(record, RawRecord):
        return record.model_copy(update={"external_id": record.sha256[:16]})
    return record
