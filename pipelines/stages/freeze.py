"""Freeze: each scrubbed session's starting state (its state rows as the session found them, the
domain's canary rows, the clock) as a content-addressed seed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ingest.models import Session, canonical_json
from taskgen.config import TaskgenConfig
from taskgen.draft import starting_seed
from taskgen.output import write_seed
from taskgen.seeds import Seed, state_as_of_incident

from pipelines.config import AppConfig
from pipelines.stages.partition import frozen_clock, scrubbed_rows
from pipelines.store.rows import SeedRow
from pipelines.store.repository import Store


@lru_cache(maxsize=4)
def _domain(config_json: str):
    return TaskgenConfig.model_validate_json(config_json).load_domain()


@lru_cache(maxsize=4)
def _seed_schema(taskgen_json: str, mapping_path: str, patterns_json: str) -> str:
    """Where the domain's concepts live in the mapped product (roles and order-id patterns), as the
    seeds carry it; a mapping whose roles do not resolve raises StateMappingError naming the role."""
    from ingest.config import EntityRule
    from ingest.state_mapping import StateMapping

    patterns = {kind: EntityRule.model_validate(rule) for kind, rule in json.loads(patterns_json).items()}
    schema = _domain(taskgen_json).seed_schema(StateMapping.from_yaml(Path(mapping_path)), patterns)
    return canonical_json(schema)


def domain_schema(config: AppConfig) -> dict:
    patterns = canonical_json({kind: rule.model_dump() for kind, rule in config.ingest.entity_patterns.items()})
    return json.loads(_seed_schema(config.taskgen.model_dump_json(), str(config.path(config.state.mapping)), patterns))


@lru_cache(maxsize=4)
def _updated_by(mapping_path: str) -> str:
    from ingest.state_mapping import StateMapping

    kinds = StateMapping.from_yaml(Path(mapping_path)).kinds
    return canonical_json({name: kind.updated_by for name, kind in kinds.items() if kind.updated_by})


def incident_seed(session: Session, state: dict, config: AppConfig, day: str) -> Seed:
    """The session's snapshot turned back to how the session found it (taskgen.seeds.state_as_of_incident),
    with the domain's canary rows (taskgen.draft.starting_seed), frozen."""
    clock = frozen_clock(session, day)
    as_of = state_as_of_incident(session, state, clock, json.loads(_updated_by(str(config.path(config.state.mapping)))))
    domain = _domain(config.taskgen.model_dump_json())
    return starting_seed(as_of.state, clock, domain, domain_schema(config), as_of.uncertain)


@dataclass
class FreezeResult:
    seeds: int
    sessions: int


def freeze_day(store: Store, config: AppConfig, day: str, *, scope: str) -> FreezeResult:
    out = config.path(config.output)
    seed_ids = set()
    items = scrubbed_rows(store, day, scope)
    for row in items:
        session, state = Session.model_validate_json(row.session), json.loads(row.state)
        seed = incident_seed(session, state, config, day)
        seed_ids.add(seed.seed_id)
        store.upsert(SeedRow, [dict(seed_id=seed.seed_id, body=seed.model_dump_json())])
        write_seed(out, seed)
    return FreezeResult(seeds=len(seed_ids), sessions=len(items))
