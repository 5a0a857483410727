import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import PersonNamedRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ('marilena: "who are you?"\nangela: "a friend"', ["marilena", "angela"]),  # speakers before a quote
    ('Brodie: \\"Who are you?\\"', ["Brodie"]),  # quotes escaped as in a log line
    ("my name is oles and I need help", ["oles"]),  # one word after 'my name is', in any case
    ('Note: "fragile"\nmy name is on the order. Customer: "hi"', []),  # common words are no names
])
def test_person_named_recognizer(text: str, expected: list[str]) -> None:
    assert found(PersonNamedRecognizer(), text) == expected
