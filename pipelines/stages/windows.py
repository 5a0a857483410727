"""A partition's span of time: a whole UTC day, or one hour of it (`partitions.by: hour`).

The per-session stages (landing counts, assembly) work on a window; everything from the sample
on works on the day, so a day's tasks are the same whether its sessions were assembled in one
run or in 24: a session belongs to the hour it started in, as it belongs to the day it started on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ingest.models import Session

HOUR_KEY = "%Y-%m-%d-%H:%M"
"""Dagster's hourly partition keys (`HourlyPartitionsDefinition`), e.g. 2025-01-01-05:00."""


@dataclass(frozen=True)
class Window:
    key: str
    """The partition key: a day (2025-01-01) or an hour (2025-01-01-05:00)."""
    day: str
    start: datetime | None = None
    """The hour's start (UTC); None for a whole day."""

    @classmethod
    def of(cls, key: str) -> Window:
        """The window of a daily or hourly partition key; anything else is a one-line ValueError."""
        if len(key) == len("2025-01-01"):
            datetime.strptime(key, "%Y-%m-%d")
            return cls(key=key, day=key)
        try:
            start = datetime.strptime(key, HOUR_KEY).replace(tzinfo=timezone.utc)
        except ValueError:
            raise ValueError(f"partition {key!r} is neither a day (2025-01-01) nor an hour (2025-01-01-05:00)") from None
        if start.minute:
            raise ValueError(f"partition {key!r} does not start on the hour")
        return cls(key=key, day=start.date().isoformat(), start=start)

    @property
    def hourly(self) -> bool:
        return self.start is not None

    @property
    def end(self) -> datetime | None:
        return self.start + timedelta(hours=1) if self.start is not None else None

    def holds(self, session: Session) -> bool:
        """Whether this window assembles the session: it started in it (by its first record, else its
        last), or it has no time at all (it then belongs to the day of the window naming it)."""
        moment = session.started_at or session.ended_at
        if moment is None:
            return True
        moment = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
        if moment.date().isoformat() != self.day:
            return False
        return self.start is None or self.start <= moment < self.end


def hours_of(day: str) -> list[str]:
    """The 24 hourly partition keys of a day."""
    start = datetime.fromisoformat(day).replace(tzinfo=timezone.utc)
    return [(start + timedelta(hours=h)).strftime(HOUR_KEY) for h in range(24)]


def landed_hours(store, day: str) -> list[str]:
    """The hourly partition keys of the day's hours that hold landed records, in order: an hour with
    none has nothing to assemble (its sessions start in the hours their records are in), so a
    small day by hour is a few runs, not 24."""
    from sqlalchemy import select

    from pipelines.stages.day_records import in_window
    from pipelines.store.rows import RawRecordRow

    r = RawRecordRow.__table__.c
    with store.raw_engine.connect() as conn:
        return [hour for hour in hours_of(day)
                if conn.execute(select(r.sha256).where(in_window(Window.of(hour))).limit(1)).first() is not None]


def landed_counts(store, source: str, key: str) -> tuple[int, int, int]:
    """A source's records landed for the partition `key`, and its day's records and the day's records
    quarantined at landing (the quarantine check weighs a day's: a record quarantined at landing may
    have no time). Only landing's: the records assembly quarantines as dangling links are another
    stage's, and by hour they would reach one hour's check from the hours assembled before it."""
    from pipelines.stages.day_records import in_window
    from pipelines.store.rows import QuarantineRow, RawRecordRow

    window = Window.of(key)
    in_partition = store.count(RawRecordRow, RawRecordRow.source == source, in_window(window))
    in_day = store.count(RawRecordRow, RawRecordRow.source == source, RawRecordRow.day == window.day)
    quarantined = store.count(QuarantineRow, QuarantineRow.source == source, QuarantineRow.day == window.day,
                              QuarantineRow.stage == "ingest")
    return in_partition, in_day, quarantined
