"""Walking JSON-like values: field rules by dotted path, free texts, and JSON nested inside strings."""

from __future__ import annotations

import ast
import functools
import json
from collections.abc import Callable, Iterator
from fnmatch import fnmatchcase
from typing import Any

from scrubbers.shapes import digits_only

SKIP = "SKIP"
"""A policy answer: leave this field exactly as it is (ids, roles, tool names, ...)."""

Policy = Callable[[str], str | None]
"""dotted path (list indices left out) -> SKIP, an entity type (field rule), or None (free text)."""
ADDRESS_PART_KEYS: dict[str, str] = {
    "city": "CITY", "town": "CITY", "state": "STATE", "province": "STATE", "region": "STATE", "country": "COUNTRY",
    "zip": "POSTCODE", "zip_code": "POSTCODE", "zipcode": "POSTCODE", "postcode": "POSTCODE", "postal_code": "POSTCODE",
}
"""Keys of an address object and the part of the address each holds."""
_STREET_KEYS = frozenset({"address1", "address_line1", "address_line_1", "line1", "street", "street_address"})
_POSTCODE_KEYS = frozenset(k for k, v in ADDRESS_PART_KEYS.items() if v == "POSTCODE")


def is_address(value: dict) -> bool:
    """An object holding a postal address: a street line key, or a postcode key beside a town or state key
    ({'address1': …, 'city': …} or {'zip': …, 'state': …}). Its town, state and country fields are parts of
    the address (replaced with it); the same keys elsewhere ('state': 'pending') are not."""
    keys = {str(k).lower() for k in value}
    return bool(keys & _STREET_KEYS) or bool(keys & _POSTCODE_KEYS and keys & {"city", "town", "state", "province"})


def _rule(policy: Policy, path: str, key: object, address: bool) -> str | None:
    """Inside an address object a town, state, zip or country field is that part of the address, also when a
    mapping calls it a LOCATION (tau-bench's mapping: `address.city`, `address.zip`): replaced as a part, a
    zip stays a zip and a town lies in its stand-in state."""
    rule = policy(path)
    if address and rule in (None, SKIP, "LOCATION"):
        return ADDRESS_PART_KEYS.get(str(key).lower(), rule)
    return rule


def address_records(value: Any, policy: Policy, path: str = "") -> Iterator[dict[str, str]]:
    """{part: text} of every address object in `value` (JSON inside strings too), by its field rules."""
    if isinstance(value, str):
        inner = embedded_json(value)
        if inner is not None:
            yield from address_records(inner, policy, path)
    elif isinstance(value, list):
        for item in value:
            yield from address_records(item, policy, path)
    elif isinstance(value, dict):
        if is_address(value):
            record = {}
            for key, item in value.items():
                rule = _rule(policy, join(path, str(key)), key, True)
                if isinstance(item, (str, int)) and not isinstance(item, bool) and rule in ADDRESS_PART_KEYS.values():
                    record[rule] = str(item)
            yield record
        for key, item in value.items():
            yield from address_records(item, policy, join(path, str(key)))


@functools.lru_cache(maxsize=64)
def rule_policy(rules: tuple[tuple[str, str], ...], skip: tuple[str, ...] = ()) -> Policy:
    """First matching glob wins: skip globs, then `rules` in order. One policy (and path cache) per rule set."""

    @functools.lru_cache(maxsize=4096)
    def policy(path: str) -> str | None:
        if any(fnmatchcase(path, pattern) for pattern in skip):
            return SKIP
        for pattern, entity in rules:
            if fnmatchcase(path, pattern):
                return entity
        return None

    return policy


def plausible(entity_type: str, value: str) -> bool:
    """Whether a field-rule value really is one (not 'n/a', '' or a placeholder)."""
    value = value.strip()
    if entity_type == "EMAIL_ADDRESS":
        return "@" in value and "." in value.rpartition("@")[2]
    if entity_type == "CREDIT_CARD":  # a card's last four digits ('last_four': '9212') are a part of it
        return len(digits_only(value)) >= 4
    if entity_type in {"PHONE_NUMBER", "US_SSN"}:
        return len(digits_only(value)) >= 7
    if entity_type == "PERSON":
        return sum(c.isalpha() for c in value) >= 2 and value.casefold() not in {"n/a", "none", "null", "unknown"}
    return len(value) >= 2


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def embedded_json(text: str) -> dict | list | None:
    """The object or array a string holds, if it is one: JSON, or a Python dict or list as `repr` prints it
    ("{'order_id': '#W2611340', 'zip': '80279'}", a tool result logged with `str(result)`), read only when
    printing it again gives the same text (so it is written back exactly as it was)."""
    stripped = text.strip()
    if not (stripped[:1] in "{[" and stripped[-1:] in "}]" and len(stripped) > 1):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        value = _python_literal(stripped)
    return value if isinstance(value, (dict, list)) else None


