"""What a customer's words after the agent's claim of success say: that it did not work, that it did, or neither.

Two readings, both configuration (`taxonomy.yaml`): complaint phrases per language (`complaint_language`,
matched on whole words: the explanation, and the only reading without the meaning model), and by meaning,
the nearest labelled follow-ups (`followup_examples`: `contradicts` and `confirms`, the same sentence
embeddings as intent by meaning), each moved by its cue words (`followup_cues`: "not", "again", "thanks"),
which sentence embeddings hardly see. A follow-up whose meaning confirms the claim with at least
`followup_confidence` is no complaint, even where a phrase matches ("it came on Thursday, as you said"); one
whose meaning contradicts it with that confidence is a complaint where no phrase names it ("opened the box:
red again"). The texts are matched, never stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from taskgen import meaning

if TYPE_CHECKING:
    from taskgen.taxonomy import Taxonomy

CONTRADICTS, CONFIRMS = "contradicts", "confirms"


def normalized(text: str) -> str:
    return text.lower().replace("\u2019", "'").replace("\u2018", "'")


def contains_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(word.lower())}(?![a-z0-9])", text) is not None


def matched_language(text: str, phrases_by_language: dict[str, list[str]]) -> str | None:
    """The first language (in configuration order) one of whose phrases occurs in `text`."""
    text = normalized(text)
    for language, phrases in phrases_by_language.items():
        if any(contains_word(text, normalized(phrase)) for phrase in phrases):
            return language
    return None


@cache
def _model(examples_json: str) -> meaning.MeaningModel:
    return meaning.MeaningModel(json.loads(examples_json))


def reading(texts: Sequence[str], taxonomy: Taxonomy, confidence: float | None = None) -> str | None:
    """`contradicts` or `confirms` when the follow-up's meaning says so with at least `confidence` (by default
    `followup_confidence`); None when it does not, when the taxonomy has no follow-up examples, or without the
    meaning model."""
    examples = taxonomy.followup_examples
    if not (examples.get(CONTRADICTS) and examples.get(CONFIRMS)) or not meaning.available():
        return None
    scores = _model(json.dumps(examples, sort_keys=True)).score([text for text in texts if text.strip()])
    if scores is None:
        return None
    values = dict(scores.scores)
    for label in values:  # sentence embeddings hardly see a "not": the cue words say it
        values[label] += CUE_WEIGHT * cue_count(texts, taxonomy.followup_cues.get(label, {}))
    best = max(sorted(values), key=lambda label: values[label])
    needed = taxonomy.followup_confidence if confidence is None else confidence
    return best if meaning.confidence(list(values.values())) >= needed else None


CUE_WEIGHT = 0.05
"""Added to a reading's similarity for each of its cue words (`followup_cues`) in the follow-up."""


def cue_count(texts: Sequence[str], cues_by_language: dict[str, list[str]]) -> int:
    """How many of the cue words (any language) occur in `texts`, each counted once."""
    text = normalized(" ".join(texts))
    return sum(contains_word(text, normalized(cue)) for cues in cues_by_language.values() for cue in cues)


def contrary_kind(texts: Sequence[str], taxonomy: Taxonomy, claimed: bool = True) -> str | None:
    """The signal kind by which the follow-up `texts` say the claimed success did not happen, else None:
    `complaint_language:<language>` (a phrase), or `contradiction_meaning` (no phrase; the meaning says so).
    The meaning reads only words after a claim of success (`claimed`: in words or by a state-changing call):
    before any claim, a customer telling what went wrong is the request, and the phrases alone decide."""
    read = reading(texts, taxonomy) if claimed else None
    if read == CONFIRMS:
        return None
    language = next((found for text in texts if (found := matched_language(text, taxonomy.complaint_language))), None)
    if language is not None:
        return f"complaint_language:{language}"
    return "contradiction_meaning" if read == CONTRADICTS else None


def confirms(texts: Sequence[str], taxonomy: Taxonomy) -> bool:
    """The follow-up's meaning confirms the claimed success (thanks, it arrived) with at least `followup_confidence`:
    a later contact that only mentions the same request is then no repeat of it."""
    return reading(texts, taxonomy) == CONFIRMS
