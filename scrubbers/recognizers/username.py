"""Usernames: 'username: x', 'login x', 'handle x' and '@handle' mentions, and ids built from a name
('fatima_johnson_7581') wherever they appear."""

from __future__ import annotations

import regex
from presidio_analyzer import Pattern
from wordfreq import zipf_frequency

from scrubbers.recognizers.person import FIRST_NAMES, LAST_NAMES, RARE_WORD_ZIPF, WORLD_FIRST_NAMES, WORLD_LAST_NAMES
from scrubbers.recognizers.preset import PresetPatternRecognizer

NOT_HANDLES = frozenset(
    {
        "again", "attempt", "attempts", "button", "credentials", "details", "error", "failed",
        "failure", "fails", "form", "issue", "issues", "link", "page", "problem", "screen",
        "succeeded", "the", "with", "works", "worked", "not", "and", "but", "for", "was", "is",
        "name", "required", "here", "there", "help", "info", "me", "my", "your", "email",
    }
)
_CUE = r"(?<=(?i:\buser[^\S\n]?name|\buser[^\S\n]?id|\blogin|\bhandle|\bscreen[^\S\n]name|\bgamertag)"
_HANDLE = r"[A-Za-z0-9][A-Za-z0-9._-]{1,30}[A-Za-z0-9_]"


class UsernameRecognizer(PresetPatternRecognizer):
    ENTITY = "USERNAME"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern(
            "Labelled username",
            _CUE + r"(?:[^\S\n]+is[^\S\n]+|[^\S\n]*[:=][^\S\n]*)[\"'`]?)" + _HANDLE + r"(?![\w@.]*@)",
            0.6,
        ),
        Pattern(
            "Username-shaped word after a cue",
            _CUE + r"[^\S\n]+)(?=[A-Za-z0-9-]*[._\d])" + _HANDLE + r"(?![\w@.]*@)",
            0.6,
        ),
        Pattern("Mention", r"(?<=(?<![\w.@/])@)[A-Za-z0-9_]{2,30}\b(?!\.[A-Za-z])", 0.6),
    ]
    CONTEXT = ["username", "user", "login", "handle", "account"]

    def validate_result(self, pattern_text: str) -> bool | None:
        return False if pattern_text.lower() in NOT_HANDLES else None


NAME_BUILT_ID = regex.compile(r"(?<![\w.@/-])(\p{Ll}+)_(\p{Ll}+)_(\d{2,})(?![\w@]|-\w)")
"""A user id made of a first name, a last name and a number, as tau-bench makes them ('fatima_johnson_7581')."""
_NAMES = FIRST_NAMES | LAST_NAMES | WORLD_FIRST_NAMES | WORLD_LAST_NAMES


def _name_part(word: str) -> bool:
    return word in _NAMES or zipf_frequency(word, "en") < RARE_WORD_ZIPF


def name_built(value: str) -> bool:
    """Whether `value` is a name-built id: one of its two words is in a name list or rare in English
    ('raj_kovacs_9859'), so not two ordinary words ('credit_card_9513926', 'gift_card_1725971')."""
    match = NAME_BUILT_ID.fullmatch(value)
    return bool(match) and (_name_part(match.group(1)) or _name_part(match.group(2)))


def name_built_ids(text: str) -> list[tuple[int, int]]:
    """Spans of the name-built ids in `text`."""
    return [m.span() for m in NAME_BUILT_ID.finditer(text) if name_built(m.group())]


class NameBuiltIdRecognizer(PresetPatternRecognizer):
    """An id built from a person's name carries the name: it is replaced by one of the same shape."""

    ENTITY = "USERNAME"
    PATTERNS = [Pattern("Name-built id", NAME_BUILT_ID.pattern, 0.6)]
    CONTEXT = ["user", "id", "account", "customer"]
    CUES = regex.compile(r"\p{Ll}_\p{Ll}+_\d")

    def validate_result(self, pattern_text: str) -> bool | None:
        return None if name_built(pattern_text) else False
