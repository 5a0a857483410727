"""Person names spaCy's small model misses: after titles, greetings, introductions, sign-offs,
and capitalised 'First Last' pairs found in Faker's US name lists."""

from __future__ import annotations

import regex
from faker.providers.person.de_DE import Provider as DePerson
from faker.providers.person.en_GB import Provider as GbPerson
from faker.providers.person.en_IN import Provider as InPerson
from faker.providers.person.en_US import Provider as UsPerson
from faker.providers.person.es_ES import Provider as EsPerson
from faker.providers.person.fr_FR import Provider as FrPerson
from presidio_analyzer import Pattern, PatternRecognizer
from spacy.lang.en.stop_words import STOP_WORDS

_PROVIDERS = (UsPerson, GbPerson, InPerson, EsPerson, FrPerson, DePerson)
FIRST_NAMES = frozenset(n.lower() for p in _PROVIDERS for n in (*p.first_names_female, *p.first_names_male))
LAST_NAMES = frozenset(n.lower() for p in _PROVIDERS for n in p.last_names)
NOT_NAMES = frozenset(
    {"team", "support", "there", "all", "everyone", "folks", "guys", "again", "sir", "madam", "customer",
     "service", "urgent", "regarding", "re", "so", "for", "in", "the", "a", "an", "we", "i", "dear", "hi",
     "hello", "hey", "thanks", "agent", "user", "client", "order", "ticket", "account", "card", "refund",
     "verified", "contact", "escalated", "please", "best", "regards", "mr", "mrs", "ms", "miss", "mx", "dr", "prof",
     "email", "e-mail", "phone", "address", "name", "username", "login", "subject", "note", "notes",
     "call", "called", "ask", "asked", "tell", "ping", "message", "text", "write", "reply", "cc", "attn", "from", "to",
     "mate", "bye", "anyway", "anyways", "sorry", "here", "back", "waiting", "still", "just", "not", "now", "again", "you", "ya",
     "u", "much", "lot", "guys", "both", "pending", "done", "ok", "okay", "fine", "good", "great", "happy", "confused",
     "success", "care", "experience", "relations", "portal", "id", "number", "christmas", "easter", "thanksgiving",
     "halloween", "birthday", "mother's", "father's", "valentine's", "monday", "tuesday", "wednesday", "thursday",
     "friday", "saturday", "sunday"}
)
TITLES = ("Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof")

_CAP = r"\p{Lu}\p{Ll}+(?:[-'’]\p{Lu}?\p{Ll}+)*"
_FUNCTION_WORDS = "and|or|but|i|im|my|me|from|with|at|in|on|of|to|for|here|there|again|about|calling|writing|speaking|please|thanks|the|a|an|is|was|am"
_LOWER = rf"[a-z]+(?:[^\S\n]+(?!(?:{_FUNCTION_WORDS})\b)\p{{Ll}}+)?"
_NAME = f"(?:{_CAP}(?:[^\\S\\n]+{_CAP})?|{_LOWER})"
_TITLE = r"\b(?:" + "|".join(TITLES) + r")\.?[^\S\n]+"
_INTRO = (
    r"(?i:\bmy[^\S\n]+name[^\S\n]+is|\bthis[^\S\n]+is|\bname[^\S\n]*:|\bcustomer[^\S\n]*:|\bcontact[^\S\n]*:|\bagent[^\S\n]*:"
    r"|\bi[’']?m|\bi[^\S\n]+am)[^\S\n]+"
)
_ROLE = r"\b(?:Customer|customer|identity[^\S\n]+of|(?:ordered|bought|purchased|got|gift|present)[^\S\n]+(?:it[^\S\n]+)?for)[^\S\n]+"
_CLOSING = r"(?i:thx|thanks|thank[^\S\n]+you|ty|cheers|regards|best|br)[,!.]?[^\S\n]+(?:-[^\S\n]*)?"
_GREETING = r"(?:^|\n)[^\S\n]*(?i:hi|hello|hey|dear|thanks|thank[^\S\n]+you|good[^\S\n]+(?:morning|afternoon|evening))[,!]?[^\S\n]+"
_SIGN_OFF = r"(?i:regards|thanks|thank[^\S\n]+you|cheers|best|sincerely|br)[,!.]?[^\S\n]*\n[^\S\n]*(?:-[^\S\n]*)?"


