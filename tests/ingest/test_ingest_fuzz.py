import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings, strategies as st

from ingest.config import IngestConfig
from ingest.readers import ReadStats, read_file

LIMIT = 512
CONFIG = IngestConfig(max_record_bytes=LIMIT)
LINE_FILES = [("traces", "t.jsonl"), ("error_logs", "e.jsonl"), ("error_logs", "e.log"),
              ("escalations", "x.jsonl"), ("deploys", "d.jsonl")]
WHOLE_FILES = [("tickets", "page.json"), ("tickets", "comments/5.json")]
KEYS = ["resourceSpans", "scopeSpans", "spans", "resourceLogs", "scopeLogs", "logRecords", "id", "tickets",
        "comments", "traceId", "spanId", "session_id", "escalated_at", "kind", "body", "created_at"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)
contents = st.binary(max_size=2000) | st.lists(json_values, max_size=5).map(
    lambda values: "\n".join(json.dumps(v) for v in values).encode())


def lines_with_content(data: bytes) -> set[int]:
    """Numbers of the lines a reader must account for (a byte-order mark opening the file is not content)."""
    lines = data.split(b"\n")
    lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
    return {number for number, line in enumerate(lines, start=1)
            if line.rstrip(b"\r").strip() or len(line.rstrip(b"\r")) > LIMIT}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=contents)
@example(data=b"\xef\xbb\xbf")  # a file holding only a byte-order mark (found by hypothesis)
def test_any_content_never_raises_and_every_line_is_accounted_for(data):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for source, name in LINE_FILES + WHOLE_FILES:
            path = root / source / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            stats = ReadStats()
            items = list(read_file(source, path, root, CONFIG, stats=stats))
            assert all(offset <= len(data) for _, offset in items)
            if (source, name) in LINE_FILES:
                expected = lines_with_content(data)
                assert {item.position for item, _ in items} <= expected
                assert stats.accepted + stats.quarantined + sum(stats.skipped.values()) >= len(expected)
            else:
                assert stats.skipped == {} and stats.accepted + stats.quarantined == len(items)
