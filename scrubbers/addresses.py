"""A postal address as one unit: its parts (street line, unit, town, state, postcode, country) found in a
written address, and stand-ins for each that read together as one coherent US address.

Each part is replaced through its own keyed entry of the consistency map, so the same real street,
town, state or zip gets the same stand-in in a JSON field (`address1`, `city`, `zip`) and inside a
sentence ('763 Broadway, Suite 135, Philadelphia, PA 19122, USA'). A stand-in zip lies in the range
of the stand-in state; towns and street names carry no person's name (Faker's own town and street
formats are built from first and last names: 'Lake Jennifer', 'James Expressway').
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass

import zipcodes

from faker.providers.address.en_US import Provider as UsAddress

from scrubbers.recognizers.person import NAME_LISTS
from scrubbers.shapes import scramble_alnum

_WORDS = re.compile(r"[A-Za-z]+")


def _no_name_in(place: str) -> bool:
    return not any(word.lower() in NAME_LISTS for word in _WORDS.findall(place))


_STATE_TOWNS: dict[str, tuple[str, ...]] = {
    "AL": ("Tuscaloosa", "Huntsville", "Dothan"), "AK": ("Anchorage", "Fairbanks", "Juneau"),
    "AZ": ("Tucson", "Tempe", "Flagstaff"), "AR": ("Fayetteville", "Conway", "Bentonville"),
    "CA": ("Sacramento", "Pasadena", "Oakland", "Fresno"), "CO": ("Boulder", "Pueblo", "Greeley"),
    "CT": ("Stamford", "Waterbury", "Norwalk"), "DE": ("Dover", "Newark", "Wilmington"),
    "FL": ("Tallahassee", "Gainesville", "Pensacola", "Sarasota"), "GA": ("Macon", "Valdosta", "Albany"),
    "HI": ("Honolulu", "Hilo", "Kailua"), "ID": ("Boise", "Pocatello", "Nampa"),
    "IL": ("Naperville", "Peoria", "Rockford", "Evanston"), "IN": ("Bloomington", "Muncie", "Elkhart"),
    "IA": ("Ankeny", "Dubuque", "Ames"), "KS": ("Topeka", "Wichita", "Olathe"),
    "KY": ("Lexington", "Louisville", "Paducah"), "LA": ("Shreveport", "Lafayette", "Baton Rouge"),
    "ME": ("Portland", "Bangor", "Biddeford"), "MD": ("Baltimore", "Annapolis", "Rockville"),
    "MA": ("Worcester", "Springfield", "Cambridge", "Malden"), "MI": ("Lansing", "Kalamazoo", "Ypsilanti"),
    "MN": ("Duluth", "Minneapolis", "Mankato"), "MS": ("Biloxi", "Tupelo", "Hattiesburg"),
    "MO": ("Springfield", "Columbia", "Independence"), "MT": ("Billings", "Missoula", "Bozeman"),
    "NE": ("Omaha", "Bellevue", "Grand Island"), "NV": ("Reno", "Las Vegas", "Elko"),
    "NH": ("Concord", "Nashua", "Manchester"), "NJ": ("Newark", "Trenton", "Hoboken"),
    "NM": ("Albuquerque", "Roswell", "Taos"), "NY": ("Albany", "Buffalo", "Syracuse", "Yonkers"),
    "NC": ("Asheville", "Greensboro", "Wilmington"), "ND": ("Fargo", "Bismarck", "Minot"),
    "OH": ("Akron", "Dayton", "Toledo"), "OK": ("Tulsa", "Stillwater", "Muskogee"),
    "OR": ("Salem", "Medford", "Bend"), "PA": ("Scranton", "Allentown", "Erie"),
    "RI": ("Providence", "Cranston", "Newport"), "SC": ("Columbia", "Greenville", "Spartanburg"),
    "SD": ("Sioux Falls", "Rapid City", "Aberdeen"), "TN": ("Knoxville", "Chattanooga", "Memphis"),
    "TX": ("Amarillo", "Lubbock", "Waco", "Laredo"), "UT": ("Provo", "Ogden", "Moab"),
    "VT": ("Burlington", "Montpelier", "Rutland"), "VA": ("Roanoke", "Norfolk", "Richmond"),
    "WA": ("Spokane", "Tacoma", "Yakima"), "WV": ("Morgantown", "Wheeling", "Huntington"),
    "WI": ("Milwaukee", "Oshkosh", "Kenosha"), "WY": ("Cheyenne", "Laramie", "Sheridan"),
}
STATE_TOWNS: dict[str, tuple[str, ...]] = {
    state: kept for state, towns in _STATE_TOWNS.items() if (kept := tuple(t for t in towns if _no_name_in(t)))
}
"""Real towns of each state (the 50 states; DC's one town is a surname), none with a word the name lists
know: a stand-in town lies in its stand-in state."""
TOWNS: tuple[str, ...] = tuple(sorted({town for towns in STATE_TOWNS.values() for town in towns}))
STREET_NAMES: tuple[str, ...] = tuple(
    name
    for name in (
        "Oak", "Maple", "Cedar", "Pine", "Elm", "Walnut", "Chestnut", "Spruce", "Willow", "Hickory", "Sycamore", "Birch",
        "Poplar", "Magnolia", "Dogwood", "Cottonwood", "Juniper", "Locust", "Aspen", "Lake", "Park", "Ridge", "Meadow",
        "River", "Spring", "Forest", "Sunset", "Highland", "Valley", "Church", "Mill", "Main", "Center", "Market",
        "Railroad", "Bridge", "Harbor", "Orchard", "Prospect", "Pleasant", "Summit", "Broad", "Water", "Union",
        "Liberty", "Cherry", "Meadowbrook", "Ridgeview", "Lakeview", "Hillcrest", "Fairview", "Riverside", "Woodland",
        "Sunnyside", "Brookside", "Orchard Hill", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth",
        "Ninth", "Tenth", "Twelfth",
    )
    if _no_name_in(name)
)
"""Common US street names that are no one's name."""
STREET_SUFFIXES = ("Street", "Avenue", "Road", "Drive", "Lane", "Court", "Place", "Way", "Boulevard", "Terrace")
US_COUNTRY_FORMS = frozenset({"usa", "us", "u.s.", "u.s.a.", "u.s", "u.s.a", "united states", "united states of america", "america"})
STATE_NAMES = dict(zip([a for a in UsAddress.states_abbr if a != "DC"], UsAddress.states, strict=True)) | {
    "DC": "District of Columbia"
}
"""Abbreviation -> name of the 50 states (Faker's en_US lists, whose abbreviations hold DC and names do not) and DC."""
WORD_STATE_CODES = frozenset({"AL", "CO", "DE", "GA", "HI", "ID", "IN", "LA", "MA", "MD", "ME", "MO", "NE", "OH", "OK", "OR", "PA", "SC", "WA"})
"""State codes that are also words or common abbreviations in upper case ('OK', 'IN', 'ID', 'PA', 'CO'): a
sentence's code is taken for a state only after the address's town."""
_STATE_BY_NAME = {name.lower(): abbr for abbr, name in STATE_NAMES.items()}
_COUNTRIES = sorted({*UsAddress.countries, "USA", "U.S.A.", "U.S.", "US", "United States", "UK"}, key=lambda c: (-len(c), c))

TOWN_SHORT_FORMS: dict[str, str] = {
    "LA": "Los Angeles", "L.A.": "Los Angeles", "NYC": "New York", "N.Y.C.": "New York", "SF": "San Francisco",
    "San Fran": "San Francisco", "Philly": "Philadelphia", "Vegas": "Las Vegas", "NOLA": "New Orleans",
    "Chi-town": "Chicago", "SLC": "Salt Lake City", "OKC": "Oklahoma City", "KC": "Kansas City",
}
"""What people call a town in a sentence ('your LA order to your NYC address'): where the address's town is known,
its short form is searched for too and gets the town's own stand-in (a name, written in full). No short form is
another town's name ('Frisco' is a town in Texas)."""
_SHORT_FORMS_OF: dict[str, tuple[str, ...]] = {
    town.lower(): tuple(short for short, full in TOWN_SHORT_FORMS.items() if full == town) for town in set(TOWN_SHORT_FORMS.values())
}


def short_forms(town: str) -> tuple[str, ...]:
    """The short forms of a town's name ('New York' -> 'NYC', 'N.Y.C.')."""
    return _SHORT_FORMS_OF.get(town.strip().lower(), ())


_UNIT = re.compile(r"(?i)\b(apt\.?|apartment|suite|ste\.?|unit|flat|room|rm\.?|fl\.?|floor|\#)([^\S\n]*\#?[^\S\n]*)([A-Za-z]?\d{1,5}[A-Za-z]?)\b")
_UNIT_ONLY = re.compile(_UNIT.pattern + r"\.?$")
_ZIP = re.compile(r"\d{5}(?:-\d{4})?")
_POSTCODE = re.compile(r"\b(?:\d{3}[^\S\n]?\d{2}|\d{4,6}(?:-\d{3,4})?|[A-Z]{1,2}\d[A-Z\d]?[^\S\n]*\d[A-Z]{2})\b")
_STATE_ZIP = re.compile(r"\b([A-Z]{2}|" + "|".join(sorted(UsAddress.states, key=len, reverse=True)) + r")[^\S\n]+(\d{5}(?:-\d{4})?)$")
_TOWN_STATE = re.compile(r"([A-Z][A-Za-z.'-]*(?: [A-Z][A-Za-z.'-]*){0,2}),? (" + "|".join(UsAddress.states_abbr) + r")")
_TOWN_IN = re.compile(r"[^\S\n]+in[^\S\n]+")
_SEPARATORS = re.compile(r"[^\S\n]*(?:,|\n)[^\S\n]*")


@dataclass(frozen=True)
class Part:
    """One part of a written address: `kind` is STREET_LINE, ADDRESS_UNIT, CITY, STATE, POSTCODE or COUNTRY."""

    kind: str
    start: int
    end: int


def is_country(value: str) -> bool:
    return value.strip().lower() in US_COUNTRY_FORMS or value.strip() in _COUNTRIES


def parts(value: str) -> list[Part]:
    """The parts of an address as written, in order; text between them (separators) is no part.

    The first comma- or line-separated piece is the street line (a unit inside it is a part of its
    own); the last piece may be a country; 'ST 12345' or 'City ST 12345' pieces give a state and a
    zip; a piece holding a postcode and words ('00100 Helsinki') gives a postcode and a town; a lone
    unit piece is a unit; any other piece of words is a town.
    """
    pieces, position = [], 0
    for separator in _SEPARATORS.finditer(value):
        pieces.append((position, separator.start()))
        position = separator.end()
    pieces.append((position, len(value)))
    pieces = [(s, e) for s, e in pieces if value[s:e].strip()]
    found: list[Part] = []
    for index, (start, end) in enumerate(pieces):
        piece = value[start:end]
        state_zip_alone = (match := _STATE_ZIP.fullmatch(piece.strip())) and state_abbreviation(match.group(1))
        if _UNIT_ONLY.fullmatch(piece.strip()) and not state_zip_alone:  # 'FL 33101' is Florida's, not a floor
            found.append(Part("ADDRESS_UNIT", start, end))
        elif _POSTCODE.fullmatch(piece.strip()):  # a postcode alone ('my zip code is 19122')
            found.append(Part("POSTCODE", start, end))
        elif (town_state := _TOWN_STATE.fullmatch(piece)) and not any(c.isdigit() for c in piece):  # 'Collinwood DC'
            found += [Part("CITY", start + town_state.start(1), start + town_state.end(1)),
                      Part("STATE", start + town_state.start(2), start + town_state.end(2))]
        elif index == 0 and any(c.isdigit() for c in piece) or index == 0 and len(pieces) == 1:
            found += _street(value, start, end)
        elif index == len(pieces) - 1 and index > 0 and is_country(piece):
            found.append(Part("COUNTRY", start, end))
        elif state_zip := _STATE_ZIP.search(piece):
            town = piece[: state_zip.start()].strip(" ,")
            if town:
                found.append(Part("CITY", start, start + len(piece[: state_zip.start()].rstrip(" ,"))))
            found.append(Part("STATE", start + state_zip.start(1), start + state_zip.end(1)))
            found.append(Part("POSTCODE", start + state_zip.start(2), start + state_zip.end(2)))
        elif postcode := _POSTCODE.search(piece):
            # words with a postcode are its town, or its country ('Uganda 62851' closing an address is no town)
            before, after = piece[: postcode.start()].strip(), piece[postcode.end() :].strip()
            if before:
                found.append(Part("COUNTRY" if is_country(before) else "CITY", start, start + len(piece[: postcode.start()].rstrip())))
            found.append(Part("POSTCODE", start + postcode.start(), start + postcode.end()))
            if after:
                offset = start + postcode.end() + (len(piece[postcode.end() :]) - len(piece[postcode.end() :].lstrip()))
                found.append(Part("COUNTRY" if is_country(after) else "CITY", offset, offset + len(after)))
        elif any(c.isdigit() for c in piece):
            found += _street(value, start, end)
        elif piece.strip().upper() in STATE_NAMES or piece.strip().lower() in _STATE_BY_NAME:
            found.append(Part("STATE", start, end))
        else:
            found += _town_and_country(value, start, end)
    return found


def _town_and_country(value: str, start: int, end: int) -> list[Part]:
    """A town, or a town and its country written with spaces only ('Paterna del Madera Latvia')."""
    piece = value[start:end].rstrip()
    for name in _COUNTRIES:
        if piece.endswith(" " + name) and piece[: -len(name)].strip():
            town_end = start + len(piece[: -len(name)].rstrip())
            return [Part("CITY", start, town_end), Part("COUNTRY", start + len(piece) - len(name), start + len(piece))]
    return [Part("CITY", start, end)]


def _street(value: str, start: int, end: int) -> list[Part]:
    """A street line, with a unit inside it ('763 Broadway Suite 135') as a part of its own, and a town after
    'in' ('12 Ástráðsson street in Keflavíkurflugvöllur')."""
    town = _TOWN_IN.search(value, start, end)
    if town and value[town.end() : end][:1].isupper() and not any(c.isdigit() for c in value[town.end() : end]):
        return _street(value, start, town.start()) + _town_and_country(value, town.end(), end)
    unit = _UNIT.search(value, start, end)
    if unit is None or unit.start() == start:
        return [Part("STREET_LINE", start, end)] if unit is None else [Part("ADDRESS_UNIT", start, end)]
    street_end = start + len(value[start : unit.start()].rstrip(" ,"))
    result = [Part("STREET_LINE", start, street_end), Part("ADDRESS_UNIT", unit.start(), unit.end())]
    if value[unit.end() : end].strip(" ,."):  # the town after the unit on the same line ('Apt. 591 Reykjavík')
        tail_start = unit.end() + len(value[unit.end() : end]) - len(value[unit.end() : end].lstrip(" ,"))
        result += _town_and_country(value, tail_start, end)
    return result


MILITARY_ZIPS: dict[str, tuple[int, int]] = {"AA": (34000, 34099), "AE": (9000, 9999), "AP": (96200, 96699)}
"""The zip ranges of the US military's three 'states' (Americas, Europe, Pacific)."""
_MILITARY = re.compile(
    r"(?i)[^\S\n]*(?:(?P<box>(?:psc|unit|cmr)[^\S\n]+\d{1,5}[^\S\n]*,?[^\S\n]+box[^\S\n]+\d{1,5})"
    r"|(?:usns|uss|usnv|uscgc)[^\S\n]+(?P<ship>[^\W\d_][\w'’.-]*(?:[^\S\n]+[^\W\d_][\w'’.-]*){0,3}?))?"
    r"[^\S\n]*,?[^\S\n]*\n?[^\S\n]*"
    r"(?P<post>(?:apo|fpo|dpo)[^\S\n]+(?P<region>aa|ae|ap)[^\S\n]+(?P<zip>\d{5})(?:-\d{4})?)?[^\S\n]*"
)
_DIGITS = re.compile(r"\d+")


def military_parts(value: str) -> list[Part] | None:
    """The parts of a US military address ('PSC 4296, Box 4371\nAPO AA 03140', 'USNS Ujváry\nFPO AP 24796',
    'Unit 4818 Box 0262'), None for any other address: each number of its unit and box (MILITARY_NUMBER), the
    ship's name (SHIP) and the zip (MILITARY_ZIP). The rest (PSC, Box, USNS, APO, FPO, DPO and the region AA, AE or
    AP) is the format every such address has, kept: its stand-in is a military address too."""
    match = _MILITARY.fullmatch(value)
    if match is None or not (match.group("box") or match.group("post")):
        return None  # a ship's name alone is no address
    found = []
    if match.group("box"):
        found += [Part("MILITARY_NUMBER", match.start("box") + m.start(), match.start("box") + m.end()) for m in _DIGITS.finditer(match.group("box"))]
    if match.group("ship"):
        found.append(Part("SHIP", match.start("ship"), match.end("ship")))
    if match.group("zip"):
        found.append(Part("MILITARY_ZIP", match.start("zip"), match.end("zip")))
    return found


def military_region(value: str) -> str | None:
    """The region of a US military address's zip ('APO AE 09012' -> 'AE'), None if it names none."""
    match = _MILITARY.fullmatch(value)
    return match.group("region").upper() if match and match.group("region") else None


def military_number(rng: random.Random, value: str) -> str:
    """Another number of as many digits (no leading zero unless the original had one)."""
    for _ in range(8):
        new = "".join(rng.choice("0123456789") for _ in value)
        if value[0] != "0" and new[0] == "0":
            new = str(rng.randint(1, 9)) + new[1:]
        if new != value:
            break
    return new


def military_zip(rng: random.Random, value: str, region: str) -> str:
    """A zip of the military region ('AE' -> 09000-09999), not the original."""
    low, high = MILITARY_ZIPS[region.upper()]
    for _ in range(8):
        new = f"{rng.randint(low, high):05d}"
        if new != value:
            break
    return new


def unit_key(value: str) -> str:
    """What two mentions of one unit share: its number ('Suite 135', 'suite #135' -> '135')."""
    match = _UNIT.search(value)
    return match.group(3).upper() if match else value.strip()


# -- stand-ins (rng is seeded from the keyed digest of the original part) -------------------------


def street_name_key(value: str) -> str:
    """The street a street line is on, without its building number: 'Elm Avenue' for '571 Elm Avenue' and for
    'elm avenue,' alike (what a lone mention of the street shares with the full line)."""
    street = _BUILDING_NUMBER_AFTER.sub("", _BUILDING_NUMBER_FIRST.sub("", value.strip()))
    return " ".join(street.casefold().replace(",", " ").replace(".", " ").split())


_BUILDING_NUMBER_FIRST = re.compile(r"^\d+[A-Za-z]?\b[\s,]*")
_BUILDING_NUMBER_AFTER = re.compile(r"[\s,]+\d+[A-Za-z]?\.?$")
"""A street line's building number, written before the street ('571 Elm Avenue') or after it ('Puruntie 82');
a number inside the street's name stays ('12th Street')."""


def street_line(rng: random.Random, value: str, street_rng: random.Random | None = None) -> str:
    """A US street line: a building number with as many digits as the original's (none when it has none:
    'on Andreassen Street' -> 'on Maple Court'), a street name and a suffix, drawn from `street_rng` when given
    (seeded by the street alone, `street_name_key`: '571 Elm Avenue' and a lone 'Elm Avenue' on the same street)."""
    number = re.search(r"\d+", value)
    names = street_rng or rng
    street = f"{names.choice(STREET_NAMES)} {names.choice(STREET_SUFFIXES)}"
    if number is None:
        return street
    building = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(len(number.group()) - 1))
    return f"{building} {street}"


