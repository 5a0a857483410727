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


ToolAction = Literal[
    "refund", "return_label", "return", "cancel", "update_address", "order_address", "modify_items", "exchange",
    "modify_payment", "escalate",
]
"""What a product's write tool does, in the policy's actions: `return_label` makes a label row, `return` sets
the order's status (tau2-bench's return request); `update_address` is the customer's own address,
`order_address` one order's shipping address."""


class WriteTool(BaseModel):
    """One of the product's state-changing tools as the environment simulates it and the drafter requires or forbids it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    action: ToolAction
    arguments: list[str] = Field(description="every argument the tool takes, by its name")
    optional: list[str] = Field(default_factory=list, description="those of `arguments` a call may leave out")
    order_arg: str | None = Field(default=None, description="the argument naming the order it acts on")
    customer_arg: str | None = Field(default=None, description="the argument naming the customer it acts on")
    requires_status: list[str] = Field(default_factory=list, description="order statuses it accepts (empty: any); others are refused")
    sets_status: str | None = Field(default=None, description="the status it writes (an order already in it is refused)")
    records: dict[str, str] = Field(default_factory=dict, description="order field -> the argument whose value it records there")
    address_args: list[str] = Field(default_factory=list, description="the arguments making up the address it writes (one: a single line)")
    amount_arg: str | None = Field(default=None, description="the refund's amount, in cents")
    reason_arg: str | None = Field(default=None, description="why: a refund's or escalation's reason, a cancellation's")
    items_arg: str | None = Field(default=None, description="the ids of the order's items it changes")
    new_items_arg: str | None = Field(default=None, description="the ids of the items they become")
    payment_arg: str | None = Field(default=None, description="the payment method it charges or refunds")
    reason_field: str | None = Field(default=None, description="the order field the reason is written to")
    refunds: bool = Field(default=False, description="it refunds the order's unrefunded amount (tau2-bench's cancellation)")
    rewrites_items: bool = Field(
        default=False, description="it rewrites the order's items (`items_arg`) into the new ones (`new_items_arg`): their item id, "
        "price and options (tau2-bench's modify_pending_order_items)")
    settles_difference: bool = Field(
        default=False, description="with `rewrites_items`: it settles the price difference on the order, a refund for a cheaper "
        "item, a payment for a dearer one (to `payment_arg`)")

    @property
    def plan_action(self) -> str:
        """The drafter's action it carries out (`return` requests a return: the return_label decision)."""
        return "return_label" if self.action == "return" else self.action


def _shipped_tools() -> list[WriteTool]:
    """The shipped policy file's declaration (the demo's tools): a policy file naming none gets them."""
    document = yaml.safe_load(DEFAULT_POLICY_PATH.read_text(encoding="utf-8"))
    return [WriteTool.model_validate(tool) for tool in document.get("tools", [])]


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
    tools: list[WriteTool] = Field(
        default_factory=_shipped_tools,
        description="the product's state-changing tools (escalation included): what each does, the order statuses it needs, what it writes",
    )

    @field_validator("tools")
    @classmethod
    def _one_tool_a_name(cls, value: list[WriteTool]) -> list[WriteTool]:
        names = [tool.name for tool in value]
        if len(set(names)) != len(names):
            raise ValueError(f"tools: a name declared twice ({sorted(n for n in names if names.count(n) > 1)[0]!r})")
        return value

    def tool_for(self, action: str, status: str | None = None) -> WriteTool | None:
        """The first declared tool carrying out `action` (and, given a status, accepting an order in it)."""
        for tool in self.tools:
            if tool.plan_action == action and (status is None or not tool.requires_status or status in tool.requires_status):
                return tool
        return None

    def tool_name(self, action: str, default: str) -> str:
        tool = self.tool_for(action)
        return tool.name if tool is not None else default

    @property
    def write_tool_names(self) -> list[str]:
        """Every declared tool that changes the product's state (a hand-over is not one)."""
        return [tool.name for tool in self.tools if tool.action != "escalate"]

    @property
    def escalation_tool(self) -> str:
        return self.tool_name("escalate", "escalate_to_human")

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
