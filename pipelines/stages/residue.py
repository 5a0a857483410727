"""The residue check's evidence: an independent look for raw values in the scrubbed sessions."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ingest.models import Session
from scrubbers.leakgate import common_word_name

from pipelines.stages.partition import raw_sessions, scrubbed_rows
from pipelines.stages.state import AppState
from pipelines.store.repository import Store


@dataclass
class ResidueResult:
    checked: int = 0
    values: int = 0
    leaks: dict[str, int] = field(default_factory=dict)


def _known_values(session: Session, state: dict, pii_fields: dict[str, dict[str, str]]) -> list[tuple[str, str]]:
    """(entity type, value) pairs the raw side knows from structured fields."""
    found: list[tuple[str, str]] = []
    for person in session.people:
        for entity, value in (("PERSON", person.name), ("EMAIL_ADDRESS", person.email), ("PHONE_NUMBER", person.phone)):
            if value:
                found.append((entity, value))
    for kind, rows in state.items():
        for row in rows.values():
            for path, entity in pii_fields.get(kind, {}).items():
                value: object = row
                for part in path.split("."):
                    value = value.get(part) if isinstance(value, dict) else None
                if isinstance(value, str) and value.strip():
                    found.append((entity, value))
    return found


def _as_token(value: str) -> re.Pattern[str]:
    """The value as a token of its own: a zip inside a random hex id or a longer number is not that zip."""
    return re.compile(r"(?<![0-9a-z])" + re.escape(value) + r"(?![0-9a-z])")


_DIGIT_RUN = re.compile(r"\+?\d[\d\s().-]{5,}\d")


def value_survives(entity: str, value: str, haystack: str, digit_runs: set[str], written: str | None = None) -> bool:
    """A raw value is still in the (casefolded) scrubbed text: as a token of its own, or for a phone or
    card number, its digits inside a run of digits however they are grouped. One word of a name that is a
    common English word is looked for as written in `written` (the text before casefolding), as the scrubber
    and the leak gate look for it: the customer 'Brown', not the colour 'brown' of a product's options."""
    needle = value.casefold()
    value_digits = "".join(ch for ch in value if ch.isdigit())
    if written is not None and common_word_name(entity, value):
        return len(needle) >= 4 and re.search(r"(?<![0-9A-Za-z])" + re.escape(value.strip()) + r"(?![0-9A-Za-z])", written) is not None
    if len(needle) >= 4 and needle in haystack and _as_token(needle).search(haystack):
        return True
    return entity in ("PHONE_NUMBER", "CREDIT_CARD") and len(value_digits) >= 7 and any(value_digits in run for run in digit_runs)


def residue_day(store: Store, state: AppState, day: str, *, scope: str) -> ResidueResult:
    """An independent look for raw values in the scrubbed sessions: the asset check's evidence.

    The originals are read from the raw zone and the state database and held in memory only.
    """
    result, leaks = ResidueResult(), Counter()
    pii_fields = state.pii_fields()
    rows = scrubbed_rows(store, day, scope)
    raw = {s.session_id: s for s in raw_sessions(store, day, [r.session_id for r in rows])}
    for row in rows:
        session = raw.get(row.session_id)
        if session is None:
            continue
        written = row.session + row.state
        haystack = written.casefold()
        digit_runs = {re.sub(r"\D", "", run) for run in _DIGIT_RUN.findall(haystack)}
        snapshot = state.snapshot(session.entity_ids, session.incident_at)
        result.checked += 1
        for entity, value in _known_values(session, snapshot, pii_fields):
            result.values += 1
            if value_survives(entity, value, haystack, digit_runs, written):
                leaks[entity] += 1
    result.leaks = dict(leaks)
    return result
