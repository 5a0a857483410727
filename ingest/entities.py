"""Which business entities (orders, customers, ...) a session touched."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from ingest.config import EntityRule
from ingest.leaves import json_container, leaves
from ingest.models import ToolCall, Turn


_LEADING_SIGN = re.compile(r"^\\?([#@$%&~!])")


def ids_in_text(pattern: str, text: str) -> list[tuple[int, str]]:
    """(position, id) of each match of an id pattern; an id pattern that starts with a sign (`#W\\d{7}`)
    also matches the id written without it ("order W5061109"), given back as the id is kept (`#W5061109`)."""
    return _IdPattern(pattern).find(text)


class _IdPattern:
    """An id pattern compiled once (with its signless form), for the many texts of a day."""

    def __init__(self, pattern: str) -> None:
        self.whole = re.compile(pattern)
        sign = _LEADING_SIGN.match(pattern)
        self.sign = sign.group(1) if sign else ""
        self.bare = re.compile(r"(?<![\w" + re.escape(self.sign) + r"])(?:" + pattern[sign.end():] + r")") if sign else None

    def find(self, text: str) -> list[tuple[int, str]]:
        found = [(match.start(), match.group(0)) for match in self.whole.finditer(text)]
        if self.bare is not None:
            found += [(match.start(), self.sign + match.group(0)) for match in self.bare.finditer(text)]
        return sorted(found)


class EntityFinder:
    """Collects ids by JSON key (tool arguments and results, recursively, including JSON inside
    strings) and by text pattern (every turn and every tool argument)."""

    def __init__(self, rules: dict[str, EntityRule]) -> None:
        self._kind_by_key = {key: kind for kind, rule in sorted(rules.items()) for key in rule.arg_keys}
        self._patterns = [(kind, _IdPattern(pattern)) for kind, rule in sorted(rules.items()) for pattern in rule.text_patterns]

    def find(self, turns: Iterable[Turn], tool_calls: Iterable[ToolCall]) -> dict[str, list[str]]:
        found: dict[str, set[str]] = {}
        for call in tool_calls:
            self._by_key(call.arguments, found)
            self._by_key(call.result, found)
            self._by_text(json.dumps(call.arguments, ensure_ascii=False, sort_keys=True), found)
        for turn in turns:
            self._by_text(turn.text, found)
        return {kind: sorted(ids) for kind, ids in sorted(found.items()) if ids}

    def find_in_payload(self, payload: Any) -> dict[str, list[str]]:
        """Every id one raw record's payload holds, by key or by pattern in any of its strings: what
        `find` can give a session this record is part of (its turns and tool calls are read from
        such payloads), found without assembling the session."""
        found: dict[str, set[str]] = {}
        self._by_key(payload, found)
        for _, text in leaves(payload, json_in_strings=True):
            if isinstance(text, str):
                self._by_text(text, found)
        return {kind: sorted(ids) for kind, ids in sorted(found.items()) if ids}

    def _by_key(self, value: Any, found: dict[str, set[str]]) -> None:
        if isinstance(value, str):
            nested = json_container(value)
            if nested is not None:
                self._by_key(nested, found)
        elif isinstance(value, dict):
            for key, item in value.items():
                kind = self._kind_by_key.get(key)
                if kind is not None:
                    for entity_id in _scalar_ids(item):
                        found.setdefault(kind, set()).add(entity_id)
                self._by_key(item, found)
        elif isinstance(value, list):
            for item in value:
                self._by_key(item, found)

    def _by_text(self, text: str, found: dict[str, set[str]]) -> None:
        for kind, pattern in self._patterns:
            for _, entity_id in pattern.find(text):
                found.setdefault(kind, set()).add(entity_id)


def _scalar_ids(value: Any) -> list[str]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (str, int)):
        text = str(value).strip()
        return [text] if text else []
    if isinstance(value, list):
        return [entity_id for item in value for entity_id in _scalar_ids(item) if not isinstance(item, list)]
    return []
