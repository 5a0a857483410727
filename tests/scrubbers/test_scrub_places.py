"""A town and its region are no person: 'Stoholm Jylland'-like pairs were replaced as names."""

import pytest

from scrubbers.places import LOCALE_TOWNS, PLACES, with_place


def test_faker_s_towns_of_every_locale_are_known_places_unless_they_are_names() -> None:
    assert {"skjern", "ringkøbing", "hasselt"} <= LOCALE_TOWNS  # da_DK's and nl_BE's towns
    assert "florence" not in PLACES | LOCALE_TOWNS and "jackson" not in PLACES | LOCALE_TOWNS  # people too


@pytest.mark.parametrize(("text", "start", "end", "expected"), [
    ("in Skjern Jylland with friends", 10, 17, True),  # a region after a known town
    ("Ringkøbing Jylland is nice", 0, 18, True),  # a known town opening the pair
    ("My colleague Mette Frederiksen", 13, 30, False),
    ("Sofia Andersson called", 0, 15, False),  # a town that is a first name too
    ("Lei Ahmed called", 0, 9, False),  # a town that is no listed first name, then a surname
    ("in Lei Li's order", 3, 9, False),
    ("Contact Jylland today", 8, 15, False),  # no town before it: no evidence of a place
])
def test_a_name_riding_on_a_known_town_is_a_place(text: str, start: int, end: int, expected: bool) -> None:
    assert with_place(text, start, end) is expected


def test_a_town_and_its_region_stay_a_person_beside_them_does_not(scrubber) -> None:
    texts = ["We spent the summer in Skjern Jylland with friends.", "Ringkøbing Jylland is where Mette Frederiksen lives."]
    (trip, home), _ = scrubber.scrub_json(texts)
    assert trip == texts[0]
    assert home.startswith("Ringkøbing Jylland is where ") and "Mette Frederiksen" not in home, home
