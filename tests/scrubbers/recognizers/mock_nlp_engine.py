"""A Presidio NLP engine for recognizer unit tests that loads no model, after the `NlpEngineMock` of
Presidio's own tests: the artifacts a recognizer sees are built from spaCy's rule-based English
tokenizer (no trained pipeline), with lower-cased tokens as lemmas as the detector's `LazyNlpArtifacts`
has them, and with the named entities a test says the model would tag.

`found` runs one recognizer's `analyze` on a text and then Presidio's context enhancement, as the
detector does: what it returns is what that recognizer alone would contribute to the findings."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping

import spacy
from presidio_analyzer import EntityRecognizer
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
from presidio_analyzer.nlp_engine import NlpArtifacts, NlpEngine

THRESHOLD = 0.5
"""`ScrubConfig.score_threshold`'s default: a result below it is not a finding."""


class MockNlpEngine(NlpEngine):
    """`ner` maps a span of text to the label the model would give it wherever it appears
    ({"Judy Smith": "PERSON"}); without it no entity is tagged."""

    def __init__(self, ner: Mapping[str, str] | None = None, language: str = "en") -> None:
        self.ner = dict(ner or {})
        self.language = language
        self.nlp = spacy.blank(language)

    def load(self) -> None:
        pass

    def is_loaded(self) -> bool:
        return True

    def process_text(self, text: str, language: str) -> NlpArtifacts:
        doc = self.nlp.make_doc(text)
        entities = []
        for span, label in self.ner.items():
            start = text.find(span)
            while start != -1:
                entities.append(doc.char_span(start, start + len(span), label=label, alignment_mode="expand"))
                start = text.find(span, start + 1)
        entities.sort(key=lambda entity: entity.start_char)
        return NlpArtifacts(
            entities=entities,
            tokens=doc,
            tokens_indices=[token.idx for token in doc],
            lemmas=[token.lower_ for token in doc],
            nlp_engine=self,
            language=language,
        )

    def process_batch(self, texts: Iterable[str], language: str, batch_size: int = 1, n_process: int = 1, **kwargs) -> Iterator[tuple[str, NlpArtifacts]]:
        for text in texts:
            yield text, self.process_text(text, language)

    def is_stopword(self, word: str, language: str) -> bool:
        return self.nlp.vocab[word].is_stop

    def is_punct(self, word: str, language: str) -> bool:
        return self.nlp.vocab[word].is_punct

    def get_supported_entities(self) -> list[str]:
        return sorted(set(self.ner.values()))

    def get_supported_languages(self) -> list[str]:
        return [self.language]


def found(recognizer: EntityRecognizer, text: str, nlp_engine: NlpEngine | None = None, threshold: float = THRESHOLD) -> list[str]:
    """The spans of `text` `recognizer` finds at or above `threshold`, context words counted, in order."""
    engine = nlp_engine or _plain_engine()
    artifacts = engine.process_text(text, recognizer.supported_language)
    results = recognizer.analyze(text, recognizer.supported_entities, artifacts) or []
    results = LemmaContextAwareEnhancer().enhance_using_context(text, results, artifacts, [recognizer])
    return [text[r.start : r.end] for r in sorted(results, key=lambda r: (r.start, r.end)) if r.score >= threshold]


@functools.cache
def _plain_engine() -> MockNlpEngine:
    return MockNlpEngine()
