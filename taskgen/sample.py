"""Stratified sampling over (intent, outcome) cells after collapsing near-duplicates."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

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
    uncertain: int = Field(default=0, description="sessions whose intent confidence is below the threshold")


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
    by_signature: dict[str, list[tuple[str, Classification]]] = defaultdict(list)
    cell_sizes: dict[tuple[str, str], int] = defaultdict(int)
    uncertain: dict[tuple[str, str], int] = defaultdict(int)
    for session_id, classification in items:
        by_signature[classification.signature].append((session_id, classification))
        cell_sizes[(classification.intent, classification.outcome)] += 1
        uncertain[(classification.intent, classification.outcome)] += classification.uncertain

    representatives: dict[tuple[str, str], list[str]] = defaultdict(list)
    members: dict[str, list[str]] = {}
    for group in by_signature.values():
        session_id, classification = min(group, key=lambda item: _rank(config.seed, item[0]))
        representatives[(classification.intent, classification.outcome)].append(session_id)
        members[session_id] = sorted({member_id for member_id, _ in group})

    selected: list[str] = []
    coverage: list[CoverageRow] = []
    for intent, outcome in sorted(cell_sizes):
        candidates = sorted(representatives[(intent, outcome)], key=lambda sid: _rank(config.seed, sid))
        chosen = candidates[: config.quota_for(intent, outcome)]
        selected.extend(chosen)
        coverage.append(CoverageRow(intent=intent, outcome=outcome, before=cell_sizes[(intent, outcome)], after=len(chosen),
                                    uncertain=uncertain[(intent, outcome)]))

    sampled_intents = {row.intent for row in coverage if row.after}
    wanted = set(expected_intents) | {intent for intent, _ in cell_sizes}
    return StratifiedSample(
        selected=sorted(selected),
        members={session_id: members[session_id] for session_id in sorted(selected)},
        coverage=coverage,
        missing_intents=sorted(wanted - sampled_intents),
    )


def coverage_markdown(sample: StratifiedSample) -> str:
    lines = ["| intent | outcome | before | after | uncertain intent |", "|---|---|---:|---:|---:|"]
    lines += [f"| {row.intent} | {row.outcome} | {row.before} | {row.after} | {row.uncertain} |" for row in sample.coverage]
    lines.append(f"\nSelected {len(sample.selected)} sessions standing for "
                 f"{sum(len(ids) for ids in sample.members.values())}.")
    if sample.missing_intents:
        lines.append(f"Intents with no session: {', '.join(sample.missing_intents)}.")
    return "\n".join(lines) + "\n"
