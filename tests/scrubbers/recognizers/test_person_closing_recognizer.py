import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import PersonClosingRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("can you send a new one? thx, adelmo", ["adelmo"]),
    ("that is all, regards, Marta Kowalska", ["Marta Kowalska"]),
    ("Customer Service never answered, cheers mate", []),
    ("thanks, everyone", []),
])
def test_person_closing_recognizer(text: str, expected: list[str]) -> None:
    assert found(PersonClosingRecognizer(), text) == expected
