"""The spaCy side of detection: Presidio's NLP engine with only the model's NER, and lazy artifacts."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

import spacy
from presidio_analyzer.nlp_engine import NlpArtifacts, SpacyNlpEngine
from spacy.tokens import Doc

NER_COMPONENTS = ("ner",)
"""en_core_web_sm's `ner` carries its own tok2vec; tagger, parser and lemmatizer only cost time.
Context words are matched on lower-cased tokens instead of lemmas (Presidio matches substrings)."""


class NerOnlySpacyNlpEngine(SpacyNlpEngine):
    """Presidio's spaCy engine loading an installed model with only its NER component; never downloads."""

    def load(self) -> None:
        self.nlp = {}
        for model in self.models:
            name = model["model_name"]
            if not spacy.util.is_package(name):
                raise RuntimeError(f"spaCy model package {name!r} is not installed")
            pipeline = spacy.load(name)
            self.nlp[model["lang_code"]] = spacy.load(
                name, exclude=[c for c in pipeline.component_names if c not in NER_COMPONENTS]
            )

    def artifacts_batch(self, texts: Sequence[str], language: str, batch_size: int) -> Iterator[NlpArtifacts]:
        """Presidio's `process_batch` (one `nlp.pipe` pass, the same artifacts in the same order) without
        rebuilding each text from its doc's tokens (`doc.text`), which cost a fifth of the model's time."""
        for doc in self.nlp[language].pipe(texts, batch_size=batch_size):
            yield self._doc_to_nlp_artifact(doc, language)

    def without_ner(self, text: str, language: str) -> NlpArtifacts:
        """Artifacts of a text no name can be in: its tokens (for context words), no entities."""
        return LazyNlpArtifacts([], self.nlp[language].make_doc(text), self, language, [])

    def _doc_to_nlp_artifact(self, doc: Doc, language: str) -> NlpArtifacts:
        entities, scores = self._get_updated_entities(self._get_entities(doc), self._get_scores_for_entities(doc))
        return LazyNlpArtifacts(entities, doc, self, language, scores)


class LazyNlpArtifacts(NlpArtifacts):
    """Presidio's artifacts with token offsets, 'lemmas' and keywords built only when a context
    check asks for them (most texts have no finding that needs one)."""

    def __init__(self, entities: list, tokens: Doc, nlp_engine: SpacyNlpEngine, language: str, scores: list[float]) -> None:
        self.entities = entities
        self.tokens = tokens
        self.nlp_engine = nlp_engine
        self.language = language
        self.scores = scores if scores else [0.85] * len(entities)

    @functools.cached_property
    def tokens_indices(self) -> list[int]:
        return [token.idx for token in self.tokens]

    @functools.cached_property
    def lemmas(self) -> list[str]:
        return [token.lower_ for token in self.tokens]

    @functools.cached_property
    def keywords(self) -> list[str]:
        return self.set_keywords(self.nlp_engine, self.lemmas, self.language)
