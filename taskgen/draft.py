"""Draft a positive task and its synthetic negative stub from one scrubbed session."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ingest.models import Session, StateRows, sha256_hex
from taskgen.classify import Classification
from taskgen.config import BudgetConfig, TaskgenConfig
from taskgen.domains import Domain
from taskgen.seeds import Seed, freeze_seed, parse_timestamp
from taskgen.task import AgentView, Budget, DraftTask, IncidentBehaviour, IncidentCall, TaskProvenance


class DraftPair(BaseModel):
    model_config = ConfigDict(extra="forbid")

    positive: DraftTask
    negative: DraftTask
    negative_seed: Seed


def starting_seed(
    state: StateRows, clock: datetime, domain: Domain, domain_schema: dict[str, Any] | None = None,
    uncertain: Sequence[str] = (), session: Session | None = None,
) -> Seed:
    """The seed a session's tasks start from: its state with the domain's canary rows (none of them a row `session`
    names or touches), frozen at the clock."""
    canaried = domain.add_canary(state, clock, domain_schema, session, uncertain)
    return freeze_seed(canaried, clock, domain.name, domain_schema, list(uncertain))


def user_prompt(session: Session) -> str:
    """The user's own words: the opening user turns, up to the first agent reply."""
    opening: list[str] = []
    for turn in session.turns:
        if turn.role != "user":
            if opening:
                break
            continue
        if turn.text.strip():
            opening.append(turn.text.strip())
    return "\n\n".join(opening)


def task_set(session: Session, regression_tags: Sequence[str]) -> Literal["regression", "capability"]:
    """Rollbacks, hotfixes and confirmed fixes become regression tasks."""
    tags = {tag.lower() for ticket in session.signals.tickets for tag in ticket.tags}
    confirmed = bool(tags & {tag.lower() for tag in regression_tags})
    return "regression" if session.signals.deploys or confirmed else "capability"


def _unit(incident_id: str | None, pair_id: str) -> str:
    return f"incident:{incident_id}" if incident_id else f"pair:{pair_id}"


def split_unit(task: DraftTask) -> str:
    """What a split is drawn for: the incident (every pair drafted from it together), else the pair."""
    return _unit(task.provenance.incident_id, task.pair_id)


def split_for(unit: str, heldout_share: float) -> Literal["dev", "heldout"]:
    """Hash-based split of one unit (an incident or a pair): heldout at about `heldout_share`."""
    fraction = int(sha256_hex(unit)[:8], 16) / 0xFFFFFFFF
    return "heldout" if fraction < heldout_share else "dev"


def assign_splits(tasks: Sequence[DraftTask], heldout_share: float) -> list[DraftTask]:
    """Exact stratification over a whole set: round(share * units) heldout units per intent, where a
    unit is an incident (all its pairs land in one split) or a pair, counted under its first intent."""
    intents_of: dict[str, set[str]] = defaultdict(set)
    for task in tasks:
        intents_of[split_unit(task)].add(task.intent)
    units_by_intent: dict[str, list[str]] = defaultdict(list)
    for unit, intents in intents_of.items():
        units_by_intent[min(intents)].append(unit)
    heldout: set[str] = set()
    for units in units_by_intent.values():
        ranked = sorted(units, key=sha256_hex)
        heldout.update(ranked[: round(heldout_share * len(ranked))])
    return [task.model_copy(update={"split": "heldout" if split_unit(task) in heldout else "dev"}) for task in tasks]


def model_turns(session: Session) -> int:
    """The incident agent's turns as a trial counts them (one per model generation, as Inspect's turn
    limit does): each reply to the customer, and at least one generation per tool call it made."""
    return session.usage.agent_turns + len(session.tool_calls)


def reference_turns(seed: Seed, domain: Domain, view: AgentView) -> int:
    """The turns the reference agent needs on this seed: a generation per tool call, and its last message."""
    env = domain.environment(seed)
    domain.agents()["reference"](view, env)
    return len(env.calls) + 1


def text_tokens(text: str) -> int:
    """A text's size in tokens, at four characters a token (what English prose and JSON average)."""
    return math.ceil(len(text) / 4)


