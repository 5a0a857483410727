"""An author before their work and an artist after 'early' / 'late' at a clause's end; not a style, a period,
a time of the year, nor a company's product."""

import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person_works import PersonWorkRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Unlike the Fry novel, it's not long.", ["Fry"]),
    ("I read the van Gijn memoir twice", ["van Gijn"]),
    ("unlike the steffensen novel, it is short", ["steffensen"]),
    ("a Schmitz painting hangs there", ["Schmitz"]),
    ("Is there anything better than early Fukuda?", ["Fukuda"]),
    ("I prefer late Crawford.", ["Crawford"]),
])
def test_people_named_by_their_work(text: str, expected: list[str]) -> None:
    assert found(PersonWorkRecognizer(), text) == expected


@pytest.mark.parametrize("text", [
    "the Gothic novel is a genre",  # a style: a common English word no name list holds
    "the graphic novel and the Victorian novel",
    "we fly in early June.",  # a month that is a first name too
    "see you early tomorrow, ok?",
    "the Kindle book, the Netflix show",  # a company makes those
    "the first novel, the new poems",
])
def test_no_person(text: str) -> None:
    assert found(PersonWorkRecognizer(), text) == []
