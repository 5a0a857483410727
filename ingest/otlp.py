"""OTLP/JSON helpers: attribute lists to plain dicts, status and ids."""

from __future__ import annotations

from typing import Any

_ERROR_STATUS_CODES = ("STATUS_CODE_ERROR", 2, "2")


def any_value(value: Any) -> Any:
    """Decode one OTLP AnyValue (`{"stringValue": ...}` etc.) into a plain Python value."""
    if not isinstance(value, dict) or not value:
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "intValue" in value:
        raw = value["intValue"]
        try:
            return int(raw)
        except (TypeError, ValueError):
            return raw
    if "doubleValue" in value:
        return value["doubleValue"]
    if "arrayValue" in value:
        items = (value["arrayValue"] or {}).get("values") or []
        return [any_value(item) for item in items] if isinstance(items, list) else None
    if "kvlistValue" in value:
        return attributes((value["kvlistValue"] or {}).get("values"))
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def attributes(items: Any) -> dict[str, Any]:
    """OTLP `[{"key", "value"}]` -> {key: value}; malformed entries are ignored."""
    result: dict[str, Any] = {}
    if not isinstance(items, list):
        return result
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            result[item["key"]] = any_value(item.get("value"))
    return result


def is_error_status(status: Any) -> bool:
    return isinstance(status, dict) and status.get("code") in _ERROR_STATUS_CODES


def normalise_id(value: Any) -> str | None:
    """A trace/span id as lowercase hex, or None when absent or all zeros."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    if not text or set(text) == {"0"}:
        return None
    return text


def session_attribute(attrs: dict[str, Any]) -> str | None:
    """The session an OTLP item belongs to (GenAI semconv first, then OpenInference)."""
    for key in ("gen_ai.conversation.id", "session.id"):
        value = attrs.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return None
