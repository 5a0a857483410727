"""escalations/*.jsonl and deploys/*.jsonl: our own formats (docs/schemas/*.schema.json)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ingest.config import IngestConfig
from ingest.readers.base import Item, Where, describe_validation_error
from ingest.timestamps import parse_rfc3339


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class TranscriptEntry(_Strict):
    role: Literal["user", "agent", "human_agent"]
    text: str
    at: datetime | None = None

    @field_validator("at", mode="plain")
    @classmethod
    def _at(cls, value: Any) -> datetime | None:
        return None if value is None else parse_rfc3339(value)


class Escalation(_Strict):
    id: str = Field(min_length=1)
    session_id: str = Field(min_length=1)
    escalated_at: datetime
    reason: str
    queue: str | None = None
    transcript: list[TranscriptEntry] = Field(default_factory=list)
    resolution: str | None = None

    @field_validator("escalated_at", mode="plain")
    @classmethod
    def _escalated_at(cls, value: Any) -> datetime:
        return parse_rfc3339(value)


class Deploy(_Strict):
    id: str = Field(min_length=1)
    kind: Literal["rollback", "hotfix"]
    at: datetime
    service: str
    from_version: str
    to_version: str
    reason: str
    incident_id: str | None = None
    session_ids: list[str]

    @field_validator("at", mode="plain")
    @classmethod
    def _at(cls, value: Any) -> datetime:
        return parse_rfc3339(value)


def escalation_from_line(line: dict[str, Any], where: Where, config: IngestConfig) -> Item:
    try:
        escalation = Escalation.model_validate(line)
    except ValidationError as error:
        return where.quarantine(describe_validation_error(error))
    return where.record(
        kind="escalation",
        external_id=escalation.id,
        payload=line,
        occurred_at=escalation.escalated_at,
        session_id=escalation.session_id,
        max_bytes=config.max_record_bytes,
    )


def deploy_from_line(line: dict[str, Any], where: Where, config: IngestConfig) -> Item:
    try:
        deploy = Deploy.model_validate(line)
    except ValidationError as error:
        return where.quarantine(describe_validation_error(error))
    return where.record(
        kind="deploy",
        external_id=deploy.id,
        payload=line,
        occurred_at=deploy.at,
        max_bytes=config.max_record_bytes,
    )
