"""Fake agents and replays on each task, to catch tasks that fail forever, pass forever or test nothing.

Incident replay: the incident's own tool calls and last reply, replayed on the positive's seed, must
fail the positive when the incident failed, errored or was rolled back; else the task does not
capture the bug and is flagged.

Per task: the reference agent must pass; the greedy and do-nothing agents must not both pass with it.
Per pair (cross-replay): the tool calls the reference agent makes on the positive's seed, replayed on
the negative's seed, must fail the negative, and the other way round; a pair that fails this accepts
the same behaviour twice and is flagged. A negative with `boundary: none` is a stub a person must
still write: it is kept out of every figure except the share of stubs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ingest.models import ToolCall
from taskgen.domains import Domain, Environment
from taskgen.seeds import Seed
from taskgen.task import AgentView, DraftTask

Verdict = Literal["works", "broken", "no_discriminating_power", "pair_not_discriminating", "incident_passes", "invalid", "stub"]
STUB_BOUNDARY = "none"
FAILURE_OUTCOMES: tuple[str, ...] = ("failed", "errored", "rolled_back")
"""Outcomes whose own behaviour is the bug: replayed on the positive's seed, it must fail the positive."""


class HealthResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str
    reference_passed: bool
    refund_all_passed: bool
    do_nothing_passed: bool
    partner_reference_passed: bool | None = Field(
        default=None, description="the pair's other task's reference behaviour replayed on this seed (must fail); None: not replayed"
    )
    pair_discriminates: bool | None = Field(
        default=None, description="each task's reference behaviour fails the other task of the pair; None: not replayed"
    )
    incident_replay_passed: bool | None = Field(
        default=None, description="positives: the incident's own calls and reply replayed on the seed; None: nothing to replay"
    )
    stub: bool = False
    verdict: Verdict
    flags: list[str] = Field(default_factory=list, description="every failed health check, by name")
    reference_reasons: list[str]


class SetSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tasks: int = Field(description="tasks that are not stubs")
    works: int
    broken: int
    no_discriminating_power: int
    pair_not_discriminating: int
    incident_passes: int
    invalid: int = Field(description="tasks whose health checks hold but whose validation found issues")
    reference_pass_rate: float
    refund_all_pass_rate: float
    do_nothing_pass_rate: float
    pairs: int
    stub_pairs: int
    discriminating_pairs: int = Field(description="non-stub pairs whose cross-replay fails both ways")
    discriminating_share: float = Field(description="discriminating pairs / non-stub pairs")
    stub_share: float = Field(description="stub pairs / pairs")
    incident_replayed: int = Field(description="positives of failed, errored or rolled-back incidents with a behaviour to replay")
    incident_replay_fails: int = Field(description="of those, the positives the incident's own behaviour fails")
    incident_fail_share: float = Field(description="incident_replay_fails / incident_replayed")


class HealthSummary(BaseModel):
    """Capability and regression reported apart, never blended; named by the task-set version."""

    model_config = ConfigDict(extra="forbid")

    version: str
    capability: SetSummary
    regression: SetSummary


def is_stub(task: DraftTask) -> bool:
    return task.polarity == "negative" and task.boundary == STUB_BOUNDARY


def agent_view(task: DraftTask, seed: Seed) -> AgentView:
    return AgentView(prompt=task.prompt, intent=task.intent, actor=task.actor, clock=seed.clock)


def replay(calls: Sequence[ToolCall], seed: Seed, domain: Domain) -> Environment:
    """The same tool calls on another seed: a call that failed where it was made is recorded, not run."""
    env = domain.environment(seed)
    for call in calls:
        if call.status == "ok":
            env.call(call.name, **call.arguments)
        else:
            env.calls.append(call)
    return env


def reference_calls(task: DraftTask, seed: Seed, domain: Domain) -> list[ToolCall]:
    """What the reference agent does on this task's seed."""
    env = domain.environment(seed)
    domain.agents()["reference"](agent_view(task, seed), env)
    return list(env.calls)


def _start_state(seed: Seed, domain: Domain):
    """The seed's state as the environment shows it (the domain's own names, whatever the product's),
    the state a trial's end state is compared with."""
    return domain.environment(seed).state


def _passes_replay(calls: Sequence[ToolCall], task: DraftTask, seed: Seed, domain: Domain) -> bool:
    env = replay(calls, seed, domain)
    return domain.grade(task, env.state, env.calls, _start_state(seed, domain)).passed


