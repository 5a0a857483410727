"""The retail policy file as a typed model."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

DEFAULT_POLICY_PATH = Path(__file__).with_name("policy.yaml")


class AddressChangePolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    who: Literal["account_owner"] = "account_owner"
    escalate_when_order_status_in: list[str] = Field(default_factory=lambda: ["shipped"])


class RetailPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    return_window_days: int = Field(ge=0)
    auto_refund_limit_cents: int = Field(ge=0)
    refundable_statuses: list[str]
    returnable_statuses: list[str]
    cancellable_statuses: list[str]
    address_change: AddressChangePolicy = Field(default_factory=AddressChangePolicy)

    @classmethod
    def from_yaml(cls, path: Path | None = None) -> RetailPolicy:
        return cls.model_validate(yaml.safe_load(Path(path or DEFAULT_POLICY_PATH).read_text(encoding="utf-8")))
