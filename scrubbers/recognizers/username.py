"""Usernames: 'username: x', 'login x', 'handle x' and '@handle' mentions."""

from __future__ import annotations

import regex
from presidio_analyzer import Pattern, PatternRecognizer

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


class UsernameRecognizer(PatternRecognizer):
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

    def __init__(self, supported_language: str = "en") -> None:
        super().__init__(
            supported_entity="USERNAME",
            name="UsernameRecognizer",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            supported_language=supported_language,
            global_regex_flags=regex.MULTILINE,
        )

    def validate_result(self, pattern_text: str) -> bool | None:
        return False if pattern_text.lower() in NOT_HANDLES else None
