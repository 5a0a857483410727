"""Four- to six-digit numbers a phone word names: the small numbering plans (phonenumbers' example numbers)."""

import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.phone import LabelledShortPhoneRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("my phone number is 7012, call me", ["7012"]),  # Niue
    ("my phone number is 62889 x1234, call me", ["62889 x1234"]),  # Ascension Island, with an extension
    ("tel: 21 234", ["21 234"]),
    ("my phone is 123456789012", []),  # longer: the other recognizers' part
    ("call me at 1530", []),  # no phone word: a time
    ("the cell holds 20 items", []),
])
def test_labelled_short_phone_recognizer(text: str, expected: list[str]) -> None:
    assert found(LabelledShortPhoneRecognizer(), text) == expected
