"""Layout-keeping helpers: swap digits/letters while keeping punctuation, Luhn, IBAN check digits."""

from __future__ import annotations

import random
import re
import string

_DIGITS = re.compile(r"\d+")


def digits_only(value: str) -> str:
    """The decimal digits of `value` (what `int` reads; not superscripts such as '²')."""
    return "".join(_DIGITS.findall(value))


def luhn_valid(number: str) -> bool:
    digits = [int(c) for c in digits_only(number)]
    total = sum(digits[-1::-2]) + sum(sum(divmod(2 * d, 10)) for d in digits[-2::-2])
    return len(digits) > 1 and total % 10 == 0


def luhn_check_digit(payload: str) -> str:
    for candidate in string.digits:
        if luhn_valid(payload + candidate):
            return candidate
    raise AssertionError("unreachable: one of ten check digits always fits")


def pour_digits(layout: str, digits: str) -> str:
    """Put `digits` into the digit positions of `layout`, keeping every other character."""
    feed = iter(digits)
    return "".join(next(feed) if c.isdigit() else c for c in layout)


def iban_with_check_digits(iban_layout: str) -> str:
    """Recompute positions 3-4 (the mod-97 check digits) of an IBAN, keeping its spacing."""
    compact = "".join(iban_layout.split()).upper()
    rearranged = compact[4:] + compact[:2] + "00"
    number = int("".join(str(int(c, 36)) for c in rearranged))
    check = f"{98 - number % 97:02d}"
    fixed = compact[:2] + check + compact[4:]
    feed = iter(fixed)
    return "".join(next(feed) if not c.isspace() else c for c in iban_layout)


def iban_valid(iban: str) -> bool:
    compact = "".join(iban.split()).upper()
    if len(compact) < 15 or not compact[:2].isalpha():
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def scramble_alnum(value: str, rng: random.Random, keep: int = 0) -> str:
    """Random digit for each digit and letter for each letter (case kept) after the first `keep` characters."""
    out = []
    for index, c in enumerate(value):
        if index < keep or not c.isalnum() or not c.isascii():
            out.append(c)
        elif c.isdigit():
            out.append(rng.choice(string.digits))
        else:
            letter = rng.choice(string.ascii_uppercase)
            out.append(letter if c.isupper() else letter.lower())
    return "".join(out)


TAX_ID_GROUPS = frozenset({*range(50, 66), *range(70, 89), *range(90, 100)})
"""The middle groups the IRS gives numbers with area 900-999 (which the SSA never issues as SSNs): ITINs (50-65,
70-88, 90-92, 94-99) and ATINs (93). A 9xx number with one of them is a person's taxpayer id, as personal as an
SSN; with any other (01-49, 66-69, 89) it is no one's number."""


def is_tax_id(digits: str) -> bool:
    """Whether nine digits are a number the IRS issues in the 9xx area (an ITIN or an ATIN)."""
    return len(digits) == 9 and digits[0] == "9" and int(digits[3:5]) in TAX_ID_GROUPS
