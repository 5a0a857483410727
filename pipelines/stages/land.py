"""Land a source's new records into the raw zone: cursors, content-hash ledger, quarantine.

Idempotent and safe to run twice at once: a file already read up to its cursor is skipped,
an appended file is read from where it stopped, a rewritten file is read again and its
records deduplicated by content hash.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from ingest import garbage
from ingest.config import IngestConfig
from ingest.models import QuarantinedRecord, RawRecord
from ingest.readers import list_source_files, read_file

from pipelines.store.rows import CursorRow
from pipelines.store.repository import Store, day_of
from pipelines.telemetry import stage_span

BATCH = 2000
LINE_FORMATS = {".jsonl", ".log"}  # read line by line, so an appended file resumes at its cursor
_DATE_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")


@dataclass
class LandingResult:
    source: str
    files_read: int = 0
    files_skipped: int = 0
    read: int = 0
    new: int = 0
    quarantined: int = 0
    quarantine_reasons: dict[str, int] = field(default_factory=dict)
    write_seconds: float = 0.0
    """time spent writing the raw zone, the ledger and the cursors (the rest is reading and parsing)"""


def _prefix_sha256(path: Path, length: int) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        remaining = length
        while remaining > 0:
            chunk = fh.read(min(1 << 20, remaining))
            if not chunk:
                break
            digest.update(chunk)
            remaining -= len(chunk)
    return digest.hexdigest()


def _links(record: RawRecord) -> list[str]:
    ids = record.payload.get("session_ids") if record.source == "deploys" else None
    return [str(i) for i in ids] if isinstance(ids, list) else []


@dataclass
class _Batch:
    """Records, quarantined lines and finished files' cursors waiting to be written together:
    a transaction per batch, not per file (a ticket export has a file per ticket). A file's
    cursor is written with or after its last records, never before them."""

    store: Store
    source: str
    run_id: str
    result: LandingResult
    first_day: str | None = None
    """records of an earlier day are quarantined: no partition runs them"""
    quarantine_day: str = ""
    records: list[RawRecord] = field(default_factory=list)
    quarantined: list[QuarantinedRecord] = field(default_factory=list)
    cursors: list[CursorRow] = field(default_factory=list)

    def start_file(self, quarantine_day: str) -> None:
        """A file whose quarantined lines belong to another day closes the batch first."""
        if quarantine_day != self.quarantine_day:
            self.flush()
            self.quarantine_day = quarantine_day

    def add(self, item: RawRecord | QuarantinedRecord) -> None:
        if isinstance(item, RawRecord) and self.first_day and (day := day_of(item.occurred_at)) and day < self.first_day:
            item = QuarantinedRecord(
                source=item.source, file=item.file, position=item.position, sha256=item.sha256,
                reason=f"dated {day}, before the first partition {self.first_day} (partitions.start)",
            )
        if isinstance(item, QuarantinedRecord):
            self.quarantined.append(item)
            self.result.quarantined += 1
            self.result.quarantine_reasons[item.reason] = self.result.quarantine_reasons.get(item.reason, 0) + 1
        else:
            self.records.append(item)
            self.result.read += 1
        if len(self.records) + len(self.quarantined) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if not (self.records or self.quarantined or self.cursors):
            return
        started = time.perf_counter()
        links = {r.sha256: ids for r in self.records if (ids := _links(r))}
        self.result.new += self.store.land(
            self.records, self.quarantined, run_id=self.run_id, quarantine_day=self.quarantine_day,
            cursors=self.cursors, links=links,
        )
        self.result.write_seconds += time.perf_counter() - started
        self.records, self.quarantined, self.cursors = [], [], []
        garbage.young()  # the batch's garbage (collection is paced by the batches: land_source)


def land_source(
    store: Store, drop: Path, source: str, config: IngestConfig, *, run_id: str, default_day: str,
    first_day: str | None = None,
) -> LandingResult:
    """Land the source's new records, in a `land` span that says how its time divided between
    parsing the files and writing the raw zone (the scale benchmark reads it). A record dated
    before `first_day` (the configured first partition) is quarantined with its file, line and
    reason, never landed into a day no partition runs."""
    with stage_span("land", source=source) as span:
        started = time.perf_counter()
        with garbage.paced():  # a batch's records survive until written: automatic full collections traversed them
            result = _land_source(store, drop, source, config, run_id=run_id, default_day=default_day, first_day=first_day)
        total = time.perf_counter() - started
        span.set_attribute("trace2task.records_read", result.read)
        span.set_attribute("trace2task.parse_seconds", round(total - result.write_seconds, 6))
        span.set_attribute("trace2task.write_seconds", round(result.write_seconds, 6))
    return result


def _land_source(
    store: Store, drop: Path, source: str, config: IngestConfig, *, run_id: str, default_day: str,
    first_day: str | None,
) -> LandingResult:
    result = LandingResult(source=source)
    cursors = store.cursors(source)
    batch = _Batch(store, source, run_id, result, first_day)
    for path in list_source_files(drop, source):
        relative = path.relative_to(drop).as_posix()
        size = path.stat().st_size
        cursor = cursors.get(relative)
        start_byte = start_line = 0
        unchanged_prefix = (
            cursor is not None
            and cursor.byte_offset <= size
            and _prefix_sha256(path, cursor.byte_offset) == cursor.prefix_sha256
        )
        if unchanged_prefix and cursor.byte_offset == size:
            result.files_skipped += 1
            continue
        if unchanged_prefix and path.suffix in LINE_FORMATS:
            start_byte, start_line = cursor.byte_offset, cursor.line
        result.files_read += 1
        name_day = _DATE_IN_NAME.search(path.name)
        batch.start_file(name_day.group(1) if name_day else default_day)
        offset, line = start_byte, start_line
        for item, end in read_file(source, path, drop, config, start_byte=start_byte, start_line=start_line):
            offset, line = end, item.position
            batch.add(item)
        batch.cursors.append(
            CursorRow(source=source, file=relative, byte_offset=offset, line=line, size=offset,
                      prefix_sha256=_prefix_sha256(path, offset))
        )
    batch.flush()
    return result
