"""Shapes of names and addresses written by others (the public gold corpus's kinds, in new words): each case
fails without the rule named beside it."""

import pytest

from scrubbers.engine import Detector

CASES = [
    # PersonRareWordRecognizer: a capitalised word English does not use, inside a sentence or opening one
    ("Unlike the Wyrzykowska book, it is long.", [("Wyrzykowska", "PERSON")]),  # spaCy's model misses these three
    ("Is anything better than early Szôllôs?", [("Szôllôs", "PERSON")]),
    ("Roeterdink and Lopez were engineers.", [("Roeterdink", "PERSON"), ("Lopez", "PERSON")]),
    ("I need the Packable Down Jacket before Friday", []),  # a title-case product phrase
    # PersonAddressedRecognizer: cues that say a name follows, whatever its case
    ("my name is ottoline and my order is late", [("ottoline", "PERSON")]),
    ("samantha is a very patient person.", [("samantha", "PERSON")]),
    ('the agent said to ottilie: "wait here"', [("ottilie", "PERSON")]),  # the person spoken to
    ("She waved to everyone.", []),
    ("Brixby: \\\"Who are you?\\\"", [("Brixby", "PERSON")]),  # a speaker, quotes escaped as in a log line
    ("I'm disappointed, my name is on the order", []),
    # an address is one unit: overlapping street readings joined; the town after a unit; a short code after a town
    ("Mrs. Ana Weber Apt. 434 40 Rue de la Sarthe 421\nHousse WLG 95697",
     [("Mrs. Ana Weber", "PERSON"), ("Apt. 434 40 Rue de la Sarthe 421\nHousse WLG 95697", "STREET_ADDRESS")]),
    ("The letter arrived at 11 Rookopli 96 Apt. 478 Uralaane Valgamaa last night.",
     [("11 Rookopli 96 Apt. 478 Uralaane Valgamaa", "STREET_ADDRESS")]),
    # street types of more languages: after the name ('ulica', 'útja', 'iela'), before it ('Avenue des …')
    ("she lives at 12 Trubarjeva ulica 7 now", [("12 Trubarjeva ulica 7", "STREET_ADDRESS")]),
    ("my address: 5 18 Avenue des Acacias", [("5 18 Avenue des Acacias", "STREET_ADDRESS")]),
    ("new address: 11 Brucknerweg 141\nHaldenstein nan 76216", [("11 Brucknerweg 141\nHaldenstein nan 76216", "STREET_ADDRESS")]),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_found_as_written_by_others(detector: Detector, text: str, expected: list) -> None:
    (findings,) = detector.analyze_batch([text])
    assert [(text[f.start : f.end], f.entity_type) for f in findings] == expected
