import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import PersonRareWordRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Unlike the Wyrzykowska book, it is long.", ["Wyrzykowska"]),  # a word English does not use, mid-sentence
    ("Is anything better than early Szôllôs?", ["Szôllôs"]),
    ("I need the Packable Down Jacket before Friday", []),  # a title-case product phrase
    ("Kudos to the team.", []),  # a rare English word opening a sentence
])
def test_person_rare_word_recognizer(text: str, expected: list[str]) -> None:
    assert found(PersonRareWordRecognizer(), text) == expected


def test_an_overridden_score_below_the_threshold_finds_nothing() -> None:
    assert found(PersonRareWordRecognizer(score=0.4), "Unlike the Wyrzykowska book, it is long.") == []
