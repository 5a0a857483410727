import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.address import AddressUnitRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Kromwater 38\n Apt. 705\n suite 790", ["Apt. 705", "suite 790"]),
    ("Unit #12B, second floor", ["Unit #12B"]),
    ("a suite of 5 tests", []),
])
def test_address_unit_recognizer(text: str, expected: list[str]) -> None:
    assert found(AddressUnitRecognizer(), text) == expected
