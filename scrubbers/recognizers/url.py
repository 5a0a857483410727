"""URLs that identify a person: profile paths (linkedin.com/in/jane-doe) or personal query values."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit

import regex
from presidio_analyzer import Pattern

from scrubbers.recognizers.preset import PresetPatternRecognizer

PROFILE_SEGMENTS = frozenset(
    {"in", "u", "user", "users", "profile", "profiles", "people", "member", "members", "author", "customer", "customers", "account", "accounts"}
)
PERSONAL_QUERY_KEYS = frozenset(
    {"email", "e", "mail", "user", "username", "name", "login", "handle", "customer", "customer_email", "phone", "first_name", "last_name", "full_name"}
)


def personal_url_parts(url: str) -> list[str]:
    """The decoded path segments / query values of `url` that identify a person."""
    target = url if "://" in url else "https://" + url
    try:
        parts = urlsplit(target)
    except ValueError:
        return []
    segments = [unquote(s) for s in parts.path.split("/") if s]
    personal = [
        segment
        for previous, segment in zip(["", *segments], segments)
        if previous.lower() in PROFILE_SEGMENTS or segment.startswith(("@", "~"))
    ]
    personal += [value for key, value in parse_qsl(parts.query) if key.lower() in PERSONAL_QUERY_KEYS and value]
    personal += [segment for segment in segments if "@" in segment.strip("@")]
    return personal


class PersonalUrlRecognizer(PresetPatternRecognizer):
    """Only URLs carrying a personal part; links to docs or order pages are left alone."""

    ENTITY = "URL"
    FLAGS = regex.MULTILINE | regex.IGNORECASE
    PATTERNS = [
        Pattern("URL", r"\b(?:https?://|www\.)[^\s<>\"'`)\]]+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/(?:in|u|user|users|profile|people)/[^\s<>\"'`)\]]+", 0.6),
    ]
    CONTEXT = ["profile", "url", "link", "page"]

    def validate_result(self, pattern_text: str) -> bool | None:
        return None if personal_url_parts(pattern_text.rstrip(".,;:!?")) else False
