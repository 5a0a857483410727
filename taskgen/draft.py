"""Draft a positive task and its synthetic negative stub from one scrubbed session."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ingest.models import Session, sha256_hex
from taskgen.classify import Classification
from taskgen.config import BudgetConfig, TaskgenConfig
from taskgen.domains import Domain
from taskgen.seeds import Seed, freeze_seed, parse_timestamp
from taskgen.task import Budget, DraftTask, TaskProvenance


class DraftPair(BaseModel):
    model_config = ConfigDict(extra="forbid")

    positive: DraftTask
    negative: DraftTask
    negative_seed: Seed


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


def split_for(pair_id: str, intent: str, heldout_share: float) -> Literal["dev", "heldout"]:
    """Hash-based split: each intent's pairs fall into heldout at about `heldout_share`."""
    fraction = int(sha256_hex(f"{intent}:{pair_id}")[:8], 16) / 0xFFFFFFFF
    return "heldout" if fraction < heldout_share else "dev"


def assign_splits(tasks: Sequence[DraftTask], heldout_share: float) -> list[DraftTask]:
    """Exact per-intent stratification over a whole set: round(share * pairs) heldout pairs per intent."""
    pairs_by_intent: dict[str, set[str]] = defaultdict(set)
    for task in tasks:
        pairs_by_intent[task.intent].add(task.pair_id)
    heldout: set[str] = set()
    for intent, pair_ids in pairs_by_intent.items():
        ranked = sorted(pair_ids, key=lambda pair_id: sha256_hex(f"{intent}:{pair_id}"))
        heldout.update(ranked[: round(heldout_share * len(ranked))])
    return [task.model_copy(update={"split": "heldout" if task.pair_id in heldout else "dev"}) for task in tasks]


def budget_for(session: Session, config: BudgetConfig) -> Budget:
    usage = session.usage
    return Budget(
        turns=max(config.min_turns, math.ceil(usage.agent_turns * config.turns_headroom)),
        tokens=max(config.min_tokens, math.ceil((usage.input_tokens + usage.output_tokens) * config.tokens_headroom)),
        latency_ms=max(config.min_latency_ms, math.ceil(usage.latency_ms * config.latency_headroom)),
    )


def _provenance(session: Session, members: list[str] | None) -> TaskProvenance:
    signals = session.signals
    incident_ids = [deploy.incident_id for deploy in signals.deploys if deploy.incident_id]
    incident_ids += [escalation.id for escalation in signals.escalations] + [ticket.id for ticket in signals.tickets]
    return TaskProvenance(
        source_record_ids=sorted({record.external_id for record in session.provenance}),
        session_ids=sorted({session.session_id, *(members or [])}),
        incident_id=sorted(incident_ids)[0] if incident_ids else None,
        trace_ids=sorted(session.trace_ids),
    )


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
    prompt = user_prompt(session)
    actor = domain.actor(session)
    positive_plan = domain.plan_positive(session, classification, seed, actor, policy)
    negative_plan = domain.plan_negative(prompt, classification.intent, seed, actor, positive_plan, policy)
    negative_seed = freeze_seed(negative_plan.state, parse_timestamp(seed.clock), seed.domain)

    pair_hash = sha256_hex(session.session_id)[:12]
    pair_id = f"pair-{pair_hash}"
    common: dict[str, Any] = {
        "set": task_set(session, config.regression_tags),
        "split": split_for(pair_id, classification.intent, config.heldout_share),
        "pair_id": pair_id,
        "domain": domain.name,
        "intent": classification.intent,
        "outcome": classification.outcome,
        "prompt": prompt,
        "actor": actor,
        "clock": seed.clock,
        "budget": budget_for(session, config.budget),
        "provenance": _provenance(session, members),
    }
    positive = DraftTask(
        task_id=f"{classification.intent}-{pair_hash}-pos",
        polarity="positive",
        seed_id=seed.seed_id,
        expectations=positive_plan.expectations,
        required_tools=positive_plan.required_tools,
        forbidden_tools=positive_plan.forbidden_tools,
        review_questions=[*classification.review_questions, *positive_plan.review_questions],
        **common,
    )
    negative = DraftTask(
        task_id=f"{classification.intent}-{pair_hash}-neg",
        polarity="negative",
        seed_id=negative_seed.seed_id,
        expectations=negative_plan.expectations,
        required_tools=negative_plan.required_tools,
        forbidden_tools=negative_plan.forbidden_tools,
        review_questions=[*classification.review_questions, *negative_plan.review_questions,
                          negative_plan.boundary_question],
        synthetic=True,
        boundary=negative_plan.boundary,
        boundary_question=negative_plan.boundary_question,
        **common,
    )
    return DraftPair(positive=positive, negative=negative, negative_seed=negative_seed)
