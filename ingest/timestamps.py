"""Timestamp parsing shared by readers, assembly and state: always timezone-aware UTC out."""

from __future__ import annotations

from datetime import datetime, timezone


class BadTimestamp(ValueError):
    """A value that is not a usable timestamp. The message never quotes the value."""


def parse_rfc3339(value: object, *, assume_utc: bool = False) -> datetime:
    """RFC 3339 text (`Z` or offset) -> aware UTC datetime.

    A timestamp without an offset is refused unless `assume_utc` (plain-text logs and
    database columns often omit it).
    """
    if not isinstance(value, str) or not value.strip():
        raise BadTimestamp("invalid timestamp")
    text = value.strip()
    if text[-1:] in ("z", "Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise BadTimestamp("invalid timestamp") from None
    if parsed.tzinfo is None:
        if not assume_utc:
            raise BadTimestamp("timestamp without timezone")
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def parse_unix_nanos(value: object) -> datetime:
    """OTLP `*UnixNano` (a decimal string, or an int) -> aware UTC datetime."""
    if isinstance(value, bool):
        raise BadTimestamp("invalid timestamp")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or value <= 0:
        raise BadTimestamp("invalid timestamp")
    seconds, nanos = divmod(value, 1_000_000_000)
    try:
        return datetime.fromtimestamp(seconds, tz=timezone.utc).replace(microsecond=nanos // 1000)
    except (OverflowError, OSError, ValueError):
        raise BadTimestamp("timestamp out of range") from None


def to_utc(value: datetime) -> datetime:
    """An aware datetime in UTC; a naive one is taken to be UTC already."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)
