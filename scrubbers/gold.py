"""Recall on a public gold-labelled corpus nobody here wrote, beside Presidio's defaults in the same run.

The corpus is presidio-research's `generated_large.json` (`../shared/data/pii-eval/`): short
English texts with gold spans. It is split once, by template, into a development half (tune on
it) and a held-out half (report it): a template's texts all fall in one half, so a rule written
for a template seen in development is not rewarded on held-out texts of the same template.

Eight types are scored. A gold value counts as caught when replaced spans (of any type) cover
every letter and digit of it; for a postal ADDRESS only its street line is scored (the text up
to the first comma or line break after the house number), which is what `STREET_ADDRESS` claims.
Words kept: of the words that overlap no gold span of any type, the share no replaced span touches.
Misses are reported by category (shape), never by value.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "pii-eval" / "generated_large.json"
"""`../shared/data/pii-eval/generated_large.json` from the project's root."""
SCORED_TYPES: dict[str, str] = {
    "PERSON": "PERSON",
    "ADDRESS": "STREET_ADDRESS",
    "PHONE_NUMBER": "PHONE_NUMBER",
    "CREDIT_CARD": "CREDIT_CARD",
    "EMAIL_ADDRESS": "EMAIL_ADDRESS",
    "IBAN_CODE": "IBAN_CODE",
    "US_SSN": "US_SSN",
    "IP_ADDRESS": "IP_ADDRESS",
}
"""Gold type -> the row it is reported under."""
PRESIDIO_THRESHOLD = 0.35
_WORD = re.compile(r"\S+")
_HOUSE_NUMBER = re.compile(r"\d")

Span = tuple[int, int]


@dataclass(frozen=True)
class GoldValue:
    start: int
    end: int
    entity_type: str
    """The reported type (`SCORED_TYPES` value), or the corpus's own type for unscored ones."""
    scored: bool


@dataclass(frozen=True)
class GoldText:
    text: str
    template_id: int
    values: tuple[GoldValue, ...]


def _street_line(text: str, start: int, end: int) -> tuple[int, int]:
    """The street line of a postal address: up to the first comma or line break after its first digit
    (the house number, which may follow the street: 'Puruntie 82, 00100 Helsinki')."""
    value = text[start:end]
    digit = _HOUSE_NUMBER.search(value)
    cut = len(value)
    for separator in (",", "\n"):
        found = value.find(separator, digit.end() if digit else 0)
        if found != -1:
            cut = min(cut, found)
    line = value[:cut].rstrip()
    return start, start + len(line)


def load_corpus(path: Path = DEFAULT_CORPUS) -> list[GoldText]:
    texts = []
    for record in json.loads(Path(path).read_text(encoding="utf-8")):
        text = record["full_text"]
        values = []
        for span in record["spans"]:
            start, end, kind = span["start_position"], span["end_position"], span["entity_type"]
            if kind == "ADDRESS":
                values.append(GoldValue(start, end, kind, False))  # the whole address: its words are personal
                start, end = _street_line(text, start, end)
            values.append(GoldValue(start, end, SCORED_TYPES.get(kind, kind), kind in SCORED_TYPES))
        texts.append(GoldText(text, int(record["template_id"]), tuple(sorted(values, key=lambda v: (v.start, v.end)))))
    return texts


def is_held_out(template_id: int) -> bool:
    """The fixed split: a template is held out when the first byte of the SHA-256 of its id is odd."""
    return hashlib.sha256(str(template_id).encode()).digest()[0] % 2 == 1


def split(corpus: Sequence[GoldText]) -> tuple[list[GoldText], list[GoldText]]:
    """(development, held-out)."""
    return [t for t in corpus if not is_held_out(t.template_id)], [t for t in corpus if is_held_out(t.template_id)]


def miss_category(text: str, value: GoldValue) -> str:
    """A miss's shape, to say what kind of value is missed without printing it."""
    span = text[value.start : value.end]
    before = text[max(0, value.start - 40) : value.start].lower()
    if value.entity_type == "PERSON":
        if span.islower():
            return "lower case"
        if any(ord(c) > 127 for c in span):
            return "non-ASCII letters"
        if re.search(r"\b\w\.", span):
            return "middle initial"
        if len(span.split()) == 1:
            return "list of names" if re.search(r",\s*$|\band\s*$|:\s*$", before) else "one word"
        return "several words"
    if value.entity_type == "STREET_ADDRESS":
        return "number first" if span[:1].isdigit() else "street first"
    if value.entity_type == "PHONE_NUMBER":
        return "extension" if re.search(r"(?i)x|ext", span) else ("international" if span.startswith(("+", "00")) else "national")
    if value.entity_type == "CREDIT_CARD":
        return f"{sum(c.isdigit() for c in span)} digits"
    if value.entity_type == "IBAN_CODE":
        return "lower case" if span[:2].islower() else "upper case"
    return "other"


@dataclass(frozen=True)
class TypeRecall:
    entity_type: str
    gold: int
    caught: int

    @property
    def recall(self) -> float:
        return self.caught / self.gold if self.gold else 1.0


