"""Typed records shared by every stage: what ingest reads and assembles.

`scrubbers` and `taskgen` import these types (never the readers). A `Session` holds raw
values until `scrubbers` returns a scrubbed copy of it; the raw one lives only in the raw
landing zone.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

SOURCES: tuple[str, ...] = ("tickets", "traces", "error_logs", "escalations", "deploys")
"""The five incident sources; a drop folder has one subfolder per source."""


def canonical_json(value: Any) -> str:
    """Canonical JSON: sorted keys, no whitespace, UTF-8 kept. Used for hashes and files."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Provenance(_Model):
    """Where a record came from: enough to find it again in the drop."""

    source: str
    file: str
    position: int = Field(description="1-based line number, or record index for whole-file JSON")
    external_id: str
    sha256: str


class RawRecord(_Model):
    """One accepted source record, exactly as read (raw values: raw landing zone only)."""

    source: str = Field(description="one of SOURCES, or 'state'")
    kind: str = Field(description="ticket, comment, span, log, escalation, deploy, ...")
    external_id: str
    file: str
    position: int
    occurred_at: datetime | None = None
    session_id: str | None = None
    trace_id: str | None = None
    payload: dict[str, Any]
    sha256: str = Field(description="sha256 of the record's canonical bytes; the ledger key")
    _canonical: str | None = PrivateAttr(default=None)
    """The payload's canonical JSON as the reader hashed it (`with_canonical`), so landing does not encode it again."""

    def with_canonical(self, canonical: str) -> RawRecord:
        """This record, knowing its payload's canonical JSON (the reader's, hashed for `sha256`)."""
        self._canonical = canonical
        return self

    def canonical_payload(self) -> str:
        """`canonical_json` of the payload (as the reader hashed it, when it said so)."""
        return self._canonical if self._canonical is not None else canonical_json(self.payload)

    def provenance(self) -> Provenance:
        return Provenance(
            source=self.source,
            file=self.file,
            position=self.position,
            external_id=self.external_id,
            sha256=self.sha256,
        )


class QuarantinedRecord(_Model):
    """A record that could not be accepted. `reason` never quotes the record's values."""

    source: str
    file: str
    position: int
    record: int = Field(
        default=0, description="1-based index of the record inside the line or file when it holds several; 0: all of it"
    )
    reason: str
    sha256: str | None = None


class Turn(_Model):
    role: Literal["user", "agent", "human_agent", "system"]
    text: str
    at: datetime | None = None
    source: str = Field(description="the source the words came from: traces, tickets, escalations")


class ToolCall(_Model):
    name: str
    call_id: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    at: datetime | None = None
    duration_ms: float | None = None


class TicketSignal(_Model):
    id: str
    at: datetime | None = None
    status: str | None = None
    subject: str | None = None
    tags: list[str] = Field(default_factory=list)
    priority: str | None = None


class ErrorSignal(_Model):
    at: datetime | None = None
    message: str
    template: str | None = Field(default=None, description="message template (drain3) used to group repeats")
    severity: int | None = None
    source: str = "error_logs"


class EscalationSignal(_Model):
    id: str
    at: datetime | None = None
    reason: str
    queue: str | None = None
    resolution: str | None = None


class DeploySignal(_Model):
    id: str
    kind: Literal["rollback", "hotfix"]
    at: datetime | None = None
    service: str | None = None
    from_version: str | None = None
    to_version: str | None = None
    reason: str | None = None
    incident_id: str | None = None


class Signals(_Model):
    """Evidence for a session's outcome, from every source that mentions it."""

    tickets: list[TicketSignal] = Field(default_factory=list)
    errors: list[ErrorSignal] = Field(default_factory=list)
    escalations: list[EscalationSignal] = Field(default_factory=list)
    deploys: list[DeploySignal] = Field(default_factory=list)
    span_errors: int = Field(default=0, description="agent spans whose status was ERROR")


class Usage(_Model):
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    agent_turns: int = 0


class Person(_Model):
    """Personal values known from structured fields (a ticket's requester, ...).

    The scrubber searches every free text of the session for these and their parts,
    so that what NER misses is still caught.
    """

    role: str = "requester"
    external_id: str | None = None
    name: str | None = None
    email: str | None = None
    phone: str | None = None


class Session(_Model):
    """One agent conversation and everything the sources say about it."""

    session_id: str
    trace_ids: list[str] = Field(default_factory=list)
    started_at: datetime | None = None
    ended_at: datetime | None = None
    turns: list[Turn] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    entity_ids: dict[str, list[str]] = Field(
        default_factory=dict, description="entity kind -> sorted ids the session touched (order, customer, ...)"
    )
    people: list[Person] = Field(default_factory=list)
    signals: Signals = Field(default_factory=Signals)
    usage: Usage = Field(default_factory=Usage)
    provenance: list[Provenance] = Field(default_factory=list)

    @property
    def incident_at(self) -> datetime | None:
        """When the incident happened: the session's start, else the first signal."""
        return self.started_at or self.ended_at

    def first_user_text(self) -> str:
        for turn in self.turns:
            if turn.role == "user" and turn.text.strip():
                return turn.text
        return ""


StateRows = dict[str, dict[str, dict[str, Any]]]
"""A state snapshot: entity kind -> entity id -> row (a JSON object)."""
