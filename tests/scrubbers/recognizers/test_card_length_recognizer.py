"""12 to 19 digits passing the Luhn check: from 15 digits alone, shorter only after a card word."""

import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.card import CardLengthRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("4057 5594 7090 0547 494 and 4634648485069506999.", ["4057 5594 7090 0547 494", "4634648485069506999"]),
    ("charge 4252-5594-4610-9248-347 now", ["4252-5594-4610-9248-347"]),
    ("my maestro card 5018 7483 3780 please", ["5018 7483 3780"]),  # 12 digits after a card word
    ("4057 5594 7090 0547 495 and 5018 7483 3780", []),  # not Luhn-valid; 12 digits alone
])
def test_card_length_recognizer(text: str, expected: list[str]) -> None:
    assert found(CardLengthRecognizer(), text) == expected
