import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import PersonRareWordRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Unlike the Wyrzykowska book, it is long.", ["Wyrzykowska"]),  # a word English does not use, mid-sentence
    ("Is anything better than early Szôllôs?", ["Szôllôs"]),
    ("I need the Packable Down Jacket before Friday", []),  # a title-case product phrase
    ("Kudos to the team.", []),  # a rare English word opening a sentence
    ("Jane Smith\nIntelius\n1250 Main Street", []),  # a heading: a company's line in an address block
    (">Kimberly Brandt\n>Recipal\n>Robert Zemanová", []),
    ("Intelius\nPeople search and background checks", []),  # a brand over its text
    ("Thanks,\nAvtorhan", ["Avtorhan"]),  # a signature: the last line
    ("Avtorhan Smith\nAvtorhan, please call", ["Avtorhan", "Avtorhan"]),  # not alone on its line
])
def test_person_rare_word_recognizer(text: str, expected: list[str]) -> None:
    assert found(PersonRareWordRecognizer(), text) == expected


def test_an_overridden_score_below_the_threshold_finds_nothing() -> None:
    assert found(PersonRareWordRecognizer(score=0.4), "Unlike the Wyrzykowska book, it is long.") == []