def address_unit(rng: random.Random, value: str) -> str:
    """The same unit word and layout, another number."""
    match = _UNIT.search(value)
    number = match.group(3) if match else value
    new = scramble_alnum(number, rng)
    if number[:1].isdigit() and number[0] != "0" and new[:1] == "0":  # 'Suite 500' -> 'Suite 963', never 'Suite 063'
        new = str(rng.randint(1, 9)) + new[1:]
    return new if match is None else value[: match.start(3)] + new + value[match.end(3) :]


def address_unit_with(value: str, number: str) -> str:
    """`value`'s unit word and layout with `number` in place of its own."""
    match = _UNIT.search(value)
    return value if match is None else value[: match.start(3)] + number + value[match.end(3) :]


def town(rng: random.Random, value: str, in_state: str | None = None) -> tuple[str, str]:
    """A real town and its state: one of `in_state`'s when given (a stand-in state), else of any state; never
    the original. Drawn from all the state's towns with a zip code (`STATE_TOWNS`' well-known ones and
    `other_towns`), hundreds in most states, so two real towns rarely share a stand-in, and never by looking at
    the other towns' stand-ins: `rng` (seeded by the town's keyed digest) alone decides."""
    pool, positions = _town_pool((in_state,) if in_state in STATE_TOWNS else tuple(sorted(STATE_TOWNS)))
    skipped = positions.get(value.strip().lower(), ())
    # the draw of rng.choice over the pool without the original's entries, without building that list
    index = rng.choice(range(len(pool) - len(skipped)))
    for position in skipped:
        if position <= index:
            index += 1
    return pool[index]


