"""OTLP/JSON helpers: attribute lists to plain dicts, status, ids and the envelope's spelling."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from typing import Any

_HEX = re.compile(r"^[0-9a-fA-F]+$")
_ID_BYTES = (16, 8)
"""Trace ids are 16 bytes, span ids 8."""

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


class BadId(ValueError):
    """An id that is neither hex nor the base64 of 8 or 16 bytes."""


def normalise_id(value: Any) -> str | None:
    """A trace/span id as lowercase hex, or None when absent or all zeros.

    OTLP/JSON writes ids in hex; the protobuf JSON mapping (`MessageToJson`, some exporters)
    writes the same bytes in base64, which is decoded to hex (never lower-cased as it is).
    Raises BadId for a string that is neither.
    """
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    if _HEX.match(text) and len(text) in (32, 16):
        hex_id = text.lower()
    else:
        hex_id = _base64_id(text) or (text.lower() if _HEX.match(text) else None)
        if hex_id is None:
            raise BadId("not a hex or base64 id")
    return None if set(hex_id) == {"0"} else hex_id


def _base64_id(text: str) -> str | None:
    padded = text + "=" * (-len(text) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            raw = decode(padded.encode("ascii"), validate=True) if decode is base64.b64decode else decode(padded.encode("ascii"))
        except (binascii.Error, ValueError, UnicodeEncodeError):
            continue
        if len(raw) in _ID_BYTES:
            return raw.hex()
    return None


def camel_keys(value: Any) -> Any:
    """OTLP/JSON with snake_case field names (`resource_spans`, `string_value`) in the
    spec's lowerCamelCase. Only object keys change: attribute names are values of "key".
    A value already in camelCase (the spec's own spelling, most exports) is given back as it is,
    not copied."""
    return _camel_copy(value) if _has_snake_key(value) else value


def _has_snake_key(value: Any) -> bool:
    if isinstance(value, dict):
        for key, item in value.items():
            if "_" in key or _has_snake_key(item):
                return True
    elif isinstance(value, list):
        for item in value:
            if _has_snake_key(item):
                return True
    return False


def _camel_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {_camel(key): _camel_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_camel_copy(item) for item in value]
    return value


def _camel(key: str) -> str:
    if "_" not in key:
        return key
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


DEFAULT_SESSION_ATTRIBUTES = (
    "gen_ai.conversation.id",
    "session.id",
    "traceloop.association.properties.session_id",
)
"""Where producers put the conversation id: the GenAI semantic conventions, OpenInference, and
what Traceloop's SDK writes on every span of an associated session."""


def session_attribute(attrs: dict[str, Any], keys: Iterable[str] = DEFAULT_SESSION_ATTRIBUTES) -> str | None:
    """The session an OTLP item belongs to: the first of `keys` it carries."""
    for key in keys:
        value = attrs.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return None
