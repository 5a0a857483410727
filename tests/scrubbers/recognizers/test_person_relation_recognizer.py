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


@pytest.mark.parametrize(("text", "expected"), [
    ("my coworker harper ahmed picked it up", ["harper ahmed"]),  # a relation of work; a surname in lower case
    ("my mother-in-law Olga Petrova paid", ["Olga Petrova"]),
    ("my sister anna called yesterday", ["anna"]),  # 'called' is no surname
    ("my friend john brown said so", ["john"]),  # 'brown' is too common a word to take without a capital
])
def test_a_relation_of_work_or_by_marriage_and_a_lower_case_surname(text: str, expected: list[str]) -> None:
    assert found(PersonRelationRecognizer(), text) == expected
