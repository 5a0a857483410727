"""Known non-personal values of a session: product names, SKUs, statuses from its state rows, and
the names and options of goods described in its own JSON (an object with a price, SKU or product id),
each also with its last word in the other number ('Wireless Earbuds' and 'a Wireless Earbud').

spaCy's small model tags title-case product names ('Wireless Noise-Cancelling Earbuds') as
PERSON. A state-row value in a column the mapping does not mark as personal is known not to
be a person, so a detected span inside a mention of it is left alone. Only label-like values
count (one short line, no sentence punctuation): free-text notes can mention people.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from scrubbers.engine import Finding
from scrubbers.structured import Policy, embedded_json, iter_fields, join
from scrubbers.recognizers.person import FIRST_NAMES, NAME_LISTS

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


_SIBILANT_END = re.compile(r"(?:s|x|z|ch|sh)$")


def number_forms(label: str) -> list[str]:
    """The label with its last word in the other grammatical number ('Wireless Earbuds' -> 'Wireless Earbud',
    'Smart Watch' -> 'Smart Watches', 'Accessory' -> 'Accessories'): a customer writes of one item of goods
    the catalogue names in the plural, and of several the catalogue names in the singular. A form that is
    not a label, or whose changed word alone is a name ('Roses' -> 'Rose'), is none of them."""
    head, _, last = label.rpartition(" ")
    if len(last) < 3 or not last.replace("-", "").isalpha():
        return []
    lower = last.lower()
    if lower.endswith("ies"):
        others = [last[:-3] + ("Y" if last.isupper() else "y")]
    elif lower.endswith("es") and _SIBILANT_END.search(lower[:-2]):
        others = [last[:-2], last[:-1]]
    elif lower.endswith("s") and not lower.endswith("ss"):
        others = [last[:-1]]
    elif lower.endswith("y") and lower[-2] not in "aeiou":
        others = [last[:-1] + ("IES" if last.isupper() else "ies")]
    else:
        others = [last + ("ES" if last.isupper() else "es") if _SIBILANT_END.search(lower) else last + ("S" if last.isupper() else "s")]
    forms = [f"{head} {other}" if head else other for other in others]
    return [f for f in forms if label_like(f) and (head or f.lower() not in NAME_LISTS)]


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


GOODS_KEYS = frozenset({"price", "unit_price", "sku", "product_id", "item_id", "variants"})
"""Keys that make a JSON object a description of goods (a product, a variant, an order line)."""
GOODS_NAME_KEYS = frozenset({"name", "title", "product_name", "brand", "category"})
GOODS_OPTION_KEYS = frozenset({"options", "attributes", "specs", "specifications"})


def goods_labels(value: Any, policy: Policy, path: str = "") -> Iterator[str]:
    """Names and options of the goods described anywhere in `value` (JSON inside strings too): in an
    object with a price, SKU, product or item id or variants, its name ('Vacuum Cleaner') and every
    string of its options ('Amazon Alexa', 'brown'). Other strings of such an object (a gift note)
    and strings under a field rule are not among them."""
    if isinstance(value, str):
        inner = embedded_json(value)
        if inner is not None:
            yield from goods_labels(inner, policy, path)
    elif isinstance(value, list):
        for item in value:
            yield from goods_labels(item, policy, path)
    elif isinstance(value, dict):
        goods = not GOODS_KEYS.isdisjoint(value)
        for key, item in value.items():
            inner_path = join(path, str(key))
            if goods and key in GOODS_NAME_KEYS and isinstance(item, str) and policy(inner_path) is None:
                yield item
            elif goods and key in GOODS_OPTION_KEYS:
                yield from (text for _, rule, text in iter_fields(item, policy, inner_path) if rule is None)
            else:
                yield from goods_labels(item, policy, inner_path)


def _core(text: str, finding: Finding) -> tuple[int, int]:
    """A finding's span without the brackets or signs at its edges ('(6469567736' -> '6469567736')."""
    start, end = finding.start, finding.end
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return start, end


class NonPersonalValues:
    """Finds mentions of the label-like values in a text and drops detected spans inside them."""

    def __init__(self, values: Iterable[str], personal: Iterable[str] = ()) -> None:
        personal_words = sorted({p.strip() for p in personal if len(p.strip()) >= 2})
        labels = {v.strip() for v in values if label_like(v) and not any(mentions(personal_words, v.strip()))}
        forms = {form for label in labels for form in number_forms(label) if not any(mentions(personal_words, form))}
        self._labels = sorted(labels | forms, key=lambda v: (-len(v), v))
        self._folded = frozenset(label.casefold() for label in self._labels)

    def as_name(self, part: str) -> str:
        """A part of a name typed in lower case that is also a label here ('amelia brown', and a product 'brown'):
        capitalised, to be searched for as the name it is, never as the colour."""
        return part.capitalize() if part.islower() and part.casefold() in self._folded else part

    def keep(self, text: str, findings: Sequence[Finding]) -> list[Finding]:
        """`findings` without those lying inside a mention of a known non-personal value."""
        if not self._labels or not findings:
            return list(findings)
        spans = [(start, end) for start, end, _ in mentions(self._labels, text)]
        return [f for f in findings if not any(start <= a and b <= end for start, end in spans for a, b in [_core(text, f)])]
