"""Building blocks shared by the readers: record construction, skip markers, read counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from ingest.models import QuarantinedRecord, RawRecord, canonical_json, sha256_hex


@dataclass(frozen=True)
class Skip:
    """A valid record that is deliberately not kept (e.g. a log below error severity)."""

    reason: str


Item = RawRecord | QuarantinedRecord | Skip


@dataclass
class ReadStats:
    """Counts for one or more files: every non-empty line / record ends up in exactly one bucket."""

    lines: int = 0
    accepted: int = 0
    quarantined: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def count(self, item: Item) -> None:
        if isinstance(item, RawRecord):
            self.accepted += 1
        elif isinstance(item, QuarantinedRecord):
            self.quarantined += 1
        else:
            self.skipped[item.reason] = self.skipped.get(item.reason, 0) + 1


@dataclass(frozen=True)
class Where:
    """Where an item sits in the drop."""

    source: str
    file: str
    position: int
    item: int = 0
    """1-based index of a record among several on one line or in one file (spans, log records); 0: the whole."""

    def at(self, item: int) -> Where:
        return Where(self.source, self.file, self.position, item)

    def quarantine(self, reason: str, raw: bytes | str | None = None) -> QuarantinedRecord:
        return QuarantinedRecord(
            source=self.source,
            file=self.file,
            position=self.position,
            record=self.item,
            reason=reason,
            sha256=sha256_hex(raw) if raw is not None else None,
        )

    def record(
        self,
        *,
        kind: str,
        external_id: str,
        payload: dict[str, Any],
        occurred_at: datetime | None,
        max_bytes: int,
        session_id: str | None = None,
        trace_id: str | None = None,
    ) -> RawRecord | QuarantinedRecord:
        """A RawRecord keyed by the sha256 of the payload's canonical JSON, or a quarantine if too big."""
        text = canonical_json(payload)
        canonical = text.encode("utf-8")
        if len(canonical) > max_bytes:
            return self.quarantine(f"record over {max_bytes} bytes", canonical)
        return RawRecord(
            source=self.source,
            kind=kind,
            external_id=external_id,
            file=self.file,
            position=self.position,
            occurred_at=occurred_at,
            session_id=session_id,
            trace_id=trace_id,
            payload=payload,
            sha256=sha256_hex(canonical),
        ).with_canonical(text)


def describe_validation_error(error: ValidationError) -> str:
    """A quarantine reason from a pydantic error: field path and problem, never the input value."""
    first = error.errors(include_url=False, include_input=False, include_context=False)[0]
    path = ".".join(str(part) for part in first["loc"])
    if first["type"] == "missing":
        return f"missing field '{path}'"
    message = first["msg"].removeprefix("Value error, ")
    return f"invalid field '{path}': {message}" if path else f"invalid record: {message}"
