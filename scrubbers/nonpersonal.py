"""Known non-personal values of a session: product names, SKUs, statuses from its state rows.

spaCy's small model tags title-case product names ('Wireless Noise-Cancelling Earbuds') as
PERSON. A state-row value in a column the mapping does not mark as personal is known not to
be a person, so a detected span inside a mention of it is left alone. Only label-like values
count (one short line, no sentence punctuation): free-text notes can mention people.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence

from scrubbers.engine import Finding
from scrubbers.recognizers.person import FIRST_NAMES

LABEL_MAX_CHARS = 80
LABEL_MAX_WORDS = 10
_PROSE = re.compile(r"[,;!?]|[.:](?:\s|$)|\n")


def label_like(value: str) -> bool:
    """A short one-line label ('Trail Runner 3 Men's Running Shoes'), not prose and not a bare name."""
    value = value.strip()
    words = value.split()
    if not (2 <= len(value) <= LABEL_MAX_CHARS and 1 <= len(words) <= LABEL_MAX_WORDS) or _PROSE.search(value):
        return False
    looks_like_a_name = len(words) <= 3 and all(w[:1].isupper() for w in words) and words[0].lower() in FIRST_NAMES
    return not looks_like_a_name


@functools.lru_cache(maxsize=1 << 14)
def word_pattern(value: str, ignore_case: bool = True) -> re.Pattern[str]:
    """`value` as a whole word; compiled once per process (catalog values recur in every session)."""
    return re.compile(("(?i)" if ignore_case else "") + r"(?<!\w)" + re.escape(value) + r"(?!\w)")


def mentions(values: Iterable[str], text: str, *, ignore_case: bool = True) -> Iterator[tuple[int, int, str]]:
    """(start, end, value) of every whole-word mention of each value in `text` (overlaps included).

    A substring test first: most values are in none of a session's texts, and no pattern runs for them.
    """
    haystack = text.lower() if ignore_case else text
    same_offsets = len(haystack) == len(text)  # lower() keeps offsets except for a few letters ('İ')
    for value in values:
        needle = value.lower() if ignore_case else value
        if needle not in haystack:
            continue
        if not (same_offsets and len(needle) == len(value)):
            yield from ((m.start(), m.end(), value) for m in word_pattern(value, ignore_case).finditer(text))
            continue
        start = haystack.find(needle)
        while start != -1:
            end = start + len(needle)
            if not (start and _word_char(haystack[start - 1])) and not (end < len(haystack) and _word_char(haystack[end])):
                yield start, end, value
            start = haystack.find(needle, start + 1)


def _word_char(char: str) -> bool:
    """What `\\w` matches."""
    return char.isalnum() or char == "_"


class NonPersonalValues:
    """Finds mentions of the label-like values in a text and drops detected spans inside them."""

    def __init__(self, values: Iterable[str], personal: Iterable[str] = ()) -> None:
        personal_words = sorted({p.strip() for p in personal if len(p.strip()) >= 2})
        self._labels = sorted(
            {v.strip() for v in values if label_like(v) and not any(mentions(personal_words, v.strip()))},
            key=lambda v: (-len(v), v),
        )

    def keep(self, text: str, findings: Sequence[Finding]) -> list[Finding]:
        """`findings` without those lying inside a mention of a known non-personal value."""
        if not self._labels or not findings:
            return list(findings)
        spans = [(start, end) for start, end, _ in mentions(self._labels, text)]
        return [f for f in findings if not any(start <= f.start and f.end <= end for start, end in spans)]
