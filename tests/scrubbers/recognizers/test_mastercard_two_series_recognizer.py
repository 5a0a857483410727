import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.card import MastercardTwoSeriesRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("refund to card 2221 8255 3933 7682 please", ["2221 8255 3933 7682"]),
    ("refund to card 2221-8255-3933-7682", ["2221-8255-3933-7682"]),
    ("refund to card 2221 8255 3933 7683 please", []),  # fails the Luhn check
    ("refund to card 2121 8255 3933 7682 please", []),  # not a 2-series prefix
])
def test_mastercard_two_series_recognizer(text: str, expected: list[str]) -> None:
    assert found(MastercardTwoSeriesRecognizer(), text) == expected
