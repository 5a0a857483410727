"""Phone numbers by layout and label, where `phonenumbers` metadata cannot vouch for them: a North
American layout with an extension ('(505)498-8487x6837', '001-748-088-2851'), and any group of digits
labelled as a phone ('070-073-058-Office', 'fax: 92 34 70'), any number written with '+' and a
country code ('+41 (0)66 712 76 84'), and groups of digits after a phone word ('reach me at 30/166 1318')."""

from __future__ import annotations

import re

import regex
from presidio_analyzer import Pattern

from scrubbers.recognizers.preset import PresetPatternRecognizer

from scrubbers.recognizers.offline import in_arithmetic

_EXTENSION = r"(?:[^\S\n]*(?:x|ext\.?|extension)[^\S\n]*\d{1,6})?"
_GROUPS = r"(?:\+|\()?\d[\d \t()./-]{4,18}\d"
_INTERNATIONAL = r"\+\d{1,3}(?:[ \t.-]?\(0\))?[ \t.-]?(?:\(\d{1,5}\)[ \t.-]?)?\d[\d \t./-]{4,16}\d"
"""'+' and a country code, an optional '(0)' trunk prefix and area code in brackets, then digits."""
_DIGIT_GROUPS = r"(?:\(?\d{1,5}\)?(?:(?:[ \t./-]{1,2}|(?<=\)))\(?\d{1,8}\)?){1,5}|\d{7,12})"
"""Groups of digits ('30/166 1318', '(26)/018-1590', '0786 6661') or one run of 7 to 12 digits."""
_PHONE_SHAPED = (
    r"(?:\(\d{1,4}\)[ \t]?\d{2,5}(?:[ .-]\d{2,4}){1,2}"  # an area code in brackets: '(11) 96123-4567'
    r"|\d{1,4}(?:[ \t]\d{1,5}){1,2}(?:-\d{2,4}){2,3}"  # a space, then hyphens: '011 15-2345-6789', '8 0152 45-09-11'
    r"|\d{2}(?:[ .]\d{2}){3,4}"  # four or five pairs: '70 12 34 56'
    r"|\d{2,4}-\d{6,8}|\d{3}-\d{4})"  # an area code and a hyphen: '01-4567890'; a local number: '200-1234'
)
"""Layouts only phone numbers are written in, whatever the region: found without a phone word."""
_LABEL_AFTER = r"(?=[^\S\n]*-?[^\S\n]*(?i:office|fax|mobile|cell|home|work)\b)"
_LABEL_BEFORE = r"(?<=(?i:\bphone|\btel|\btelephone|\bmobile|\bcell|\bfax|\bcall(?:[^\S\n]+me)?(?:[^\S\n]+at)?)[^\S\n]*(?:number)?[^\S\n]*[:#]?[^\S\n]*)"


class PhoneLayoutRecognizer(PresetPatternRecognizer):
    ENTITY = "PHONE_NUMBER"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern(
            "North American layout",
            r"(?<![\w+.-])(?:(?:\+1|001)[-. ]?)?(?:\(\d{3}\)[-. ]?|\d{3}[-.])\d{3}[-.]\d{4}" + _EXTENSION + r"(?!\w|[.-]\d)",
            0.55,
        ),
        Pattern("Labelled after", rf"(?<![\w+.-]){_GROUPS}{_EXTENSION}{_LABEL_AFTER}", 0.6),
        Pattern("Labelled before", rf"{_LABEL_BEFORE}{_GROUPS}{_EXTENSION}(?![\w-])", 0.6),
        Pattern("International", rf"(?<![\w+.-]){_INTERNATIONAL}{_EXTENSION}(?!\w|[.-]\d)", 0.55),
        Pattern("Phone-shaped layout", rf"(?<![\w+./)-]){_PHONE_SHAPED}{_EXTENSION}(?!\w|[.-]\d)", 0.55),
        Pattern("Digit groups", rf"(?<![\w+.-]){_DIGIT_GROUPS}{_EXTENSION}(?!\w|[.-]\d)", 0.3),
    ]
    CONTEXT = [
        "phone", "call", "tel", "telephone", "mobile", "fax", "office", "cell", "reach", "contact", "text", "dial",
        "whatsapp", "answer",
    ]
    """Context words raise a match to a phone number (Presidio's context enhancement): 'Digit groups'
    alone scores below the threshold, after one of these words ('reach me at 30/166 1318') above it.
    Presidio matches them as substrings of the words before the number: 'answer' is also 'answering'
    ("they're not answering at 329 7730", a New Zealand local number no region's plan can vouch for)."""
    NOT_PHONES = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}|\d{3}-\d{2}-\d{4}|\d{4}-\d{2}-\d{2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}")
    """IPv4 addresses, US SSN layouts and dates."""

    def validate_result(self, pattern_text: str) -> bool | None:
        digits = sum(c.isdigit() for c in pattern_text)
        if self.NOT_PHONES.fullmatch(pattern_text.strip()) or in_arithmetic(pattern_text, 0, len(pattern_text)):
            return False
        return None if 6 <= digits <= 20 else False


class LabelledShortPhoneRecognizer(PresetPatternRecognizer):
    """A short number a phone word names ('my phone number is 7012', 'tel: 21 234'): the small numbering
    plans (Tokelau, Niue, the Falklands) have four- and five-digit numbers, which no layout tells from a count."""

    ENTITY = "PHONE_NUMBER"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern(
            "Labelled short number",
            r"(?<=(?i:\bphone|\btel|\btelephone|\bmobile|\bcell|\bfax)(?:[^\S\n]+number)?(?:[^\S\n]+is|[^\S\n]*[:#])?[^\S\n]*)"
            rf"\d{{1,3}}(?:[ .-]?\d{{2,3}}){{1,2}}{_EXTENSION}(?![\w-]|[.,]\d)",
            0.6,
        ),
    ]

    def validate_result(self, pattern_text: str) -> bool | None:
        return None if 4 <= sum(c.isdigit() for c in pattern_text.split("x")[0].split("ext")[0]) <= 6 else False
