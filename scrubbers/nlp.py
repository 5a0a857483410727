"""The spaCy side of detection: Presidio's NLP engine with only the model's NER, and lazy artifacts."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import spacy
from presidio_analyzer.nlp_engine import NlpArtifacts, SpacyNlpEngine
from spacy.tokens import Doc
from spacy.util import filter_spans

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

    SHARED_LINE_CHARS = 80
    """A line at least this long that several texts of a batch hold (a system prompt's template before the
    customer's id, a signature) goes through the model once; the lines around it go through it apart."""

    def artifacts_batch(self, texts: Sequence[str], language: str, batch_size: int) -> Iterator[NlpArtifacts]:
        """Presidio's `process_batch` (one `nlp.pipe` pass, the same artifacts in the same order) without
        rebuilding each text from its doc's tokens (`doc.text`), which cost a fifth of the model's time.

        A text holding a shared line (`SHARED_LINE_CHARS`) is read in pieces: the shared line once for the
        whole batch, each run of its other lines on its own; the entities found in the pieces are placed
        on the whole text's tokens. Every other text goes through the model whole, as before."""
        nlp = self.nlp[language]
        pieces = split_at_shared_lines(texts, self.SHARED_LINE_CHARS)
        docs = nlp.pipe(_model_inputs(texts, pieces), batch_size=batch_size)
        shared: dict[str, Doc] = {}
        for text, text_pieces in zip(texts, pieces):
            if text_pieces is None:
                yield self._doc_to_nlp_artifact(next(docs), language)
                continue
            whole = nlp.make_doc(text)
            entities = []
            for offset, piece, is_shared in text_pieces:
                if is_shared and piece not in shared:
                    shared[piece] = next(docs)
                doc = shared[piece] if is_shared else next(docs)
                entities += [
                    whole.char_span(offset + e.start_char, offset + e.end_char, label=e.label_, alignment_mode="expand")
                    for e in doc.ents
                ]
            whole.ents = filter_spans([e for e in entities if e is not None])  # pieces never overlap; kept safe
            yield self._doc_to_nlp_artifact(whole, language)

    def without_ner(self, text: str, language: str) -> NlpArtifacts:
        """Artifacts of a text no name can be in: its tokens (for context words), no entities."""
        return LazyNlpArtifacts([], self.nlp[language].make_doc(text), self, language, [])

    def _doc_to_nlp_artifact(self, doc: Doc, language: str) -> NlpArtifacts:
        entities, scores = self._get_updated_entities(self._get_entities(doc), self._get_scores_for_entities(doc))
        return LazyNlpArtifacts(entities, doc, self, language, scores)


Pieces = list[tuple[int, str, bool]]
"""A text's pieces for the model: (offset in the text, the piece, whether it is a shared line)."""


def split_at_shared_lines(texts: Sequence[str], min_chars: int) -> list[Pieces | None]:
    """Each text's pieces when it holds a line of at least `min_chars` characters that another text of
    `texts` holds too (that line alone, and each run of lines between such lines); None for a text without one."""
    counts = Counter(line for text in texts if "\n" in text for line in set(text.split("\n")) if len(line) >= min_chars)
    shared = {line for line, count in counts.items() if count > 1}
    return [_pieces(text, shared) if shared and "\n" in text else None for text in texts]


def _pieces(text: str, shared: set[str]) -> Pieces | None:
    pieces: Pieces = []
    run_start = offset = 0
    for line in text.split("\n"):
        if line in shared:
            if offset - 1 > run_start:  # the lines before it, without the newline that ends them
                pieces.append((run_start, text[run_start : offset - 1], False))
            pieces.append((offset, line, True))
            run_start = offset + len(line) + 1
        offset += len(line) + 1
    if not any(is_shared for _, _, is_shared in pieces):
        return None
    if run_start < len(text):
        pieces.append((run_start, text[run_start:], False))
    return pieces


def _model_inputs(texts: Sequence[str], pieces: Sequence[Pieces | None]) -> Iterable[str]:
    """What the model reads, in the order `artifacts_batch` asks for it: a whole text, or a text's pieces
    with each shared line only the first time it comes."""
    seen: set[str] = set()
    for text, text_pieces in zip(texts, pieces):
        if text_pieces is None:
            yield text
            continue
        for _, piece, is_shared in text_pieces:
            if is_shared:
                if piece in seen:
                    continue
                seen.add(piece)
            yield piece


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
