import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import PersonAddressedRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Raimond, can I please speak to your manager?", ["Raimond"]),
    ("sometimes people call me philipp", ["philipp"]),
    ("I'm lindsay's daughter", ["lindsay"]),
    ('Note: "fragile"\nThanks, can you check? I am fine. Customer: "hi"', []),
])
def test_person_addressed_recognizer(text: str, expected: list[str]) -> None:
    assert found(PersonAddressedRecognizer(), text) == expected
