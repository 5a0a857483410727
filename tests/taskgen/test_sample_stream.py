"""The streaming sample (per-cell reservoirs over rows grouped by signature) selects what
sampling every session at once selects."""

import random
from collections import defaultdict

import pytest

from ingest.models import sha256_hex
from taskgen.classify import Classification
from taskgen.config import SamplingConfig
from taskgen.sample import sample_by_signature, stratified_sample


def _all_at_once(items, config):
    """The sampling as it was written before the reservoirs: every session held at once."""
    rank = lambda sid: sha256_hex(f"{config.seed}:{sid}")  # noqa: E731
    groups = defaultdict(list)
    for sid, c in items:
        groups[c.signature].append((sid, c))
    chosen = defaultdict(list)
    members = {}
    for group in groups.values():
        sid, c = min(group, key=lambda item: rank(item[0]))
        chosen[(c.intent, c.outcome)].append(sid)
        members[sid] = sorted(s for s, _ in group)
    selected = []
    for cell, sids in chosen.items():
        selected += sorted(sids, key=rank)[: config.quota_for(*cell)]
    return sorted(selected), {sid: members[sid] for sid in sorted(selected)}


def _items(rng, count):
    intents, outcomes = ["refund", "return", "other"], ["resolved", "errored", "escalated"]
    items = []
    for n in range(count):
        intent, outcome = rng.choice(intents), rng.choice(outcomes)
        detail = "" if outcome == "resolved" else str(rng.randrange(12))
        items.append((f"s-{n:05d}", Classification(intent=intent, outcome=outcome, evidence=[],
                                                    signature=f"{intent}:{outcome}:{detail}")))
    return items


@pytest.mark.parametrize("seed", range(5))
def test_reservoirs_select_what_the_whole_day_selects(seed):
    rng = random.Random(seed)
    items = _items(rng, rng.randrange(1, 400))
    config = SamplingConfig(seed=seed, default_quota=rng.randrange(1, 4))
    sample = stratified_sample(items, config)
    assert (sample.selected, sample.members) == _all_at_once(items, config)
    assert sum(row.before for row in sample.coverage) == len(items)


def test_rows_must_come_grouped_by_signature():
    rows = [("a", "refund", "errored", "x", False), ("b", "refund", "errored", "y", False), ("c", "refund", "errored", "x", False)]
    with pytest.raises(ValueError, match="grouped by signature"):
        sample_by_signature(rows, SamplingConfig())


def test_uncertain_intents_are_counted_per_cell_from_the_rows():
    rows = [("a", "refund", "errored", "x", True), ("b", "refund", "errored", "x", False),
            ("c", "refund", "resolved", "y", True), ("d", "other", "resolved", "z", False)]
    coverage = {(row.intent, row.outcome): row.uncertain for row in sample_by_signature(rows, SamplingConfig()).coverage}
    assert coverage == {("refund", "errored"): 1, ("refund", "resolved"): 1, ("other", "resolved"): 0}
