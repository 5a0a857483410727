"""A card's last four digits where the text says they are: after 'ending in' with a card word before it, after
'last four (digits)', after masked groups. Four digits without such words are left alone."""

import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.card import CardLastFourRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Please use my card ending in 9212, not the one ending in 4410.", ["9212", "4410"]),
    ("charge the Visa that ends with 0042 instead", ["0042"]),
    ("the last four digits of my Mastercard are 7781", ["7781"]),
    ("last 4: 3310", ["3310"]),
    ("card on file **** **** **** 1234, expires 04/27", ["1234"]),
    ("Paid with XXXX-XXXX-XXXX-5521 yesterday", ["5521"]),
])
def test_last_four_digits_of_a_card(text: str, expected: list[str]) -> None:
    assert found(CardLastFourRecognizer(), text) == expected


@pytest.mark.parametrize("text", [
    "the meeting ending in 2024 was long",  # no card word before 'ending'
    "order #W2611340 total 1999 items, the last one shipped",
    "my card ending in 92.12 dollars",  # an amount, not four digits
    "card ending in 12345",  # five digits
    "the last four orders were 1234 and 5678",
])
def test_four_digits_alone_are_no_card(text: str) -> None:
    assert found(CardLastFourRecognizer(), text) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Charge my Visa. It's the one ending 4417.", ["4417"]),  # the card word in the sentence before
    ("the one ending in 4417 on my visa", ["4417"]),  # the card word after
    ("Ending 4417 is my visa", ["4417"]),
    ("last4 4417", ["4417"]),
    ("Last-4 - 4417", ["4417"]),
    ("paid with **4417 yesterday", ["4417"]),
])
def test_last_four_digits_with_the_card_word_further_away(text: str, expected: list[str]) -> None:
    assert found(CardLastFourRecognizer(), text) == expected


@pytest.mark.parametrize("text", [
    "My card works.\nThe meeting ending in 2024 was long",  # the card word on another line
    "the season ending 2024 and my visa",  # a card word after the digits, but not of them
    "fax 4417, ext 12",
])
def test_four_digits_near_no_card_are_no_card(text: str) -> None:
    assert found(CardLastFourRecognizer(), text) == []
