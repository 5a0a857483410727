"""Card numbers Presidio's CreditCardRecognizer pattern does not cover: Mastercard's 2-series
(2221-2720), and numbers of 12 to 19 digits in any grouping (Maestro's 12, Visa's 19)."""

from __future__ import annotations

from presidio_analyzer import Pattern

from scrubbers.recognizers.preset import PresetPatternRecognizer
from scrubbers.shapes import luhn_valid


class MastercardTwoSeriesRecognizer(PresetPatternRecognizer):
    ENTITY = "CREDIT_CARD"
    PATTERNS = [Pattern("Mastercard 2-series", r"\b2(?:2[2-9]\d|[3-6]\d\d|7[01]\d|720)(?:[ -]?\d{4}){3}\b", 0.3)]
    CONTEXT = ["card", "credit", "mastercard", "payment"]

    def validate_result(self, pattern_text: str) -> bool | None:
        return luhn_valid(pattern_text)


class CardLengthRecognizer(PresetPatternRecognizer):
    """12 to 19 digits, alone or in groups of spaces or dashes, that pass the Luhn check. From 15
    digits on that is enough; a shorter one needs a card word before it (Presidio's context
    enhancement), as a 12-digit tracking number passes the Luhn check one time in ten."""

    ENTITY = "CREDIT_CARD"
    PATTERNS = [Pattern("12 to 19 digits", r"(?<![\w.+-])\d(?:[ -]?\d){11,18}(?!\w|[.-]\d)", 0.3)]
    CONTEXT = ["card", "credit", "debit", "visa", "mastercard", "maestro", "amex", "payment", "charge", "pay"]
    LONG = 15

    def validate_result(self, pattern_text: str) -> bool | None:
        if not luhn_valid(pattern_text):
            return False
        return True if sum(c.isdigit() for c in pattern_text) >= self.LONG else None
