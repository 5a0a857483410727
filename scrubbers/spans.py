"""Small corrections to findings' spans that the recognizers and the model get wrong on text we did not write."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrubbers.engine import Finding

JOINING_WORDS = frozenset({"to", "and", "or", "with", "from", "for", "at", "by"})
"""Lower-case words that join two people, never a piece of one name ('said Mai to Jerry', 'Ana and Luis')."""
_JOINED = re.compile(r"[^\S\n]+(?:" + "|".join(sorted(JOINING_WORDS)) + r")[^\S\n]+(?=[^\W\d_])")


def split_joined_people(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """A PERSON span the model read across a joining word ('said Mai to Jerry' -> 'Mai to Jerry') is two people:
    each side its own span, with the span's score; a side without a capitalised word (in capitalised text) is none."""
    result: list[Finding] = []
    for f in findings:
        if f.entity_type != "PERSON" or not (gaps := list(_JOINED.finditer(text, f.start, f.end))):
            result.append(f)
            continue
        bounds = [f.start, *(b for gap in gaps for b in gap.span()), f.end]
        for start, end in zip(bounds[::2], bounds[1::2]):
            piece = text[start:end]
            if piece.strip() and (piece.islower() == text[f.start : f.end].islower() or piece[:1].isupper()):
                result.append(dataclasses.replace(f, start=start, end=end))
    return result


_WORD_THEN_UNIT = re.compile(r"[^\W\d_][\w'’-]*[^\S\n]+(?=(?i:apt|apartment|suite|ste|unit|flat)\b)")
"""A word, then the unit word that opens an address line."""


def names_before_units(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """A street line that opens with the last word of a person found before it, then a unit word ('Mrs. Brittany
    Voronov Apt. 338 32 216 Menzies Street', read as the street 'Voronov Apt. 338 …', which left the person out)
    starts at its unit word: the word is the person's."""
    people = [f for f in findings if f.entity_type == "PERSON"]
    if not people:
        return list(findings)
    result: list[Finding] = []
    for f in findings:
        if f.entity_type == "STREET_ADDRESS" and (word := _WORD_THEN_UNIT.match(text, f.start)):
            if any(p.start < f.start and p.end >= f.start + len(word.group().rstrip()) for p in people):
                f = dataclasses.replace(f, start=word.end())
        result.append(f)
    return result