@functools.cache
def _town_pool(states: tuple[str, ...]) -> tuple[tuple[tuple[str, str], ...], dict[str, tuple[int, ...]]]:
    """Every (town, state) of `states` in order, and each town name's positions in it (by its lower case)."""
    pool = tuple((t, s) for s in states for t in towns_of(s))
    positions: dict[str, list[int]] = {}
    for position, (name, _) in enumerate(pool):
        positions.setdefault(name.lower(), []).append(position)
    return pool, {name: tuple(found) for name, found in positions.items()}


def towns_of(state: str) -> tuple[str, ...]:
    """Every stand-in town of a state: its well-known ones (`STATE_TOWNS`), then its other towns with a zip."""
    return (*STATE_TOWNS.get(state, ()), *other_towns(state))


_STANDARD = "STANDARD"
"""zipcodes' type of a zip code delivered to streets (not PO boxes, one firm's own, or military)."""


@functools.lru_cache(maxsize=64)
def _zips_by_town(state: str) -> dict[str, tuple[str, ...]]:
    """The towns of `state` in zipcodes' table of real zips -> their standard five-digit zips."""
    towns: dict[str, list[str]] = {}
    for row in zipcodes.filter_by(state=state):
        if row["zip_code_type"] == _STANDARD and row["active"]:
            towns.setdefault(row["city"], []).append(row["zip_code"])
    return {town: tuple(sorted(zips)) for town, zips in towns.items()}


