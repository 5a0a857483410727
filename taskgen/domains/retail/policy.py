"""The retail policy file as a typed model."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_POLICY_PATH = Path(__file__).with_name("policy.yaml")

BOUNDARIES: tuple[str, ...] = (
    "return_window", "auto_refund_limit", "not_delivered", "other_customer", "recently_delivered",
    "delivered", "not_cancellable", "cancellable", "order_in_transit", "identity_not_verified",
    "identity_verified", "outside_request", "closed",
)
"""Every boundary the drafter knows how to cross (taskgen/domains/retail/negatives.py: cross_boundary)."""


class AddressChangePolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    who: Literal["account_owner"] = "account_owner"
    escalate_when_order_status_in: list[str] = Field(default_factory=lambda: ["shipped"])
    in_transit: Literal["escalate", "decline"] = Field(
        default="escalate", description="what the agent does with an address change of an order in one of those statuses: "
        "hand it to a human (escalate), or refuse it (decline: tau2-bench's policy lets only pending orders be modified)")


class RetailPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    return_window_days: int = Field(ge=0)
    auto_refund_limit_cents: int = Field(ge=0)
    refundable_statuses: list[str]
    returnable_statuses: list[str]
    cancellable_statuses: list[str]
    closed_statuses: list[str] = Field(
        default_factory=list,
        description="statuses of an order that takes no change any more (cancelled): a change only a human makes is refused on it",
    )
    address_change: AddressChangePolicy = Field(default_factory=AddressChangePolicy)
    identity_required: bool = True
    requests_outside_tools: list[str] = Field(default_factory=list, description="phrases of requests only a human can do")
    intents_outside_tools: list[str] = Field(
        default_factory=list,
        description="intents whose request only a human can carry out, whatever its words (a question only is still answered)",
    )
    boundaries: dict[str, list[str]] = Field(default_factory=dict, description="intent -> boundaries its negative may cross")

    @field_validator("boundaries")
    @classmethod
    def _known_boundaries(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for intent, names in value.items():
            unknown = sorted(set(names) - set(BOUNDARIES))
            if unknown:
                raise ValueError(f"boundaries.{intent}: unknown boundary {unknown[0]!r}; known: {', '.join(BOUNDARIES)}")
        return value

    @classmethod
    def from_yaml(cls, path: Path | None = None) -> RetailPolicy:
        return cls.model_validate(yaml.safe_load(Path(path or DEFAULT_POLICY_PATH).read_text(encoding="utf-8")))
