"""Realistic, same-shaped stand-ins derived from HMAC-SHA256(secret, type + normalized value)."""

from __future__ import annotations

import hashlib
import importlib
import hmac
import ipaddress
import random
import re
from datetime import date, datetime

import phonenumbers
from faker import Faker
from spacy.lang.en.stop_words import STOP_WORDS

from scrubbers.recognizers.person import FEMALE_FIRST_NAMES, MALE_FIRST_NAMES
from scrubbers.shapes import TAX_ID_GROUPS, digits_only, iban_with_check_digits, luhn_check_digit, pour_digits, scramble_alnum

RESERVED_EMAIL_DOMAINS = ("example.com", "example.net", "example.org")
DOC_IPV4_NETWORKS = tuple(ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"))
DOC_IPV6_NETWORK = ipaddress.ip_network("2001:db8::/32")
TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir"})
PARTICLES = frozenset("van von der den de del della da das dos di du le la ter ten bin al".split())
"""Lower-case words inside a name ('Yara van den Velden', 'María del Carmen'): kept as they are."""
DIGIT_TYPES = frozenset({"PHONE_NUMBER", "CREDIT_CARD", "US_SSN"})
DATE_FORMATS = (
    "%Y-%m-%d", "%m/%d/%Y", "%d/%m/%Y", "%d.%m.%Y", "%m-%d-%Y", "%d-%m-%Y", "%m/%d/%y",
    "%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%B %d %Y",
)
BIRTH_RANGE = (date(1940, 1, 1), date(2006, 12, 31))
MAX_ATTEMPTS = 16
"""Stand-ins tried for one value before the last is kept (a value with nothing to vary stays itself)."""


def normalize(entity_type: str, value: str) -> str:
    """The form two mentions of one value share: digits for numbers, else case-folded, spaces collapsed."""
    if entity_type == "PHONE_NUMBER":
        return national_digits(value)
    if entity_type in DIGIT_TYPES:
        return digits_only(value)
    if entity_type == "IBAN_CODE":
        return "".join(value.split()).upper()
    return " ".join(value.casefold().split())


def same_case(template: str, value: str) -> str:
    """`value` in the case of `template`: lower, upper, or capitalised like a name."""
    if template.islower():
        return value.lower()
    if template.isupper() and len(template) > 1:
        return value.upper()
    if template[:1].isupper() and value[:1].islower():
        return value[:1].upper() + value[1:]
    return value


def name_part_like(template: str, value: str) -> str:
    """A name part's stand-in written as the original part is: an initial ('K.', 'K') stays an initial (the
    stand-in's, with the original's dot), any other part takes the original's case (`same_case`)."""
    letters = template.rstrip(".")
    if len(letters) == 1 and letters.isalpha() and value:
        return value[0].upper() + template[1:]
    return same_case(template, value)


class Pseudonymizer:
    """`stand_in(type, value)`: a deterministic, realistic replacement of the same type and shape.

    Uses one private Faker reseeded from the HMAC digest, so results never depend on Faker's
    global state or call order; each result is kept by digest, so a value is made only once.
    Without the secret the mapping cannot be recomputed.
    """

    def __init__(self, secret: bytes, locale: str = "en_US") -> None:
        if not secret:
            raise ValueError("pseudonym secret must not be empty")
        self._secret = secret
        self._faker = Faker(locale)
        self._made: dict[tuple[str, int], str] = {}

    def digest(self, entity_type: str, value: str) -> str:
        message = f"{entity_type}\x1f{normalize(entity_type, value)}".encode("utf-8")
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def seeded(self, digest: str) -> tuple[Faker, random.Random]:
        seed = int(digest[:16], 16)
        self._faker.seed_instance(seed)
        return self._faker, random.Random(seed)

    def stand_in(self, entity_type: str, value: str, attempt: int = 0) -> str:
        """Keyed by the digest plus the exact value: layout-keeping types differ per format of one value.

        `attempt` > 0 gives another, equally deterministic stand-in (for a caller that must avoid one).
        """
        key = (self.digest(entity_type, value) + value, attempt)
        if key not in self._made:
            self._made[key] = self._make(entity_type, value, attempt)
        return self._made[key]

    def _make(self, entity_type: str, value: str, attempt: int) -> str:
        maker = _MAKERS.get(entity_type, _make_generic)
        for salt in range(attempt, attempt + MAX_ATTEMPTS):
            fake, rng = self.seeded(self.digest(entity_type, value + (f"\x00retry{salt}" if salt else "")))
            result = maker(fake, rng, value)
            if normalize(entity_type, result) != normalize(entity_type, value):
                break
        return result


STAND_IN_LOCALES = ("en_US", "en_GB", "en_IE", "en_NZ", "en_IN", "de_DE", "es_ES", "fr_FR", "it_IT", "nl_NL", "sv_SE")
"""Faker's person lists that stand-in names are drawn from (Faker's en_US alone, drawn by frequency, gave a
few names to many people across transcripts)."""
_PLAIN_NAME = re.compile(r"[A-Z][a-z]+")


def _name_pool(attribute: str) -> tuple[str, ...]:
    """Every name of `attribute` in the stand-in locales written in plain letters (user ids and e-mails are
    built from stand-ins), not an English stop word ('Will', 'May'); sorted, each drawn with equal chance."""
    names = {
        name
        for locale in STAND_IN_LOCALES
        for name in getattr(importlib.import_module(f"faker.providers.person.{locale}").Provider, attribute, ())
        if _PLAIN_NAME.fullmatch(name) and name.lower() not in STOP_WORDS
    }
    return tuple(sorted(names))


FEMALE_POOL = _name_pool("first_names_female")
MALE_POOL = _name_pool("first_names_male")
LAST_NAME_POOL = _name_pool("last_names")


def first_name(rng: random.Random, gender_of: str | None = None) -> str:
    return rng.choice({"F": FEMALE_POOL, "M": MALE_POOL}.get(gender_of, FEMALE_POOL + MALE_POOL))


def last_name(rng: random.Random) -> str:
    return rng.choice(LAST_NAME_POOL)


def gender(first_name: str) -> str | None:
    """'F' or 'M' when the name lists give `first_name` one gender only, else None."""
    lower = first_name.lower()
    return "F" if lower in FEMALE_FIRST_NAMES else "M" if lower in MALE_FIRST_NAMES else None


def first_name_like(rng: random.Random, original: str) -> str:
    """A first name of the original's gender, where the lists tell it."""
    return first_name(rng, gender(original))


_TITLE_GENDER = {"mr": "M", "sir": "M", "mrs": "F", "ms": "F", "miss": "F"}
_TITLE_FOR = {"M": "Mr", "F": "Ms"}


def title_for(title: str, name: str) -> str:
    """`title` unless it says the other gender than the first name `name` ('Mr.' before 'Amanda' -> 'Ms.')."""
    bare = title.rstrip(".")
    said, given = _TITLE_GENDER.get(bare.lower()), gender(name)
    if said is None or given is None or said == given:
        return title
    return same_case(bare, _TITLE_FOR[given]) + title[len(bare) :]


def _make_person(fake: Faker, rng: random.Random, value: str) -> str:
    tokens = value.split()
    title = [tokens.pop(0)] if len(tokens) > 1 and tokens[0].rstrip(".").lower() in TITLES else []
    if len(tokens) <= 1:
        names = [last_name(rng) if title else first_name_like(rng, value)]
    else:
        given = first_name_like(rng, tokens[0])
        middle = [t if t in PARTICLES else first_name(rng) for t in tokens[1:-1]]
        names = [given, *middle, last_name(rng)]
        title = [title_for(t, names[0]) for t in title]
    return " ".join(title + [name_part_like(t, n) for t, n in zip(tokens or [value], names)])


def _make_email(fake: Faker, rng: random.Random, value: str) -> str:
    """A new local part at a reserved domain: the original's own when it is one already ('example.com' stays)."""
    local = fake.user_name()
    domain = value.strip().rpartition("@")[2]
    return f"{same_case(value, local)}@{domain if domain.lower() in RESERVED_EMAIL_DOMAINS else rng.choice(RESERVED_EMAIL_DOMAINS)}"


def national_digits(phone: str) -> str:
    """The national significant number: without '+CC' / '00CC' and a trunk '0', so formats agree."""
    digits = digits_only(phone)
    stripped = phone.lstrip()
    if stripped.startswith("+"):
        digits = digits[_country_code_length(digits) :]
    elif digits.startswith("00"):
        digits = digits[2 + _country_code_length(digits[2:]) :]
    return digits[1:] if digits.startswith("0") else digits


_EXTENSION = re.compile(r"(?i)(?:[^\S\n]*(?:x|ext\.?|extension)[^\S\n]*)\d{1,6}$")
"""An extension after a number ('619-648-6618x20779', '555 0100 ext. 12'): no part of the national number."""
MAX_AREA_CODE_TRIES = 32


def _make_phone(fake: Faker, rng: random.Random, value: str) -> str:
    """Same layout and country/trunk prefix; new national digits (the same for every format of one number).

    A North American number (ten national digits, no other country code) gets a valid area code and
    exchange (libphonenumber's metadata): '665-...' is no US area code."""
    extension = _EXTENSION.search(value)
    if extension and len(digits_only(value[: extension.start()])) >= 7:
        tail = value[extension.start() :]
        return _make_phone(fake, rng, value[: extension.start()]) + pour_digits(tail, scramble_alnum(digits_only(tail), rng))
    digits = digits_only(value)
    national = national_digits(value)
    kept = digits[: len(digits) - len(national)]
    north_american = len(national) == 10 and kept in ("", "1") and not value.lstrip().startswith(("00", "0"))
    for _ in range(MAX_AREA_CODE_TRIES if north_american else 1):
        new = str(rng.randint(2, 9)) + "".join(rng.choice("0123456789") for _ in national[1:])
        if not north_american or phonenumbers.is_valid_number(phonenumbers.parse("+1" + new)):
            break
    return pour_digits(value, kept + new)


def _country_code_length(digits: str) -> int:
    for length in (1, 2, 3):
        if phonenumbers.region_code_for_country_code(int(digits[:length] or 0)) != "ZZ":
            return length
    return 1


PARTIAL_CARD_DIGITS = 12
"""Fewer digits than any card number has: a part of one (a card's 'last_four'), replaced by random digits."""


def _make_card(fake: Faker, rng: random.Random, value: str) -> str:
    digits = digits_only(value)
    if len(digits) < PARTIAL_CARD_DIGITS:  # no issuer prefix nor check digit to keep: '9212' -> '3705'
        return pour_digits(value, "".join(rng.choice("0123456789") for _ in digits))
    prefix = {"3": "37", "4": "4", "5": "5" + str(rng.randint(1, 5)), "6": "6011"}.get(digits[:1], "4")
    body = prefix + "".join(rng.choice("0123456789") for _ in range(len(digits) - len(prefix) - 1))
    return pour_digits(value, body + luhn_check_digit(body))


def _make_ip(fake: Faker, rng: random.Random, value: str) -> str:
    if ":" in value:
        return str(DOC_IPV6_NETWORK[rng.randrange(1, 2**96)])
    network = rng.choice(DOC_IPV4_NETWORKS)
    return str(network[rng.randint(1, 254)])


def _make_iban(fake: Faker, rng: random.Random, value: str) -> str:
    return iban_with_check_digits(scramble_alnum(value.upper(), rng, keep=2))


_NO_ONE_S_GROUPS = tuple(f"{g:02d}" for g in range(1, 100) if g not in TAX_ID_GROUPS)


def _make_ssn(fake: Faker, rng: random.Random, value: str) -> str:
    """Area numbers 900-999 are never issued as SSNs, and a middle group the IRS gives no ITIN or ATIN (01-49,
    66-69, 89): realistic shape, no real person's number of either kind ('912-70-1234' would be an ITIN)."""
    count = len(digits_only(value))
    digits = "9" + "".join(rng.choice("0123456789") for _ in range(count - 1))
    if count == 9:
        digits = digits[:3] + rng.choice(_NO_ONE_S_GROUPS) + digits[5:]
    return pour_digits(value, digits)


def _date_format(value: str) -> str | None:
    for fmt in DATE_FORMATS:
        try:
            datetime.strptime(value, fmt)
        except ValueError:
            continue
        return fmt
    return None


def _make_birth_date(fake: Faker, rng: random.Random, value: str) -> str:
    fmt = _date_format(value)
    return fake.date_between_dates(*BIRTH_RANGE).strftime(fmt) if fmt else scramble_alnum(value, rng)


_POSTCODE = re.compile(r"\b\d{4,6}(?:-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b")


_UNIT_ONLY = re.compile(r"(?i)(apt\.?|apartment|suite|ste\.?|unit|flat|room|rm\.?)([^\S\n]*\#?[^\S\n]*)(\d{1,5}[A-Za-z]?)")
_UNIT_IN = re.compile(r"(?i)\b(apt\.?|apartment|suite|ste\.?|unit|flat|room|rm\.?)([^\S\n]*\#?[^\S\n]*)(\d{1,5}[A-Za-z]?)\b")


def _make_address(fake: Faker, rng: random.Random, value: str) -> str:
    """A US postal address in the original's layout: one line or several, unit and postcode if it had them.

    The first line (or comma part) is the street; a unit keeps its own word ('Apt. 595' stays 'Apt.'
    with another number); every further part becomes the city, and a postcode anywhere after the
    street becomes 'ST 12345' after the city. A lone postcode or unit keeps its shape.
    """
    stripped = value.strip()
    if not re.search(r"[^\W\d_]{2}", stripped) or _POSTCODE.fullmatch(stripped):
        return scramble_alnum(value, rng)
    if unit := _UNIT_ONLY.fullmatch(stripped):
        return f"{unit.group(1)}{unit.group(2)}{scramble_alnum(unit.group(3), rng)}"
    separator = "\n" if "\n" in stripped else ", "
    parts = [p for p in re.split(r"\s*\n\s*" if separator == "\n" else r"\s*,\s*", stripped) if p]
    street = f"{fake.building_number()} {fake.street_name()}"
    if unit := _UNIT_IN.search(value):
        unit_apart = any(_UNIT_ONLY.fullmatch(p) for p in parts[1:])
        street = f"{street}{separator if unit_apart else ' '}{unit.group(1)}{unit.group(2)}{scramble_alnum(unit.group(3), rng)}"
        parts = [p for p in parts if not _UNIT_ONLY.fullmatch(p)]
    if len(parts) == 1:
        return street
    locality = fake.city()
    if _POSTCODE.search(separator.join(parts[1:])):
        locality = f"{locality}, {fake.state_abbr(include_territories=False, include_freely_associated_states=False)} {fake.zipcode()}"
    return f"{street}{separator}{locality}"


def _make_location(fake: Faker, rng: random.Random, value: str) -> str:
    return fake.city()


def _make_country(fake: Faker, rng: random.Random, value: str) -> str:
    return fake.country()


def _make_first_name(fake: Faker, rng: random.Random, value: str) -> str:
    return same_case(value, first_name_like(rng, value))


def _make_last_name(fake: Faker, rng: random.Random, value: str) -> str:
    return same_case(value, last_name(rng))


def _make_organization(fake: Faker, rng: random.Random, value: str) -> str:
    return fake.company()


def _make_username(fake: Faker, rng: random.Random, value: str) -> str:
    prefix = "@" if value.startswith("@") else ""
    return prefix + fake.user_name()


def _make_generic(fake: Faker, rng: random.Random, value: str) -> str:
    """For a type without its own maker, by shape: an e-mail, a date, or word by word
    (words become dictionary words of the same case, codes and numbers keep their layout)."""
    if re.fullmatch(r"[^@\s]+@[^@\s]+\.\w+", value.strip()):
        return _make_email(fake, rng, value)
    if _date_format(value):
        return _make_birth_date(fake, rng, value)
    return re.sub(r"\w+", lambda m: _stand_in_token(fake, rng, m.group()), value)


def _stand_in_token(fake: Faker, rng: random.Random, token: str) -> str:
    if token.isalpha():
        return same_case(token, fake.word().capitalize() if token[:1].isupper() else fake.word())
    return scramble_alnum(token, rng)


_MAKERS = {
    "PERSON": _make_person,
    "EMAIL_ADDRESS": _make_email,
    "PHONE_NUMBER": _make_phone,
    "CREDIT_CARD": _make_card,
    "IP_ADDRESS": _make_ip,
    "IBAN_CODE": _make_iban,
    "US_SSN": _make_ssn,
    "DATE_OF_BIRTH": _make_birth_date,
    "STREET_ADDRESS": _make_address,
    "ADDRESS": _make_address,
    "LOCATION": _make_location,
    "CITY": _make_location,
    "COUNTRY": _make_country,
    "FIRST_NAME": _make_first_name,
    "LAST_NAME": _make_last_name,
    "ORGANIZATION": _make_organization,
    "USERNAME": _make_username,
}