@functools.lru_cache(maxsize=64)
def other_towns(state: str) -> tuple[str, ...]:
    """The towns of `state` with a standard zip code beyond `STATE_TOWNS`'s, none with a word the name lists know:
    more stand-ins, so that distinct real towns rarely share a stand-in in their state."""
    known = STATE_TOWNS.get(state, ())
    return tuple(sorted(c for c in _zips_by_town(state) if c not in known and c.replace(" ", "").isalpha() and _no_name_in(c)))


def zips_of(town: str, state: str) -> tuple[str, ...]:
    """The standard five-digit zip codes of a town (zipcodes' table): a stand-in zip of its stand-in town."""
    return _zips_by_town(state).get(town, ())


def state(rng: random.Random, value: str) -> str:
    """Another state's abbreviation ('PA' -> 'UT'; the caller writes it as the original was written), one
    whose towns are known (`STATE_TOWNS`)."""
    original = state_abbreviation(value) or value.strip().upper()
    return rng.choice([a for a in sorted(STATE_TOWNS) if a != original])


def written_as(value: str, abbreviation: str) -> str:
    """A state's abbreviation written as `value` was: 'UT', 'ut' or 'Utah'."""
    if len(value.strip()) == 2:
        return abbreviation if value.strip().isupper() else abbreviation.lower()
    return STATE_NAMES[abbreviation]


