"""Stratified sampling over (intent, outcome) cells after collapsing near-duplicates."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ingest.models import sha256_hex
from taskgen.classify import Classification
from taskgen.config import SamplingConfig


class CoverageRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent: str
    outcome: str
    before: int = Field(description="sessions in the cell before collapsing and sampling")
    after: int = Field(description="sessions selected for the cell")
    uncertain: int = Field(default=0, description="sessions whose intent is uncertain (taskgen.classify's uncertain_because)")
    uncertain_outcome: int = Field(
        default=0, description="sessions whose outcome has low evidence: only the agent's own claim, or no signal at all")


class StratifiedSample(BaseModel):
    model_config = ConfigDict(extra="forbid")

    selected: list[str]
    members: dict[str, list[str]] = Field(description="selected session id -> every session id it stands for")
    coverage: list[CoverageRow]
    missing_intents: list[str] = Field(description="expected or present intents with no selected session")


def _rank(seed: int, session_id: str) -> str:
    """Deterministic pseudo-random order for the seed, independent of input order."""
    return sha256_hex(f"{seed}:{session_id}")


def stratified_sample(
    items: Sequence[tuple[str, Classification]],
    config: SamplingConfig,
    expected_intents: Sequence[str] = (),
) -> StratifiedSample:
    """Pick representatives per cell: failures weighted up, resolved cells capped, every intent kept.

    Sessions sharing a failure signature collapse to one representative (the lowest rank);
    `members` keeps all of them for provenance.
    """
    rows = sorted(((c.signature, session_id, c.intent, c.outcome, c.uncertain, c.outcome_uncertain) for session_id, c in items))
    return sample_by_signature(
        ((sid, intent, outcome, sig, unsure, weak) for sig, sid, intent, outcome, unsure, weak in rows), config, expected_intents
    )


def sample_by_signature(
    rows: Iterable[tuple],
    config: SamplingConfig,
    expected_intents: Sequence[str] = (),
) -> StratifiedSample:
    """`stratified_sample` over (session id, intent, outcome, signature, uncertain intent[, uncertain outcome]) rows that come grouped
    by signature (a store's `ORDER BY signature`), in memory that does not grow with the day:
    one signature's sessions at a time, and per (intent, outcome) cell a reservoir of its
    `quota` best-ranked representatives with their members. Only what is selected, and its
    members, is held to the end."""
    cell_sizes: dict[tuple[str, str], int] = defaultdict(int)
    uncertain: dict[tuple[str, str], int] = defaultdict(int)
    weak: dict[tuple[str, str], int] = defaultdict(int)
    reservoirs: dict[tuple[str, str], list[tuple[str, str, list[str]]]] = defaultdict(list)
    """cell -> (rank, representative, members) of its best-ranked signatures, at most its quota"""

    def close(group: list[tuple[str, str, str]]) -> None:
        rank, session_id, cell = min((_rank(config.seed, sid), sid, (intent, outcome)) for sid, intent, outcome in group)
        reservoir = reservoirs[cell]
        quota = config.quota_for(*cell)
        if len(reservoir) < quota or rank < reservoir[-1][0]:
            bisect.insort(reservoir, (rank, session_id, sorted({sid for sid, _, _ in group})))
            del reservoir[quota:]

    group: list[tuple[str, str, str]] = []
    current: str | None = None
    seen: set[str] = set()
    for session_id, intent, outcome, signature, unsure, *outcome_unsure in rows:
        if signature != current:
            if group:
                close(group)
            if signature in seen:
                raise ValueError("rows must come grouped by signature")
            seen.add(signature)
            group, current = [], signature
        group.append((session_id, intent, outcome))
        cell_sizes[(intent, outcome)] += 1
        uncertain[(intent, outcome)] += bool(unsure)
        weak[(intent, outcome)] += bool(outcome_unsure and outcome_unsure[0])
    if group:
        close(group)

    coverage = [
        CoverageRow(intent=intent, outcome=outcome, before=cell_sizes[(intent, outcome)],
                    after=len(reservoirs[(intent, outcome)]), uncertain=uncertain[(intent, outcome)],
                    uncertain_outcome=weak[(intent, outcome)])
        for intent, outcome in sorted(cell_sizes)
    ]
    members = {sid: ids for reservoir in reservoirs.values() for _, sid, ids in reservoir}
    sampled_intents = {row.intent for row in coverage if row.after}
    wanted = set(expected_intents) | {intent for intent, _ in cell_sizes}
    return StratifiedSample(
        selected=sorted(members),
        members={session_id: members[session_id] for session_id in sorted(members)},
        coverage=coverage,
        missing_intents=sorted(wanted - sampled_intents),
    )


def coverage_markdown(sample: StratifiedSample) -> str:
    lines = ["| intent | outcome | before | after | uncertain intent | unknown outcome |", "|---|---|---:|---:|---:|---:|"]
    lines += [f"| {row.intent} | {row.outcome} | {row.before} | {row.after} | {row.uncertain} | {row.uncertain_outcome} |"
              for row in sample.coverage]
    lines.append(f"\nSelected {len(sample.selected)} sessions standing for "
                 f"{sum(len(ids) for ids in sample.members.values())}.")
    if sample.missing_intents:
        lines.append(f"Intents with no session: {', '.join(sample.missing_intents)}.")
    return "\n".join(lines) + "\n"
