"""IBANs written in lower case ('gb48awjv07221741105646'), which Presidio's IbanRecognizer pattern
does not match; checked by the mod-97 rule like upper-case ones."""

from __future__ import annotations

from presidio_analyzer import Pattern

from scrubbers.recognizers.preset import PresetPatternRecognizer
from scrubbers.shapes import iban_valid


class LowerCaseIbanRecognizer(PresetPatternRecognizer):
    ENTITY = "IBAN_CODE"
    PATTERNS = [Pattern("Lower-case IBAN", r"\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]){11,30}\b", 0.5)]
    CONTEXT = ["iban", "bank", "account", "transfer"]

    def validate_result(self, pattern_text: str) -> bool | None:
        return iban_valid(pattern_text)
