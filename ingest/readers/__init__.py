"""Readers for a drop folder: one subfolder per source, every record accepted or quarantined.

`read_file` streams (line by line for JSONL and text logs; a whole `.json`, gzipped or
protobuf OTLP file, or a Zendesk file, at once) and never raises on bad input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ingest.config import IngestConfig
from ingest.models import SOURCES, QuarantinedRecord, RawRecord
from ingest.readers.base import Item, ReadStats, Skip, Where
from ingest.readers.events import deploy_from_line, escalation_from_line
from ingest.readers.lines import decode_json_object, iter_lines
from ingest.readers.logs import CONTINUATION, otlp_logs_from_line, text_log_from_line
from ingest.readers.otlp_files import otlp_kind, requests_of_file
from ingest.readers.tickets import comments_from_file, tickets_from_page
from ingest.readers.traces import spans_from_line

__all__ = ["ReadStats", "list_source_files", "read_file"]

LineHandler = Callable[[Any, Where], Item | Iterable[Item]]


def list_source_files(root: Path, source: str) -> list[Path]:
    """Every regular, non-hidden file under `root/source`, sorted (unsupported ones are quarantined when read)."""
    folder = root / source
    if not folder.is_dir():
        return []
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    )


def read_file(
    source: str,
    path: Path,
    root: Path,
    config: IngestConfig,
    *,
    start_byte: int = 0,
    start_line: int = 0,
    stats: ReadStats | None = None,
) -> Iterator[tuple[RawRecord | QuarantinedRecord, int]]:
    """Records of one file with the byte offset just after each.

    Line-based files resume from `start_byte` / `start_line` (a previous offset and line
    count). Whole-file JSON (Zendesk pages and comments) cannot resume: `start_byte` must be
    0, or the file size when it was fully read before (then nothing is yielded).
    Records below error severity are not yielded; `stats` (if given) counts them as skipped.
    """
    counts = stats if stats is not None else ReadStats()
    relative = path.relative_to(root).as_posix()
    try:
        for item, offset in _dispatch(source, path, relative, config, start_byte, start_line):
            counts.count(item)
            if not isinstance(item, Skip):
                yield item, offset
    except OSError:
        item = Where(source, relative, 0).quarantine("file could not be read")
        counts.count(item)
        yield item, start_byte


def _dispatch(
    source: str, path: Path, relative: str, config: IngestConfig, start_byte: int, start_line: int
) -> Iterator[tuple[Item, int]]:
    if source not in SOURCES:
        yield Where(source, relative, 0).quarantine("unknown source"), path.stat().st_size
        return
    handler = _line_handler(source, path.name, config)
    if source == "error_logs" and path.name.endswith(".log"):
        yield from _read_text_log(source, path, relative, config, start_byte, start_line)
    elif handler is not None:  # JSON lines: resumable from a byte offset
        yield from _read_lines(source, path, relative, config, handler, start_byte, start_line)
    elif source in _OTLP_SOURCES and otlp_kind(path.name) is not None:
        yield from _read_whole_otlp_file(source, path, relative, config, start_byte)
    elif source == "tickets" and path.suffix == ".json":
        yield from _read_whole_ticket_file(path, relative, config, start_byte)
    else:
        yield Where(source, relative, 0).quarantine("unsupported file type for this source"), path.stat().st_size


_OTLP_SOURCES = {"traces": spans_from_line, "error_logs": otlp_logs_from_line}
"""Sources whose files are OTLP export requests: also whole `.json`, gzipped and protobuf files."""
_JSON_LINE_SOURCES = {**_OTLP_SOURCES, "escalations": escalation_from_line, "deploys": deploy_from_line}


def _line_handler(source: str, name: str, config: IngestConfig) -> LineHandler | None:
    per_object = _JSON_LINE_SOURCES.get(source)
    if per_object is None or not name.endswith(".jsonl"):
        return None
    return lambda data, where: _json_then(per_object, data, where, config)


def _json_then(per_object: Callable[..., Any], data: bytes, where: Where, config: IngestConfig) -> Any:
    decoded = decode_json_object(data)
    if isinstance(decoded, str):
        return where.quarantine(decoded, data)
    return per_object(decoded, where, config)


def _read_text_log(
    source: str, path: Path, relative: str, config: IngestConfig, start_byte: int, start_line: int
) -> Iterator[tuple[Item, int]]:
    """Plain-text log lines; the stack-trace lines under a record join it (see logs.CONTINUATION).
    A record is yielded once the next one starts, with the offset after its last line."""
    pattern = re.compile(config.text_log_pattern)
    limit = config.max_record_bytes
    first: tuple[Where, str, int] | None = None
    more: list[str] = []

    def finish() -> Iterator[tuple[Item, int]]:
        nonlocal first, more
        if first is not None:
            where, text, offset = first
            size = len(text) + sum(len(line) + 1 for line in more)
            if size > limit:
                yield where.quarantine(f"record over {limit} bytes"), offset
            else:
                for item in _guarded(lambda data, at: text_log_from_line(data, at, config, pattern, more), text, where):
                    yield item, offset
        first, more = None, []

    for line in iter_lines(path, max_bytes=limit, start_byte=start_byte, start_line=start_line):
        where = Where(source, relative, line.number)
        text = _utf8(line.data)
        if line.data is not None and text is not None and first is not None and not pattern.match(text) \
                and CONTINUATION.match(text):
            more.append(text)
            first = (first[0], first[1], line.end_offset)
            continue
        yield from finish()
        if line.data is None:
            yield where.quarantine(f"line over {limit} bytes"), line.end_offset
        elif text is None:
            yield where.quarantine("invalid UTF-8", line.data), line.end_offset
        else:
            first = (where, text, line.end_offset)
    yield from finish()


def _utf8(data: bytes | None) -> str | None:
    try:
        return data.decode("utf-8") if data is not None else None
    except UnicodeDecodeError:
        return None


def _read_lines(
    source: str,
    path: Path,
    relative: str,
    config: IngestConfig,
    handler: LineHandler,
    start_byte: int,
    start_line: int,
) -> Iterator[tuple[Item, int]]:
    limit = config.max_record_bytes
    for line in iter_lines(path, max_bytes=limit, start_byte=start_byte, start_line=start_line):
        where = Where(source, relative, line.number)
        if line.data is None:
            yield where.quarantine(f"line over {limit} bytes"), line.end_offset
            continue
        for item in _guarded(handler, line.data, where):
            yield item, line.end_offset


def _guarded(handler: LineHandler, data: Any, where: Where) -> list[Item]:
    """The handler's items; an unexpected failure on odd input quarantines the line instead of raising."""
    try:
        result = handler(data, where)
        return [result] if isinstance(result, (RawRecord, QuarantinedRecord, Skip)) else list(result)
    except (ValueError, TypeError, AttributeError, KeyError, RecursionError) as error:
        return [where.quarantine(f"unreadable record ({type(error).__name__})", data if isinstance(data, bytes) else None)]


def _read_whole_otlp_file(
    source: str, path: Path, relative: str, config: IngestConfig, start_byte: int
) -> Iterator[tuple[Item, int]]:
    """A whole `.json`, gzipped or protobuf file: read again from the start unless fully read before."""
    size = path.stat().st_size
    if start_byte == size and start_byte > 0:
        return
    per_request = _OTLP_SOURCES[source]
    for position, request in requests_of_file(path, source, config.max_record_bytes):
        where = Where(source, relative, position)
        if isinstance(request, str):
            yield where.quarantine(request), size
            continue
        for item in _guarded(lambda data, at: per_request(data, at, config), request, where):
            yield item, size


def _read_whole_ticket_file(path: Path, relative: str, config: IngestConfig, start_byte: int) -> Iterator[tuple[Item, int]]:
    size = path.stat().st_size
    if start_byte == size and start_byte > 0:
        return
    if start_byte != 0:
        raise ValueError("whole-file JSON cannot resume: start_byte must be 0 or the file size")
    data = path.read_bytes()
    if path.parent.name == "comments":
        items = comments_from_file(data, path.stem, "tickets", relative, config)
    else:
        items = tickets_from_page(data, "tickets", relative, config)
    for item in items:
        yield item, size
