"""spaCy's small model calls ids, pieces of sizes and product names alone people; Presidio's
SpacyRecognizer passes them on, NerPersonRecognizer drops what no name could be and keeps names.
The model's tags are given to the mock engine: the test is of the recognizer, not of the model."""

import pytest
from mock_nlp_engine import MockNlpEngine, found
from presidio_analyzer.predefined_recognizers import SpacyRecognizer

from scrubbers.recognizers.person import NerPersonRecognizer, ner_name_plausible

PRESIDIO = SpacyRecognizer(supported_language="en", supported_entities=["PERSON"])


@pytest.mark.parametrize(("text", "tagged"), [
    ("call_0000", "call_0000"),
    ("Laptop (screen size 13-inch, processor i5, ram 32GB, storage 256GB SSD)", "GB"),
    ("Desk Lamp", "Desk Lamp"),
    ("You mistakenly ordered a Wireless Earbud with an IPX7 water resistance level", "Wireless Earbud"),
])
def test_what_no_name_could_be_is_dropped(text: str, tagged: str) -> None:
    engine = MockNlpEngine(ner={tagged: "PERSON"})
    assert found(PRESIDIO, text, engine) != []
    assert found(NerPersonRecognizer(), text, engine) == []


@pytest.mark.parametrize(("text", "tagged"), [
    ("Judy Smith wrote back", "Judy Smith"),
    ("nicholas muir listed his top 20 songs for everyone", "nicholas muir"),
])
def test_names_are_kept(text: str, tagged: str) -> None:
    engine = MockNlpEngine(ner={tagged: "PERSON"})
    assert found(NerPersonRecognizer(), text, engine) == found(PRESIDIO, text, engine) == [tagged]


def test_only_person_entities_are_taken() -> None:
    assert found(NerPersonRecognizer(), "Judy Smith wrote back", MockNlpEngine(ner={"Judy Smith": "ORG"})) == []


def _plausible(text: str, span: str) -> bool:
    start = text.index(span)
    return ner_name_plausible(text, start, start + len(span))


@pytest.mark.parametrize(("text", "span"), [
    ("500ml", "500ml"),
    ("credit_card_9513926", "credit_card_9513926"),
    ("ram 32GB, storage", "GB"),
    ("It holds: Water Bottle (capacity 500ml)", "Water Bottle"),  # common words no list knows
    ("Garden Hose", "Garden Hose"),  # a JSON value alone
    ("brown", "brown"),
    ("difficulty level intermediate", "level intermediate"),
    ("## Intro\n\n### Modify payment\n\n- The user", "Modify"),  # a heading's first word
    # a name ends with a name or a word English does not use: an English word no list knows ends none
    ("we asked Modify about it", "Modify"),
    ("Garden Hose wrote to me", "Garden Hose"),
    ("the clubs where Metallica first played", "Metallica"),
    ("Golden Helix\n\nOur office", "Golden Helix"),
    # no word a name list knows, the first a common English word: a thing, though 'earbud' is rare in English
    ("You mistakenly ordered a Wireless Earbud with an IPX7 water resistance level", "Wireless Earbud"),
    ("Air Purifier", "Air Purifier"),
])
def test_ner_name_implausible(text: str, span: str) -> None:
    assert not _plausible(text, span)


@pytest.mark.parametrize(("text", "span"), [
    ("Kovalev", "Kovalev"),
    ("Dear Modify, thanks", "Modify"),  # unless a cue says it is a person's
    ("Rose Hill called", "Rose Hill"),
    ("our founders: smit, zhang", "smit"),
    ("Ryan Ziherl wrote to me", "Ryan Ziherl"),  # in a sentence, a rare word may be a name
    ("the cover is by van Gijn", "van Gijn"),  # a particle is no common word opening a thing's name
    ("Dear Wireless Earbud, thanks", "Wireless Earbud"),  # a cue says it is a person's
])
def test_ner_name_plausible(text: str, span: str) -> None:
    assert _plausible(text, span)


@pytest.mark.parametrize(("text", "tagged", "expected"), [
    # a product or a company after a preposition of things: the model's PERSON tags (the small model's, on these texts)
    ("Thanks! I'll look on Dropbox tonight.", "Dropbox", []),
    ("The backup is on Dropbox and the invoice on Gmail.", "Dropbox", []),
    ("I paid via Etsy last week.", "Etsy", []),
    # a person after a verb that takes one, a name the lists know, a name English hardly uses
    ("I can always rely on Tariq for that.", "Tariq", ["Tariq"]),
    ("Uploaded on Dropbox by Maria.", "Maria", ["Maria"]),
    ("The parcel was left on Maria yesterday.", "Maria", ["Maria"]),
    ("We spoke in Oksana yesterday.", "Oksana", ["Oksana"]),
])
def test_a_product_after_a_preposition_is_no_person(text: str, tagged: str, expected: list[str]) -> None:
    """Cold review: 'on Dropbox' was replaced as a person ('Dropbox' is rarer in English than the rare-word bar, 3.1)."""
    engine = MockNlpEngine(ner={tagged: "PERSON"})
    assert found(PRESIDIO, text, engine) == [tagged]
    assert found(NerPersonRecognizer(), text, engine) == expected
