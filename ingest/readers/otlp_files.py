"""The files OTLP exporters write, opened into export requests (camelCase JSON objects).

- `*.jsonl`: one request per line (read line by line elsewhere, so an appended file resumes);
- `*.json`: one request in the whole file, or JSON lines as the Collector's file exporter
  writes them under any name;
- `*.gz` around either (or around `*.pb`);
- `*.pb`: OTLP protobuf, as the Collector's file exporter writes it with `format: proto`
  (each message prefixed by its length in four big-endian bytes) or a single bare message,
  decoded with `opentelemetry-proto` into the protobuf JSON mapping (ids in base64, which
  the readers turn into hex like any other).

Whole files cannot resume: every request reports the file's size as its offset.
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import DecodeError

from ingest.readers.lines import decode_json_object, stream_lines

OTLP_SUFFIXES = (".jsonl", ".json", ".pb")
"""What traces/ and error_logs/ read, each also gzipped (`.jsonl.gz`, ...)."""


def otlp_kind(name: str) -> str | None:
    """"jsonl", "json" or "pb" for a file the OTLP readers open (gzipped or not), else None."""
    stem = name[: -len(".gz")] if name.endswith(".gz") else name
    for suffix in OTLP_SUFFIXES:
        if stem.endswith(suffix):
            return suffix[1:]
    return None


def requests_of_file(path: Path, source: str, max_bytes: int) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(position, request or quarantine reason) for every export request in a whole file."""
    kind = otlp_kind(path.name)
    with path.open("rb") as raw:
        handle: BinaryIO = gzip.GzipFile(fileobj=raw) if path.name.endswith(".gz") else raw
        try:
            if kind == "pb":
                yield from _protobuf_requests(_bounded_read(handle, max_bytes), source)
            elif kind == "json":
                yield from _json_requests(handle, max_bytes)
            else:
                for line in stream_lines(handle, max_bytes=max_bytes, end_offset=0):
                    yield line.number, (decode_json_object(line.data) if line.data is not None else f"line over {max_bytes} bytes")
        except (OSError, EOFError, zlib.error):
            yield 0, "not a readable gzip file" if handle is not raw else "file could not be read"
        except _TooBig:
            yield 0, f"file over {max_bytes} bytes"


class _TooBig(Exception):
    pass


def _bounded_read(handle: BinaryIO, max_bytes: int) -> bytes:
    """The whole (decompressed) content, refusing more than a record's limit times 64."""
    limit = max_bytes * 64
    data = handle.read(limit + 1)
    if len(data) > limit:
        raise _TooBig
    return data


def _json_requests(handle: BinaryIO, max_bytes: int) -> Iterator[tuple[int, dict[str, Any] | str]]:
    data = _bounded_read(handle, max_bytes)
    whole = decode_json_object(data)
    if isinstance(whole, dict):
        yield 1, whole
        return
    if whole != "invalid JSON":
        yield 1, whole
        return
    for line in stream_lines(io.BytesIO(data), max_bytes=max_bytes, end_offset=0):
        yield line.number, (decode_json_object(line.data) if line.data is not None else f"line over {max_bytes} bytes")


def _protobuf_requests(data: bytes, source: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    messages = _frames(data)
    if messages is None:
        messages = [data]
    for number, message in enumerate(messages, start=1):
        yield number, _decode(message, source)


def _frames(data: bytes) -> list[bytes] | None:
    """Length-prefixed messages filling the file exactly, else None (a single bare message)."""
    frames, offset = [], 0
    while offset < len(data):
        if offset + 4 > len(data):
            return None
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        if length == 0 or offset + 4 + length > len(data):
            return None
        frames.append(data[offset + 4 : offset + 4 + length])
        offset += 4 + length
    return frames or None


def _decode(message: bytes, source: str) -> dict[str, Any] | str:
    """A trace export request if the bytes hold spans with ids, else a logs export request."""
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    order = (ExportTraceServiceRequest, ExportLogsServiceRequest)
    if source != "traces":
        order = order[::-1]
    for kind in order:
        try:
            request = kind.FromString(message)
        except DecodeError:
            continue
        as_dict = MessageToDict(request)
        if _holds_records(as_dict):
            return as_dict
    return "not an OTLP protobuf trace or logs export request"


def _holds_records(request: dict[str, Any]) -> bool:
    for resource in request.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            if any(span.get("traceId") for span in scope.get("spans", [])):
                return True
    for resource in request.get("resourceLogs", []):
        for scope in resource.get("scopeLogs", []):
            if any(log.get("timeUnixNano") or log.get("observedTimeUnixNano") or log.get("body")
                   for log in scope.get("logRecords", [])):
                return True
    return False
