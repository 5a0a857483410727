"""Land a source's new records into the raw zone: cursors, content-hash ledger, quarantine.

Idempotent and safe to run twice at once: a file already read up to its cursor is skipped,
an appended file is read from where it stopped, a rewritten file is read again and its
records deduplicated by content hash.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from ingest.config import IngestConfig
from ingest.models import QuarantinedRecord, RawRecord
from ingest.readers import list_source_files, read_file

from .store import CursorRow, Store

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


def land_source(
    store: Store, drop: Path, source: str, config: IngestConfig, *, run_id: str, default_day: str
) -> LandingResult:
    result = LandingResult(source=source)
    cursors = store.cursors(source)
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
        quarantine_day = name_day.group(1) if name_day else default_day

        records: list[RawRecord] = []
        quarantined: list[QuarantinedRecord] = []
        offset, line = start_byte, start_line

        def flush(final: bool) -> None:
            nonlocal records, quarantined
            cursor_row = None
            if final:
                cursor_row = CursorRow(
                    source=source, file=relative, byte_offset=offset, line=line, size=offset,
                    prefix_sha256=_prefix_sha256(path, offset),
                )
            links = {r.sha256: ids for r in records if (ids := _links(r))}
            result.new += store.land(
                records, quarantined, run_id=run_id, quarantine_day=quarantine_day, cursor=cursor_row, links=links
            )
            records, quarantined = [], []

        for item, end in read_file(source, path, drop, config, start_byte=start_byte, start_line=start_line):
            offset = end
            line = item.position
            if isinstance(item, QuarantinedRecord):
                quarantined.append(item)
                result.quarantined += 1
                result.quarantine_reasons[item.reason] = result.quarantine_reasons.get(item.reason, 0) + 1
            else:
                records.append(item)
                result.read += 1
            if len(records) + len(quarantined) >= BATCH:
                flush(final=False)
        flush(final=True)
    return result
