"""After scrubbing: no original may survive, and no residual high-confidence PII may appear."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from spacy.lang.en.stop_words import STOP_WORDS
from wordfreq import zipf_frequency

from scrubbers.engine import Detector
from scrubbers.pseudonyms import DIGIT_TYPES
from scrubbers.recognizers.person import COMMON_WORD_ZIPF
from scrubbers.shapes import digits_only

MIN_DIGITS = 7
AS_WRITTEN = frozenset({"CITY"})
"""Types searched for as written, as the scrubber finds them: the town 'Reading', not the word 'reading'."""


@dataclass(frozen=True)
class LeakVerdict:
    passed: bool
    types: list[str]
    """Entity types that leaked (never the values)."""


def common_word_name(entity_type: str, original: str) -> bool:
    """One word of a name that is a common English word, searched as written as the scrubber searches it
    (scrubber._as_written): the customer 'Brown', not the colour 'brown' a product's options keep."""
    value = original.strip()
    return entity_type == "PERSON" and " " not in value and not value.islower() and zipf_frequency(value.lower(), "en") >= COMMON_WORD_ZIPF


def _original_survives(entity_type: str, original: str, texts: list[str], digit_texts: list[str], folded: str) -> bool:
    digits = digits_only(original)
    if entity_type == "CREDIT_CARD" and len(digits) < MIN_DIGITS:
        return False  # a card's last four digits alone are no card, and recur by chance in what stays (an amount)
    if entity_type in DIGIT_TYPES and len(digits) >= MIN_DIGITS:
        return any(digits in text for text in digit_texts)
    if original.strip().casefold() not in folded:
        return False
    flags = 0 if original.strip().lower() in STOP_WORDS or entity_type in AS_WRITTEN or common_word_name(entity_type, original) else re.IGNORECASE
    pattern = re.compile(r"(?<!\w)" + re.escape(original.strip()) + r"(?!\w)", flags)
    return any(pattern.search(text) for text in texts)


def check_leaks(
    originals: Iterable[tuple[str, str]],
    output_strings: Iterable[str],
    stand_ins: frozenset[str],
    detector: Detector,
) -> LeakVerdict:
    """`originals` are (type, value) pairs replaced in this session, held in memory only for this check;
    `output_strings` are the scrubbed content strings (structural fields such as ids, timestamps and
    provenance are not content and are not passed).

    Originals equal to one of our stand-ins (a real 'Maria' next to a stand-in 'Maria') are not
    leaks. Residual findings inside one of our stand-ins are ours, not leaks.
    """
    texts = sorted(set(output_strings))
    digit_texts = [digits_only(text) for text in texts]
    folded_text = "\n".join(texts).casefold()
    folded_stand_ins = {s.casefold() for s in stand_ins}
    all_stand_ins = "\n".join(sorted(folded_stand_ins))
    leaked: set[str] = set()
    for entity_type, original in sorted(set(originals)):
        if len(original.strip()) < 2 or original.strip().casefold() in folded_stand_ins:
            continue
        if _original_survives(entity_type, original, texts, digit_texts, folded_text):
            leaked.add(entity_type)
    for text in texts:
        for finding in detector.residual_findings(text):
            if text[finding.start : finding.end].casefold() not in all_stand_ins:
                leaked.add(finding.entity_type)
    return LeakVerdict(passed=not leaked, types=sorted(leaked))
