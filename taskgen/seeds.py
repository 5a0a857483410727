"""Frozen starting states (content-addressed) and relative-date resolution against their clock."""

from __future__ import annotations

import copy
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict

from ingest.models import StateRows, canonical_json, sha256_hex


class Seed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed_id: str
    clock: str
    domain: str
    state: dict[str, dict[str, dict[str, Any]]]

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


def freeze_seed(state: StateRows, clock: datetime, domain: str = "retail") -> Seed:
    """The same state, clock and domain always give the same seed id (tasks share it)."""
    frozen_clock = format_timestamp(clock)
    frozen_state = copy.deepcopy(state)
    digest = sha256_hex(canonical_json({"clock": frozen_clock, "domain": domain, "state": frozen_state}))
    return Seed(seed_id=f"seed-{digest[:16]}", clock=frozen_clock, domain=domain, state=frozen_state)


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
