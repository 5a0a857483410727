"""Run three fake agents on each task to catch tasks that fail forever or pass forever."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from taskgen.domains import Domain
from taskgen.seeds import Seed
from taskgen.task import AgentView, DraftTask


class HealthResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str
    reference_passed: bool
    refund_all_passed: bool
    do_nothing_passed: bool
    verdict: Literal["works", "broken", "no_discriminating_power"]
    reference_reasons: list[str]


class SetSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tasks: int
    works: int
    broken: int
    no_discriminating_power: int
    reference_pass_rate: float
    refund_all_pass_rate: float
    do_nothing_pass_rate: float


class HealthSummary(BaseModel):
    """Capability and regression reported apart, never blended; named by the task-set version."""

    model_config = ConfigDict(extra="forbid")

    version: str
    capability: SetSummary
    regression: SetSummary


def health_check(task: DraftTask, seed: Seed, domain: Domain) -> HealthResult:
    view = AgentView(prompt=task.prompt, intent=task.intent, actor=task.actor, clock=seed.clock)
    passed: dict[str, bool] = {}
    reference_reasons: list[str] = []
    for name, agent in domain.agents().items():
        env = domain.environment(seed)
        agent(view, env)
        verdict = domain.grade(task, env.state, env.calls)
        passed[name] = verdict.passed
        if name == "reference":
            reference_reasons = verdict.reasons
    if not passed["reference"]:
        overall = "broken"
    elif all(passed.values()):
        overall = "no_discriminating_power"
    else:
        overall = "works"
    return HealthResult(
        task_id=task.task_id,
        reference_passed=passed["reference"],
        refund_all_passed=passed["refund_everything"],
        do_nothing_passed=passed["do_nothing"],
        verdict=overall,
        reference_reasons=reference_reasons,
    )


def _rate(hits: int, total: int) -> float:
    return round(hits / total, 4) if total else 0.0


def _summarize_set(results: Sequence[HealthResult]) -> SetSummary:
    total = len(results)
    return SetSummary(
        tasks=total,
        works=sum(result.verdict == "works" for result in results),
        broken=sum(result.verdict == "broken" for result in results),
        no_discriminating_power=sum(result.verdict == "no_discriminating_power" for result in results),
        reference_pass_rate=_rate(sum(result.reference_passed for result in results), total),
        refund_all_pass_rate=_rate(sum(result.refund_all_passed for result in results), total),
        do_nothing_pass_rate=_rate(sum(result.do_nothing_passed for result in results), total),
    )


def summarize(results: Sequence[HealthResult], tasks: Sequence[DraftTask], version: str = "unreleased") -> HealthSummary:
    set_of = {task.task_id: task.set for task in tasks}
    return HealthSummary(
        version=version,
        capability=_summarize_set([result for result in results if set_of.get(result.task_id) == "capability"]),
        regression=_summarize_set([result for result in results if set_of.get(result.task_id) == "regression"]),
    )