def _python_literal(text: str) -> Any:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    return value if isinstance(value, (dict, list)) and repr(value) == text else None


def dump_like(original: str, value: Any) -> str:
    """Serialize `value` in the formatting style `original` used (indent, separators, escaping)."""
    stripped = original.strip()
    lead, trail = original[: len(original) - len(original.lstrip())], original[len(original.rstrip()) :]
    try:
        original_value = json.loads(stripped)
    except ValueError:  # a Python repr (`embedded_json`): printed again as one
        return lead + repr(value) + trail
    styles = [
        (indent, separators, ascii_only)
        for indent in (None, 2, 4, "\t", 1, 3)
        for separators in ((",", ":"), (", ", ": "), (",", ": "))
        for ascii_only in (False, True)
    ]
    for indent, separators, ascii_only in styles:
        if json.dumps(original_value, indent=indent, separators=separators, ensure_ascii=ascii_only) == stripped:
            return lead + json.dumps(value, indent=indent, separators=separators, ensure_ascii=ascii_only) + trail
    separators = (", ", ": ") if ", " in stripped else (",", ":")
    return lead + json.dumps(value, separators=separators, ensure_ascii=False) + trail


def iter_fields(value: Any, policy: Policy, path: str = "") -> Iterator[tuple[str, str | None, str]]:
    """(path, field rule or None, string) for every string to scrub, inside embedded JSON too.

    Strings under a field rule are yielded whole with their rule; every other string once as
    free text (None). Keys are not yielded: they are field names, not content.
    """
    if isinstance(value, dict):
        address = is_address(value)
        for key, item in value.items():
            yield from _iter_field(item, policy, join(path, str(key)), _rule(policy, join(path, str(key)), key, address))
    elif isinstance(value, list):
        for item in value:
            yield from iter_fields(item, policy, path)
    elif isinstance(value, str):
        yield from _iter_string(value, policy, path, None)


def _iter_field(value: Any, policy: Policy, path: str, rule: str | None) -> Iterator[tuple[str, str | None, str]]:
    if rule == SKIP:
        return
    if isinstance(value, str):
        yield from _iter_string(value, policy, path, rule)
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and rule and plausible(rule, str(value)):
        yield path, rule, str(value)
    elif isinstance(value, list):  # the field's rule holds for each of its items ('item_ids': [...])
        for item in value:
            yield from _iter_field(item, policy, path, rule)
    else:
        yield from iter_fields(value, policy, path)


def _iter_string(text: str, policy: Policy, path: str, rule: str | None) -> Iterator[tuple[str, str | None, str]]:
    inner = embedded_json(text)
    if inner is not None:
        yield from iter_fields(inner, policy, path)
    elif rule and plausible(rule, text):
        yield path, rule, text
    elif text.strip():
        yield path, None, text


def transform(value: Any, policy: Policy, replace: Callable[[str | None, str], str], path: str = "") -> Any:
    """A new value with every string from `iter_fields` passed through `replace(rule, text)`.

    The input is never modified; embedded JSON is re-serialized in its original style.
    """
    if isinstance(value, dict):
        address = is_address(value)
        return {
            key: _transform_field(item, policy, replace, join(path, str(key)), _rule(policy, join(path, str(key)), key, address))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [transform(item, policy, replace, path) for item in value]
    if isinstance(value, str):
        return _transform_string(value, policy, replace, path, None)
    return value


def _transform_field(value: Any, policy: Policy, replace: Callable[[str | None, str], str], path: str, rule: str | None) -> Any:
    if rule == SKIP:
        return value
    if isinstance(value, str):
        return _transform_string(value, policy, replace, path, rule)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and rule and plausible(rule, str(value)):
        new = replace(rule, str(value))
        digits = digits_only(new)
        return int(digits) if isinstance(value, int) and digits else new
    if isinstance(value, list):
        return [_transform_field(item, policy, replace, path, rule) for item in value]
    return transform(value, policy, replace, path)


def _transform_string(text: str, policy: Policy, replace: Callable[[str | None, str], str], path: str, rule: str | None) -> str:
    inner = embedded_json(text)
    if inner is not None:
        return dump_like(text, transform(inner, policy, replace, path))
    if rule and plausible(rule, text):
        return replace(rule, text)
    if text.strip():
        return replace(None, text)
    return text
