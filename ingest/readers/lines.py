"""Streaming line access for the line-based sources: bounded memory, byte offsets for resuming."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

_CHUNK = 64 * 1024
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Line:
    number: int
    """1-based line number in the file."""
    end_offset: int
    """Byte offset just after the line (where a resumed read starts)."""
    data: bytes | None
    """The line without its line ending; None when it was longer than the limit."""


def iter_lines(path: Path, *, max_bytes: int, start_byte: int = 0, start_line: int = 0) -> Iterator[Line]:
    """Lines of `path` from `start_byte`, numbered from `start_line + 1`, blank lines skipped.

    At most `max_bytes + 2` bytes of a line are held in memory: a longer line is reported
    with `data=None` and the rest of it is read past in chunks.
    """
    with path.open("rb") as handle:
        handle.seek(start_byte)
        yield from stream_lines(handle, max_bytes=max_bytes, start_line=start_line)


def stream_lines(handle: BinaryIO, *, max_bytes: int, start_line: int = 0, end_offset: int | None = None) -> Iterator[Line]:
    """Lines of an open binary stream (a file, a gzip stream) as `iter_lines` yields them;
    `end_offset`, when given, is reported for every line instead of the stream position."""
    number = start_line
    while True:
        chunk = handle.readline(max_bytes + 2)
        if not chunk:
            return
        number += 1
        content = chunk.rstrip(b"\r\n")
        if number == 1 and content.startswith(_BOM):
            content = content[len(_BOM):]
        if len(content) > max_bytes:
            if not chunk.endswith(b"\n"):
                _skip_to_line_end(handle)
            yield Line(number, handle.tell() if end_offset is None else end_offset, None)
        elif content.strip():
            yield Line(number, handle.tell() if end_offset is None else end_offset, content)


def _skip_to_line_end(handle: BinaryIO) -> None:
    while True:
        piece = handle.readline(_CHUNK)
        if not piece or piece.endswith(b"\n"):
            return


def _refuse_constant(name: str) -> Any:
    raise ValueError("non-standard JSON constant")


def decode_json_object(data: bytes) -> dict[str, Any] | str:
    """The JSON object on a line, or a quarantine reason."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "invalid UTF-8"
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        return "JSON nested too deeply"
    except ValueError:
        return "invalid JSON"
    if not isinstance(value, dict):
        return "not a JSON object"
    return value
