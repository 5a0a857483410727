"""People named by what they made ('the Nielsen novel', 'than early Fukuda?') and, in a text written all in
lower case, words English does not use ('why is yulan so impulsive?'): where capital letters say nothing,
a word no English text uses is a name far more often than anything else."""

from __future__ import annotations

import functools

import regex
from presidio_analyzer import LocalRecognizer, Pattern, RecognizerResult
from spacy.lang.en.stop_words import STOP_WORDS
from wordfreq import zipf_frequency

from scrubbers.recognizers.person import (
    _PLACE_CUE_BEFORE,
    ADDRESS_WORDS,
    NAME_LISTS,
    NOT_NAMES,
    ORG_CUE_AFTER,
    RARE_WORD_ZIPF,
    UNKNOWN_WORD_ZIPF,
    name_like,
)
from scrubbers.recognizers.preset import PresetPatternRecognizer

_WORKS = (
    r"novels?|novellas?|memoirs?|biography|biographies|autobiography|poems?|poetry|essays?|short[^\S\n]+stories|plays?"
    r"|paintings?|portraits?|sculptures?|symphony|symphonies|sonatas?|concertos?|operas?|lectures?|sermons?"
)
"""Works a person makes: 'the <name> novel' names its author. Not 'book', 'film', 'album', 'song', 'show':
a company, a series or a band makes those too ('the Kindle book', 'the Netflix show')."""
_PARTICLES = r"(?:(?:van|von|de|der|den|la|le|du|da|di|del|della|dos|ten|ter)[^\S\n]+)*"
_WORD = r"\p{L}[\p{L}'’-]*\p{L}"
_NOT_AFTER_EARLY = frozenset(
    {"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
     "december", "spring", "summer", "autumn", "fall", "winter", "morning", "afternoon", "evening", "night"}
)
"""What 'early' / 'late' qualify besides an artist's work: times of the year and of the day."""


class PersonWorkRecognizer(PresetPatternRecognizer):
    """An author before their work ('Unlike the Fry novel', 'the van Gijn memoir', 'a Schmitz painting') and an
    artist after 'early' / 'late' at a clause's end (their early or late work: 'than early Fukuda?', 'I prefer
    late Beethoven.'). Taken when each word could be a name and is one the name lists know or one English rarely
    uses ('Fry', 'Schmitz'; not 'the Gothic novel', 'in early June')."""

    ENTITY = "PERSON"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern(
            "Author before a work",
            rf"(?<=(?i:\b(?:the|a|an|this|that|his|her|their|my|your|one|another|every|each))[^\S\n]+)"
            rf"{_PARTICLES}{_WORD}(?:[^\S\n]+{_WORD})?(?=[^\S\n]+(?i:{_WORKS})\b)",
            0.55,
        ),
        Pattern(
            "Early or late work",
            rf"(?<=(?i:\b(?:early|late|later))[^\S\n]+){_PARTICLES}{_WORD}(?=[^\S\n]*(?:[?!;,]|\.(?:\s|$)|$))",
            0.5,
        ),
    ]
    CONTEXT = ["novel", "book", "author", "writer", "artist", "early"]
    CUES = regex.compile(rf"(?i)\b(?:{_WORKS}|early|late|later)\b")

    def validate_result(self, pattern_text: str) -> bool | None:
        words = pattern_text.split()
        if len(words) > 1:
            words = [w for w in words if w not in _PARTICLE_SET]
        for word in (w.lower() for w in words):
            if word in _NOT_AFTER_EARLY or not name_like(word) or not (word in NAME_LISTS or _frequency(word) < RARE_WORD_ZIPF):
                return False
        return None


_PARTICLE_SET = frozenset({"van", "von", "de", "der", "den", "la", "le", "du", "da", "di", "del", "della", "dos", "ten", "ter"})


class LowerCaseRareWordRecognizer(LocalRecognizer):
    """In a text with no capital letter at all, a word of three letters or more that English text practically
    never uses (wordfreq's Zipf frequency below `UNKNOWN_WORD_ZIPF`: 'quirion', 'söderberg', 'natasja'), not
    after a place cue ('in', 'near', 'city') or a determiner ('my itin') nor before a company's word ('office',
    'company'), not part of an e-mail,
    a handle, a path or an id, nor without a vowel ('grpc'); nor in machine text (a log line, code: `_MACHINE_TEXT`).
    A lower-case text gives no capital to tell a name by; a word no English text
    uses is then a name far more often than anything else (misspellings aside)."""

    SCORE = 0.5
    WORD = regex.compile(r"(?<![\w@.#/'’&+-])\p{Ll}{3,}(?:[-'’]\p{Ll}+)*(?![\w@&+-]|\.\w)")
    CUES = regex.compile(r"\A[^\p{Lu}]*\Z")
    """Runs only on texts with no capital letter."""

    def __init__(self, supported_language: str = "en", score: float | None = None) -> None:
        self.score = self.SCORE if score is None else score
        self.cues = self.CUES
        super().__init__(supported_entities=["PERSON"], name="LowerCaseRareWordRecognizer", supported_language=supported_language)

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        if not self.CUES.match(text) or _MACHINE_TEXT.search(text):
            return []
        results = []
        for match in self.WORD.finditer(text):
            word = match.group()
            end = match.end() - 2 if word[-2:] in ("'s", "’s") else match.end()
            lower = text[match.start() : end]
            if lower in NOT_NAMES or lower in ADDRESS_WORDS or lower in STOP_WORDS or _frequency(lower) >= UNKNOWN_WORD_ZIPF:
                continue
            if not _VOWEL.search(lower):
                continue  # 'grpc', 'kbd': an abbreviation, not a name
            if lower not in NAME_LISTS and misspelt(lower):
                continue  # 'i wnat to', 'becuase': a customer's typo, one slip away from a word everybody writes
            if _PLACE_CUE_BEFORE.search(text, max(0, match.start() - 12), match.start()) or ORG_CUE_AFTER.match(text, match.end()):
                continue  # 'grew up in kistarcsa', 'the xignite office': a place, a company
            if _DETERMINER_BEFORE.search(text, max(0, match.start() - 8), match.start()):
                continue  # 'my itin', 'the upi': a thing's name or an acronym in lower case; a person needs no determiner
            results.append(RecognizerResult("PERSON", match.start(), end, self.score))
        return results