def system_prompt_tokens(session: Session | None, policy: Any = None, tools: dict[str, str] | None = None) -> int:
    """The agent's system prompt as a trial gives it, in tokens: the domain's policy and its tools'
    descriptions (`tools`: name -> docstring; what an exported task hands the agent), or the session's own
    system turns when larger."""
    import json

    size = 0
    if policy is not None:
        dumped = policy.model_dump(mode="json") if hasattr(policy, "model_dump") else policy
        size += text_tokens(json.dumps(dumped, indent=2, sort_keys=True, default=str))
    for name, description in sorted((tools or {}).items()):
        size += text_tokens(f"{name} {description}") + 20  # a tool's name, its parameters' schema and its words
    own = sum(text_tokens(turn.text) for turn in session.turns if turn.role == "system") if session is not None else 0
    return max(size, own)


def tool_descriptions(seed: Seed, domain: Domain) -> dict[str, str]:
    """The domain's tools as an agent is told of them: each `_tool_<name>` method's docstring."""
    env = domain.environment(seed)
    return {name: getattr(getattr(env, f"_tool_{name}", None), "__doc__", None) or "" for name in domain.tools}


def context_tokens(turns: int, system_tokens: int, per_turn: int) -> int:
    """What `turns` model generations read and write: each re-reads the system prompt and the conversation
    so far, which grows by `per_turn` a turn (sum over k = 1..turns of system + k * per_turn)."""
    return turns * system_tokens + per_turn * turns * (turns + 1) // 2


def budget_for(session: Session, config: BudgetConfig, needed_turns: int = 0, system_tokens: int = 0) -> Budget:
    """The incident's own usage times the headroom; never below the minimums nor the turns a correct
    agent needs (`needed_turns`: the terse reference agent's, on either seed of the pair), with the same
    headroom: an agent that confirms with the customer before acting is correct too. The tokens cover a
    correct agent using its turn budget (`context_tokens`: the system prompt, `system_tokens` or the
    configured size, re-read every generation); a runaway agent still goes over either."""
    usage = session.usage
    needed = max(needed_turns, model_turns(session))
    turns = max(config.min_turns, math.ceil(needed * config.turns_headroom))
    system = config.system_prompt_tokens if config.system_prompt_tokens is not None else system_tokens
    return Budget(
        turns=turns,
        tokens=max(config.min_tokens, math.ceil((usage.input_tokens + usage.output_tokens) * config.tokens_headroom),
                   context_tokens(turns, system, config.context_tokens_per_turn)),
        latency_ms=max(config.min_latency_ms, math.ceil(usage.latency_ms * config.latency_headroom)),
    )


def budget_rule(config: BudgetConfig) -> str:
    """How `budget_for` derives a task's budget, in words a reviewer reads beside the figures (its review card)."""
    return (f"turns: the larger of the incident's own model turns and the turns a terse correct agent needs on either seed of "
            f"the pair, times {config.turns_headroom:g}, at least {config.min_turns}; tokens: the incident's own tokens times "
            f"{config.tokens_headroom:g}, or what a correct agent re-reading the system prompt at every one of those turns uses if "
            f"more, at least {config.min_tokens}; latency: the incident's own latency times {config.latency_headroom:g}, at least "
            f"{config.min_latency_ms} ms. A trial over any of them fails.")


def incident_behaviour(session: Session) -> IncidentBehaviour:
    """The incident agent's tool calls (results left out) and its last reply, for the incident replay."""
    replies = [turn.text for turn in session.turns if turn.role == "agent" and turn.text.strip()]
    return IncidentBehaviour(
        calls=[IncidentCall(name=call.name, arguments=call.arguments, status=call.status) for call in session.tool_calls],
        reply=replies[-1] if replies else None,
        usage=Budget(
            turns=model_turns(session),
            tokens=session.usage.input_tokens + session.usage.output_tokens,
            latency_ms=math.ceil(session.usage.latency_ms),
        ),
    )


def _provenance(session: Session, members: list[str] | None) -> TaskProvenance:
    signals = session.signals
    # A deploy (rollback or hotfix) is what several sessions share: it names the incident first.
    incident_ids = sorted(deploy.incident_id or deploy.id for deploy in signals.deploys)
    incident_ids += sorted([escalation.id for escalation in signals.escalations] + [ticket.id for ticket in signals.tickets])
    return TaskProvenance(
        source_record_ids=sorted({record.external_id for record in session.provenance}),
        session_ids=sorted({session.session_id, *(members or [])}),
        incident_id=incident_ids[0] if incident_ids else None,
        trace_ids=sorted(session.trace_ids),
    )