def state_abbreviation(value: str) -> str | None:
    """'PA' or 'Pennsylvania' -> 'PA'; None for what is no US state."""
    if value.strip().upper() in STATE_NAMES:
        return value.strip().upper()
    return _STATE_BY_NAME.get(value.strip().lower())


def real_state_of_zip(value: str) -> str | None:
    """The state of a five-digit zip: its own in zipcodes' table of real zips, else the state whose range holds
    it (Faker's en_US ranges, narrower than the real ones: Oklahoma's stop at 73199, its zips at 74966), if any."""
    if not _ZIP.fullmatch(value.strip()):
        return None
    if real := zipcodes.matching(value.strip()[:5]):
        return real[0]["state"]
    number = int(value.strip()[:5])
    for abbreviation, (low, high) in sorted(UsAddress.states_postcode.items()):
        if low <= number <= high:
            return abbreviation
    return None


def postcode(rng: random.Random, value: str, in_state: str | None, in_town: tuple[str, str] | None = None) -> str:
    """A five-digit zip of `in_town` (a stand-in town and its state) when given and in `in_state` (if that is
    given); else inside `in_state`'s range when given (a ZIP+4 keeps its '-dddd' layout), else the same layout
    with other digits. Two real zips of one town may share a stand-in where the stand-in town has few zips."""
    stripped = value.strip()
    if _ZIP.fullmatch(stripped) and in_town and in_state in (None, in_town[1]):
        if zips := [z for z in zips_of(*in_town) if z != stripped[:5]]:
            tail = stripped[5:]
            return value.replace(stripped, rng.choice(zips) + (scramble_alnum(tail, rng) if tail else ""))
    if _ZIP.fullmatch(stripped) and in_state in UsAddress.states_postcode:
        low, high = UsAddress.states_postcode[in_state]
        for _ in range(8):
            zip5 = f"{rng.randint(low, high):05d}"
            if zip5 != stripped[:5]:
                break
        tail = stripped[5:]
        return value.replace(stripped, zip5 + (scramble_alnum(tail, rng) if tail else ""))
    for _ in range(8):
        result = scramble_alnum(value, rng)
        if result != value:
            return result
    return result


def country(rng: random.Random, value: str) -> str:
    """Stand-in addresses are US addresses: a US country stays as written, another becomes 'United States'."""
    return value if value.strip().lower() in US_COUNTRY_FORMS else "United States"
