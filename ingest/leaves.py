"""The scalar leaves of a JSON value (a payload, a state row): one walker for the readers, the
grader and the identity rules alike (in `ingest/`, the lowest package: `taskgen/` imports it,
`ingest/` never imports `taskgen/`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def leaves(value: Any, key: str = "", *, json_in_strings: bool = False) -> Iterator[tuple[str, Any]]:
    """(key path, value) of every scalar leaf of `value`, in document order: the dict keys on the
    way joined with dots (`address.zip`), a list's items under the list's own key. None and
    booleans are no leaves. With `json_in_strings`, a string holding a JSON object or array is a
    leaf and so are its own leaves, after it and under its key (a tool result kept as a string)."""
    if isinstance(value, dict):
        for child_key, child in value.items():
            yield from leaves(child, f"{key}.{child_key}" if key else str(child_key), json_in_strings=json_in_strings)
    elif isinstance(value, list):
        for child in value:
            yield from leaves(child, key, json_in_strings=json_in_strings)
    elif value is not None and not isinstance(value, bool):
        yield key, value
        nested = json_container(value) if json_in_strings and isinstance(value, str) else None
        if nested is not None:
            yield from leaves(nested, key, json_in_strings=True)


def json_container(text: str) -> Any:
    """A dict or list encoded in `text`, else None."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, (dict, list)) else None