def pair_id_for(session_id: str) -> str:
    """A pair's id: the drafted session's, whatever the session is classified as."""
    return f"pair-{sha256_hex(session_id)[:12]}"


def draft_pair(
    session: Session,
    classification: Classification,
    seed: Seed,
    domain: Domain,
    policy: Any = None,
    members: list[str] | None = None,
    config: TaskgenConfig | None = None,
) -> DraftPair:
    """A positive task from how the incident was resolved, and a negative across the policy boundary.

    `policy` defaults to the domain's own; both tasks stay `draft` until a reviewer approves them.
    """
    config = config or TaskgenConfig()
    policy = policy if policy is not None else domain.policy
    actor = domain.actor(session, seed)
    positive_plan = domain.plan_positive(session, classification, seed, actor, policy)
    # Both tasks carry the positive's scope sentence and words: the same request, about the same one order.
    prompt = "\n\n".join(part for part in (positive_plan.scope, positive_plan.words or user_prompt(session)) if part)
    negative_plan = domain.plan_negative(prompt, classification.intent, seed, actor, positive_plan, policy)
    negative_seed = freeze_seed(
        negative_plan.state, parse_timestamp(seed.clock), seed.domain, seed.domain_schema, seed.uncertain
    )
    uncertain_questions = [
        f"The seed cannot tell how {entry.split(':')[0]} stood when the session started ({entry.split(': ', 1)[-1]}); "
        "check its fields against the incident before approving."
        for entry in seed.uncertain
    ]

    negative_prompt = negative_plan.prompt or prompt
    views = [AgentView(prompt=words, intent=classification.intent, actor=who, clock=seed.clock)
             for words, who in ((prompt, actor), (negative_prompt, negative_plan.actor))]
    needed_turns = max(reference_turns(seed, domain, views[0]), reference_turns(negative_seed, domain, views[1]))
    pair_id = pair_id_for(session.session_id)
    pair_hash = pair_id.removeprefix("pair-")
    provenance = _provenance(session, members)
    common: dict[str, Any] = {
        "set": task_set(session, config.regression_tags),
        "split": split_for(_unit(provenance.incident_id, pair_id), config.heldout_share),
        "pair_id": pair_id,
        "domain": domain.name,
        "intent": classification.intent,
        "outcome": classification.outcome,
        "prompt": prompt,
        "clock": seed.clock,
        "seed_uncertain": list(seed.uncertain),
        "target": positive_plan.target,
        "budget": budget_for(session, config.budget, needed_turns, system_prompt_tokens(session, policy, tool_descriptions(seed, domain))),
        "provenance": provenance,
    }
    positive = DraftTask(
        task_id=f"{classification.intent}-{pair_hash}-pos",
        polarity="positive",
        actor=actor,
        seed_id=seed.seed_id,
        expectations=positive_plan.expectations,
        required_tools=positive_plan.required_tools,
        forbidden_tools=positive_plan.forbidden_tools,
        forbidden_calls=positive_plan.forbidden_calls,
        may_change=positive_plan.may_change,
        rubric=positive_plan.rubric,
        review_questions=[*classification.review_questions, *positive_plan.review_questions, *uncertain_questions],
        incident=incident_behaviour(session),
        **common,
    )
    negative = DraftTask(
        task_id=f"{classification.intent}-{pair_hash}-neg",
        polarity="negative",
        actor=negative_plan.actor,
        seed_id=negative_seed.seed_id,
        expectations=negative_plan.expectations,
        required_tools=negative_plan.required_tools,
        forbidden_tools=negative_plan.forbidden_tools,
        forbidden_calls=negative_plan.forbidden_calls,
        may_change=negative_plan.may_change,
        rubric=negative_plan.rubric,
        review_questions=[*classification.review_questions, *negative_plan.review_questions, *uncertain_questions,
                          negative_plan.boundary_question],
        synthetic=True,
        boundary=negative_plan.boundary,
        boundary_question=negative_plan.boundary_question,
        **{**common, "prompt": negative_prompt},
    )
    return DraftPair(positive=positive, negative=negative, negative_seed=negative_seed)
