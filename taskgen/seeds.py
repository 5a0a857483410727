"""Frozen starting states (content-addressed) and relative-date resolution against their clock."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ingest.models import Session, StateRows, canonical_json, sha256_hex


class Seed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed_id: str
    clock: str
    domain: str
    state: dict[str, dict[str, dict[str, Any]]]
    domain_schema: dict[str, Any] = Field(
        default_factory=dict, description="where the domain's concepts live in these rows; empty: the domain's defaults"
    )
    uncertain: list[str] = Field(
        default_factory=list,
        description="'kind id: why' for each row whose fields as of the clock cannot be told (changed later, unseen)",
    )

    @property
    def clock_datetime(self) -> datetime:
        return parse_timestamp(self.clock)


def parse_timestamp(value: str) -> datetime:
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def format_timestamp(moment: datetime) -> str:
    """UTC ISO-8601 with a Z suffix: the one clock format of seeds and state rows."""
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def freeze_seed(
    state: StateRows, clock: datetime, domain: str = "retail", domain_schema: dict[str, Any] | None = None,
    uncertain: list[str] | None = None,
) -> Seed:
    """The same state, clock, domain, schema and uncertainty always give the same seed id (tasks share it)."""
    frozen_clock = format_timestamp(clock)
    frozen_state = copy.deepcopy(state)
    content: dict[str, Any] = {"clock": frozen_clock, "domain": domain, "state": frozen_state}
    if domain_schema:
        content["domain_schema"] = domain_schema
    if uncertain:
        content["uncertain"] = sorted(uncertain)
    digest = sha256_hex(canonical_json(content))
    return Seed(
        seed_id=f"seed-{digest[:16]}", clock=frozen_clock, domain=domain, state=frozen_state,
        domain_schema=copy.deepcopy(domain_schema or {}), uncertain=sorted(uncertain or []),
    )


# ---------------------------------------------------------------- the state as the incident found it
_READ_CALL = re.compile(r"^(?:get|list|find|search|lookup|read|fetch|check|calculate|think|send_reply|transfer)", re.IGNORECASE)


@dataclass
class AsOfIncident:
    """The snapshot's rows turned back to how the session found them, and what could not be turned back."""

    state: StateRows
    restored: list[str]
    uncertain: list[str]


def _decoded_result(result: Any) -> Any:
    if isinstance(result, str):
        try:
            return json.loads(result)
        except ValueError:
            return None
    return result


def _objects(node: Any) -> list[dict[str, Any]]:
    """Every JSON object in a tool result, outermost first."""
    if isinstance(node, dict):
        return [node, *(found for value in node.values() for found in _objects(value))]
    if isinstance(node, list):
        return [found for value in node for found in _objects(value)]
    return []


def _scalars(node: Any) -> set[str]:
    if isinstance(node, dict):
        return {found for value in node.values() for found in _scalars(value)}
    if isinstance(node, list):
        return {found for value in node for found in _scalars(value)}
    return {str(node)} if node is not None else set()


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, (int, float)) and isinstance(right, (int, float)) and not isinstance(left, bool):
        return float(left) == float(right)
    return left == right


def _row_seen(candidate: dict[str, Any], row_id: str, row: dict[str, Any]) -> bool:
    """The object is this row as a tool returned it: it carries the row's id under the row's own key column."""
    return any(str(value) == row_id and str(row.get(key)) == row_id for key, value in candidate.items() if not isinstance(value, (dict, list)))


def _state_named_by_call(kind: str, row: dict[str, Any], call_name: str) -> list[tuple[str, Any]]:
    """(column, value) the row stood at before a write named after the state it needs: `<verb>_<state>_<noun>`
    (`cancel_pending_order`, `return_delivered_order_items`) acts only on a row in that state. Read where
    one column's value now carries the verb (`cancelled`, `return requested`, `pending (item modified)`) and
    the name holds exactly one other word that is neither the kind, a column of the row, nor a generic noun."""
    verb, *rest = call_name.lower().split("_")
    stem = verb.rstrip("ey")
    if len(stem) < 4 or not rest:
        return []
    nouns = {kind.lower(), kind.lower().rstrip("s"), f"{kind.lower()}s", *(column.lower() for column in row), *_GENERIC_NOUNS}
    left = [word for word in rest if word not in nouns and word.rstrip("s") not in nouns]
    if len(left) != 1:
        return []
    return [(column, left[0]) for column, value in sorted(row.items())
            if isinstance(value, str) and stem in value.lower() and value.lower() != left[0]]


