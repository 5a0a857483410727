"""The shape of trace2task's pattern recognizers, after Presidio's predefined ones: what they find is
set in class constants, and each constant may be overridden through the constructor."""

from __future__ import annotations

import re
from typing import ClassVar

from presidio_analyzer import Pattern, PatternRecognizer


class PresetPatternRecognizer(PatternRecognizer):
    """A Presidio `PatternRecognizer` whose entity, patterns, context words and regex flags are the
    class constants `ENTITY`, `PATTERNS`, `CONTEXT` and `FLAGS`; the constructor's arguments replace them.

    `CUES`, when set, is a pattern every match of `PATTERNS` needs somewhere in the text: the detector
    runs the recognizer only on texts where it is found. A recognizer given other patterns has the
    `cues` it is given (none by default: it runs on every text).
    """

    ENTITY: ClassVar[str]
    PATTERNS: ClassVar[list[Pattern]]
    CONTEXT: ClassVar[list[str]] = []
    FLAGS: ClassVar[int] = re.DOTALL | re.MULTILINE | re.IGNORECASE
    """Presidio's default flags; most recognizers here set their own."""
    CUES: ClassVar[re.Pattern | None] = None

    def __init__(
        self,
        patterns: list[Pattern] | None = None,
        context: list[str] | None = None,
        supported_language: str = "en",
        supported_entity: str | None = None,
        name: str | None = None,
        global_regex_flags: int | None = None,
        cues: re.Pattern | None = None,
    ) -> None:
        super().__init__(
            supported_entity=supported_entity or self.ENTITY,
            name=name,
            patterns=self.PATTERNS if patterns is None else patterns,
            context=self.CONTEXT if context is None else context,
            supported_language=supported_language,
            global_regex_flags=self.FLAGS if global_regex_flags is None else global_regex_flags,
        )
        self.cues = self.CUES if patterns is None else cues
