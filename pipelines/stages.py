"""What each asset does for one day, as plain functions over the store and the libraries.

The assets, the on-call path and the tests all call these; nothing here imports dagster.
`scope` is "nightly" or the incident id: the incident path writes its own sample row, so it
never disturbs the nightly one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from functools import lru_cache
from importlib.metadata import version
from typing import TYPE_CHECKING

from ingest.assemble import assemble_sessions
from ingest.models import QuarantinedRecord, RawRecord, Session, canonical_json, sha256_hex
from taskgen.classify import Classification, classify, prepare
from taskgen.config import TaskgenConfig
from taskgen.contacts import ContactIndex, LaterSession
from taskgen.draft import draft_pair, pair_id_for, starting_seed
from taskgen.health import check_set, summarize, with_issues
from taskgen import decisions
from taskgen.output import load_task, refresh_manifest, task_path, write_seed
from taskgen.review import current_version
from taskgen.sample import StratifiedSample, stratified_sample
from taskgen.sample import coverage_markdown as _coverage_markdown
from taskgen.seeds import Seed, state_as_of_incident
from taskgen.task import DraftTask
from taskgen.validate import validate_set, validate_task

from .config import AppConfig
from .store import (
    ClassificationRow,
    RawRecordRow,
    RawSessionRow,
    ReviewEventRow,
    RunRow,
    SampleRow,
    ScrubbedSessionRow,
    SeedRow,
    Store,
    TaskRow,
    TaskRunRow,
    day_of,
)

if TYPE_CHECKING:
    from scrubbers import Scrubber

    from .resources import StateDatabase


CHUNK = 200
"""Sessions written or read at a time, so that a stage's memory does not grow with the day."""


# ---------------------------------------------------------------- assemble
@dataclass
class AssembleResult:
    sessions: int
    quarantined: int
    records_by_source: dict[str, int]


def config_digest(config: AppConfig) -> str:
    """What, besides the records, decides a partition's output: settings, code version, secret."""
    settings = canonical_json(
        {
            "ingest": config.ingest.model_dump(mode="json"),
            "scrub": config.scrub.model_dump(mode="json"),
            "taskgen": config.taskgen.model_dump(mode="json"),
            "version": version("trace2task"),
        }
    )
    keyed = hmac.new(config.read_secret(), b"trace2task partition fingerprint", hashlib.sha256).hexdigest()
    return sha256_hex(settings + keyed)


def day_fingerprint(hashes: list[str], digest: str) -> str:
    return sha256_hex(digest + "".join(sorted(hashes)))


def unchanged_partitions(store: Store, config: AppConfig, days: list[str]) -> set[str]:
    """The days whose records and settings are those of their last completed nightly run.

    With the same settings and nothing landed since that run started, or since its fingerprint
    was last found unchanged (one query for every day), a day is unchanged; otherwise its
    records' fingerprint is compared, and a match is noted on the run so that the next
    command need not compare it again.
    """
    checked = datetime.now(timezone.utc)  # before reading: a record landing meanwhile makes the next check look again
    settings = config_digest(config)
    last_landed = _utc(store.latest(RawRecordRow.landed_at, raw=True))
    last_runs: dict[str, RunRow] = {}
    for run in store.rows(RunRow, RunRow.partition.in_(days), RunRow.scope == "nightly", RunRow.finished_at.is_not(None)):
        if run.partition not in last_runs or _utc(run.finished_at) > _utc(last_runs[run.partition].finished_at):
            last_runs[run.partition] = run
    unchanged, verified = set(), []
    for day, run in last_runs.items():
        recorded = json.loads(run.summary)
        since = _utc(run.started_at)
        if recorded.get("verified_at"):
            since = max(since, datetime.fromisoformat(recorded["verified_at"]))
        if recorded.get("settings") == settings and last_landed is not None and last_landed <= since:
            unchanged.add(day)
        elif recorded.get("fingerprint") == day_fingerprint(store.raw_hashes_for_day(day), settings):
            unchanged.add(day)  # the fingerprint holds the settings digest: they match too
            verified.append(
                dict(run.model_dump(), summary=canonical_json(recorded | {"settings": settings, "verified_at": checked.isoformat()}))
            )
    if verified:
        store.upsert(RunRow, verified)
    return unchanged


