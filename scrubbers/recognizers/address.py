"""Street addresses: number + street name + suffix, optional unit, optional US city/state/zip."""

from __future__ import annotations

import regex
from faker.providers.address.en_US import Provider as UsAddress
from presidio_analyzer import Pattern, PatternRecognizer

_ABBREVIATIONS = (
    "St", "Ave", "Av", "Rd", "Blvd", "Dr", "Ln", "Ct", "Pl", "Ter", "Cir", "Pkwy", "Hwy", "Sq",
    "Trl", "Xing", "Aly", "Plz", "Rdg", "Hts", "Pt", "Cres", "Mnr", "Expy", "Fwy", "Cv", "Crk",
)
_SUFFIX = "(?:" + "|".join(sorted({*UsAddress.street_suffixes, *_ABBREVIATIONS}, key=lambda s: (-len(s), s))) + r")\.?"
_STREET_WORD = r"(?:[A-Z][A-Za-z'’-]*|\d{1,3}(?:st|nd|rd|th)|[NSEW]\.?)"
_UNIT = r"(?:,?[^\S\n]+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Fl\.?|Floor|Room|Rm\.?|\#)[^\S\n]*\#?[A-Za-z0-9-]{1,6})?"
_STATE = "(?:" + "|".join(UsAddress.states_abbr) + ")"
_CITY_STATE_ZIP = (
    r"(?:(?:,[^\S\n]*|[^\S\n]*\n[^\S\n]*)[A-Z][A-Za-z.'-]+(?:[^\S\n]+[A-Z][A-Za-z.'-]+){0,2},?[^\S\n]+"
    + _STATE
    + r"[^\S\n]+\d{5}(?:-\d{4})?)?"
)


class StreetAddressRecognizer(PatternRecognizer):
    """'1234 Maple Street, Apt 5B, Springfield, IL 62704' and the like (US-style layout)."""

    PATTERNS = [
        Pattern(
            "Street address",
            r"\b\d{1,6}[A-Z]?[^\S\n]+" + _STREET_WORD + r"(?:[^\S\n]+" + _STREET_WORD + r"){0,3}[^\S\n]+"
            + _SUFFIX + r"(?![A-Za-z])" + _UNIT + _CITY_STATE_ZIP,
            0.6,
        ),
    ]
    CONTEXT = ["address", "ship", "shipping", "deliver", "street", "billing", "live", "moved"]

    def __init__(self, supported_language: str = "en") -> None:
        super().__init__(
            supported_entity="STREET_ADDRESS",
            name="StreetAddressRecognizer",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            supported_language=supported_language,
            global_regex_flags=regex.MULTILINE,
        )
