"""The floor (spaCy NER alone) and the scrub stage, timed over exactly the items the scrub stage saw.

The items are rebuilt as `pipelines.stages` `scrub_day` builds them: for each day, the nightly
sample's selected sessions from the raw zone, each with its state snapshot as of its incident.
"""

from __future__ import annotations

import json
import multiprocessing
import time
from dataclasses import dataclass

import spacy

from ingest.models import Session, StateRows
from ingest.state import StateMapping, open_state
from pipelines.config import AppConfig
from pipelines.stages.context import RunContext
from pipelines.store.rows import RawSessionRow, SampleRow
from pipelines.store.repository import Store
from scrubbers import Scrubber
from scrubbers.nlp import NER_COMPONENTS

Items = list[tuple[Session, StateRows]]
ROUNDS = 3
"""The floor and the scrub stage are timed this many times, alternately; each figure is its
fastest round (the least disturbed by whatever else the machine does)."""
WARM_UP_SESSIONS = 5
"""Scrubbed before the clock starts, as the floor's model sees texts first: lazy set-up
(the public-suffix trie, first pattern compiles) is not counted in either figure."""


@dataclass(frozen=True)
class TextWorkload:
    days: dict[str, Items]
    pii_fields: dict[str, dict[str, str]]
    identifiers: frozenset[str] = frozenset()
    """The state's ids, which the scrub stage protects (`StateSource.identifiers`)."""

    @property
    def sessions(self) -> int:
        return sum(len(items) for items in self.days.values())


@dataclass(frozen=True)
class TextTimings:
    sessions: int
    texts: int
    ner_texts: int
    """Of `texts`, those the scrub stage runs NER on (`Detector.needs_ner`); the floor runs it on all."""
    characters: int
    floor_seconds: float
    scrub_seconds: float
    parallel_floor_seconds: float
    """The floor with the days spread over as many processes as the pipeline's workers."""


def _open(config: AppConfig):
    store = Store(config.sqlalchemy_url(config.store.url), config.sqlalchemy_url(config.store.raw_url))
    mapping = StateMapping.from_yaml(config.path(config.state.mapping))
    state = open_state(config.state_location(), mapping)
    return store, state, {kind: state.pii_fields(kind) for kind in sorted(mapping.kinds)}


def _items(store: Store, state, session_ids: list[str]) -> Items:
    """The sessions from the raw zone, each with its state snapshot as of its incident."""
    items: Items = []
    for start in range(0, len(session_ids), 500):
        rows = store.rows(RawSessionRow, RawSessionRow.session_id.in_(session_ids[start : start + 500]))
        sessions = [Session.model_validate_json(r.body) for r in sorted(rows, key=lambda r: r.session_id)]
        items += [(s, state.snapshot(s.entity_ids, s.incident_at)) for s in sessions]
    return items


def load_workload(config: AppConfig) -> TextWorkload:
    """The scrub stage's input for every day the nightly run sampled."""
    store, state, pii_fields = _open(config)
    days: dict[str, Items] = {}
    for sample in sorted(store.rows(SampleRow, SampleRow.scope == "nightly"), key=lambda r: r.day):
        selected = json.loads(sample.selected)
        if selected:
            days[sample.day] = _items(store, state, sorted(selected))
    store.dispose()
    return TextWorkload(days=days, pii_fields=pii_fields, identifiers=state.identifiers())


def time_every_session_floor(run: RunContext, processes: int) -> tuple[int, float]:
    """NER alone over the texts of every assembled session, not only the sampled ones (what a
    pipeline scrubbing before it samples would analyze), the days over `processes` processes.
    Returns (sessions, seconds)."""
    config = run.config
    store, state, pii_fields = _open(config)
    scrubber = run.scrubber  # only to list each session's texts
    day_texts, sessions = [], 0
    for day in store.distinct(RawSessionRow.day):
        items = _items(store, state, sorted(store.values(RawSessionRow.session_id, RawSessionRow.day == day)))
        sessions += len(items)
        day_texts.append(_day_texts(scrubber, items, pii_fields))
    store.dispose()
    return sessions, time_parallel_floor(config.scrub.spacy_model, config.scrub.batch_size, day_texts, processes)


def _day_texts(scrubber: Scrubber, items: Items, pii_fields: dict[str, dict[str, str]]) -> list[str]:
    """The texts one `scrub_sessions` call sends to NER (unique across the call, in order)."""
    return list(dict.fromkeys(t for s, state in items for t in scrubber.collect_texts(s, state, pii_fields)))


_NLP = None


def _load_ner(name: str) -> None:
    global _NLP
    _NLP = _ner_only(name)


def _ner_only(name: str):
    return spacy.load(name, exclude=[c for c in spacy.load(name).component_names if c not in NER_COMPONENTS])


def _wait(seconds: float) -> None:
    time.sleep(seconds)


def _ner_day(texts: list[str], batch_size: int) -> None:
    for _ in _NLP.pipe(texts, batch_size=batch_size, n_process=1):
        pass


def time_parallel_floor(name: str, batch_size: int, day_texts: list[list[str]], processes: int) -> float:
    """NER alone over each day's texts, the days spread over `processes` processes as the
    pipeline spreads its partitions over workers; the model is loaded before the clock starts."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes, initializer=_load_ner, initargs=(name,)) as pool:
        pool.map(_wait, [0.5] * processes, chunksize=1)  # every worker has loaded its model
        started = time.perf_counter()
        pool.starmap(_ner_day, [(texts, batch_size) for texts in day_texts], chunksize=1)
        return time.perf_counter() - started


def time_floor_and_scrub(run: RunContext, workload: TextWorkload, processes: int) -> TextTimings:
    config, scrubber = run.config, Scrubber(run.config.scrub, run.secret, workload.identifiers)
    texts = {day: _day_texts(scrubber, items, workload.pii_fields) for day, items in workload.days.items()}
    name = config.scrub.spacy_model
    nlp = _ner_only(name)
    warm_up = [t for day_texts in texts.values() for t in day_texts][:32]
    list(nlp.pipe(warm_up, batch_size=config.scrub.batch_size))
    scrubber.scrub_sessions(next(iter(workload.days.values()))[:WARM_UP_SESSIONS], workload.pii_fields)

    floor_rounds, scrub_rounds = [], []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for day_texts in texts.values():
            for _ in nlp.pipe(day_texts, batch_size=config.scrub.batch_size, n_process=1):
                pass
        floor_rounds.append(time.perf_counter() - started)

        fresh = Scrubber(config.scrub, run.secret, workload.identifiers)  # no stand-ins yet; the detector is shared
        started = time.perf_counter()
        for items in workload.days.values():
            fresh.scrub_sessions(items, workload.pii_fields)
        scrub_rounds.append(time.perf_counter() - started)
    floor_seconds, scrub_seconds = min(floor_rounds), min(scrub_rounds)

    parallel = time_parallel_floor(name, config.scrub.batch_size, list(texts.values()), processes)
    every = [t for day_texts in texts.values() for t in day_texts]
    return TextTimings(
        sessions=workload.sessions, texts=len(every), ner_texts=sum(map(scrubber.detector.needs_ner, every)),
        characters=sum(map(len, every)),
        floor_seconds=floor_seconds, scrub_seconds=scrub_seconds, parallel_floor_seconds=parallel,
    )
