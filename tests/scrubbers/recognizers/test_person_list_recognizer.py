"""One-word names listed after a plural noun of people and a colon; not a list of things."""

import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person_works import PersonListRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("the brainchild of our 3 founders: bulgakov, ali and howard.  the idea", ["bulgakov", "ali", "howard"]),
    ("Guests: Mina, Oskar & Lena", ["Mina", "Oskar", "Lena"]),
])
def test_people_listed_after_a_plural_noun_of_people(text: str, expected: list[str]) -> None:
    assert found(PersonListRecognizer(), text) == expected


@pytest.mark.parametrize("text", [
    "our 3 founders: apples, pears and grapes.",  # no member could be a name
    "the members: red, green and blue.",  # a common English word no list holds
    "our founders: ali and howard, who met in a garage",  # the list does not end the clause
    "flavours: vanilla, mocha and hazelnut.",  # no noun of people
])
def test_no_people(text: str) -> None:
    assert found(PersonListRecognizer(), text) == []
