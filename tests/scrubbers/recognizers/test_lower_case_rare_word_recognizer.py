"""In a text with no capital letter, a word English practically never uses is a name; in a text with
capitals, or a word English uses, or a place, a handle or an address, it is not."""

import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person_works import LowerCaseRareWordRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("why is yulan so impulsive?", ["yulan"]),
    ("quirion and robinson were precision engineers.", ["quirion"]),
    ("our 3 founders: chaussée, blair and parks.", ["chaussée"]),
    ("william had given natasja's brother his address", ["natasja"]),
])
def test_words_english_does_not_use(text: str, expected: list[str]) -> None:
    assert found(LowerCaseRareWordRecognizer(), text) == expected


@pytest.mark.parametrize("text", [
    "Why is yulan so impulsive?",  # capitals in the text: left to the capitalised-word rules
    "it is not about necrophilia or felines, really",  # English uses these words, rarely
    "i grew up in kistarcsa and moved",  # a place
    "write to quirion@example.com or @quirion_88",
    "my iban is de89370400440532013000",
    "my itin is on the form, the upi too",  # a thing's name or an acronym after a determiner
    "grpc timeout calling redis: webhook_id=42 idempotency check failed",  # machine text: tools and terms
    "kubectl rollout of v2 stuck behind nginx",  # a word of letters and digits: machine text
    "why does grpc fail so often?",  # no vowel: an abbreviation
])
def test_no_person(text: str) -> None:
    assert found(LowerCaseRareWordRecognizer(), text) == []
