"""A US postal address in a customer's own words, as the drafter and the reference agent both read it.

What the customer writes is taken as written, from the house number to the zip code: a street line
('445 Maple Drive', '1234 Elm St', '101 Highway'), an optional unit ('Suite 394', 'Apt. 4', '#12'), a
town, the state as a code or a name ('TX', 'Texas'; it may be left out when commas set the town apart:
'101 Highway, New York, 10001'), and the zip (ZIP+4 too), with or without commas between them. These
are the layouts of tau-bench's and tau2-bench's retail instructions ('445 Maple Drive, Suite 394, Fort
Worth, Texas, 76165'; '1234 Elm St, Springfield, IL, 62701').

An id is never a house number: a number glued to a letter or a sign ('W1234567', '#1001', 'PO-123456')
is no house number, and neither is any number the caller says is an id (`ids`: the order ids the
configured entity patterns find, written with or without their sign), so 'order 1001 to 55 Oak Lane,
...' gives the address starting at 55, and 'order 123456 Main Street, ...' gives no address when
123456 is an order id.

This is reading, not policy: the drafter (`rules.py`) and the reference agent (`reference.py`) read
an address the same way, so the address a task expects is the one a correct agent writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
    "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia", "FL": "Florida", "GA": "Georgia",
    "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky",
    "LA": "Louisiana", "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota",
    "MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire",
    "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York", "NC": "North Carolina", "ND": "North Dakota",
    "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania", "PR": "Puerto Rico", "RI": "Rhode Island",
    "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont",
    "VA": "Virginia", "WA": "Washington", "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
}
_SUFFIXES = (
    "street", "st", "avenue", "ave", "road", "rd", "drive", "dr", "lane", "ln", "boulevard", "blvd", "court", "ct",
    "place", "pl", "way", "terrace", "ter", "highway", "hwy", "parkway", "pkwy", "circle", "cir", "square", "sq",
    "trail", "trl", "route", "rte", "plaza", "alley", "row", "crescent", "close",
)
_SP = r"[^\S\n]+"
_SEP = r"(?:[^\S\n]*[,\n][^\S\n]*|[^\S\n]+)"  # a comma, a line break or spaces
_COMMA = r"[^\S\n]*[,\n][^\S\n]*"
_CAP = r"(?:[A-Z][A-Za-z'’.-]*|\d+(?:st|nd|rd|th)\b)"  # 'Maple', 'St.', "O'Fallon", '5th'
_JOIN = r"(?:(?:of|the|de|la|del|du|upon|on)" + _SP + r")?"  # 'Avenue of the Americas'
_NUMBER = r"(?<![\w#@$%&~!/.,'’-])(?P<number>\d{1,6}[A-Za-z]?)(?![\w-])"
_STREET = (
    r"(?:" + _CAP + r"(?:" + _SP + _JOIN + _JOIN + r"(?:" + _CAP + r"|\d{1,5})){0,5}"  # 'Maple Drive', 'Route 9'
    r"|[a-z][a-z'’.-]*(?:" + _SP + r"[a-z][a-z'’.-]*){0,3}" + _SP + r"(?:" + "|".join(_SUFFIXES) + r")\b\.?)"  # 'elm street'
)
_UNIT = r"(?i:(?:apt|apartment|suite|ste|unit|room|rm|floor|fl)\.?" + _SP + r"#?[^\S\n]*|#[^\S\n]*)[A-Za-z]?\d{1,5}[A-Za-z]?\b"
_CITY = _CAP + r"(?:" + _SP + _JOIN + _CAP + r"){0,3}"
_STATE = r"(?:" + "|".join(_STATES) + r"|(?i:" + "|".join(sorted(map(re.escape, _STATES.values()), key=len, reverse=True)) + r"))\b"
_ZIP = r"\d{5}(?:-\d{4})?(?![\w-])"
ADDRESS = re.compile(
    _NUMBER + _SP + _STREET + r"(?:" + _SEP + _UNIT + r")?"
    + r"(?:" + _SEP + _CITY + _SEP + _STATE + r"[^\S\n]*,?[^\S\n]*" + r"|" + _COMMA + _CITY + _COMMA + r")" + _ZIP
)
"""number, street line, optional unit, town, state (or, between commas, a town alone), zip."""

_SIGNS = "#@$%&~!"


def _id_spans(text: str, ids: Iterable[str]) -> list[tuple[int, int]]:
    """Where each id is written, with or without its leading sign ('#1001' or '1001')."""
    spans = []
    for entity_id in {str(i) for i in ids if str(i).strip(_SIGNS)}:
        bare = entity_id.lstrip(_SIGNS)
        for match in re.finditer(r"(?<![\w])[" + re.escape(_SIGNS) + r"]?" + re.escape(bare) + r"(?!\w)", text):
            spans.append((match.start(), match.end()))
    return spans


def address_in(text: str, ids: Iterable[str] = ()) -> str | None:
    """The first address written in `text`, as written (runs of spaces and line breaks made one
    space), whose house number is none of `ids`; None when there is none."""
    spans = _id_spans(text, ids)
    position = 0
    while (match := ADDRESS.search(text, position)) is not None:
        start = match.start("number")
        if not any(low <= start < high for low, high in spans):
            return " ".join(match.group(0).split())
        position = match.end("number")
    return None


_TOWN = re.compile(r",[^\S\n]*(?P<town>[^,\d]+?)[^\S\n]*,[^\S\n]*" + _STATE + r"[^\S\n]*,?[^\S\n]*" + _ZIP + r"[^\S\n]*(?:,[^\S\n]*USA)?[^\S\n]*$")


def town_of(address: str) -> str | None:
    """The town of a one-line address ('..., Cottondale, FL 32431' -> 'Cottondale'); None when it has no such ending."""
    match = _TOWN.search(address)
    return match.group("town").strip() if match else None


def address_named(text: str, known: Iterable[str]) -> str | None:
    """The one address among `known` (those the customer already has: on their account, on their other orders)
    whose town the words name ('my Tooele UT address', 'the one in Cottondale'); None when the words name no
    such town, or towns of different addresses, or when they write a street line of their own (an address short of
    its zip code is theirs, new, not one they had). The words alone decide: an agent finds it the same way."""
    if re.search(_NUMBER + _SP + _STREET, text):
        return None
    found = {address for address in known if (town := town_of(address))
             and re.search(r"(?<![\w-])" + re.escape(town) + r"(?![\w-])", text, re.IGNORECASE)}
    return found.pop() if len(found) == 1 else None


_SAME_AS_ORDER = re.compile(r"\b(?:same|identical)\b[^.?!;]{0,40}?\b(?:as|to)\b[^.?!;]{0,25}?\border\s+(?P<id>#?[A-Za-z]*[-_]?\d[\w-]*)"
                            r"|\baddress (?:of|on|from|in) (?:my |the )?(?:other )?order\s+(?P<other>#?[A-Za-z]*[-_]?\d[\w-]*)", re.IGNORECASE)


def orders_said_for_address(text: str) -> list[str]:
    """The order ids the words say an address is taken from ('the same as order #W8277957'), as written."""
    return [match.group("id") or match.group("other") for match in _SAME_AS_ORDER.finditer(text)]


def address_of_order_said(text: str, addresses: dict[str, str]) -> str | None:
    """The address the words say is another order's ('change the address to be the same as order #W8277957', 'to the
    address of order #W8277957'): that order's, from `addresses` (order id -> its shipping address, as the reader found
    them); None when the words say no such thing or the order is not among them. Reading, like address_named."""
    by_id = {str(order_id).lstrip(_SIGNS).lower(): address for order_id, address in addresses.items() if isinstance(address, str) and address}
    for match in _SAME_AS_ORDER.finditer(text):
        if (found := by_id.get((match.group("id") or match.group("other")).lstrip(_SIGNS).lower())) is not None:
            return found
    return None
