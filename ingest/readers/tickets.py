"""tickets/: Zendesk incremental-export pages (`tickets/*.json`) and comment files
(`tickets/comments/<ticket_id>.json`), both whole-file JSON as the Support API returns them.

A ticket record's payload is `{"ticket": ..., "requester": <side-loaded user or null>}`;
a comment record's payload is `{"ticket_id": ..., "comment": ...}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ingest.config import IngestConfig
from ingest.readers.base import Item, Where, describe_validation_error
from ingest.timestamps import parse_rfc3339

ZendeskId = int | str


class _Lenient(BaseModel):
    """Only what we rely on is checked; Zendesk adds fields freely."""

    model_config = ConfigDict(extra="allow", strict=True)


class CustomField(_Lenient):
    id: ZendeskId
    value: Any = None


class ZendeskTicket(_Lenient):
    id: ZendeskId
    external_id: str | None = None
    subject: str | None = None
    description: str | None = None
    status: str | None = None
    priority: str | None = None
    tags: list[str] = Field(default_factory=list)
    requester_id: ZendeskId | None = None
    created_at: datetime
    updated_at: datetime | None = None
    custom_fields: list[CustomField] = Field(default_factory=list)

    @field_validator("created_at", mode="plain")
    @classmethod
    def _created(cls, value: Any) -> datetime:
        return parse_rfc3339(value)

    @field_validator("updated_at", mode="plain")
    @classmethod
    def _updated(cls, value: Any) -> datetime | None:
        return None if value is None else parse_rfc3339(value)

    def session_id(self, session_field: int | str | None) -> str | None:
        if session_field is not None:
            for custom in self.custom_fields:
                if str(custom.id) == str(session_field) and custom.value not in (None, ""):
                    return str(custom.value)
        return self.external_id or None


class ZendeskComment(_Lenient):
    id: ZendeskId
    author_id: ZendeskId | None = None
    body: str
    public: bool = True
    created_at: datetime

    @field_validator("created_at", mode="plain")
    @classmethod
    def _created(cls, value: Any) -> datetime:
        return parse_rfc3339(value)


def _load_document(data: bytes, where: Where) -> dict[str, Any] | Item:
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return where.quarantine("invalid UTF-8", data)
    except RecursionError:
        return where.quarantine("JSON nested too deeply", data)
    except ValueError:
        return where.quarantine("invalid JSON", data)
    if not isinstance(document, dict):
        return where.quarantine("not a JSON object", data)
    return document


def tickets_from_page(data: bytes, source: str, file: str, config: IngestConfig) -> Iterator[Item]:
    document = _load_document(data, Where(source, file, 0))
    if not isinstance(document, dict):
        yield document
        return
    tickets = document.get("tickets")
    if not isinstance(tickets, list):
        yield Where(source, file, 0).quarantine("missing field 'tickets'", data)
        return
    users = document.get("users") if isinstance(document.get("users"), list) else []
    users_by_id = {str(user["id"]): user for user in users if isinstance(user, dict) and "id" in user}
    for index, ticket in enumerate(tickets, start=1):
        yield _ticket_record(ticket, users_by_id, Where(source, file, index), config)


def _ticket_record(ticket: Any, users_by_id: dict[str, Any], where: Where, config: IngestConfig) -> Item:
    if not isinstance(ticket, dict):
        return where.quarantine("ticket is not a JSON object")
    try:
        parsed = ZendeskTicket.model_validate(ticket)
    except ValidationError as error:
        return where.quarantine(describe_validation_error(error))
    requester = users_by_id.get(str(parsed.requester_id)) if parsed.requester_id is not None else None
    return where.record(
        kind="ticket",
        external_id=str(parsed.id),
        payload={"ticket": ticket, "requester": requester},
        occurred_at=parsed.created_at,
        session_id=parsed.session_id(config.ticket_session_field),
        max_bytes=config.max_record_bytes,
    )


def comments_from_file(data: bytes, ticket_id: str, source: str, file: str, config: IngestConfig) -> Iterator[Item]:
    document = _load_document(data, Where(source, file, 0))
    if not isinstance(document, dict):
        yield document
        return
    comments = document.get("comments")
    if not isinstance(comments, list):
        yield Where(source, file, 0).quarantine("missing field 'comments'", data)
        return
    for index, comment in enumerate(comments, start=1):
        where = Where(source, file, index)
        if not isinstance(comment, dict):
            yield where.quarantine("comment is not a JSON object")
            continue
        try:
            parsed = ZendeskComment.model_validate(comment)
        except ValidationError as error:
            yield where.quarantine(describe_validation_error(error))
            continue
        yield where.record(
            kind="comment",
            external_id=str(parsed.id),
            payload={"ticket_id": ticket_id, "comment": comment},
            occurred_at=parsed.created_at,
            max_bytes=config.max_record_bytes,
        )
