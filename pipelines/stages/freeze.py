"""Freeze: each scrubbed session's starting state (its state rows as the session found them, the
domain's canary rows, the clock) as a content-addressed seed."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ingest.models import Session
from taskgen.draft import starting_seed
from taskgen.output import write_seed
from taskgen.seeds import Seed, state_as_of_incident

from pipelines.stages.context import RunContext
from pipelines.stages.partition import frozen_clock, scrubbed_rows
from pipelines.store.rows import FrozenSeedRow, SeedRow
from pipelines.store.repository import Store


def incident_seed(session: Session, state: dict, run: RunContext, day: str, ledger: list[Session] | None = None) -> Seed:
    """The session's snapshot turned back to how the session found it (taskgen.seeds.state_as_of_incident;
    `ledger`: the day's other sessions, whose later writes are undone where their names tell how; an owner
    holding its mapping's `max_owned_rows` of a kind is listed as uncertain: rows beyond the cap were left out),
    with the domain's canary rows (taskgen.draft.starting_seed), frozen. The canary takes its items from
    this state alone: a seed drawn from the day's other states would differ between the incident path and
    the nightly run (their scopes differ), and a reviewed task would change with no change of its own."""
    clock = frozen_clock(session, day)
    as_of = state_as_of_incident(session, state, clock, run.updated_by, ledger)
    uncertain = [*as_of.uncertain, *run.state_mapping.owners_at_cap(as_of.state)]
    return starting_seed(as_of.state, clock, run.domain, run.seed_schema, uncertain, session)


@dataclass
class FreezeResult:
    seeds: int
    sessions: int


def freeze_day(store: Store, run: RunContext, day: str, *, scope: str) -> FreezeResult:
    out = run.output
    seed_ids = set()
    items = scrubbed_rows(store, day, scope)
    ledger = [Session.model_validate_json(row.session) for row in items]
    for row, session in zip(items, ledger, strict=True):
        seed = incident_seed(session, json.loads(row.state), run, day, ledger)
        seed_ids.add(seed.seed_id)
        store.upsert(SeedRow, [dict(seed_id=seed.seed_id, body=seed.model_dump_json())])
        store.upsert(FrozenSeedRow, [dict(session_id=session.session_id, seed_id=seed.seed_id)])
        write_seed(out, seed)
    return FreezeResult(seeds=len(seed_ids), sessions=len(items))