_MACHINE_TEXT = regex.compile(r"[_=/\\{}\[\]<>|`]|::|\(\)|\b(?=[a-z]*\d)(?=\d*[a-z])[a-z\d]{2,}\b")
"""What only machine text holds (a log line, a command, code: 'grpc timeout calling redis: key=…', 'uuid v4'):
snake_case, paths, brackets, assignments, words of letters and digits. Its rare words are tools and terms
('kubectl', 'webhook', 'idempotency'), not people."""
TYPO_TARGET_ZIPF = 5.0
"""A word this frequent ('want' 6.3, 'because' 6.2, 'received' 5.0) is what a rare word one slip away from it was meant to be."""
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@functools.lru_cache(maxsize=1 << 14)
def misspelt(word: str) -> bool:
    """Whether `word` (lower case, four letters or more) is one typing slip (Norvig's edits: two letters swapped, one
    dropped, doubled or struck for another) away from a word English writes all the time (`TYPO_TARGET_ZIPF`)."""
    if len(word) < 4:
        return False
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    edits |= {a + b[1:] for a, b in splits if b}
    edits |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    edits |= {a + c + b for a, b in splits for c in _LETTERS}
    return any(_frequency(edit) >= TYPO_TARGET_ZIPF for edit in edits - {word})


_VOWEL = regex.compile(r"[aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿœ]")
_DETERMINER_BEFORE = regex.compile(r"(?<![\w-])(?:my|your|his|her|our|their|its|the|a|an|this|that)[^\S\n]+\Z")


@functools.lru_cache(maxsize=1 << 16)
def _frequency(word: str) -> float:
    return zipf_frequency(word, "en")


_PEOPLE_NOUNS = (
    r"founders|co-founders|cofounders|partners|members|authors|owners|guests|speakers|winners|directors|judges|players"
    r"|candidates|organi[sz]ers|hosts|attendees|participants|witnesses|signatories|heirs|beneficiaries|tenants|roommates"
)
_LIST_WORD = r"\p{L}[\p{L}'’-]*\p{L}"
_PEOPLE_LIST = regex.compile(
    rf"(?i:\b(?:{_PEOPLE_NOUNS}))[^\S\n]*:[^\S\n]*({_LIST_WORD}(?:[^\S\n]*,[^\S\n]*{_LIST_WORD}){{0,5}}"
    rf"(?:[^\S\n]*,?[^\S\n]+(?:and|&)[^\S\n]+{_LIST_WORD}))(?=[^\S\n]*(?:[.;!?\n]|$))"
)
_LIST_MEMBER = regex.compile(_LIST_WORD)


class PersonListRecognizer(LocalRecognizer):
    """One-word names listed after a plural noun of people and a colon ('our 3 founders: bulgakov, ali and howard',
    'guests: Mina, Oskar and Lena'), to the sentence's end: each a person when every member could be a name (one a
    list knows or one English rarely uses) and one of them is a listed name."""

    SCORE = 0.55
    CUES = regex.compile(rf"(?i:\b(?:{_PEOPLE_NOUNS}))[^\S\n]*:")

    def __init__(self, supported_language: str = "en", score: float | None = None) -> None:
        self.score = self.SCORE if score is None else score
        self.cues = self.CUES
        super().__init__(supported_entities=["PERSON"], name="PersonListRecognizer", supported_language=supported_language)

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        results = []
        for listed in _PEOPLE_LIST.finditer(text):
            members = [m for m in _LIST_MEMBER.finditer(text, listed.start(1), listed.end(1)) if m.group().lower() not in ("and",)]
            words = [m.group().lower() for m in members]
            could_be = all(name_like(w) and (w in NAME_LISTS or _frequency(w) < RARE_WORD_ZIPF) for w in words)
            if could_be and any(w in NAME_LISTS for w in words):
                results += [RecognizerResult("PERSON", m.start(), m.end(), self.score) for m in members]
        return results
