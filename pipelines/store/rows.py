"""The pipeline's tables, through SQLModel, each in one of two databases.

- the raw landing zone (`RAW_TABLES`): source records and assembled sessions with their raw
  values; the only place raw values live;
- the store (`STORE_TABLES`): ledger of content hashes, cursors, quarantine, classifications,
  samples, scrubbed sessions, seeds, tasks and runs. Nothing in it holds a raw value.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel


# ---------------------------------------------------------------- raw landing zone
class RawRecordRow(SQLModel, table=True):
    __tablename__ = "raw_record"
    sha256: str = Field(primary_key=True)
    source: str = Field(index=True)
    kind: str
    external_id: str = Field(index=True)
    file: str
    position: int
    occurred_at: datetime | None = None
    day: str | None = Field(default=None, index=True)
    session_id: str | None = Field(default=None, index=True)
    trace_id: str | None = Field(default=None, index=True)
    thread: str | None = Field(
        default=None, index=True, description="records that belong together whatever their day (a ticket and its comments)"
    )
    payload: str = Field(sa_column=Column(Text, nullable=False))
    landed_at: datetime


class RawLinkRow(SQLModel, table=True):
    """A record that names sessions other than its own (a deploy event naming several)."""

    __tablename__ = "raw_link"
    sha256: str = Field(primary_key=True)
    session_id: str = Field(primary_key=True, index=True)


class RawSessionRow(SQLModel, table=True):
    __tablename__ = "raw_session"
    session_id: str = Field(primary_key=True)
    day: str = Field(index=True)
    body: str = Field(sa_column=Column(Text, nullable=False))
    assembled_at: datetime


class RawErrorMessageRow(SQLModel, table=True):
    """A distinct error message of the sessions a window's records make (raw: messages may hold
    personal data). The day's error templates are mined from those of all its windows."""

    __tablename__ = "raw_error_message"
    window: str = Field(primary_key=True)
    sha256: str = Field(primary_key=True)
    day: str = Field(index=True)
    message: str = Field(sa_column=Column(Text, nullable=False))
    kept_at: datetime


# ---------------------------------------------------------------- store (no raw values)
class LedgerRow(SQLModel, table=True):
    """Every source record read, by content hash: what makes a rerun read nothing twice."""

    __tablename__ = "ledger"
    sha256: str = Field(primary_key=True)
    source: str = Field(index=True)
    file: str
    position: int
    day: str | None = Field(default=None, index=True)
    run_id: str


class CursorRow(SQLModel, table=True):
    __tablename__ = "source_cursor"
    source: str = Field(primary_key=True)
    file: str = Field(primary_key=True)
    byte_offset: int
    line: int
    size: int
    prefix_sha256: str = Field(description="sha256 of the file's first byte_offset bytes")


class QuarantineRow(SQLModel, table=True):
    __tablename__ = "quarantine"
    source: str = Field(primary_key=True)
    file: str = Field(primary_key=True)
    position: int = Field(primary_key=True)
    record: int = Field(default=0, primary_key=True)
    reason: str = Field(primary_key=True)
    sha256: str | None = None
    day: str = Field(index=True)
    stage: str = "ingest"
    run_id: str


class ClassificationRow(SQLModel, table=True):
    __tablename__ = "classification"
    session_id: str = Field(primary_key=True)
    day: str = Field(index=True)
    intent: str
    outcome: str
    signature: str
    evidence: str = Field(sa_column=Column(Text, nullable=False))
    detail: str = Field(
        default="{}", sa_column=Column(Text, nullable=False, default="{}"),
        description="JSON: every outcome signal (source, ref, kind, outcome it supports) and the review questions",
    )


class SampleRow(SQLModel, table=True):
    __tablename__ = "sample"
    day: str = Field(primary_key=True)
    scope: str = Field(primary_key=True, description="'nightly' or the incident id")
    selected: str = Field(sa_column=Column(Text, nullable=False))
    members: str = Field(sa_column=Column(Text, nullable=False))
    coverage: str = Field(sa_column=Column(Text, nullable=False))


class ScrubbedSessionRow(SQLModel, table=True):
    __tablename__ = "scrubbed_session"
    session_id: str = Field(primary_key=True)
    day: str = Field(index=True)
    session: str = Field(sa_column=Column(Text, nullable=False))
    state: str = Field(sa_column=Column(Text, nullable=False))
    counts: str = Field(sa_column=Column(Text, nullable=False))


class SeedRow(SQLModel, table=True):
    __tablename__ = "seed"
    seed_id: str = Field(primary_key=True)
    body: str = Field(sa_column=Column(Text, nullable=False))


class FrozenSeedRow(SQLModel, table=True):
    """The seed each scrubbed session was frozen into: drafting reads it, never freezes again."""

    __tablename__ = "frozen_seed"
    session_id: str = Field(primary_key=True)
    seed_id: str = Field(index=True)


class TaskRow(SQLModel, table=True):
    __tablename__ = "task"
    task_id: str = Field(primary_key=True)
    day: str = Field(index=True)
    session_id: str = Field(index=True)
    task_set: str
    polarity: str
    pair_id: str
    seed_id: str
    path: str
    sha256: str
    issues: str = Field(sa_column=Column(Text, nullable=False))
    health: str = Field(sa_column=Column(Text, nullable=False))
    scope: str = Field(default="nightly", description="'nightly' or the incident id that drafted it")


class ReviewEventRow(SQLModel, table=True):
    """The store's copy of every reviewer's verdict and edit (taskgen.decisions.events): a task
    file lost or overwritten gets its decisions back from here on the next re-draft."""

    __tablename__ = "review_event"
    task_id: str = Field(primary_key=True)
    kind: str = Field(primary_key=True, description="'verdict' or 'edit'")
    seq: int = Field(primary_key=True, description="its place in the task's history")
    pair_id: str = Field(index=True)
    polarity: str
    version: int
    body: str = Field(sa_column=Column(Text, nullable=False))


class TaskRunRow(SQLModel, table=True):
    """Which Dagster run drafted which task, and the id the engineer asked for (`scope`: the
    incident id given to `trace2task incident`, or 'nightly'). Kept here, not in the task file,
    which stays byte-identical across runs."""

    __tablename__ = "task_run"
    task_id: str = Field(primary_key=True)
    run_id: str = Field(primary_key=True)
    scope: str = Field(index=True)
    day: str
    session_id: str
    version: int
    drafted_at: datetime


class RunRow(SQLModel, table=True):
    __tablename__ = "run"
    run_id: str = Field(primary_key=True)
    kind: str
    partition: str
    scope: str
    started_at: datetime
    finished_at: datetime | None = None
    summary: str = Field(default="{}", sa_column=Column(Text, nullable=False))


RAW_TABLES = [RawRecordRow.__table__, RawLinkRow.__table__, RawSessionRow.__table__, RawErrorMessageRow.__table__]
STORE_TABLES = [
    LedgerRow.__table__,
    CursorRow.__table__,
    QuarantineRow.__table__,
    ClassificationRow.__table__,
    SampleRow.__table__,
    ScrubbedSessionRow.__table__,
    SeedRow.__table__,
    FrozenSeedRow.__table__,
    TaskRow.__table__,
    ReviewEventRow.__table__,
    TaskRunRow.__table__,
    RunRow.__table__,
]