@dataclass(frozen=True)
class GoldScore:
    types: tuple[TypeRecall, ...]
    words: int
    words_kept: int
    detected: int
    correct: int
    misses: tuple[tuple[str, str, int], ...]
    """(type, category, count), most frequent first."""

    def recall(self, entity_type: str) -> float:
        return next(t.recall for t in self.types if t.entity_type == entity_type)

    @property
    def all_types(self) -> float:
        gold = sum(t.gold for t in self.types)
        return sum(t.caught for t in self.types) / gold if gold else 1.0

    @property
    def kept(self) -> float:
        return self.words_kept / self.words if self.words else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.detected if self.detected else 1.0


def _covered(text: str, value: GoldValue, spans: Sequence[Span]) -> bool:
    return all(
        any(start <= i < end for start, end in spans) for i in range(value.start, value.end) if text[i].isalnum()
    )


def score(corpus: Sequence[GoldText], found: Sequence[Sequence[Span]]) -> GoldScore:
    gold, caught, misses = Counter(), Counter(), Counter()
    words = kept = detected = correct = 0
    for item, spans in zip(corpus, found, strict=True):
        for value in item.values:
            if not value.scored:
                continue
            gold[value.entity_type] += 1
            if _covered(item.text, value, spans):
                caught[value.entity_type] += 1
            else:
                misses[value.entity_type, miss_category(item.text, value)] += 1
        for word in _WORD.finditer(item.text):
            if any(word.start() < v.end and v.start < word.end() for v in item.values):
                continue
            words += 1
            kept += not any(word.start() < end and start < word.end() for start, end in spans)
        detected += len(spans)
        correct += sum(any(start < v.end and v.start < end for v in item.values) for start, end in spans)
    types = tuple(TypeRecall(t, gold[t], caught[t]) for t in SCORED_TYPES.values())
    ranked = tuple((t, c, n) for (t, c), n in sorted(misses.items(), key=lambda kv: (-kv[1], kv[0])))
    return GoldScore(types, words, kept, detected, correct, ranked)


def trace2task_spans(scrubber) -> Callable[[Sequence[str]], list[list[Span]]]:
    """What `trace2task scrub` replaces when the texts are scrubbed together, as one JSON list."""
    return lambda texts: [[(f.start, f.end) for f in spans] for spans in scrubber.find_spans(list(texts))]


def presidio_defaults(spacy_model: str) -> Callable[[Sequence[str]], list[list[Span]]]:
    """Presidio's `AnalyzerEngine` with its default recognizers on the same spaCy model, threshold 0.35.

    One substitution: its e-mail recognizer validates domains with tldextract's module-level
    extractor, which fetches the public suffix list over the network; the offline subclass with
    the same pattern and score takes its place.
    """
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    from scrubbers.recognizers import OfflineEmailRecognizer

    provider = NlpEngineProvider(
        nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": spacy_model}]}
    )
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    analyzer.registry.remove_recognizer("EmailRecognizer")
    analyzer.registry.add_recognizer(OfflineEmailRecognizer(supported_language="en"))

    def spans(texts: Sequence[str]) -> list[list[Span]]:
        return [
            [(r.start, r.end) for r in analyzer.analyze(text, language="en", score_threshold=PRESIDIO_THRESHOLD)]
            for text in texts
        ]

    return spans


def table(columns: dict[str, GoldScore]) -> str:
    names = list(columns)
    lines = [f"{'':<22}" + "".join(f"{n:>20}" for n in names)]
    for entity_type in SCORED_TYPES.values():
        gold = next(t.gold for t in columns[names[0]].types if t.entity_type == entity_type)
        lines.append(
            f"{entity_type + f' ({gold})':<22}" + "".join(f"{columns[n].recall(entity_type):>20.1%}" for n in names)
        )
    lines.append(f"{'all eight types':<22}" + "".join(f"{columns[n].all_types:>20.1%}" for n in names))
    lines.append(f"{'precision (any gold)':<22}" + "".join(f"{columns[n].precision:>20.1%}" for n in names))
    lines.append(f"{'words kept':<22}" + "".join(f"{columns[n].kept:>20.1%}" for n in names))
    return "\n".join(lines)


def misses(result: GoldScore, limit: int = 12) -> str:
    return "\n".join(f"  {t:<16}{category:<20}{n:>5}" for t, category, n in result.misses[:limit])


def main(argv: Sequence[str] = ()) -> int:
    from scrubbers.config import ScrubConfig
    from scrubbers.scrubber import Scrubber

    path = Path(argv[0]) if argv else DEFAULT_CORPUS
    if not path.exists():
        print(f"gold corpus not found: {path}", file=sys.stderr)
        return 2
    config = ScrubConfig()
    ours = trace2task_spans(Scrubber(config, b"evaluation-only-secret"))
    presidio = presidio_defaults(config.spacy_model)
    development, held_out = split(load_corpus(path))
    for title, half in (("development half", development), ("held-out half", held_out)):
        texts = [t.text for t in half]
        results = {"trace2task": score(half, ours(texts)), "Presidio defaults": score(half, presidio(texts))}
        print(f"{path.name}, {title}: {len(half)} texts, {len({t.template_id for t in half})} templates")
        print(table(results))
        print("trace2task's misses by category:")
        print(misses(results["trace2task"]))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
