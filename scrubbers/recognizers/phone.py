"""Phone numbers by layout and label, where `phonenumbers` metadata cannot vouch for them: a North
American layout with an extension ('(505)498-8487x6837', '001-748-088-2851'), and any group of digits
labelled as a phone ('070-073-058-Office', 'fax: 92 34 70')."""

from __future__ import annotations

import regex
from presidio_analyzer import Pattern, PatternRecognizer

_EXTENSION = r"(?:[^\S\n]*(?:x|ext\.?|extension)[^\S\n]*\d{1,6})?"
_GROUPS = r"(?:\+|\()?\d[\d \t().-]{4,18}\d"
_LABEL_AFTER = r"(?=[^\S\n]*-?[^\S\n]*(?i:office|fax|mobile|cell|home|work)\b)"
_LABEL_BEFORE = r"(?<=(?i:\bphone|\btel|\btelephone|\bmobile|\bcell|\bfax|\bcall(?:[^\S\n]+me)?(?:[^\S\n]+at)?)[^\S\n]*(?:number)?[^\S\n]*[:#]?[^\S\n]*)"


class PhoneLayoutRecognizer(PatternRecognizer):
    PATTERNS = [
        Pattern(
            "North American layout",
            r"(?<![\w+.-])(?:(?:\+1|001)[-. ]?)?(?:\(\d{3}\)[-. ]?|\d{3}[-.])\d{3}[-.]\d{4}" + _EXTENSION + r"(?!\w|[.-]\d)",
            0.55,
        ),
        Pattern("Labelled after", rf"(?<![\w+.-]){_GROUPS}{_EXTENSION}{_LABEL_AFTER}", 0.6),
        Pattern("Labelled before", rf"{_LABEL_BEFORE}{_GROUPS}{_EXTENSION}(?![\w-])", 0.6),
    ]
    CONTEXT = ["phone", "call", "tel", "mobile", "fax", "office", "cell"]

    def __init__(self, supported_language: str = "en") -> None:
        super().__init__(
            supported_entity="PHONE_NUMBER",
            name="PhoneLayoutRecognizer",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            supported_language=supported_language,
            global_regex_flags=regex.MULTILINE,
        )

    def validate_result(self, pattern_text: str) -> bool | None:
        digits = sum(c.isdigit() for c in pattern_text)
        return None if 6 <= digits <= 20 else False
