"""Phone recall on numbers nobody here wrote: the example numbers the `phonenumbers` package ships per region.

Google's libphonenumber metadata (which `phonenumbers` carries) holds one example number per region and
number type. For every supported region, its fixed-line and mobile examples are written as people write
them: in the national format, the international format, E.164, and with an extension ('ext. 1234' after
the international format, 'x1234' after the national one). Each goes into sentences of two kinds: one
with a phone word before it ('my phone number is …'), one without ('the new one is … since May').

A number counts as caught when replaced spans cover every digit of it (its extension included); words
kept is the share of the sentence's other words that no replaced span touches. Misses are reported by
format and kind of sentence, with the regions they fall in (example numbers are no one's: they may be printed).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import phonenumbers
from phonenumbers import PhoneNumberFormat, PhoneNumberType

NUMBER_TYPES = {"fixed line": PhoneNumberType.FIXED_LINE, "mobile": PhoneNumberType.MOBILE}
FORMATS = ("national", "international", "E.164", "international ext.", "national x")
SENTENCES = {
    "after a phone word": "Hi, my phone number is {number}, call me after six.",
    "no phone word": "The new one is {number} since May, thanks.",
}
EXTENSION = "1234"

Span = tuple[int, int]


@dataclass(frozen=True)
class Example:
    region: str
    number_type: str
    layout: str
    sentence: str
    text: str
    start: int
    end: int


def written(number: phonenumbers.PhoneNumber, layout: str) -> str:
    national = phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL)
    international = phonenumbers.format_number(number, PhoneNumberFormat.INTERNATIONAL)
    return {
        "national": national,
        "international": international,
        "E.164": phonenumbers.format_number(number, PhoneNumberFormat.E164),
        "international ext.": f"{international} ext. {EXTENSION}",
        "national x": f"{national} x{EXTENSION}",
    }[layout]


def examples(regions: Sequence[str] | None = None) -> Iterator[Example]:
    """Every region's fixed-line and mobile example numbers, in every layout and kind of sentence."""
    for region in sorted(regions or phonenumbers.SUPPORTED_REGIONS):
        seen: set[str] = set()
        for type_name, number_type in NUMBER_TYPES.items():
            number = phonenumbers.example_number_for_type(region, number_type)
            if number is None or (e164 := phonenumbers.format_number(number, PhoneNumberFormat.E164)) in seen:
                continue  # a region whose fixed-line and mobile numbers share one example is counted once
            seen.add(e164)
            for layout in FORMATS:
                value = written(number, layout)
                for sentence, template in SENTENCES.items():
                    start = template.index("{number}")
                    yield Example(region, type_name, layout, sentence, template.format(number=value), start, start + len(value))


@dataclass(frozen=True)
class PhoneScore:
    gold: Counter
    caught: Counter
    """(layout, sentence) -> count."""
    missed_regions: dict[tuple[str, str], tuple[str, ...]]
    words: int
    words_kept: int

    def recall(self, layout: str | None = None, sentence: str | None = None) -> float:
        keys = [k for k in self.gold if layout in (None, k[0]) and sentence in (None, k[1])]
        gold = sum(self.gold[k] for k in keys)
        return sum(self.caught[k] for k in keys) / gold if gold else 1.0

    @property
    def kept(self) -> float:
        return self.words_kept / self.words if self.words else 1.0


def _covered(text: str, start: int, end: int, spans: Sequence[Span]) -> bool:
    return all(any(s <= i < e for s, e in spans) for i in range(start, end) if text[i].isdigit())


def score(items: Sequence[Example], found: Sequence[Sequence[Span]]) -> PhoneScore:
    gold, caught, missed = Counter(), Counter(), {}
    words = kept = 0
    for item, spans in zip(items, found, strict=True):
        key = (item.layout, item.sentence)
        gold[key] += 1
        if _covered(item.text, item.start, item.end, spans):
            caught[key] += 1
        else:
            missed.setdefault(key, []).append(item.region)
        position = 0
        for word in item.text.split():
            start = item.text.index(word, position)
            position = start + len(word)
            if position <= item.start or start >= item.end:
                words += 1
                kept += not any(start < e and s < position for s, e in spans)
    return PhoneScore(gold, caught, {k: tuple(sorted(set(v))) for k, v in missed.items()}, words, kept)


def report(result: PhoneScore, regions_listed: int = 12) -> str:
    lines = [f"{'':<22}" + "".join(f"{s:>22}" for s in SENTENCES) + f"{'all':>10}"]
    for layout in FORMATS:
        cells = "".join(f"{result.recall(layout, s):>22.1%}" for s in SENTENCES)
        lines.append(f"{layout:<22}{cells}{result.recall(layout):>10.1%}")
    lines.append(f"{'all layouts':<22}" + "".join(f"{result.recall(None, s):>22.1%}" for s in SENTENCES) + f"{result.recall():>10.1%}")
    lines.append(f"{'words kept':<22}{result.kept:>22.1%}")
    for (layout, sentence), regions in sorted(result.missed_regions.items()):
        shown = " ".join(regions[:regions_listed]) + (" …" if len(regions) > regions_listed else "")
        lines.append(f"  missed, {layout}, {sentence}: {len(regions)} regions: {shown}")
    return "\n".join(lines)


def main(argv: Sequence[str] = (), finder: Callable[[Sequence[str]], list[list[Span]]] | None = None) -> int:
    if finder is None:
        from scrubbers.config import ScrubConfig
        from scrubbers.gold import trace2task_spans
        from scrubbers.scrubber import Scrubber

        finder = trace2task_spans(Scrubber(ScrubConfig(), b"evaluation-only-secret"))
    items = list(examples(argv or None))
    result = score(items, finder([i.text for i in items]))
    regions = len({i.region for i in items})
    print(f"phonenumbers {phonenumbers.__version__} example numbers: {regions} regions, {len(items)} sentences")
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
