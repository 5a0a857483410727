"""Near-valid documents, damaged one field at a time, into every reader: a record or a quarantine, never a crash.

tests/ingest/test_ingest_fuzz.py throws random bytes and random JSON; here every real document
shape (a Zendesk page and comment file, OTLP traces and logs, plain-text logs, escalations, deploy
events) is taken from a generated drop and one of its fields is replaced, removed or garbled.
"""

from __future__ import annotations

import copy
import json
import tempfile
from datetime import date
from functools import lru_cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from ingest.config import IngestConfig
from ingest.demo import generate_drop
from ingest.models import QuarantinedRecord, RawRecord, canonical_json
from ingest.readers import read_file

SENTINEL = "Zq9Private"
FILES = {  # (source, path in the drop, whole-file JSON?)
    "ticket page": ("tickets", "tickets/export-0001.json", True),
    "ticket comments": ("tickets", None, True),
    "otlp traces": ("traces", "traces/2026-11-16.jsonl", False),
    "otlp logs": ("error_logs", "error_logs/2026-11-16.jsonl", False),
    "escalations": ("escalations", "escalations/2026-11-16.jsonl", False),
    "deploys": ("deploys", "deploys/deploys.jsonl", False),
}
garbage_leaves = (
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True) | st.text(max_size=12).map(lambda t: SENTINEL + t)
    | st.sampled_from(["", "not-a-date", "2026-13-45T99:99:99Z", "-1", "1e400", "sess-", "\x00"])
)
garbage = st.recursive(
    garbage_leaves, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@lru_cache(maxsize=1)
def _templates() -> dict[str, tuple[str, str, bytes]]:
    with tempfile.TemporaryDirectory() as folder:
        drop = Path(folder) / "drop"
        generate_drop(drop, sessions=12, days=1, seed=2, start=date(2026, 11, 16))
        found = {}
        for name, (source, relative, _) in FILES.items():
            path = sorted((drop / "tickets" / "comments").glob("*.json"))[0] if relative is None else drop / relative
            data = path.read_bytes()
            found[name] = (source, path.relative_to(drop).as_posix(), data if relative is None or name == "ticket page" else data.splitlines()[0])
        found["text log"] = ("error_logs", "error_logs/app-2026-11-16.log",
                             sorted((drop / "error_logs").glob("*.log"))[0].read_bytes().splitlines()[0])
        return found


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, prefix + (index,))


def _damage(document, path, replacement, remove: bool):
    if not path:
        return replacement
    damaged = copy.deepcopy(document)
    parent = damaged
    for part in path[:-1]:
        parent = parent[part]
    if remove:
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return damaged


@st.composite
def damaged_documents(draw):
    name = draw(st.sampled_from(sorted(_templates())))
    source, relative, data = _templates()[name]
    if name == "text log":
        text = data.decode()
        cut = draw(st.integers(0, len(text)))
        noise = draw(st.text(max_size=10).map(lambda t: SENTINEL + t))
        return source, relative, (text[:cut] + noise + text[cut + draw(st.integers(0, 30)):]).encode()
    document = json.loads(data)
    path = draw(st.sampled_from(list(_paths(document))))
    damaged = _damage(document, path, draw(garbage), remove=bool(path) and draw(st.booleans()))
    return source, relative, json.dumps(damaged, allow_nan=True).encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=damaged_documents())
def test_damaged_documents_become_records_or_reasoned_quarantines(case):
    source, relative, data = case
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = root / relative
        path.parent.mkdir(parents=True)
        path.write_bytes(data + b"\n")
        items = [item for item, _ in read_file(source, path, root, IngestConfig())]
    for item in items:
        assert isinstance(item, (RawRecord, QuarantinedRecord))
        if isinstance(item, QuarantinedRecord):
            assert (item.source, item.file) == (source, relative) and item.position >= 0
            assert item.reason.strip() and SENTINEL not in item.reason
        else:
            canonical_json(item.payload)  # what lands is storable as canonical JSON
