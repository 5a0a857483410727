"""Settings for drafting tasks; every default works for the shipped retail domain."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SamplingConfig(_Config):
    """How many sessions each (intent, outcome) cell contributes to the sample."""

    quotas: dict[str, int] = Field(
        default_factory=dict, description="'intent/outcome' -> quota, overriding default_quota"
    )
    default_quota: int = Field(default=3, ge=1)
    failure_weight: float = Field(default=2.0, ge=1.0, description="quota multiplier for non-resolved outcomes")
    easy_cell_cap: int = Field(default=2, ge=1, description="most sessions taken from any resolved cell")
    seed: int = 0

    def quota_for(self, intent: str, outcome: str) -> int:
        base = self.quotas.get(f"{intent}/{outcome}", self.default_quota)
        if outcome == "resolved":
            return max(1, min(base, self.easy_cell_cap))
        return max(1, round(base * self.failure_weight))


class BudgetConfig(_Config):
    """Budget = the incident's own usage times headroom, never below the minimums nor below what a correct
    agent spends in its turn budget: every model generation re-reads the system prompt (the policy and the
    tools' descriptions) and the conversation so far, which grows by about `context_tokens_per_turn` a turn."""

    turns_headroom: float = Field(default=2.0, ge=1.0)
    tokens_headroom: float = Field(default=2.0, ge=1.0)
    latency_headroom: float = Field(default=3.0, ge=1.0)
    min_turns: int = Field(default=4, ge=1)
    min_tokens: int = Field(default=4000, ge=1)
    min_latency_ms: int = Field(default=30000, ge=1)
    system_prompt_tokens: int | None = Field(
        default=None, ge=0, description="the agent's system prompt (policy, instructions, tool descriptions) in tokens when "
        "known (e.g. tau2-bench's policy.md is about 1,700); None: estimated from the domain's policy and tools and the "
        "session's own system turns, at four characters a token")
    context_tokens_per_turn: int = Field(
        default=500, ge=0, description="what a turn adds to the context a later generation re-reads (a tool result such as "
        "an order with its items, the agent's message)")


class ExportsConfig(_Config):
    """Where exported tasks go beyond Inspect AI: the mapping onto a tau2-bench domain."""

    tau2_mapping: Path | None = Field(
        default=None, description="YAML mapping of our tools, checks and states onto a tau2-bench domain (docs/examples/tau2-retail.export.yaml)"
    )


class TaskgenConfig(_Config):
    domain: str = "retail"
    taxonomy_path: Path | None = Field(default=None, description="None: the domain's shipped taxonomy.yaml")
    policy_path: Path | None = Field(default=None, description="None: the domain's shipped policy.yaml")
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    heldout_share: float = Field(default=0.3, ge=0.0, le=1.0)
    exports: ExportsConfig = Field(default_factory=ExportsConfig)
    regression_tags: list[str] = Field(
        default_factory=lambda: ["fix-confirmed", "fix_confirmed", "confirmed-fix"],
        description="ticket tags that mark a confirmed fix (the task joins the regression set)",
    )

    @field_validator("domain")
    @classmethod
    def _known_domain(cls, name: str) -> str:
        from taskgen.domains import DOMAINS

        if name not in DOMAINS:
            raise ValueError(f"unknown domain {name!r}; known: {', '.join(sorted(DOMAINS))}")
        return name

    def load_domain(self):
        """The configured domain with its policy (the shipped one unless policy_path is set)."""
        from taskgen.domains import get_domain

        return get_domain(self.domain, self.policy_path)

    def load_taxonomy(self):
        """The configured taxonomy, else the domain's shipped one."""
        from taskgen.taxonomy import Taxonomy

        return Taxonomy.from_yaml(self.taxonomy_path or self.load_domain().taxonomy_path())