def health_check(
    task: DraftTask, seed: Seed, domain: Domain, partner: tuple[DraftTask, Seed] | None = None
) -> HealthResult:
    """The three agents on the task; with its pair's other task and seed, the cross-replay too."""
    view = agent_view(task, seed)
    passed: dict[str, bool] = {}
    reference_reasons: list[str] = []
    start = _start_state(seed, domain)
    for name, agent in domain.agents().items():
        env = domain.environment(seed)
        agent(view, env)
        verdict = domain.grade(task, env.state, env.calls, start)
        passed[name] = verdict.passed
        if name == "reference":
            reference_reasons = verdict.reasons
    stub = is_stub(task) or (partner is not None and is_stub(partner[0]))
    partner_passed = pair_discriminates = None
    if partner is not None and not stub:
        partner_passed = _passes_replay(reference_calls(*partner, domain), task, seed, domain)
        passed_by_partner = _passes_replay(reference_calls(task, seed, domain), partner[0], partner[1], domain)
        pair_discriminates = not (partner_passed or passed_by_partner)
    incident_passed = None
    if task.polarity == "positive" and task.incident is not None:
        env = domain.environment(seed)
        domain.incident_replay(task.incident)(view, env)
        incident_passed = domain.grade(task, env.state, env.calls, start, task.incident.usage).passed
    flags = []
    if incident_passed and task.outcome in FAILURE_OUTCOMES:
        flags.append("incident_behaviour_passes")
    if not passed["reference"]:
        flags.append("reference_fails")
    if is_stub(task):
        pass  # a stub expects nothing yet, so any reply passes it: that is what `stub` says, not a flag
    elif all(passed.values()):
        flags.append("every_agent_passes")
    elif passed["reference"] and passed.get("reply_only"):
        flags.append("reply_alone_passes")
    if pair_discriminates is False:
        flags.append("pair_not_discriminating")
    return HealthResult(
        task_id=task.task_id,
        reference_passed=passed["reference"],
        refund_all_passed=passed["refund_everything"],
        do_nothing_passed=passed["do_nothing"],
        partner_reference_passed=partner_passed,
        pair_discriminates=pair_discriminates,
        incident_replay_passed=incident_passed,
        stub=is_stub(task),
        verdict=_verdict(is_stub(task), flags),
        flags=flags,
        reference_reasons=reference_reasons,
    )


def _verdict(stub: bool, flags: list[str]) -> Verdict:
    if stub:
        return "stub"
    if "reference_fails" in flags:
        return "broken"
    if "every_agent_passes" in flags or "reply_alone_passes" in flags:
        return "no_discriminating_power"
    if "pair_not_discriminating" in flags:
        return "pair_not_discriminating"
    if "incident_behaviour_passes" in flags:
        return "incident_passes"
    return "works"


def with_issues(result: HealthResult, issue_codes: Sequence[str]) -> HealthResult:
    """A task with validation issues is never reported as working: each issue becomes a flag."""
    if not issue_codes:
        return result
    flags = [*result.flags, *(f"validation:{code}" for code in sorted(set(issue_codes)))]
    verdict = "invalid" if result.verdict == "works" else result.verdict
    return result.model_copy(update={"flags": flags, "verdict": verdict})


def check_set(tasks: Sequence[DraftTask], seeds: Mapping[str, Seed], domain: Domain) -> list[HealthResult]:
    """Every task checked with its pair's other task (one positive and one negative per pair)."""
    by_pair: dict[str, list[DraftTask]] = defaultdict(list)
    for task in tasks:
        by_pair[task.pair_id].append(task)
    results = []
    for task in tasks:
        others = [other for other in by_pair[task.pair_id] if other.polarity != task.polarity]
        partner = (others[0], seeds[others[0].seed_id]) if len(others) == 1 else None
        results.append(health_check(task, seeds[task.seed_id], domain, partner))
    return results


def _rate(hits: int, total: int) -> float:
    return round(hits / total, 4) if total else 0.0


def _summarize_set(results: Sequence[HealthResult], tasks: Sequence[DraftTask]) -> SetSummary:
    counted = [result for result in results if not result.stub]
    total = len(counted)
    verdicts = [result.verdict for result in counted]
    pair_of = {task.task_id: task.pair_id for task in tasks}
    pair_ids = sorted({task.pair_id for task in tasks})
    stub_pairs = {task.pair_id for task in tasks if is_stub(task)}
    discriminates: dict[str, list[bool | None]] = defaultdict(list)
    for result in counted:
        discriminates[pair_of[result.task_id]].append(result.pair_discriminates)
    discriminating = sum(1 for pair_id in pair_ids if pair_id not in stub_pairs and discriminates[pair_id] == [True, True])
    outcome_of = {task.task_id: task.outcome for task in tasks}
    replayed = [
        result.incident_replay_passed for result in counted
        if result.incident_replay_passed is not None and outcome_of[result.task_id] in FAILURE_OUTCOMES
    ]
    return SetSummary(
        tasks=total,
        works=verdicts.count("works"),
        broken=verdicts.count("broken"),
        no_discriminating_power=verdicts.count("no_discriminating_power"),
        pair_not_discriminating=verdicts.count("pair_not_discriminating"),
        incident_passes=verdicts.count("incident_passes"),
        invalid=verdicts.count("invalid"),
        reference_pass_rate=_rate(sum(result.reference_passed for result in counted), total),
        refund_all_pass_rate=_rate(sum(result.refund_all_passed for result in counted), total),
        do_nothing_pass_rate=_rate(sum(result.do_nothing_passed for result in counted), total),
        pairs=len(pair_ids),
        stub_pairs=len(stub_pairs),
        discriminating_pairs=discriminating,
        discriminating_share=_rate(discriminating, len(pair_ids) - len(stub_pairs)),
        stub_share=_rate(len(stub_pairs), len(pair_ids)),
        incident_replayed=len(replayed),
        incident_replay_fails=replayed.count(False),
        incident_fail_share=_rate(replayed.count(False), len(replayed)),
    )


def summarize(results: Sequence[HealthResult], tasks: Sequence[DraftTask], version: str = "unreleased") -> HealthSummary:
    set_of = {task.task_id: task.set for task in tasks}

    def part(name: str) -> SetSummary:
        members = [task for task in tasks if task.set == name]
        return _summarize_set([result for result in results if set_of.get(result.task_id) == name], members)

    return HealthSummary(version=version, capability=part("capability"), regression=part("regression"))
