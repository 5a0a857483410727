"""Dates of birth: a date preceded by 'born', 'DOB', 'date of birth', 'birthday'."""

from __future__ import annotations

import regex
from presidio_analyzer import Pattern

from scrubbers.recognizers.preset import PresetPatternRecognizer

_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
DATE_FORMS = (
    r"\d{4}-\d{1,2}-\d{1,2}",
    r"\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})",
    _MONTH + r"[^\S\n]+\d{1,2}(?:st|nd|rd|th)?,?[^\S\n]+\d{4}",
    r"\d{1,2}(?:st|nd|rd|th)?[^\S\n]+(?:of[^\S\n]+)?" + _MONTH + r",?[^\S\n]+\d{4}",
)
_CUE = r"(?:\bborn|\bd\.?o\.?b\b\.?|date[^\S\n]+of[^\S\n]+birth|birth[^\S\n]?date|\bbirthday)"
_GLUE = r"(?:[^\S\n]*(?:is|was|on|of|:|-|=|,)){0,3}[^\S\n]*"


class DateOfBirthRecognizer(PresetPatternRecognizer):
    """Only dates with a birth cue just before them: order dates are left alone."""

    ENTITY = "DATE_OF_BIRTH"
    FLAGS = regex.MULTILINE | regex.IGNORECASE
    PATTERNS = [
        Pattern(f"Date of birth ({index})", f"(?<={_CUE}{_GLUE})(?:{form})\\b", 0.75)
        for index, form in enumerate(DATE_FORMS)
    ]
    CONTEXT = ["born", "dob", "birth", "birthday"]
    CUES = regex.compile(_CUE, regex.IGNORECASE)
    """Every pattern needs a birth cue before the date: a text without one cannot match."""
