"""The phrasings of the demo's conversations and tickets, read from `phrases.yaml`."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict


class Phrases(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    system_prompt: str
    openers: dict[str, list[str]]
    """A session's first message, by intent."""
    sign_offs: list[str]
    thanks: list[str]
    human_requests: list[str]
    retry_asks: list[str]
    order_interims: list[str]
    account_interims: list[str]
    tool_errors: dict[str, tuple[str, str, str]]
    """Tool name -> (exception type, service, the service's log line)."""
    refund_error_500: str
    ticket_subjects: dict[str, str]
    follow_ups: list[str]
    human_openers: list[str]


PHRASES = Phrases.model_validate(yaml.safe_load(Path(__file__).with_name("phrases.yaml").read_text(encoding="utf-8")))