def _fields_set_by(row: dict[str, Any], row_id: str, arguments: Any) -> list[str]:
    """Columns of the row that hold exactly what a write's arguments set: a column named as an argument
    with its value (`address`), or an object column whose every field is an argument with that value
    (tau-bench's `modify_user_address(address1, city, zip…)` on the `address` object). Ids are left out."""
    if not isinstance(arguments, dict):
        return []
    found = []
    for column, value in sorted(row.items()):
        if value is None or column.endswith("_id") or column == "id" or str(value) == row_id:
            continue
        if column in arguments and not isinstance(value, (dict, list)) and _same(arguments[column], value):
            found.append(column)
        elif isinstance(value, dict) and value and all(key in arguments and _same(arguments[key], item) for key, item in value.items()):
            found.append(column)
    return found


_GENERIC_NOUNS = frozenset({"order", "item", "user", "customer", "account", "payment", "method", "detail", "details", "info"})


def state_as_of_incident(
    session: Session, state: StateRows, clock: datetime, updated_by: dict[str, str] | None = None,
    later_sessions: list[Session] | None = None,
) -> AsOfIncident:
    """The snapshot as it stood when the session started, field by field.

    Evidence in order: what the agent itself observed in its tool results (a row's first observation
    before any of the agent's own write calls naming it; its fields override the snapshot's), then the
    state a write that is named after it says the row was in (`cancel_pending_order` on an order now
    'cancelled': it was 'pending'), then the snapshot. A row the incident wrote to before seeing it, or (with an `updated_by` column declared in
    the mapping) one changed after the clock and never observed, cannot be turned back: it is listed
    as uncertain, for a reviewer to settle. Rows created after the clock are already out of the snapshot.

    `later_sessions`: the ledger of the other sessions the snapshot was read after. A row this session
    neither saw nor wrote that one of them wrote after the clock carries that session's write: it is
    turned back where the write is named after the state it needs (a later `cancel_pending_order` on an
    order now 'cancelled': it was 'pending' here too), else listed as uncertain naming that write."""
    restored_state = copy.deepcopy(state)
    index = [(kind, row_id) for kind, rows in sorted(restored_state.items()) for row_id in sorted(rows)]
    observed: set[tuple[str, str]] = set()
    written: dict[tuple[str, str], str] = {}
    written_args: dict[tuple[str, str], list[Any]] = {}
    restored: list[str] = []
    for call in session.tool_calls:
        if _READ_CALL.match(call.name) is None:
            if call.status != "ok":
                continue
            named = _scalars(call.arguments)
            for kind, row_id in index:
                if row_id in named and (kind, row_id) not in observed:
                    written.setdefault((kind, row_id), call.name)
                    written_args.setdefault((kind, row_id), []).append(call.arguments)
            continue
        if call.status != "ok":
            continue
        for candidate in _objects(_decoded_result(call.result)):
            for kind, row_id in index:
                row = restored_state[kind][row_id]
                if (kind, row_id) in observed or (kind, row_id) in written or not _row_seen(candidate, row_id, row):
                    continue
                observed.add((kind, row_id))
                for column in sorted(set(candidate) & set(row)):
                    if not _same(candidate[column], row[column]):
                        row[column] = copy.deepcopy(candidate[column])
                        restored.append(f"{kind} {row_id}: {column}")
    for (kind, row_id), name in sorted(written.items()):
        for column, value in _state_named_by_call(kind, restored_state[kind][row_id], name):
            restored_state[kind][row_id][column] = value
            restored.append(f"{kind} {row_id}: {column} (named by the incident's own {name})")
    for (kind, row_id), calls in sorted(written_args.items()):
        # The incident's own write never stays in its seed: a field holding exactly what it wrote is emptied
        # (its value before is unknown; the row is listed as uncertain below).
        row = restored_state[kind][row_id]
        for arguments in calls:
            for column in _fields_set_by(row, row_id, arguments):
                row[column] = None
                restored.append(f"{kind} {row_id}: {column} (emptied: it held the incident's own {written[(kind, row_id)]})")
    uncertain = [f"{kind} {row_id}: changed by the incident's own {name} before the agent saw it" for (kind, row_id), name in sorted(written.items())]
    for kind, column in sorted((updated_by or {}).items()):
        for row_id, row in sorted(restored_state.get(kind, {}).items()):
            if (kind, row_id) in observed or (kind, row_id) in written or not row.get(column):
                continue
            try:
                changed = parse_timestamp(str(row[column]))
            except ValueError:
                continue
            if changed > (clock if clock.tzinfo else clock.replace(tzinfo=UTC)):
                uncertain.append(f"{kind} {row_id}: changed after the incident ({column} {format_timestamp(changed)})")
    aware_clock = clock if clock.tzinfo else clock.replace(tzinfo=UTC)
    later: dict[tuple[str, str], str] = {}
    later_args: dict[tuple[str, str], list[Any]] = {}
    for other in sorted(later_sessions or [], key=lambda other: (other.incident_at or aware_clock, other.session_id)):
        if other.session_id == session.session_id or other.incident_at is None or other.incident_at <= aware_clock:
            continue
        for call in other.tool_calls:
            if call.status != "ok" or _READ_CALL.match(call.name) is not None:
                continue
            named = _scalars(call.arguments)
            for kind, row_id in index:
                if row_id in named and (kind, row_id) not in observed and (kind, row_id) not in written:
                    later.setdefault((kind, row_id), call.name)
                    later_args.setdefault((kind, row_id), []).append(call.arguments)
    for (kind, row_id), name in sorted(later.items()):
        undone = _state_named_by_call(kind, restored_state[kind][row_id], name)
        for column, value in undone:
            restored_state[kind][row_id][column] = value
            restored.append(f"{kind} {row_id}: {column} (undone: a later session's {name})")
        for arguments in later_args[(kind, row_id)]:
            for column in _fields_set_by(restored_state[kind][row_id], row_id, arguments):
                restored_state[kind][row_id][column] = None
                restored.append(f"{kind} {row_id}: {column} (emptied: it held a later session's {name})")
                uncertain.append(f"{kind} {row_id}: {column} held a later session's {name}, emptied: its value as of the clock is unknown")
        if not undone and not any(entry.startswith(f"{kind} {row_id}: ") for entry in uncertain):
            uncertain.append(f"{kind} {row_id}: changed by a later session's {name}, which cannot be undone")
    return AsOfIncident(state=restored_state, restored=restored, uncertain=uncertain)


