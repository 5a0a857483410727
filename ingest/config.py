"""Settings for reading a drop and assembling sessions. Plain data: nothing is read from the environment."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ingest.otlp import DEFAULT_SESSION_ATTRIBUTES

DEFAULT_TEXT_LOG_PATTERN = (
    r"^(?P<timestamp>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)\s+"
    r"(?P<level>[A-Za-z]+)\s+"
    r"(?:\[(?:session=(?P<session_id>\S+?))?\s*(?:trace=(?P<trace_id>[0-9A-Fa-f]+))?\]\s+)?"
    r"(?P<message>.*)$"
)
"""Matches `2026-11-20T10:15:03.123Z ERROR [session=s-123 trace=abcd] message text`."""


class EntityRule(BaseModel):
    """How to spot the ids of one entity kind in a session."""

    model_config = ConfigDict(extra="forbid")

    arg_keys: list[str] = Field(default_factory=list, description="JSON keys whose values are ids of this kind")
    text_patterns: list[str] = Field(default_factory=list, description="regexes whose whole match is an id")

    @field_validator("text_patterns")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            re.compile(pattern)
        return patterns


def _default_entity_patterns() -> dict[str, EntityRule]:
    return {
        "order": EntityRule(arg_keys=["order_id"], text_patterns=[r"#W\d{7}"]),
        "customer": EntityRule(arg_keys=["customer_id", "user_id"]),
    }


class IngestConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_record_bytes: int = Field(default=1024 * 1024, gt=0, description="longest accepted line or record")
    ticket_session_field: int | str | None = Field(
        default=None,
        description="Zendesk custom field id holding the agent session id; None uses the ticket's external_id",
    )
    text_log_pattern: str = Field(
        default=DEFAULT_TEXT_LOG_PATTERN,
        description="regex for plain-text logs, named groups timestamp, level, message, session_id, trace_id",
    )
    entity_patterns: dict[str, EntityRule] = Field(default_factory=_default_entity_patterns)
    error_severity_min: int = Field(default=17, description="OTLP severityNumber from which a log is an error")
    session_attributes: list[str] = Field(
        default_factory=lambda: list(DEFAULT_SESSION_ATTRIBUTES),
        min_length=1,
        description="span, log or resource attributes holding the conversation id, the first present wins",
    )

    @field_validator("text_log_pattern")
    @classmethod
    def _has_required_groups(cls, pattern: str) -> str:
        groups = re.compile(pattern).groupindex
        missing = [name for name in ("timestamp", "level", "message") if name not in groups]
        if missing:
            raise ValueError(f"text_log_pattern lacks named group(s): {', '.join(missing)}")
        return pattern
