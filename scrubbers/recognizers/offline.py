"""Presidio's e-mail and phone recognizers, adjusted: no network, valid phones score high."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import phonenumbers
import tldextract
from presidio_analyzer import Pattern, RecognizerResult
from presidio_analyzer.predefined_recognizers import EmailRecognizer, PhoneRecognizer


OFFLINE_TLD_EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True)
"""tldextract with its bundled public-suffix snapshot: never fetches the list (one per process)."""


class OfflineEmailRecognizer(EmailRecognizer):
    """Presidio's EmailRecognizer validated with tldextract's bundled suffix-list snapshot.

    Presidio's own calls `tldextract.extract`, whose module-level extractor fetches the
    public suffix list over the network on first use. This one never does.
    """

    def __init__(
        self,
        patterns: list[Pattern] | None = None,
        context: list[str] | None = None,
        supported_language: str = "en",
        supported_entity: str = "EMAIL_ADDRESS",
        name: str | None = None,
    ) -> None:
        super().__init__(patterns, context, supported_language, supported_entity, name)
        self.cues = self.CUES
        self._has_domain = functools.lru_cache(maxsize=1 << 16)(lambda domain: OFFLINE_TLD_EXTRACT(domain).fqdn != "")

    CUES = re.compile("@")
    """A text without an '@' holds no e-mail address: the recognizer is not run on it."""
    LOCAL_CHAR = re.compile(r"[!#$%&'*+\-/=?^_`{|}~.\w]")
    DOMAIN = re.compile(r"[\w.\-]*")
    """What may surround an '@' in a match of Presidio's pattern: the left and right extent of a candidate."""

    def validate_result(self, pattern_text: str) -> bool:
        return self._has_domain(pattern_text.rpartition("@")[2])  # domains recur: one lookup each

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None, regex_flags: int | None = None) -> list[RecognizerResult]:
        """Presidio's pattern run only around each '@' (it backtracks over the whole text otherwise)."""
        results = []
        for start, end in self._candidates(text):
            for result in super().analyze(text[start:end], entities, nlp_artifacts, regex_flags) or []:
                result.start, result.end = result.start + start, result.end + start
                results.append(result)
        return results

    def _candidates(self, text: str) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        at = text.find("@")
        while at != -1:
            start = at
            while start > 0 and self.LOCAL_CHAR.match(text, start - 1):
                start -= 1
            end = self.DOMAIN.match(text, at + 1).end()
            if spans and start < spans[-1][1]:
                spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
            else:
                spans.append((start, end))
            at = text.find("@", max(end, at + 1))
        return spans


_ARITHMETIC = re.compile(
    r"\d[^\S\n]*[*×÷=^][^\S\n]*[\d(]"  # a product, quotient or equation: '3 * 19.99', '= 40'
    r"|\d\.\d{1,2}[^\S\n]+[-+][^\S\n]+\d|\d[^\S\n]+[-+][^\S\n]+\d+\.\d{1,2}(?!\d)"  # a sum of amounts: '155.33 - 147.05'
)


def in_arithmetic(text: str, start: int, end: int) -> bool:
    """Whether digits at text[start:end] are terms of an arithmetic expression ('155.33 - 147.05 + 268.77'):
    a sum of amounts or a product is no phone number."""
    return _ARITHMETIC.search(text[max(0, start - 3) : end + 3]) is not None


class ValidPhoneRecognizer(PhoneRecognizer):
    """Numbers `phonenumbers` accepts as valid for one of the regions (or any, with '+').

    Presidio scores these 0.4 and relies on a context word to cross a threshold; a number
    the phone-number metadata validates is strong evidence on its own, so it scores 0.6.
    Presidio runs phonenumbers' matcher over the whole text once per region, which costs more
    than the NER itself; this parses only digit runs shaped like a phone number.
    """

    SCORE = 0.6
    CANDIDATE = re.compile(r"(?<![\w+])[+(]?\d[\d \t().\-]{4,22}\d(?!\w)")
    """Digit runs that could be a phone number; each is parsed whole, once per region."""
    EXTENSION = re.compile(r"[^\S\n]*(?:x|ext\.?|extension)[^\S\n]*\d{1,6}(?!\w)", re.IGNORECASE)
    NOT_PHONES = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}|\d{3}-\d{2}-\d{4}|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{4}")
    """IPv4 addresses, US SSN layouts and dates, which some regions' numbering plans would accept."""

    ID_CUE = re.compile(
        r"(?i)\b(?:ids?|items?|products?|orders?|tracking|skus?|tickets?|invoices?|ref(?:erence)?|confirmation|serial)"
        r"(?:[^\S\n]*(?:ids?|numbers?|nos?\.?|#))?(?:[^\S\n]+(?:is|are|was|were))?[^\S\n]*[:#]?[^\S\n]*(?:\d{6,}[^\S\n]*(?:,|;|and|or|&)[^\S\n]*)*\Z"
    )
    """What names the number after it an identifier: 'item ID 6469567736', 'tracking numbers 1234567890 and …'."""

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        results = []
        for candidate in self.CANDIDATE.finditer(text):
            number = candidate.group().rstrip(" \t.-")
            if not 7 <= sum(c.isdigit() for c in number) <= 15 or self.NOT_PHONES.fullmatch(number):
                continue
            if in_arithmetic(text, candidate.start(), candidate.start() + len(number)):
                continue
            if number.isdigit() and self.ID_CUE.search(text, max(0, candidate.start() - 120), candidate.start()):
                continue
            region = self._valid_region(number.replace("(0)", "") if number.startswith("+") else number)
            if region is not None:
                end = candidate.start() + len(number)
                if extension := self.EXTENSION.match(text, end):  # '+1 415 555 0132 ext. 12' is all one number
                    end = extension.end()
                match = _Span(candidate.start(), end)
                results.append(self._get_recognizer_result(match, text, region, nlp_artifacts))
        return results

    def _valid_region(self, number: str) -> str | None:
        regions = (None,) if number.startswith("+") else self.supported_regions
        for region in regions:
            try:
                parsed = phonenumbers.parse(number, region)
            except phonenumbers.NumberParseException:
                continue
            if phonenumbers.is_valid_number(parsed):
                return phonenumbers.region_code_for_number(parsed)
        return None


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
