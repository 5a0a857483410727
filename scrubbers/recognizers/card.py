"""Card numbers Presidio's CreditCardRecognizer pattern does not cover: Mastercard's 2-series
(2221-2720), numbers of 12 to 19 digits in any grouping (Maestro's 12, Visa's 19), and a card's
last four digits where the text says they are ('card ending in 9212', '**** 9212')."""

from __future__ import annotations

import regex
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


_CARD_WORD = r"\b(?:card|visa|mastercard|amex|discover|maestro|debit|credit)\b"
_FOUR = r"\d{4}(?![\d\w]|[.,]\d)"


_LAST = r"\blast[^\S\n]*[-_]?[^\S\n]*(?:four|4)"
"""'last four', 'last 4', 'last4', 'last-4'."""


class CardLastFourRecognizer(PresetPatternRecognizer):
    """A card's last four digits written as such: after 'ending in' / 'ends with' a card word names, in its
    sentence or the one before ('my Visa ending in 9212', 'the card that ends with 4410, not the one ending in
    1234', 'Charge my visa. The one ending 4417.') or right after ('ending 4417 on my visa'), after 'last four
    (digits)' ('last 4 digits of my card: 9212', 'last4 9212', 'last-4 - 9212'), or after masked groups
    ('**** **** **** 9212', 'xxxx-9212', '**9212'). Replaced as a card's part ('last_four' fields are the same);
    four digits alone are not."""

    ENTITY = "CREDIT_CARD"
    FLAGS = regex.IGNORECASE | regex.MULTILINE
    PATTERNS = [
        Pattern("Card ending in", rf"(?<={_CARD_WORD}[^\n]{{0,60}}?\b(?:ending|ends|ended)(?:[^\S\n]+(?:in|with))?[^\S\n]*[:#]?[^\S\n]*){_FOUR}", 0.6),
        Pattern("Ending in, card after", rf"(?<=\b(?:ending|ends|ended)(?:[^\S\n]+(?:in|with))?[^\S\n]*[:#]?[^\S\n]*){_FOUR}"
                rf"(?=[^\S\n]+(?:(?:on|of|for|is|from)[^\S\n]+)?(?:(?:my|the|your|his|her|our|their|this|that|a)[^\S\n]+)?{_CARD_WORD})", 0.6),
        Pattern("Last four", rf"(?<={_LAST}(?:[^\S\n]+digits)?(?:[^\S\n]+of[^\S\n]+[^\n.!?:]{{0,30}}?{_CARD_WORD})?"
                rf"(?:[^\S\n]+(?:is|are|were|was))?[^\S\n]*[:=#-]?[^\S\n]*){_FOUR}", 0.6),
        Pattern("Masked groups", rf"(?<=(?<![\w*•])(?:[x*•]{{2,4}}[^\S\n-]?-?[^\S\n]?){{1,3}}){_FOUR}", 0.6),
    ]
    CONTEXT = ["card", "ending", "last"]
    CUES = regex.compile(r"(?i)\b(?:ending|ends|ended)\b|\blast[^\S\n]*[-_]?[^\S\n]*(?:four|4)\b|[x*•]{2}")


LAST_FOUR = regex.compile("|".join(f"(?:{p.regex})" for p in CardLastFourRecognizer.PATTERNS), CardLastFourRecognizer.FLAGS)
"""Every way above of writing a card's last four digits, for the leak gate."""
