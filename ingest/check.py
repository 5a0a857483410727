"""A dry run over a drop for a new user's data: what every source yields, what sessions come
of it, without storing anything (`trace2task ingest-check`).

`check_drop` reads every file of every source and assembles the sessions in memory.
`session_summary` shows one session without its words (roles, tool names and statuses,
signal kinds and ids); the words are shown only when the caller passes sessions it has
scrubbed and asks for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ingest.assemble import assemble_sessions
from ingest.config import IngestConfig
from ingest.models import SOURCES, QuarantinedRecord, RawRecord, Session
from ingest.readers import ReadStats, list_source_files, read_file


class SourceCheck(BaseModel):
    files: int = 0
    accepted: int = 0
    quarantined: int = 0
    skipped: dict[str, int] = Field(default_factory=dict, description="valid records not kept, by why")
    reasons: dict[str, int] = Field(default_factory=dict, description="quarantined records by reason")


class DropCheck(BaseModel):
    sources: dict[str, SourceCheck]
    sessions: list[Session]
    quarantined: list[QuarantinedRecord] = Field(description="every quarantined record, read or assembly")

    def failed(self) -> bool:
        """Nothing usable: no session came of the drop."""
        return not self.sessions


def check_drop(drop: Path, config: IngestConfig) -> DropCheck:
    """Read every source folder of `drop` and assemble its sessions; nothing is written."""
    sources: dict[str, SourceCheck] = {}
    records: list[RawRecord] = []
    quarantined: list[QuarantinedRecord] = []
    for source in SOURCES:
        summary = SourceCheck()
        stats = ReadStats()
        for path in list_source_files(drop, source):
            summary.files += 1
            for item, _ in read_file(source, path, drop, config, stats=stats):
                if isinstance(item, RawRecord):
                    records.append(item)
                else:
                    quarantined.append(item)
                    summary.reasons[item.reason] = summary.reasons.get(item.reason, 0) + 1
        summary.accepted, summary.quarantined, summary.skipped = stats.accepted, stats.quarantined, dict(stats.skipped)
        sources[source] = summary
    assembled = assemble_sessions(records, config)
    for item in assembled.quarantined:  # a record read fine but linked to nothing
        summary = sources[item.source]
        summary.accepted -= 1
        summary.quarantined += 1
        summary.reasons[item.reason] = summary.reasons.get(item.reason, 0) + 1
    for summary in sources.values():
        summary.reasons = dict(sorted(summary.reasons.items()))
    return DropCheck(sources=sources, sessions=assembled.sessions, quarantined=[*quarantined, *assembled.quarantined])


def session_summary(session: Session, *, show_text: bool = False) -> dict[str, Any]:
    """One session as ingest-check shows it. With `show_text` the turns' and signals' words are
    included: pass a scrubbed session then, never a raw one."""
    turns = [{"role": t.role, "source": t.source, **({"text": t.text} if show_text else {})} for t in session.turns]
    calls = [{"name": c.name, "status": c.status, **({"error": c.error} if show_text and c.error else {})}
             for c in session.tool_calls]
    signals: list[dict[str, Any]] = []
    for ticket in session.signals.tickets:
        signals.append({"kind": "ticket", "id": ticket.id, "status": ticket.status, "tags": ticket.tags})
    for error in session.signals.errors:
        signals.append({"kind": "error", "source": error.source, "severity": error.severity,
                        **({"message": error.message} if show_text else {})})
    for escalation in session.signals.escalations:
        signals.append({"kind": "escalation", "id": escalation.id, "queue": escalation.queue,
                        **({"reason": escalation.reason} if show_text else {})})
    for deploy in session.signals.deploys:
        signals.append({"kind": deploy.kind, "id": deploy.id, "service": deploy.service})
    if session.signals.span_errors:
        signals.append({"kind": "span_errors", "count": session.signals.span_errors})
    return {
        "session_id": session.session_id,
        "started_at": session.started_at.isoformat() if session.started_at else None,
        "traces": len(session.trace_ids),
        "turns": turns,
        "tool_calls": calls,
        "signals": signals,
        "usage": {"input_tokens": session.usage.input_tokens, "output_tokens": session.usage.output_tokens},
    }
