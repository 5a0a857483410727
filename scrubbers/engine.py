"""Presidio detection, built once per process per `ScrubConfig`, batched over spaCy's `nlp.pipe`."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import spacy
from presidio_analyzer import AnalyzerEngine, EntityRecognizer, RecognizerRegistry
from presidio_analyzer.nlp_engine import NerModelConfiguration, NlpArtifacts, SpacyNlpEngine
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    IbanRecognizer,
    IpRecognizer,
    SpacyRecognizer,
    UsSsnRecognizer,
)
from spacy.tokens import Doc

from scrubbers.config import ScrubConfig
from scrubbers.recognizers import (
    DateOfBirthRecognizer,
    OfflineEmailRecognizer,
    PersonalUrlRecognizer,
    PersonContextRecognizer,
    PersonNameListRecognizer,
    StreetAddressRecognizer,
    UsernameRecognizer,
    ValidPhoneRecognizer,
)
from scrubbers.recognizers.person import NOT_NAMES
from scrubbers.residual import ResidualScanner

NER_COMPONENTS = ("ner",)
"""en_core_web_sm's `ner` carries its own tok2vec; tagger, parser and lemmatizer only cost time.
Context words are matched on lower-cased tokens instead of lemmas (Presidio matches substrings)."""


@dataclass(frozen=True, order=True)
class Finding:
    """One detected span of a text."""

    start: int
    end: int
    entity_type: str
    score: float


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

    def _doc_to_nlp_artifact(self, doc: Doc, language: str) -> NlpArtifacts:
        entities, scores = self._get_updated_entities(self._get_entities(doc), self._get_scores_for_entities(doc))
        return NlpArtifacts(
            entities=entities,
            tokens=doc,
            tokens_indices=[token.idx for token in doc],
            lemmas=[token.lower_ for token in doc],
            nlp_engine=self,
            language=language,
            scores=scores,
        )



def _recognizer_factories(config: ScrubConfig) -> dict[str, Callable[[], list[EntityRecognizer]]]:
    lang = config.language
    return {
        "PERSON": lambda: [
            SpacyRecognizer(supported_language=lang, supported_entities=["PERSON"]),
            PersonContextRecognizer(lang),
            PersonNameListRecognizer(lang),
        ],
        "EMAIL_ADDRESS": lambda: [OfflineEmailRecognizer(lang)],
        "PHONE_NUMBER": lambda: [ValidPhoneRecognizer(config.phone_regions, lang)],
        "STREET_ADDRESS": lambda: [StreetAddressRecognizer(lang)],
        "CREDIT_CARD": lambda: [CreditCardRecognizer(supported_language=lang)],
        "IBAN_CODE": lambda: [IbanRecognizer(supported_language=lang)],
        "US_SSN": lambda: [UsSsnRecognizer(supported_language=lang)],
        "IP_ADDRESS": lambda: [IpRecognizer(supported_language=lang)],
        "DATE_OF_BIRTH": lambda: [DateOfBirthRecognizer(lang)],
        "USERNAME": lambda: [UsernameRecognizer(lang)],
        "URL": lambda: [PersonalUrlRecognizer(lang)],
    }


def _registry(config: ScrubConfig, entities: Sequence[str]) -> RecognizerRegistry:
    factories = _recognizer_factories(config)
    unknown = sorted(set(entities) - set(factories))
    if unknown:
        raise ValueError(f"no recognizer for entity types {unknown}")
    registry = RecognizerRegistry(supported_languages=[config.language])
    for entity in sorted(set(entities)):
        for recognizer in factories[entity]():
            registry.add_recognizer(recognizer)
    return registry


def resolve_overlaps(findings: Sequence[Finding]) -> list[Finding]:
    """Keep the longest (then highest-scoring) of overlapping findings; sorted by position."""
    chosen: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.start - f.end, -f.score, f.start, f.entity_type)):
        if all(finding.end <= kept.start or finding.start >= kept.end for kept in chosen):
            chosen.append(finding)
    return sorted(chosen)


def tidy_people(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """Trim cue words NER includes ('Dear Jane' -> 'Jane') and join adjacent name pieces on a line."""
    trimmed = []
    for f in findings:
        start = f.start
        if f.entity_type == "PERSON":
            while (match := re.match(r"([^\W\d_]+)[.,:]?\s+", text[start : f.end])) and match.group(1).lower() in NOT_NAMES:
                start += match.end()
            if text[start : f.end].strip(",: ").lower() in NOT_NAMES:
                continue
        trimmed.append(Finding(start, f.end, f.entity_type, f.score))
    merged: list[Finding] = []
    for f in resolve_overlaps(trimmed):
        previous = merged[-1] if merged else None
        if previous and f.entity_type == previous.entity_type == "PERSON" and re.fullmatch(r"[^\S\n]+", text[previous.end : f.start]):
            merged[-1] = Finding(previous.start, f.end, "PERSON", max(previous.score, f.score))
        else:
            merged.append(f)
    return merged


class Detector:
    """The configured analyzer plus the protected-identifier filter."""

    def __init__(self, config: ScrubConfig) -> None:
        self.config = config
        self.nlp_engine = NerOnlySpacyNlpEngine(
            models=[{"lang_code": config.language, "model_name": config.spacy_model}],
            ner_model_configuration=NerModelConfiguration(),
        )
        self.nlp_engine.load()
        self.analyzer = AnalyzerEngine(
            registry=_registry(config, config.entities),
            nlp_engine=self.nlp_engine,
            supported_languages=[config.language],
        )
        self.residual = ResidualScanner(config.leak_entities, config.phone_regions)
        self._protected = [re.compile(p) for p in config.protected_patterns]

    @property
    def nlp(self) -> spacy.language.Language:
        return self.nlp_engine.get_nlp(self.config.language)

    def protected_spans(self, text: str) -> list[tuple[int, int]]:
        return sorted(m.span() for pattern in self._protected for m in pattern.finditer(text) if m.end() > m.start())

    def unprotected(self, text: str, findings: Sequence[Finding]) -> list[Finding]:
        """Drop every finding that overlaps a protected identifier (order id, amount, status, ...)."""
        spans = self.protected_spans(text)
        return [f for f in findings if all(f.end <= start or f.start >= end for start, end in spans)]

    def analyze_batch(self, texts: Sequence[str]) -> list[list[Finding]]:
        """Findings per text (protected spans removed, overlaps resolved); one `nlp.pipe` pass."""
        lang = self.config.language
        results: list[list[Finding]] = []
        batch = self.nlp_engine.process_batch(list(texts), lang, batch_size=self.config.batch_size)
        for text, artifacts in batch:
            raw = self.analyzer.analyze(
                text,
                language=lang,
                entities=list(self.config.entities),
                nlp_artifacts=artifacts,
                score_threshold=self.config.score_threshold,
            )
            findings = [Finding(r.start, r.end, r.entity_type, round(r.score, 4)) for r in raw]
            results.append(tidy_people(text, self.unprotected(text, findings)))
        return results

    def residual_findings(self, text: str) -> list[Finding]:
        """Validated leak-gate types in already-scrubbed text (regex and checksums only, no tokenization)."""
        findings = [Finding(start, end, entity, 1.0) for start, end, entity in self.residual.find(text)]
        return resolve_overlaps(self.unprotected(text, findings))


@functools.lru_cache(maxsize=4)
def get_detector(config: ScrubConfig) -> Detector:
    """One detector (spaCy model + analyzers) per process for each distinct config."""
    return Detector(config)
