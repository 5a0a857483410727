from datetime import UTC, date, datetime

from taskgen.seeds import find_relative_phrases, freeze_seed, resolve_relative_dates

from retail_fixtures import CLOCK, make_state


def test_seed_is_content_addressed_and_shared(state):
    first, second = freeze_seed(state, CLOCK), freeze_seed(make_state(), CLOCK)
    assert first.seed_id == second.seed_id and first.seed_id.startswith("seed-") and len(first.seed_id) == 21
    assert first.clock == "2024-05-10T14:00:00Z"
    state["order"]["#W1000001"]["status"] = "cancelled"
    assert freeze_seed(state, CLOCK).seed_id != first.seed_id
    assert freeze_seed(make_state(), datetime(2024, 5, 11, tzinfo=UTC)).seed_id != first.seed_id
    assert freeze_seed(make_state(), CLOCK, domain="travel").seed_id != first.seed_id


def test_seed_does_not_alias_input_state(state):
    seed = freeze_seed(state, CLOCK)
    state["order"].clear()
    assert "#W1000001" in seed.state["order"]


def test_relative_dates_resolve_against_clock():
    text = "It came yesterday; I ordered five days ago, 3 days ago, last week, two weeks ago and last Friday."
    assert resolve_relative_dates(text, CLOCK) == [
        ("yesterday", date(2024, 5, 9)), ("five days ago", date(2024, 5, 5)), ("3 days ago", date(2024, 5, 7)),
        ("last week", date(2024, 5, 3)), ("two weeks ago", date(2024, 4, 26)), ("last Friday", date(2024, 5, 3)),
    ]


def test_vague_phrases_are_found_but_not_resolved():
    text = "I wrote a few days ago and recently again"
    assert find_relative_phrases(text) == ["a few days ago", "recently"]
    assert resolve_relative_dates(text, CLOCK) == []