class PersonContextRecognizer(PatternRecognizer):
    """A name right after a cue word; lower-case names only when the first token is a known first name."""

    PATTERNS = [
        Pattern("After a title", f"(?<={_TITLE}){_CAP}(?:[^\\S\\n]+{_CAP})?", 0.7),
        Pattern("Introduction", f"(?<={_INTRO}){_NAME}(?=[\\s,.!?;]|$)", 0.55),
        Pattern("Greeting", f"(?<={_GREETING}){_NAME}(?=[,!.\\s]|$)", 0.55),
        Pattern("Sign-off", f"(?<={_SIGN_OFF}){_NAME}(?=\\s*$|\\s*\\n)", 0.6),
        Pattern("After a role", f"(?<={_ROLE}){_CAP}(?:[^\\S\\n]+{_CAP}){{0,2}}(?![^\\S\\n]*\\p{{Lu}})", 0.55),
        Pattern("Dash sign-off", f"(?<=(?:^|\\n)[^\\S\\n]*[-–—][^\\S\\n]*){_CAP}(?:[^\\S\\n]+{_CAP})?(?=[^\\S\\n]*$)", 0.6),
    ]
    CONTEXT = ["name", "customer", "called", "spoke"]
    CUES = regex.compile(
        "|".join((_TITLE, _INTRO, _ROLE, _GREETING, _SIGN_OFF, "(?:^|\n)[^\\S\n]*[-–—]")), regex.MULTILINE
    )
    """Every pattern above needs one of these before the name; a text without any cannot match."""

    def __init__(self, supported_language: str = "en") -> None:
        super().__init__(
            supported_entity="PERSON",
            name="PersonContextRecognizer",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            supported_language=supported_language,
            global_regex_flags=regex.MULTILINE,
        )

    def validate_result(self, pattern_text: str) -> bool | None:
        first = pattern_text.split()[0]
        if first.lower() in NOT_NAMES:
            return False
        if first.islower() and first not in FIRST_NAMES:
            return False
        return None


class PersonClosingRecognizer(PatternRecognizer):
    """The last word(s) of a text after 'thx,' / 'cheers' / 'regards,': lower-case single names too ('thx, harinakshi')."""

    PATTERNS = [Pattern("Closing name", f"(?<={_CLOSING})(?:{_CAP}(?:[^\\S\\n]+{_CAP})?|\\p{{Ll}}+)(?=[.!]?[^\\S\\n]*\\Z)", 0.6)]
    CONTEXT = ["thanks", "regards"]
    CUES = regex.compile(_CLOSING)

    def __init__(self, supported_language: str = "en") -> None:
        super().__init__(
            supported_entity="PERSON",
            name="PersonClosingRecognizer",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            supported_language=supported_language,
        )

    def validate_result(self, pattern_text: str) -> bool | None:
        first = pattern_text.split()[0].lower()
        return False if first in NOT_NAMES or first in STOP_WORDS else None


class PersonNameListRecognizer(PatternRecognizer):
    """'First Last' where either part is in Faker's name lists (catches what NER tags as ORG or misses)."""

    PATTERNS = [
        Pattern(
            "Listed first and last name",
            f"\\b(?!(?i:{'|'.join(sorted(NOT_NAMES))})\\b){_CAP}(?:[^\\S\\n]+{_CAP}){{1,2}}\\b",
            0.6,
        )
    ]
    CONTEXT = ["name", "customer", "called", "spoke"]

    def __init__(self, supported_language: str = "en") -> None:
        super().__init__(
            supported_entity="PERSON",
            name="PersonNameListRecognizer",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            supported_language=supported_language,
            global_regex_flags=regex.MULTILINE,
        )

    def validate_result(self, pattern_text: str) -> bool | None:
        first, *_, last = pattern_text.lower().split()
        return None if first in FIRST_NAMES or last in LAST_NAMES else False
