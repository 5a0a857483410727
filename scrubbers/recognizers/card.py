"""Mastercard's 2-series (2221-2720), which Presidio's CreditCardRecognizer pattern does not cover."""

from __future__ import annotations

from presidio_analyzer import Pattern, PatternRecognizer

from scrubbers.shapes import luhn_valid


class MastercardTwoSeriesRecognizer(PatternRecognizer):
    PATTERNS = [Pattern("Mastercard 2-series", r"\b2(?:2[2-9]\d|[3-6]\d\d|7[01]\d|720)(?:[ -]?\d{4}){3}\b", 0.3)]
    CONTEXT = ["card", "credit", "mastercard", "payment"]

    def __init__(self, supported_language: str = "en") -> None:
        super().__init__(
            supported_entity="CREDIT_CARD",
            name="MastercardTwoSeriesRecognizer",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            supported_language=supported_language,
        )

    def validate_result(self, pattern_text: str) -> bool | None:
        return luhn_valid(pattern_text)
