"""Conformance: the same export in every envelope the exporters and the Collector write.

Built at run time from the OpenLLMetry 0.40 sample: snake_case field names, the protobuf
JSON mapping's base64 ids, one whole (pretty-printed) `.json` file, gzip, and OTLP protobuf
`.pb` files, length-prefixed as the Collector's file exporter writes them or one bare message.
"""

from __future__ import annotations

import base64
import gzip
import json
import struct
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict, ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ingest.check import check_drop, session_summary
from ingest.config import IngestConfig

SAMPLE = Path(__file__).resolve().parent / "samples" / "openllmetry-0.40" / "traces.jsonl"
ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def requests() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def with_ids(value: Any, encode) -> Any:
    if isinstance(value, dict):
        return {k: (encode(v) if k in ID_FIELDS and v else with_ids(v, encode)) for k, v in value.items()}
    if isinstance(value, list):
        return [with_ids(item, encode) for item in value]
    return value


def base64_id(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def snake(value: Any) -> Any:
    if isinstance(value, dict):
        return {"".join(f"_{c.lower()}" if c.isupper() else c for c in k): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(item) for item in value]
    return value


def merged(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"resourceSpans": [rs for part in parts for rs in part["resourceSpans"]]}


def protobuf(request: dict[str, Any]) -> bytes:
    return ParseDict(with_ids(request, base64_id), ExportTraceServiceRequest()).SerializeToString()


def lines(parts: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(part) + "\n" for part in parts).encode()


ENVELOPES = {
    "traces.jsonl": lambda parts: lines(parts),
    "snake.jsonl": lambda parts: lines([snake(part) for part in parts]),
    "base64-ids.jsonl": lambda parts: lines([with_ids(part, base64_id) for part in parts]),
    "whole.json": lambda parts: json.dumps(merged(parts), indent=2).encode(),
    "collector-lines.json": lambda parts: lines(parts),
    "traces.jsonl.gz": lambda parts: gzip.compress(lines(parts)),
    "whole.json.gz": lambda parts: gzip.compress(json.dumps(merged(parts)).encode()),
    "collector.pb": lambda parts: b"".join(struct.pack(">I", len(m)) + m for m in map(protobuf, parts)),
    "single.pb": lambda parts: protobuf(merged(parts)),
    "single.pb.gz": lambda parts: gzip.compress(protobuf(merged(parts))),
}


def summary(drop: Path) -> list[dict[str, Any]]:
    checked = check_drop(drop, IngestConfig())
    assert checked.quarantined == []
    assert checked.sources["traces"].accepted == 6
    return [session_summary(s, show_text=True) for s in checked.sessions]


@pytest.mark.parametrize("name", sorted(ENVELOPES))
def test_every_envelope_gives_the_same_session(tmp_path, name):
    parts = requests()
    plain, other = tmp_path / "plain", tmp_path / "other"
    (plain / "traces").mkdir(parents=True)
    (other / "traces").mkdir(parents=True)
    (plain / "traces" / "traces.jsonl").write_bytes(lines(parts))
    (other / "traces" / name).write_bytes(ENVELOPES[name](parts))
    expected = summary(plain)
    assert len(expected) == 1 and len(expected[0]["tool_calls"]) == 2
    assert summary(other) == expected


def test_base64_ids_are_decoded_to_hex_never_lower_cased(tmp_path):
    parts = requests()
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "b64.jsonl").write_bytes(lines([with_ids(p, base64_id) for p in parts]))
    hex_ids = {span["traceId"] for p in parts for rs in p["resourceSpans"] for ss in rs["scopeSpans"] for span in ss["spans"]}
    session = check_drop(tmp_path, IngestConfig()).sessions[0]
    assert set(session.trace_ids) == hex_ids


def test_protobuf_round_trip_is_what_the_json_mapping_says(tmp_path):
    """The .pb reader's view of a span equals the protobuf JSON mapping of the same bytes."""
    part = requests()[0]
    decoded = MessageToDict(ExportTraceServiceRequest.FromString(protobuf(part)))
    span = decoded["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert base64.b64decode(span["traceId"]).hex() == part["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]


def test_a_bad_span_among_good_ones_is_quarantined_alone_naming_its_field(tmp_path):
    parts = requests()
    spans = parts[0]["resourceSpans"][0]["scopeSpans"][0]["spans"]
    good = dict(spans[0])
    spans[0] = {**good, "traceId": "not-an-id!"}
    spans += [{**good, "spanId": "", "name": "broken"}, {**good, "startTimeUnixNano": "yesterday"}]
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "t.jsonl").write_bytes(lines(parts))
    checked = check_drop(tmp_path, IngestConfig())
    bad = [(q.position, q.record, q.reason) for q in checked.quarantined]
    count = len(spans)
    assert bad == [
        (1, 1, "invalid field 'traceId': not a hex or base64 id"),
        (1, count - 1, "missing field 'spanId'"),
        (1, count, "invalid field 'startTimeUnixNano': invalid timestamp"),
    ]
    assert checked.sources["traces"].quarantined == 3