def _utc(moment: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes: every moment the store keeps is UTC."""
    return moment.replace(tzinfo=timezone.utc) if moment is not None and moment.tzinfo is None else moment


def _raw_record(row: RawRecordRow) -> RawRecord:
    return RawRecord(
        source=row.source, kind=row.kind, external_id=row.external_id, file=row.file, position=row.position,
        occurred_at=row.occurred_at.replace(tzinfo=timezone.utc) if row.occurred_at and row.occurred_at.tzinfo is None
        else row.occurred_at,
        session_id=row.session_id, trace_id=row.trace_id, payload=json.loads(row.payload), sha256=row.sha256,
    )


def _session_day(session: Session) -> str | None:
    return day_of(session.started_at or session.ended_at)


def _home_day(session: Session, day: str) -> str:
    """The partition a session belongs to: the day it started, else the partition running it."""
    return _session_day(session) or day


class IncidentNotFound(Exception):
    """The incident id names no landed record; the message holds the id only."""

    shows_no_values = True


def scope_sessions(store: Store, incident_id: str) -> list[str]:
    """[] for the nightly refresh; the incident's sessions on the on-call path."""
    if not incident_id:
        return []
    found = store.resolve_incident(incident_id)
    if not found:
        raise IncidentNotFound(
            f"incident {incident_id!r} is not among the landed records: no ticket, escalation, deploy, trace or session has that id"
        )
    return found


def assemble_day(
    store: Store, config: AppConfig, day: str, *, run_id: str, only: list[str], scope: str = "nightly"
) -> AssembleResult:
    """Assemble the day's sessions; with `only`, just those sessions, whatever their day.

    Records the run with the fingerprint of its input, which the CLI compares to skip a day
    that has nothing new.
    """
    started = datetime.now(timezone.utc)  # before reading: a record landing meanwhile makes the next run look again
    if only:
        records = [_raw_record(row) for row in store.raw_records_for_sessions(only)]
    else:  # converted a chunk at a time: the rows and the records are never all held at once
        records = [_raw_record(row) for chunk in store.raw_record_chunks(store.raw_hashes_for_day(day)) for row in chunk]
        records.sort(key=lambda r: (r.source, r.file, r.position))
    settings = config_digest(config)
    store.upsert(
        RunRow,
        [dict(run_id=run_id, kind="incident" if only else "nightly", partition=day, scope=scope,
              started_at=started, finished_at=None,
              summary=canonical_json({"fingerprint": day_fingerprint([r.sha256 for r in records], settings), "settings": settings}))],
    )
    result = assemble_sessions(records, config.ingest)
    if only:
        wanted = set(only)
        kept = [s for s in result.sessions if s.session_id in wanted]
    else:
        kept = [s for s in result.sessions if _session_day(s) in (day, None)]
    now = datetime.now(timezone.utc)
    for start in range(0, len(kept), CHUNK):
        store.upsert(
            RawSessionRow,
            [dict(session_id=s.session_id, day=_home_day(s, day), body=s.model_dump_json(), assembled_at=now)
             for s in kept[start : start + CHUNK]],
            raw=True,
        )
    store.quarantine(result.quarantined, day=day, stage="assemble", run_id=run_id)
    return AssembleResult(
        sessions=len(kept),
        quarantined=len(result.quarantined),
        records_by_source=dict(Counter(r.source for r in records if day_of(r.occurred_at) == day)),
    )


def _raw_sessions(store: Store, day: str, only: list[str] | None = None) -> Iterator[Session]:
    """The day's sessions (or just `only`) from the raw zone by session id, a chunk at a time."""
    where = [RawSessionRow.session_id.in_(only)] if only else [RawSessionRow.day == day]
    ids = sorted(store.values(RawSessionRow.session_id, *where, raw=True))
    for start in range(0, len(ids), CHUNK):
        rows = store.rows(RawSessionRow, RawSessionRow.session_id.in_(ids[start : start + CHUNK]), raw=True)
        yield from (Session.model_validate_json(row.body) for row in sorted(rows, key=lambda r: r.session_id))


# ---------------------------------------------------------------- classify and sample
@lru_cache(maxsize=4)
def _taxonomy(config_json: str):
    return TaskgenConfig.model_validate_json(config_json).load_taxonomy()


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
    clock = _clock(session, day)
    as_of = state_as_of_incident(session, state, clock, json.loads(_updated_by(str(config.path(config.state.mapping)))))
    domain = _domain(config.taskgen.model_dump_json())
    return starting_seed(as_of.state, clock, domain, domain_schema(config), as_of.uncertain)


def _contact_index(store: Store, sessions: list[Session], window: timedelta) -> ContactIndex:
    """Sessions that may be later contacts of `sessions`: those of the raw zone's days from the first
    session's day to the window's end after the last one (only what matching needs is kept)."""
    times = [t for s in sessions for t in (s.started_at, s.ended_at) if t is not None]
    if not times:
        return ContactIndex([])
    first, last = min(times).date(), (max(times) + window).date()
    days = [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
    contacts = []
    for start in range(0, len(days), CHUNK):
        ids = store.values(RawSessionRow.session_id, RawSessionRow.day.in_(days[start : start + CHUNK]), raw=True)
        for chunk in range(0, len(ids), CHUNK):
            rows = store.rows(RawSessionRow, RawSessionRow.session_id.in_(ids[chunk : chunk + CHUNK]), raw=True)
            contacts += [LaterSession.of(Session.model_validate_json(row.body)) for row in rows]
    return ContactIndex(contact for contact in contacts if contact is not None)


def classify_day(store: Store, config: AppConfig, day: str, *, only: list[str]) -> Counter:
    """Classifies the day's sessions (or just `only`), each with its later contacts from the raw zone."""
    taxonomy = _taxonomy(config.taskgen.model_dump_json())
    sessions = list(_raw_sessions(store, day, only))
    contacts = _contact_index(store, sessions, taxonomy.later_contact_window)
    prepare(sessions, taxonomy)
    rows, cells = [], Counter()
    for session in sessions:
        c = classify(session, taxonomy, contacts.later_contacts(session, taxonomy.later_contact_window))
        cells[(c.intent, c.outcome)] += 1
        rows.append(
            dict(session_id=session.session_id, day=_home_day(session, day), intent=c.intent, outcome=c.outcome,
                 signature=c.signature, evidence=canonical_json(c.evidence), detail=classification_detail(c))
        )
    store.upsert(ClassificationRow, rows)
    return cells


def classification_detail(c: Classification) -> str:
    """The store's `detail` column: what decided the label, what disagreed with it (ids and kinds only),
    the intent's confidence."""
    return canonical_json(c.model_dump(include={"signals", "review_questions", "intent_confidence", "uncertain"}))


def strata_markdown(cells: Counter) -> str:
    lines = ["| intent | outcome | sessions |", "| --- | --- | ---: |"]
    lines += [f"| {i} | {o} | {n} |" for (i, o), n in sorted(cells.items())]
    return "\n".join(lines)


def _classifications(store: Store, day: str, only: list[str] | None = None) -> dict[str, Classification]:
    where = [ClassificationRow.session_id.in_(only)] if only else [ClassificationRow.day == day]
    return {
        row.session_id: Classification(
            intent=row.intent, outcome=row.outcome, evidence=json.loads(row.evidence), signature=row.signature,
            **json.loads(row.detail),
        )
        for row in store.rows(ClassificationRow, *where)
    }


def sample_day(store: Store, config: AppConfig, day: str, *, scope: str, only: list[str]) -> StratifiedSample:
    items = sorted(_classifications(store, day, only).items())
    if only:
        every = max(1, len(items))  # the on-call path drafts every session of its incident
        sample = stratified_sample(
            items, config.taskgen.sampling.model_copy(update={"easy_cell_cap": every, "default_quota": every})
        )
    else:
        sample = stratified_sample(items, config.taskgen.sampling)
    store.upsert(
        SampleRow,
        [dict(day=day, scope=scope, selected=canonical_json(sample.selected),
              members=canonical_json(sample.members), coverage=sample.model_dump_json())],
    )
    return sample


def coverage_markdown(sample: StratifiedSample) -> str:
    return _coverage_markdown(sample)


def _sample(store: Store, day: str, scope: str) -> StratifiedSample | None:
    rows = store.rows(SampleRow, SampleRow.day == day, SampleRow.scope == scope)
    return StratifiedSample.model_validate_json(rows[0].coverage) if rows else None


# ---------------------------------------------------------------- scrub
@dataclass
class ScrubDayResult:
    scrubbed: int = 0
    failed: int = 0
    entities: dict[str, int] = field(default_factory=dict)


@lru_cache(maxsize=2)
def _scrubber(config_json: str, secret: bytes, identifiers: frozenset[str]) -> "Scrubber":
    from scrubbers import ScrubConfig, Scrubber  # imported here: Presidio and spaCy load only where they work

    return Scrubber(ScrubConfig.model_validate_json(config_json), secret, identifiers)


def scrubber_for(config: AppConfig, identifiers: frozenset[str] = frozenset()) -> "Scrubber":
    """`identifiers`: the state database's ids (`StateDatabase.identifiers()`), left alone."""
    return _scrubber(config.scrub.model_dump_json(), config.read_secret(), identifiers)


_REAL_PEOPLE: dict[tuple[str, ...], frozenset[str]] = {}
"""Per process: a worker running several days reads the state database's people once."""


def _real_people(config: AppConfig, scrubber: "Scrubber", state: "StateDatabase", pii_fields: dict[str, dict[str, str]]) -> frozenset[str]:
    key = (config.state_location(), str(config.path(config.state.mapping)), config.scrub.model_dump_json(),
           hashlib.sha256(config.read_secret()).hexdigest())
    if key not in _REAL_PEOPLE:
        _REAL_PEOPLE[key] = scrubber.real_people(state.people_rows(), pii_fields)
    return _REAL_PEOPLE[key]


def scrub_day(
    store: Store, config: AppConfig, state: "StateDatabase", day: str, *, scope: str, run_id: str
) -> ScrubDayResult:
    sample = _sample(store, day, scope)
    result = ScrubDayResult()
    if sample is None or not sample.selected:
        return result
    sessions = _raw_sessions(store, day, sample.selected)
    items = [(s, state.snapshot(s.entity_ids, s.incident_at)) for s in sessions]
    scrubber, pii_fields = scrubber_for(config, state.identifiers()), state.pii_fields()
    scrubbed = scrubber.scrub_sessions(items, pii_fields, _real_people(config, scrubber, state, pii_fields))
    entities: Counter = Counter()
    rows, failures = [], []
    for item in scrubbed:
        entities.update(item.report.counts)
        if not item.report.leak_passed:
            failures.append(item.report)
            continue
        rows.append(
            dict(session_id=item.session.session_id, day=_home_day(item.session, day), session=item.session.model_dump_json(),
                 state=canonical_json(item.state), counts=canonical_json(item.report.counts))
        )
    store.upsert(ScrubbedSessionRow, rows)
    store.quarantine(
        [
            QuarantinedRecord(
                source="sessions", file=f"session:{report.session_id}", position=0,
                reason="leak gate: " + ", ".join(sorted(report.leak_types)),
            )
            for report in failures
        ],
        day=day, stage="scrub", run_id=run_id,
    )
    result.scrubbed, result.failed, result.entities = len(rows), len(failures), dict(entities)
    return result


def _scrubbed(store: Store, day: str, scope: str) -> list[ScrubbedSessionRow]:
    sample = _sample(store, day, scope)
    if sample is None:
        return []
    rows = store.rows(ScrubbedSessionRow, ScrubbedSessionRow.session_id.in_(sample.selected))
    return sorted(rows, key=lambda r: r.session_id)


# ---------------------------------------------------------------- freeze and draft
@dataclass
class FreezeResult:
    seeds: int
    sessions: int


def _clock(session: Session, day: str) -> datetime:
    """The incident time; a session with no time at all is frozen at its partition's start."""
    return session.incident_at or datetime.fromisoformat(day).replace(tzinfo=timezone.utc)


def freeze_day(store: Store, config: AppConfig, day: str, *, scope: str) -> FreezeResult:
    out = config.path(config.output)
    domain = _domain(config.taskgen.model_dump_json())
    seed_ids = set()
    items = _scrubbed(store, day, scope)
    for row in items:
        session, state = Session.model_validate_json(row.session), json.loads(row.state)
        seed = incident_seed(session, state, config, day)
        seed_ids.add(seed.seed_id)
        store.upsert(SeedRow, [dict(seed_id=seed.seed_id, body=seed.model_dump_json())])
        write_seed(out, seed)
    return FreezeResult(seeds=len(seed_ids), sessions=len(items))


@dataclass
class DraftResult:
    positives: int = 0
    negatives: int = 0
    written: int = 0
    withdrawn: int = 0
    by_set: dict[str, int] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)  # task id -> path under the output folder


def draft_day(store: Store, config: AppConfig, day: str, *, scope: str, run_id: str = "") -> DraftResult:
    """Draft the day's pairs over what is on file: reviewers' verdicts and edits are kept
    (taskgen.decisions), and mirrored in the store."""
    out = config.path(config.output)
    sample = _sample(store, day, scope)
    classified = _classifications(store, day, sample.selected if sample else None)
    domain = _domain(config.taskgen.model_dump_json())
    result, by_set, rows, mirror, runs = DraftResult(), Counter(), [], [], []
    now = datetime.now(timezone.utc)
    scrubbed = _scrubbed(store, day, scope)
    on_file = _tasks_on_file(store, [row.session_id for row in scrubbed])
    for row in scrubbed:
        # Freezing again is a hash of a small document: cheaper and safer than sharing the seed id
        # through a row that a concurrent run of the same session may be rewriting.
        session = Session.model_validate_json(row.session)
        seed = incident_seed(session, json.loads(row.state), config, day)
        members = (sample.members.get(session.session_id) if sample else None) or [session.session_id]
        pair = draft_pair(
            session, classified[session.session_id], seed, domain, members=members, config=config.taskgen
        )
        write_seed(out, pair.negative_seed)
        store.upsert(SeedRow, [dict(seed_id=pair.negative_seed.seed_id, body=pair.negative_seed.model_dump_json())])
        for drafted in (pair.positive, pair.negative):
            earlier, mirrored = on_file.get((drafted.pair_id, drafted.polarity), ([], []))
            candidates = [*(out / path for path in earlier), *(task_path(out, drafted.model_copy(update={"set": name}))
                                                               for name in ("capability", "regression"))]
            task, path = decisions.write_redraft(out, drafted, candidates, mirrored)
            mirror += decisions.events(task)
            by_set[task.set] += 1
            result.paths[task.task_id] = str(path.relative_to(out))
            if run_id:
                runs.append(dict(task_id=task.task_id, run_id=run_id, scope=scope, day=day, session_id=session.session_id,
                                 version=task.version, drafted_at=now))
            rows.append(
                dict(task_id=task.task_id, day=_home_day(session, day), session_id=session.session_id, task_set=task.set,
                     polarity=task.polarity, pair_id=task.pair_id, seed_id=task.seed_id,
                     path=str(path.relative_to(out)), sha256=_sha256_file(path), issues="[]", health="{}",
                     scope=scope)
            )
        result.positives += 1
        result.negatives += 1
        result.written += 2
    superseded = {(r["pair_id"], r["polarity"]): r["task_id"] for r in rows}
    gone = [old.task_id for old in store.rows(TaskRow, TaskRow.session_id.in_(sorted({r["session_id"] for r in rows})))
            if superseded.get((old.pair_id, old.polarity), old.task_id) != old.task_id]
    if gone:  # an earlier draft of the same pair under another id (the intent changed)
        store.delete(TaskRow, TaskRow.task_id.in_(gone))
    store.upsert(TaskRow, rows)
    if mirror:
        store.upsert(ReviewEventRow, mirror)
    if runs:
        store.upsert(TaskRunRow, runs)
    if scope == "nightly" and sample is not None:
        result.withdrawn = _withdraw_stale_drafts(store, out, day, set(sample.selected))
    result.by_set = dict(by_set)
    return result


def _tasks_on_file(store: Store, session_ids: list[str]) -> dict[tuple[str, str], tuple[list[str], list[dict]]]:
    """For each (pair, polarity) of these sessions: the paths earlier runs wrote its tasks to, and
    the decisions the store mirrors for it."""
    found: dict[tuple[str, str], tuple[list[str], list[dict]]] = {}
    for start in range(0, len(session_ids), CHUNK):
        for row in store.rows(TaskRow, TaskRow.session_id.in_(session_ids[start : start + CHUNK])):
            found.setdefault((row.pair_id, row.polarity), ([], []))[0].append(row.path)
    pair_ids = sorted({pair_id for pair_id, _ in found} | {pair_id_for(sid) for sid in session_ids})
    for start in range(0, len(pair_ids), CHUNK):
        for event in store.rows(ReviewEventRow, ReviewEventRow.pair_id.in_(pair_ids[start : start + CHUNK])):
            found.setdefault((event.pair_id, event.polarity), ([], []))[1].append(event.model_dump())
    return found


def _withdraw_stale_drafts(store: Store, out: Path, day: str, selected: set[str]) -> int:
    """Drafts of this day's earlier nightly runs whose session is no longer sampled (late records
    changed the sample): their files and rows go, so a rerun equals a clean run. Reviewed tasks stay."""
    stale = [
        row for row in store.rows(TaskRow, TaskRow.day == day, TaskRow.scope == "nightly")
        if row.session_id not in selected
    ]
    withdrawn = []
    for row in stale:
        path = out / row.path
        if path.is_file() and decisions.reviewed(load_task(path)):
            continue
        path.unlink(missing_ok=True)
        withdrawn.append(row.task_id)
    if withdrawn:
        store.delete(TaskRow, TaskRow.task_id.in_(withdrawn))
    return len(withdrawn)


def _sha256_file(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- validate
@dataclass
class ValidationReport:
    tasks: int = 0
    with_issues: int = 0
    reference_failures: int = 0
    markdown: str = ""
    summary: dict = field(default_factory=dict)
    task_ids: list[str] = field(default_factory=list)  # the tasks this run validated (its checks judge these)


def _day_tasks(out: Path, task_rows: dict[str, TaskRow]) -> list[DraftTask]:
    """The rows' task files, read where the rows say they are (not the whole task folder);
    a file someone deleted is skipped, as a scan of the folder would."""
    paths = [out / row.path for row in task_rows.values()]
    return sorted((load_task(path) for path in paths if path.is_file()), key=lambda task: task.task_id)


def validate_day(store: Store, config: AppConfig, day: str, *, scope: str, run_id: str) -> ValidationReport:
    out = config.path(config.output)
    domain = _domain(config.taskgen.model_dump_json())
    sample = _sample(store, day, scope)
    where = [TaskRow.day == day]
    if sample is not None and scope != "nightly":
        where = [TaskRow.session_id.in_(sample.selected)]
    task_rows = {row.task_id: row for row in store.rows(TaskRow, *where)}
    tasks = _day_tasks(out, task_rows)
    seed_ids = sorted({task.seed_id for task in tasks})
    seeds = {row.seed_id: Seed.model_validate_json(row.body) for row in store.rows(SeedRow, SeedRow.seed_id.in_(seed_ids))}
    results, updates, report = [], [], ValidationReport(tasks=len(tasks), task_ids=[task.task_id for task in tasks])
    set_issues = validate_set(tasks)
    for task, health in zip(tasks, check_set(tasks, seeds, domain)):
        seed = seeds[task.seed_id]
        issues = validate_task(task, seed, domain) + [i for i in set_issues if i.subject in (task.task_id, task.pair_id)]
        health = with_issues(health, [issue.code for issue in issues])
        results.append(health)
        report.with_issues += bool(issues)
        report.reference_failures += not (health.reference_passed or health.stub)
        updates.append(
            dict(task_rows[task.task_id].model_dump(), issues=canonical_json([i.model_dump() for i in issues]),
                 health=health.model_dump_json())
        )
    store.upsert(TaskRow, updates)
    set_version = current_version(out)
    summary = summarize(results, tasks, set_version)
    report.summary = summary.model_dump()
    report.markdown = health_markdown(summary)
    refresh_manifest(out, set_version)
    _finish_run(store, run_id, report)
    return report


def _finish_run(store: Store, run_id: str, report: "ValidationReport") -> None:
    rows = store.rows(RunRow, RunRow.run_id == run_id)
    if not rows:
        return
    summary = json.loads(rows[0].summary) | {"tasks": report.tasks, "with_issues": report.with_issues}
    store.upsert(
        RunRow,
        [dict(rows[0].model_dump(), finished_at=datetime.now(timezone.utc), summary=canonical_json(summary))],
    )


def health_markdown(summary) -> str:
    """Per set: the verdicts of the tasks that are not stubs, then the pairs (stubs apart)."""
    lines = [
        f"task-set version: {summary.version}",
        "",
        "| set | tasks | works | broken | no power | pair not discriminating | incident passes | invalid | reference pass | refund-all pass | do-nothing pass |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in ("capability", "regression"):
        s = getattr(summary, name)
        lines.append(
            f"| {name} | {s.tasks} | {s.works} | {s.broken} | {s.no_discriminating_power} | {s.pair_not_discriminating} | {s.incident_passes} | {s.invalid} | "
            f"{s.reference_pass_rate:.0%} | {s.refund_all_pass_rate:.0%} | {s.do_nothing_pass_rate:.0%} |"
        )
    lines += [
        "",
        "| set | pairs | stubs | pairs that discriminate | failed incidents whose replay fails the positive |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name in ("capability", "regression"):
        s = getattr(summary, name)
        lines.append(
            f"| {name} | {s.pairs} | {s.stub_pairs} ({s.stub_share:.0%}) | "
            f"{s.discriminating_pairs} ({s.discriminating_share:.0%} of non-stub pairs) | "
            f"{s.incident_replay_fails} of {s.incident_replayed} ({s.incident_fail_share:.0%}) |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- residue check
@dataclass
class ResidueResult:
    checked: int = 0
    values: int = 0
    leaks: dict[str, int] = field(default_factory=dict)


def _known_values(session: Session, state: dict, pii_fields: dict[str, dict[str, str]]) -> list[tuple[str, str]]:
    """(entity type, value) pairs the raw side knows from structured fields."""
    found: list[tuple[str, str]] = []
    for person in session.people:
        for entity, value in (("PERSON", person.name), ("EMAIL_ADDRESS", person.email), ("PHONE_NUMBER", person.phone)):
            if value:
                found.append((entity, value))
    for kind, rows in state.items():
        for row in rows.values():
            for path, entity in pii_fields.get(kind, {}).items():
                value: object = row
                for part in path.split("."):
                    value = value.get(part) if isinstance(value, dict) else None
                if isinstance(value, str) and value.strip():
                    found.append((entity, value))
    return found


_DIGIT_RUN = re.compile(r"\+?\d[\d\s().-]{5,}\d")


def residue_day(store: Store, config: AppConfig, state: "StateDatabase", day: str, *, scope: str) -> ResidueResult:
    """An independent look for raw values in the scrubbed sessions: the asset check's evidence.

    The originals are read from the raw zone and the state database and held in memory only.
    """
    result, leaks = ResidueResult(), Counter()
    pii_fields = state.pii_fields()
    rows = _scrubbed(store, day, scope)
    raw = {s.session_id: s for s in _raw_sessions(store, day, [r.session_id for r in rows])}
    for row in rows:
        session = raw.get(row.session_id)
        if session is None:
            continue
        haystack = (row.session + row.state).casefold()
        digit_runs = {re.sub(r"\D", "", run) for run in _DIGIT_RUN.findall(haystack)}
        snapshot = state.snapshot(session.entity_ids, session.incident_at)
        result.checked += 1
        for entity, value in _known_values(session, snapshot, pii_fields):
            result.values += 1
            needle = value.casefold()
            value_digits = "".join(ch for ch in value if ch.isdigit())
            if (len(needle) >= 4 and needle in haystack) or (
                entity in ("PHONE_NUMBER", "CREDIT_CARD") and len(value_digits) >= 7
                and any(value_digits in run for run in digit_runs)
            ):
                leaks[entity] += 1
    result.leaks = dict(leaks)
    return result
