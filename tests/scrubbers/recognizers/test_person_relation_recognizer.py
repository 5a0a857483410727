"""Third parties a customer names in free text: by their relation, or by what is theirs."""

import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import PersonRelationRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("my neighbour Anna Wirth took the parcel", ["Anna Wirth"]),
    ("I ordered it with my partner, joost, last week", ["joost"]),
    ("As promised, here's Gregorina's address", ["Gregorina"]),
    ("my neighbour who lives next door, the order's address, my friend said so", []),
])
def test_person_relation_recognizer(text: str, expected: list[str]) -> None:
    assert found(PersonRelationRecognizer(), text) == expected
