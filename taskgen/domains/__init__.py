"""Domains: the tools, state, policy, simulated environment, grader and fake agents of one business.

Adding a second domain is configuration plus one module:

1. Create a package `taskgen/domains/<name>/` with `taxonomy.yaml` (intents: keywords, phrases,
   tools) and `policy.yaml` (every boundary the agent must respect).
2. In its `__init__.py` define a class satisfying `Domain` below (see `retail.RetailDomain`):
   it loads its policy, builds an `Environment` over a seed, grades a final state, plans the
   expectations of a positive task and the boundary-crossing seed of its negative, and
   provides the `reference` and greedy (`refund_everything`-style) fake agents.
3. Add one line to `DOMAINS` below: `"<name>": "taskgen.domains.<name>:<ClassName>"`.

Nothing else in taskgen changes: drafting, validation, health checks and output only call
through this protocol.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ingest.config import EntityRule
from ingest.models import Session, StateRows, ToolCall
from ingest.state_mapping import StateMapping
from taskgen.task import AgentView, Allowance, Budget, DraftTask, Expectation, ForbiddenCall, IncidentBehaviour, ValidationIssue, Verdict

if TYPE_CHECKING:
    from taskgen.classify import Classification
    from taskgen.seeds import Seed

DOMAINS: dict[str, str] = {"retail": "taskgen.domains.retail:RetailDomain"}
"""Domain name -> 'module:class' of its implementation."""


class Environment(Protocol):
    state: StateRows
    calls: list[ToolCall]

    def call(self, name: str, **arguments: Any) -> Any: ...


Agent = Callable[[AgentView, Environment], None]


class Plan(BaseModel):
    """What a drafted task expects: end state, tool rules, and what the drafter could not settle."""

    model_config = ConfigDict(extra="forbid")

    expectations: list[Expectation]
    required_tools: list[str] = Field(default_factory=list)
    forbidden_tools: list[str] = Field(default_factory=list)
    forbidden_calls: list[ForbiddenCall] = Field(default_factory=list, description="calls forbidden on one entity only (a check)")
    may_change: list[Allowance] = Field(default_factory=list, description="changes allowed, not required: never a check")
    rubric: list[str] = Field(default_factory=list, description="items for a judge: what code cannot check about the reply")
    review_questions: list[str] = Field(default_factory=list)
    target: dict[str, str] = Field(default_factory=dict, description="the entity the expectations are about, e.g. order_id")
    scope: str = Field(
        default="", description="positives: a sentence the task's prompt starts with, naming the one entity the task is about "
        "when the customer's words alone do not tell it (several orders, none named): what the simulated user asks about"
    )
    words: str = Field(
        default="", description="positives: the customer's words as the task's prompt carries them when some are left out "
        "(what they ask about other orders than the scope's); '' = the session's own"
    )


class NegativePlan(Plan):
    state: StateRows = Field(description="the seed state moved across the boundary")
    actor: dict[str, str] = Field(default_factory=dict, description="the requester on the negative's side of the boundary")
    boundary: str
    boundary_question: str
    prompt: str = Field(default="", description="the negative's own words when crossing the boundary changes them; '' = the positive's")


class Domain(Protocol):
    name: str
    policy: BaseModel
    tools: tuple[str, ...]
    """The tools agents may call; the environment implements each as a method `_tool_<name>` whose
    signature and docstring describe it (the exports hand them to agents)."""

    def taxonomy_path(self) -> Path: ...

    def actor(self, session: Session, seed: Seed | None = None) -> dict[str, str]:
        """The requester the session or the customer's words identify on the seed; {} when none."""
        ...

    def plan_positive(
        self, session: Session, classification: Classification, seed: Seed, actor: dict[str, str], policy: Any
    ) -> Plan: ...

    def plan_negative(
        self, prompt: str, intent: str, seed: Seed, actor: dict[str, str], positive: Plan, policy: Any
    ) -> NegativePlan: ...

    def seed_schema(self, mapping: StateMapping, entity_patterns: dict[str, EntityRule]) -> dict[str, Any]:
        """Where the domain's concepts live in the mapped product, for the seed to carry; raises
        StateMappingError naming the first role it cannot resolve."""
        ...

    def add_canary(
        self, state: StateRows, clock: datetime, domain_schema: dict[str, Any] | None = None, session: Session | None = None,
        uncertain: Sequence[str] = (),
    ) -> StateRows:
        """The state with rows no correct trial touches (a canary order per customer), for every seed,
        in the product's own names (`domain_schema`: what `seed_schema` returned), drawn from that state alone;
        a real row may serve where `session` neither names nor touches it and it is not listed in `uncertain`."""
        ...

    def environment(self, seed: Seed) -> Environment: ...

    def grade(
        self, task: DraftTask, final_state: StateRows, calls: list[ToolCall],
        seed_state: StateRows | None = None, usage: Budget | None = None,
    ) -> Verdict:
        """End state, tools; with the seed's state, nothing else changed; with the trial's usage, the budget."""
        ...

    def agents(self) -> dict[str, Agent]:
        """'reference', the greedy 'refund_everything'-style agent, 'do_nothing', and 'reply_only' (one reply that states nothing)."""
        ...

    def incident_replay(self, behaviour: IncidentBehaviour) -> Agent:
        """A fake agent that does what the incident's agent did (its calls and last reply)."""
        ...

    def check_task(self, task: DraftTask, seed: Seed) -> list[ValidationIssue]: ...


def get_domain(name: str, policy_path: Path | None = None) -> Domain:
    if name not in DOMAINS:
        raise KeyError(f"unknown domain {name!r}; known: {', '.join(sorted(DOMAINS))}")
    module_name, class_name = DOMAINS[name].split(":")
    domain_class = getattr(importlib.import_module(module_name), class_name)
    return domain_class.from_policy_file(policy_path)
