"""Places that are no people: countries, US states, Faker's world towns, and the towns, regions and provinces
Faker's address providers of every locale list, each without a word the name lists know ('Florence' and 'Davis'
are people too).

A PERSON finding that is such a place is dropped, and so is one that opens with such a town ('Ringkøbing
Jylland': a town and its region) or that follows one directly ('Skjern Jylland', where only the region was
taken for a surname): a town or region alone in prose stays as it is; in an address it is replaced as a part
of the address.
"""

from __future__ import annotations

import importlib
import pkgutil

import faker.providers.address
import regex
from faker.providers.address.en_US import Provider as UsAddress
from faker.providers.geo import Provider as GeoProvider

from scrubbers.recognizers.person import FIRST_NAMES, NAME_LISTS, WORLD_FIRST_NAMES

_PLACE_LISTS = ("cities", "city_names", "real_city_names", "towns", "states", "regions", "region_names", "provinces", "prefectures", "metropolitan_cities")
"""The attributes of Faker's address providers that list real places (not formats, suffixes or codes)."""


def _locale_places() -> set[str]:
    places: set[str] = set()
    for module in pkgutil.iter_modules(faker.providers.address.__path__):
        provider = getattr(importlib.import_module(f"faker.providers.address.{module.name}"), "Provider", None)
        for attribute in _PLACE_LISTS:
            values = getattr(provider, attribute, ())
            if isinstance(values, (list, tuple)):
                places.update(v.lower() for v in values if isinstance(v, str) and len(v) > 2)
    return places


def _no_name(place: str) -> bool:
    return not any(word in NAME_LISTS for word in place.split())


PLACES: frozenset[str] = frozenset(
    place.lower() for place in (*UsAddress.countries, *UsAddress.states) if place.lower() not in WORLD_FIRST_NAMES | FIRST_NAMES
) | frozenset(
    place for place in {p.lower() for _, _, p, _, _ in GeoProvider.land_coords} if _no_name(place)
) | frozenset({"usa", "america", "united states", "uk", "england", "scotland", "wales", "europe", "asia", "africa"})
"""Countries and US states, except those that are first names ('Georgia', 'Jordan'), and Faker's world towns
that have no word of a name: a PERSON finding that is one of them is a place."""
LOCALE_TOWNS: frozenset[str] = frozenset(place for place in _locale_places() if _no_name(place))
"""The towns, regions and provinces of Faker's address providers of every locale that have no word of a name: a
pair they open is a place only when its other word is no name either ('Ringkøbing Jylland', not 'Lei Ahmed')."""
_TOWN_WORDS = frozenset((PLACES | LOCALE_TOWNS) - FIRST_NAMES - WORLD_FIRST_NAMES)
_TOWN_BEFORE = regex.compile(r"(?<![\p{L}'’-])(\p{Lu}[\p{L}'’-]+)[^\S\n]+\Z")


def is_place(value: str) -> bool:
    """A country, a US state or a known town, or places separated by commas ('Osaka, Japan')."""
    pieces = [piece.strip(" .;:!?()'\"").lower() for piece in value.split(",")]
    return all(piece in PLACES for piece in pieces)


def _town_word(word: str) -> bool:
    return word.lower() in _TOWN_WORDS


def with_place(text: str, start: int, end: int) -> bool:
    """Whether a name found at text[start:end] is a place or rides on one: a known place, a known town
    (no first name) then a word no name list knows ('Ringkøbing Jylland'), or such a word right after such a
    town ('Skjern Jylland'); 'Lei Ahmed' is a person ('Lei' is a town too, 'Ahmed' a name)."""
    value = text[start:end]
    if is_place(value):
        return True
    words = value.split()
    if not words or words[-1].strip(".,;:!?'\"’").lower() in NAME_LISTS:
        return False
    if len(words) == 2 and _town_word(words[0]):
        return True
    before = _TOWN_BEFORE.search(text, max(0, start - 40), start)
    return len(words) == 1 and before is not None and _town_word(before.group(1))
