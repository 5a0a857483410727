"""The leak gate's residual pass: validated e-mails, cards, IBANs, SSNs, IPs and phones, by regex only.

No tokenization and no NER: each type is one compiled pattern plus a checksum or parser
(Luhn, IBAN mod-97, the SSN and ITIN issuing rules, `ipaddress`, `phonenumbers`), so a hit is
high-confidence on its own.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Sequence

from scrubbers.recognizers.offline import OFFLINE_TLD_EXTRACT, ValidPhoneRecognizer
from scrubbers.shapes import digits_only, iban_valid, is_tax_id, luhn_valid

_EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b|\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]){11,30}\b")
_SSN = re.compile(r"(?<![\w-])(\d{3})([- ]?)(\d{2})\2(\d{4})(?![\w-])")
_IPV4 = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.])")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])")


def _email_valid(value: str) -> bool:
    return OFFLINE_TLD_EXTRACT(value.rpartition("@")[2]).suffix != ""


def _ssn_valid(groups: tuple[str, ...]) -> bool:
    """An SSN the SSA may have issued, or a 9xx number the IRS issues (an ITIN or an ATIN: as personal). Our
    stand-ins are 9xx numbers of neither kind."""
    area, _, group, serial = groups
    if area.startswith("9"):
        return is_tax_id(area + group + serial) and serial != "0000"
    return area not in {"000", "666"} and group != "00" and serial != "0000"


def _ip_valid(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


Span = tuple[int, int, str]


def _matches(pattern: re.Pattern[str], text: str, valid: Callable[[re.Match[str]], bool], entity: str) -> list[Span]:
    return [(m.start(), m.end(), entity) for m in pattern.finditer(text) if valid(m)]


class ResidualScanner:
    """Finds the configured leak-gate types in a text; cheap pre-checks skip most texts outright."""

    TYPES = ("EMAIL_ADDRESS", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "IP_ADDRESS", "PHONE_NUMBER")

    def __init__(self, entities: Sequence[str], phone_regions: Sequence[str]) -> None:
        unknown = sorted(set(entities) - set(self.TYPES))
        if unknown:
            raise ValueError(f"the leak gate cannot check entity types {unknown}")
        self.entities = frozenset(entities)
        self._phones = ValidPhoneRecognizer(supported_regions=tuple(phone_regions))

    def find(self, text: str) -> list[Span]:
        """(start, end, entity type) of every validated hit, sorted."""
        found: list[Span] = []
        wanted = self.entities
        if "EMAIL_ADDRESS" in wanted and "@" in text:
            found += _matches(_EMAIL, text, lambda m: _email_valid(m.group()), "EMAIL_ADDRESS")
        if "IP_ADDRESS" in wanted and ("." in text or ":" in text):
            found += _matches(_IPV4, text, lambda m: _ip_valid(m.group()), "IP_ADDRESS")
            found += _matches(_IPV6, text, lambda m: m.group().count(":") >= 2 and _ip_valid(m.group()), "IP_ADDRESS")
        if not any(c.isdigit() for c in text):
            return sorted(found)
        if "CREDIT_CARD" in wanted:
            found += _matches(_CARD, text, lambda m: luhn_valid(m.group()) and len(set(digits_only(m.group()))) > 1, "CREDIT_CARD")
        if "IBAN_CODE" in wanted:
            found += _matches(_IBAN, text, lambda m: iban_valid(m.group()), "IBAN_CODE")
        if "US_SSN" in wanted:
            found += _matches(_SSN, text, lambda m: _ssn_valid(m.groups()), "US_SSN")
        if "PHONE_NUMBER" in wanted:
            found += [(r.start, r.end, "PHONE_NUMBER") for r in self._phones.analyze(text, ["PHONE_NUMBER"])]
        return sorted(found)
