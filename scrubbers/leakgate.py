"""After scrubbing: no original may survive, and no residual high-confidence PII may appear."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from spacy.lang.en.stop_words import STOP_WORDS
from wordfreq import zipf_frequency

from scrubbers.engine import Detector
from scrubbers.pseudonyms import DIGIT_TYPES
from scrubbers.recognizers.card import LAST_FOUR
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


def _written_last_fours(texts: list[str], digit_texts: list[str]) -> frozenset[str]:
    """Four digits the output still writes as a card's last four: a whole string ('last_four': '4417') or where a
    sentence says so ('ending in 4417', 'last 4: 4417', '**** 4417'). Elsewhere four digits recur by chance (an
    amount, a year) and are no leak."""
    written = {text.strip() for text in texts if len(text.strip()) == 4 and text.strip().isdigit()}
    # `digit_texts` (each text's decimal digits): every way of writing a last four needs one
    written.update(match.group() for text, digits in zip(texts, digit_texts) if digits for match in LAST_FOUR.finditer(text))
    return frozenset(written)


def _original_survives(
    entity_type: str, original: str, texts: list[str], digit_texts: list[str], folded: str, last_fours: frozenset[str]
) -> bool:
    digits = digits_only(original)
    if entity_type == "CREDIT_CARD" and digits[-4:] in last_fours and len(digits) >= 4:
        return True  # a card's last four digits (or a whole card's) still written as a card's last four
    if entity_type == "CREDIT_CARD" and len(digits) < MIN_DIGITS:
        return False
    if entity_type in DIGIT_TYPES and len(digits) >= MIN_DIGITS:
        return any(digits in text for text in digit_texts)
    if original.strip().casefold() not in folded:
        return False
    flags = 0 if original.strip().lower() in STOP_WORDS or entity_type in AS_WRITTEN or common_word_name(entity_type, original) else re.IGNORECASE
    pattern = re.compile(r"(?<!\w)" + re.escape(original.strip()) + r"(?!\w)", flags)
    return any(pattern.search(text) for text in texts)


@dataclass(frozen=True)
class StandIns:
    """What the gate reads of a run's stand-ins, worked out once for all the sessions of a batch (every
    session's check reads the same stand-ins: rebuilding these for each was quadratic in a day's sessions)."""

    folded: frozenset[str]
    joined: str
    """Every folded stand-in, one a line, to search a residual finding in."""
    card_ends: frozenset[str]
    """A stand-in card's last four is ours ('ending in 0598' after '4111 1111 1111 0598')."""

    @classmethod
    def of(cls, stand_ins: Iterable[str]) -> StandIns:
        folded = frozenset(s.casefold() for s in stand_ins)
        ends = frozenset(digits[-4:] for digits in map(digits_only, folded) if len(digits) >= 12 or len(digits) == 4)
        return cls(folded, "\n".join(sorted(folded)), ends)


def check_leaks(
    originals: Iterable[tuple[str, str]],
    output_strings: Iterable[str],
    stand_ins: frozenset[str] | StandIns,
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
    ours = stand_ins if isinstance(stand_ins, StandIns) else StandIns.of(stand_ins)
    folded_stand_ins, all_stand_ins = ours.folded, ours.joined
    last_fours = _written_last_fours(texts, digit_texts) - ours.card_ends
    leaked: set[str] = set()
    for entity_type, original in sorted(set(originals)):
        if len(original.strip()) < 2 or original.strip().casefold() in folded_stand_ins:
            continue
        if _original_survives(entity_type, original, texts, digit_texts, folded_text, last_fours):
            leaked.add(entity_type)
    for text in texts:
        for finding in detector.residual_findings(text):
            if text[finding.start : finding.end].casefold() not in all_stand_ins:
                leaked.add(finding.entity_type)
    return LeakVerdict(passed=not leaked, types=sorted(leaked))
