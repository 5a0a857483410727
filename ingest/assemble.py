"""Session assembly: every accepted record joined onto the agent session it is about."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ingest.config import IngestConfig
from ingest.conversation import SpanView, conversation_from_spans, transcript
from ingest.entities import EntityFinder
from ingest.error_templates import templates_for
from ingest.models import (
    DeploySignal,
    ErrorSignal,
    EscalationSignal,
    Person,
    Provenance,
    QuarantinedRecord,
    RawRecord,
    Session,
    Signals,
    TicketSignal,
    ToolCall,
    Turn,
    Usage,
)
from ingest.readers.logs import LEVEL_SEVERITY
from ingest.timestamps import parse_rfc3339

_SOURCE_RANK = {"traces": 0, "escalations": 1, "tickets": 2}


class AssemblyResult(BaseModel):
    sessions: list[Session] = Field(default_factory=list)
    quarantined: list[QuarantinedRecord] = Field(default_factory=list)
    duplicates: int = Field(default=0, description="records dropped because an identical one (same sha256) came first")


@dataclass
class _Parts:
    spans: list[SpanView] = field(default_factory=list)
    events: list[RawRecord] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    people: list[Person] = field(default_factory=list)
    signals: Signals = field(default_factory=Signals)
    provenance: list[Provenance] = field(default_factory=list)


def assemble_sessions(
    records: Iterable[RawRecord], config: IngestConfig, *, continued: dict[str, str] | None = None,
    templates: bool = True,
) -> AssemblyResult:
    """Every session the records make, with the records no session claims quarantined.

    `continued` (trace id -> session) resolves the traces no conversation id names; without it
    they are resolved among these records (see `continued_runs`). With `templates` false the
    error templates are left unset, for a caller that mines them over more sessions than these
    (`assign_templates`).
    """
    ordered, duplicates = _unique_in_order(records)
    parts, quarantined = _route(ordered, continued)
    finder = EntityFinder(config.entity_patterns)
    sessions = [_build(session_id, parts[session_id], finder) for session_id in sorted(parts)]
    if templates:
        assign_templates(sessions, templates_for(error_messages(sessions)))
    return AssemblyResult(sessions=sessions, quarantined=quarantined, duplicates=duplicates)


def assemble_in_chunks(
    session_ids: Iterable[str],
    records_for: Callable[[list[str]], Iterable[RawRecord]],
    config: IngestConfig,
    *,
    chunk: int = 200,
    continued: dict[str, str] | None = None,
) -> Iterator[Session]:
    """The sessions named by `session_ids` (sorted), built `chunk` sessions at a time, so memory
    holds one chunk's records, not a day's.

    `records_for(ids)` gives every record of those sessions (their traces' records, the records
    linking to them, their tickets' threads); a session another chunk's records also touch is
    built in its own chunk only. `continued` resolves the traces no conversation id names (see
    `continued_runs`; they are fetched by the caller with the session they continue). Error
    templates are left unset: collect `error_messages` over every chunk, mine them once
    (`ingest.error_templates.templates_for`) and `assign_templates`, so the templates are those
    one assembly of the whole day gives.
    """
    batch: list[str] = []
    for session_id in session_ids:
        batch.append(session_id)
        if len(batch) >= chunk:
            yield from _assemble_chunk(batch, records_for, config, continued)
            batch = []
    if batch:
        yield from _assemble_chunk(batch, records_for, config, continued)


def _assemble_chunk(ids: list[str], records_for, config: IngestConfig, continued) -> Iterator[Session]:
    wanted = set(ids)
    ordered, _ = _unique_in_order(records_for(ids))
    parts, _ = _route(ordered, continued or {})
    finder = EntityFinder(config.entity_patterns)
    for session_id in sorted(wanted & set(parts)):
        yield _build(session_id, parts[session_id], finder)


def unclaimed_records(records: Iterable[RawRecord], *, continued: dict[str, str] | None = None) -> list[QuarantinedRecord]:
    """The quarantine entries (dangling links) assembly gives these records, without building
    any session: for a caller that assembles sessions in chunks and looks for the records no
    session claims separately. Pass each record with its context (the spans of its trace, the
    tickets of its thread)."""
    ordered, _ = _unique_in_order(records)
    return _route(ordered, continued)[1]


def _route(ordered: list[RawRecord], continued: dict[str, str] | None) -> tuple[dict[str, _Parts], list[QuarantinedRecord]]:
    """Each record onto the parts of its session, or into quarantine (sorted)."""
    parts: dict[str, _Parts] = {}
    quarantined: list[QuarantinedRecord] = []

    def session(session_id: str, record: RawRecord) -> _Parts:
        entry = parts.get(session_id)
        if entry is None:  # not setdefault: a _Parts made for every record costs more than the routing
            entry = parts[session_id] = _Parts()
        entry.provenance.append(record.provenance())
        return entry

    spans = [r for r in ordered if r.kind == "span"]
    events = [r for r in ordered if r.kind == "genai_event"]
    trace_sessions = _trace_sessions(spans, events, continued)
    for record in spans:
        session_id = trace_sessions[record.trace_id or ""]
        session(session_id, record).spans.append(SpanView.of(record))
    for record in events:
        session_id = trace_sessions.get(record.trace_id or "") or record.session_id
        if session_id is None:
            quarantined.append(_dangling(record, "dangling link: GenAI event of a trace not seen"))
        else:
            session(session_id, record).events.append(record)

    tickets = _latest_tickets([r for r in ordered if r.kind == "ticket"])
    for record in tickets.values():
        if record.session_id is None:
            quarantined.append(_dangling(record, "dangling link: ticket names no session"))
        else:
            _add_ticket(session(record.session_id, record), record)
    for record in (r for r in ordered if r.kind == "comment"):
        ticket = tickets.get(str(record.payload["ticket_id"]))
        if ticket is None or ticket.session_id is None:
            quarantined.append(_dangling(record, "dangling link: comment for a ticket not seen"))
        else:
            _add_comment(session(ticket.session_id, record), record, ticket)

    for record in (r for r in ordered if r.kind == "log"):
        session_id = record.session_id or trace_sessions.get(record.trace_id or "")
        if session_id is None:
            reason = "dangling link: trace id not seen" if record.trace_id else "dangling link: no session or trace id"
            quarantined.append(_dangling(record, reason))
        else:
            session(session_id, record).signals.errors.append(_log_error(record))
    for record in (r for r in ordered if r.kind == "escalation"):
        _add_escalation(session(str(record.session_id), record), record)
    for record in (r for r in ordered if r.kind == "deploy"):
        names = sorted(set(record.payload["session_ids"]))
        if not names:
            quarantined.append(_dangling(record, "dangling link: deploy names no session"))
        for session_id in names:
            session(session_id, record).signals.deploys.append(_deploy(record))
    quarantined.sort(key=lambda q: (q.source, q.file, q.position, q.reason))
    return parts, quarantined


def _unique_in_order(records: Iterable[RawRecord]) -> tuple[list[RawRecord], int]:
    ordered = sorted(records, key=lambda r: (r.source, r.file, r.position, r.external_id, r.sha256))
    seen: set[str] = set()
    unique = []
    for record in ordered:
        if record.sha256 not in seen:
            seen.add(record.sha256)
            unique.append(record)
    return unique, len(ordered) - len(unique)


def _trace_sessions(spans: list[RawRecord], events: list[RawRecord], continued: dict[str, str] | None) -> dict[str, str]:
    """trace id -> session: the (smallest) session id any of its spans or events names; else the
    session of the run it continues (`continued`, else found among these spans: `continued_runs`);
    else the trace id itself."""
    named: dict[str, set[str]] = {}
    for record in spans:
        entry = named.setdefault(record.trace_id or "", set())
        if record.session_id:
            entry.add(record.session_id)
    for record in events:
        if record.session_id and record.trace_id in named:
            named[record.trace_id].add(record.session_id)
    sessions = {trace_id: min(ids) for trace_id, ids in named.items() if ids}
    unnamed = sorted(trace_id for trace_id, ids in named.items() if not ids)
    if unnamed and continued is not None:
        sessions.update((trace_id, continued.get(trace_id, trace_id)) for trace_id in unnamed)
    elif unnamed:
        sessions.update(_continued_runs(unnamed, spans, events, sessions))
    return sessions


def continued_runs(records: Iterable[RawRecord]) -> dict[str, str]:
    """trace id -> session, for the traces among these records that no conversation id names
    (see `_continued_runs`): pass every span and GenAI event a chunked assembly may need."""
    ordered, _ = _unique_in_order(r for r in records if r.kind in ("span", "genai_event"))
    spans = [r for r in ordered if r.kind == "span"]
    events = [r for r in ordered if r.kind == "genai_event"]
    resolved = _trace_sessions(spans, events, None)
    named = {r.trace_id for r in ordered if r.session_id}
    return {trace_id: session for trace_id, session in resolved.items() if trace_id not in named}


def _continued_runs(unnamed: list[str], spans: list[RawRecord], events: list[RawRecord],
                    sessions: dict[str, str]) -> dict[str, str]:
    """Sessions of traces no conversation id names. An agent framework that runs each user turn
    as a trace of its own (the OpenAI Agents SDK does) passes the conversation so far as the
    next run's input: a trace whose first model call starts with all that another trace said
    (its last model call's messages and answer) continues that trace's conversation."""
    by_trace: dict[str, list[SpanView]] = {}
    for record in spans:
        by_trace.setdefault(record.trace_id or "", []).append(SpanView.of(record))
    events_by_trace: dict[str, list[RawRecord]] = {}
    for record in events:
        events_by_trace.setdefault(record.trace_id or "", []).append(record)
    runs = []
    for trace_id, views in by_trace.items():
        first, whole = transcript(views, events_by_trace.get(trace_id, []))
        runs.append((min(v.start for v in views), trace_id, first, whole))
    runs.sort(key=lambda run: (run[0], run[1]))
    waiting = set(unnamed)
    resolved = dict(sessions)
    said_by: dict[tuple[tuple[str, str], ...], str] = {}
    """everything an earlier run said -> the latest run that said it"""
    for _, trace_id, first, whole in runs:  # in time order: a run continues an earlier one only
        if trace_id in waiting:
            resolved[trace_id] = trace_id
            for length in range(len(first) - 1, 0, -1):  # the longest earlier conversation it starts with
                previous = said_by.get(tuple(first[:length]))
                if previous is not None:
                    resolved[trace_id] = resolved.get(previous, previous)
                    break
        if any(role == "user" for role, _ in whole):
            said_by[tuple(whole)] = trace_id
    return {trace_id: resolved[trace_id] for trace_id in unnamed}


def _dangling(record: RawRecord, reason: str) -> QuarantinedRecord:
    return QuarantinedRecord(
        source=record.source, file=record.file, position=record.position, reason=reason, sha256=record.sha256
    )


def _latest_tickets(records: list[RawRecord]) -> dict[str, RawRecord]:
    """ticket id -> its latest exported version (incremental exports repeat updated tickets)."""
    latest: dict[str, RawRecord] = {}
    for record in records:
        current = latest.get(record.external_id)
        if current is None or _updated_at(record) >= _updated_at(current):
            latest[record.external_id] = record
    return dict(sorted(latest.items()))


def _updated_at(record: RawRecord) -> str:
    return str(record.payload["ticket"].get("updated_at") or "")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _add_ticket(parts: _Parts, record: RawRecord) -> None:
    ticket = record.payload["ticket"]
    parts.signals.tickets.append(
        TicketSignal(
            id=record.external_id,
            at=record.occurred_at,
            status=_text(ticket.get("status")),
            subject=_text(ticket.get("subject")),
            tags=sorted(ticket.get("tags") or []),
            priority=_text(ticket.get("priority")),
        )
    )
    description = _text(ticket.get("description"))
    if description:
        parts.turns.append(Turn(role="user", text=description, at=record.occurred_at, source="tickets"))
    requester = record.payload.get("requester")
    if isinstance(requester, dict):
        parts.people.append(
            Person(
                role="requester",
                external_id=str(requester.get("id")),
                name=_text(requester.get("name")),
                email=_text(requester.get("email")),
                phone=_text(requester.get("phone")),
            )
        )


def _add_comment(parts: _Parts, record: RawRecord, ticket: RawRecord) -> None:
    """Public comments become turns; the first comment repeats the description and is not added twice."""
    comment = record.payload["comment"]
    if comment.get("public") is False:
        return
    by_requester = str(comment.get("author_id")) == str(ticket.payload["ticket"].get("requester_id"))
    role = "user" if by_requester else "human_agent"
    body = comment["body"]
    if by_requester and _same_text(body, ticket.payload["ticket"].get("description")):
        return
    parts.turns.append(Turn(role=role, text=body, at=record.occurred_at, source="tickets"))


def _same_text(left: Any, right: Any) -> bool:
    return isinstance(left, str) and isinstance(right, str) and left.split() == right.split()


def _log_error(record: RawRecord) -> ErrorSignal:
    payload = record.payload
    if "log" in payload:
        log = payload["log"]
        severity = log.get("severityNumber")
        return ErrorSignal(
            at=record.occurred_at,
            message=log["body"]["stringValue"],
            severity=int(severity) if str(severity).isdigit() else LEVEL_SEVERITY.get(str(log.get("severityText")).upper()),
        )
    return ErrorSignal(
        at=record.occurred_at, message=payload["fields"].get("message", ""), severity=payload["severityNumber"]
    )


def _add_escalation(parts: _Parts, record: RawRecord) -> None:
    payload = record.payload
    parts.signals.escalations.append(
        EscalationSignal(
            id=record.external_id,
            at=record.occurred_at,
            reason=payload["reason"],
            queue=payload.get("queue"),
            resolution=payload.get("resolution"),
        )
    )
    for entry in payload.get("transcript") or []:
        at = parse_rfc3339(entry["at"]) if entry.get("at") else None
        parts.turns.append(Turn(role=entry["role"], text=entry["text"], at=at, source="escalations"))


def _deploy(record: RawRecord) -> DeploySignal:
    payload = record.payload
    return DeploySignal(
        id=record.external_id,
        kind=payload["kind"],
        at=record.occurred_at,
        service=payload.get("service"),
        from_version=payload.get("from_version"),
        to_version=payload.get("to_version"),
        reason=payload.get("reason"),
        incident_id=payload.get("incident_id"),
    )


def _build(session_id: str, parts: _Parts, finder: EntityFinder) -> Session:
    conversation = conversation_from_spans(parts.spans, parts.events)
    turns = _merge_turns(conversation.turns + parts.turns)
    tool_calls: list[ToolCall] = conversation.tool_calls
    signals = parts.signals
    signals.errors.extend(conversation.errors)
    signals.span_errors = conversation.span_errors
    signals.tickets.sort(key=lambda s: (_when(s.at), s.id))
    signals.errors.sort(key=lambda s: (_when(s.at), s.source, s.message))
    signals.escalations.sort(key=lambda s: (_when(s.at), s.id))
    signals.deploys.sort(key=lambda s: (_when(s.at), s.id))
    times = [t for s in parts.spans for t in (s.start, s.end) if t is not None]
    times += [t.at for t in turns if t.at] + [c.at for c in tool_calls if c.at]
    for group in (signals.tickets, signals.errors, signals.escalations, signals.deploys):
        times += [s.at for s in group if s.at]
    people = sorted(
        {p.model_dump_json(): p for p in parts.people}.values(), key=lambda p: (p.role, p.external_id or "", p.name or "")
    )
    return Session(
        session_id=session_id,
        trace_ids=sorted({s.record.trace_id for s in parts.spans if s.record.trace_id}),
        started_at=min(times) if times else None,
        ended_at=max(times) if times else None,
        turns=turns,
        tool_calls=tool_calls,
        entity_ids=finder.find(turns, tool_calls),
        people=people,
        signals=signals,
        usage=Usage(
            input_tokens=conversation.input_tokens,
            output_tokens=conversation.output_tokens,
            latency_ms=conversation.latency_ms,
            agent_turns=sum(1 for t in conversation.turns if t.role == "agent"),
        ),
        provenance=sorted(
            {p.sha256 + p.file + str(p.position): p for p in parts.provenance}.values(),
            key=lambda p: (p.source, p.file, p.position, p.external_id),
        ),
    )


def _when(at: datetime | None) -> tuple[bool, str]:
    return (at is None, at.isoformat() if at else "")


def _merge_turns(turns: list[Turn]) -> list[Turn]:
    """Time-ordered turns; a turn another source already holds with the same role and words is dropped."""
    ordered = sorted(
        enumerate(turns), key=lambda item: (_when(item[1].at), _SOURCE_RANK.get(item[1].source, 9), item[0])
    )
    sources_by_words: dict[tuple[str, tuple[str, ...]], str] = {}
    merged = []
    for _, turn in sorted(ordered, key=lambda item: (_SOURCE_RANK.get(item[1].source, 9), item[0])):
        key = (turn.role, tuple(turn.text.split()))
        first_source = sources_by_words.setdefault(key, turn.source)
        if first_source == turn.source:
            merged.append(turn)
    kept = {id(turn) for turn in merged}
    return [turn for _, turn in ordered if id(turn) in kept]


def error_messages(sessions: Iterable[Session]) -> set[str]:
    """The distinct error messages of these sessions (what `templates_for` mines)."""
    return {error.message for session in sessions for error in session.signals.errors}


def assign_templates(sessions: Iterable[Session], templates: dict[str, str]) -> None:
    """Set each error's template from `templates` (message -> template, `templates_for`)."""
    for session in sessions:
        for error in session.signals.errors:
            error.template = templates[error.message]