_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15,
    "twenty": 20, "thirty": 30, "a couple of": 2, "a couple": 2,
}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_COUNT = r"(\d{1,3}|a couple of|a couple|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30}
_RELATIVE = re.compile(
    r"\b(?:day before yesterday|yesterday|today|last (?:week|month|" + "|".join(_WEEKDAYS) + r")"
    + rf"|{_COUNT} (?:days?|weeks?|months?) ago"
    + r"|(?:a few|several|some) (?:days?|weeks?|months?) ago|recently|the other day)\b",
    re.IGNORECASE,
)
_VAGUE = re.compile(r"^(?:a few|several|some) |^recently$|^the other day$", re.IGNORECASE)


def find_relative_phrases(text: str) -> list[str]:
    """Every relative-date phrase in the text, resolvable or vague, in order of appearance."""
    return [match.group(0) for match in _RELATIVE.finditer(text)]


def _resolve(phrase: str, today: date) -> date | None:
    lowered = phrase.lower()
    if _VAGUE.search(lowered):
        return None
    fixed = {"today": 0, "yesterday": 1, "day before yesterday": 2, "last week": 7, "last month": 30}
    if lowered in fixed:
        return today - timedelta(days=fixed[lowered])
    if lowered.startswith("last "):
        weekday = _WEEKDAYS.index(lowered.removeprefix("last "))
        back = (today.weekday() - weekday) % 7 or 7
        return today - timedelta(days=back)
    count_text, unit = lowered.rsplit(" ago", 1)[0].rsplit(" ", 1)
    count = int(count_text) if count_text.isdigit() else _NUMBER_WORDS[count_text]
    return today - timedelta(days=count * _UNIT_DAYS[unit.rstrip("s")])


def resolve_relative_dates(text: str, clock: datetime) -> list[tuple[str, date]]:
    """(phrase, calendar date) for each phrase that the frozen clock pins down; vague ones are left out."""
    today = (clock if clock.tzinfo else clock.replace(tzinfo=UTC)).astimezone(UTC).date()
    resolved = []
    for phrase in find_relative_phrases(text):
        day = _resolve(phrase, today)
        if day is not None:
            resolved.append((phrase, day))
    return resolved
