import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.address import StreetAddressRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Ship to 1234 Maple Street, Apt 5B, Springfield, IL 62704 today", ["1234 Maple Street, Apt 5B, Springfield, IL 62704"]),
    ("moved to 77 Harbor Blvd. last year", ["77 Harbor Blvd."]),
    ("deliver to 12 N Oak Ave\nPortland, OR 97201", ["12 N Oak Ave\nPortland, OR 97201"]),
    ("I bought 3 items for 25 dollars", []),
    ("Order 1234 Shipped today", []),
])
def test_street_address_recognizer(text: str, expected: list[str]) -> None:
    assert found(StreetAddressRecognizer(), text) == expected
