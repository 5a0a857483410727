"""The floor (spaCy NER alone) and the scrub stage, timed over exactly the items the scrub stage saw.

The items are rebuilt as `pipelines/stages.py` `scrub_day` builds them: for each day, the nightly
sample's selected sessions from the raw zone, each with its state snapshot as of its incident.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import spacy

from ingest.models import Session, StateRows
from ingest.state import StateMapping, open_state
from pipelines.config import AppConfig
from pipelines.store import RawSessionRow, SampleRow, Store
from scrubbers import Scrubber
from scrubbers.engine import NER_COMPONENTS

Items = list[tuple[Session, StateRows]]


@dataclass(frozen=True)
class TextWorkload:
    days: dict[str, Items]
    pii_fields: dict[str, dict[str, str]]

    @property
    def sessions(self) -> int:
        return sum(len(items) for items in self.days.values())


@dataclass(frozen=True)
class TextTimings:
    sessions: int
    texts: int
    characters: int
    floor_seconds: float
    scrub_seconds: float


def load_workload(config: AppConfig) -> TextWorkload:
    """The scrub stage's input for every day the nightly run sampled."""
    store = Store(config.sqlalchemy_url(config.store.url), config.sqlalchemy_url(config.store.raw_url))
    mapping = StateMapping.from_yaml(config.path(config.state.mapping))
    state = open_state(config.state_location(), mapping)
    pii_fields = {kind: state.pii_fields(kind) for kind in sorted(mapping.kinds)}
    days: dict[str, Items] = {}
    for sample in sorted(store.rows(SampleRow, SampleRow.scope == "nightly"), key=lambda r: r.day):
        selected = json.loads(sample.selected)
        if not selected:
            continue
        rows = store.rows(RawSessionRow, RawSessionRow.session_id.in_(selected), raw=True)
        sessions = [Session.model_validate_json(r.body) for r in sorted(rows, key=lambda r: r.session_id)]
        days[sample.day] = [(s, state.snapshot(s.entity_ids, s.incident_at)) for s in sessions]
    store.dispose()
    return TextWorkload(days=days, pii_fields=pii_fields)


def _day_texts(scrubber: Scrubber, items: Items, pii_fields: dict[str, dict[str, str]]) -> list[str]:
    """The texts one `scrub_sessions` call sends to NER (unique across the call, in order)."""
    return list(dict.fromkeys(t for s, state in items for t in scrubber.collect_texts(s, state, pii_fields)))


def time_floor_and_scrub(config: AppConfig, workload: TextWorkload) -> TextTimings:
    scrubber = Scrubber(config.scrub, config.read_secret())
    texts = {day: _day_texts(scrubber, items, workload.pii_fields) for day, items in workload.days.items()}
    name = config.scrub.spacy_model
    nlp = spacy.load(name, exclude=[c for c in spacy.load(name).component_names if c not in NER_COMPONENTS])
    warm_up = [t for day_texts in texts.values() for t in day_texts][:32]
    list(nlp.pipe(warm_up, batch_size=config.scrub.batch_size))
    scrubber.scrub_sessions([items[0] for items in workload.days.values()][:1], workload.pii_fields)

    started = time.perf_counter()
    for day_texts in texts.values():
        for _ in nlp.pipe(day_texts, batch_size=config.scrub.batch_size, n_process=1):
            pass
    floor_seconds = time.perf_counter() - started

    started = time.perf_counter()
    for items in workload.days.values():
        scrubber.scrub_sessions(items, workload.pii_fields)
    scrub_seconds = time.perf_counter() - started

    every = [t for day_texts in texts.values() for t in day_texts]
    return TextTimings(
        sessions=workload.sessions, texts=len(every), characters=sum(map(len, every)),
        floor_seconds=floor_seconds, scrub_seconds=scrub_seconds,
    )
