"""Person names spaCy's small model misses: after titles, greetings, introductions, sign-offs,
and capitalised 'First Last' pairs found in Faker's US name lists."""

from __future__ import annotations

import functools

import regex
from faker.providers.address.en_US import Provider as UsAddress
from faker.providers.person.de_DE import Provider as DePerson
from faker.providers.person.en_GB import Provider as GbPerson
from faker.providers.person.en_IN import Provider as InPerson
from faker.providers.person.en_US import Provider as UsPerson
from faker.providers.person.es_ES import Provider as EsPerson
from faker.providers.person.fr_FR import Provider as FrPerson
from presidio_analyzer import LocalRecognizer, Pattern, RecognizerResult
from presidio_analyzer.predefined_recognizers import SpacyRecognizer
from spacy.lang.en.stop_words import STOP_WORDS
from wordfreq import zipf_frequency

from scrubbers.recognizers.preset import PresetPatternRecognizer

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
COMMON_WORD_ZIPF = 4.0
"""wordfreq's Zipf frequency from which an English word is common ('vacuum' 4.1, 'price' 5.2): such a
word is a name only where found as one, unless a name list knows it ('Hill', 'Rose')."""
ADDRESS_WORDS = frozenset({"apt", "apartment", "suite", "ste", "unit", "flat", "room", "floor", "street", "road", "box"})


@functools.lru_cache(maxsize=1 << 16)
def name_like(word: str) -> bool:
    """Whether `word` could be a name wherever it appears: not a stop word, cue or address word, and
    either in the name lists or uncommon in English."""
    word = word.strip(".,;:!?\"'()[]{}<>").lower()
    if len(word) < 2 or word in STOP_WORDS or word in NOT_NAMES or word in ADDRESS_WORDS or not any(c.isalpha() for c in word):
        return False
    return word in FIRST_NAMES or word in LAST_NAMES or zipf_frequency(word, "en") < COMMON_WORD_ZIPF

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
_NO_OPENER = rf"(?:(?<![!.][^\S\n]+)|(?!(?i:{'|'.join(sorted(w for w in STOP_WORDS if w.isalpha()))})\b))"
"""After 'Hi!' a sentence starts: its first word is capitalised as any is ('Hi! How can I help?'), a name only if no stop word."""
_SIGN_OFF = r"(?i:regards|thanks|thank[^\S\n]+you|cheers|best|sincerely|br)[,!.]?[^\S\n]*\n[^\S\n]*(?:-[^\S\n]*)?"


class PersonContextRecognizer(PresetPatternRecognizer):
    """A name right after a cue word; lower-case names only when the first token is a known first name."""

    ENTITY = "PERSON"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern("After a title", f"(?<={_TITLE}){_CAP}(?:[^\\S\\n]+{_CAP})?", 0.7),
        Pattern("Introduction", f"(?<={_INTRO}){_NAME}(?=[\\s,.!?;]|$)", 0.55),
        Pattern("Greeting", f"(?<={_GREETING}){_NO_OPENER}{_NAME}(?=[,!.\\s]|$)", 0.55),
        Pattern("Sign-off", f"(?<={_SIGN_OFF}){_NAME}(?=\\s*$|\\s*\\n)", 0.6),
        Pattern("After a role", f"(?<={_ROLE}){_CAP}(?:[^\\S\\n]+{_CAP}){{0,2}}(?![^\\S\\n]*\\p{{Lu}})", 0.55),
        Pattern("Dash sign-off", f"(?<=(?:^|\\n)[^\\S\\n]*[-–—][^\\S\\n]*){_CAP}(?:[^\\S\\n]+{_CAP})?(?=[^\\S\\n]*$)", 0.6),
    ]
    CONTEXT = ["name", "customer", "called", "spoke"]
    CUES = regex.compile(
        "|".join((_TITLE, _INTRO, _ROLE, _GREETING, _SIGN_OFF, "(?:^|\n)[^\\S\n]*[-–—]")), regex.MULTILINE
    )
    """Every pattern above needs one of these before the name; a text without any cannot match."""

    def validate_result(self, pattern_text: str) -> bool | None:
        first = pattern_text.split()[0]
        if first.lower() in NOT_NAMES:
            return False
        if first.islower() and first not in FIRST_NAMES and first not in WORLD_FIRST_NAMES:
            return False
        return None


class PersonClosingRecognizer(PresetPatternRecognizer):
    """The last word(s) of a text after 'thx,' / 'cheers' / 'regards,': lower-case single names too ('thx, harinakshi')."""

    ENTITY = "PERSON"
    PATTERNS = [Pattern("Closing name", f"(?<={_CLOSING})(?:{_CAP}(?:[^\\S\\n]+{_CAP})?|\\p{{Ll}}+)(?=[.!]?[^\\S\\n]*\\Z)", 0.6)]
    CONTEXT = ["thanks", "regards"]
    CUES = regex.compile(_CLOSING)

    def validate_result(self, pattern_text: str) -> bool | None:
        first = pattern_text.split()[0].lower()
        return False if first in NOT_NAMES or first in STOP_WORDS else None


class PersonNameListRecognizer(PresetPatternRecognizer):
    """'First Last' where either part is in Faker's name lists (catches what NER tags as ORG or misses)."""

    ENTITY = "PERSON"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern(
            "Listed first and last name",
            f"\\b(?!(?i:{'|'.join(sorted(NOT_NAMES))})\\b){_CAP}(?:[^\\S\\n]+{_CAP}){{1,2}}\\b",
            0.6,
        )
    ]
    CONTEXT = ["name", "customer", "called", "spoke"]

    def validate_result(self, pattern_text: str) -> bool | None:
        first, *_, last = pattern_text.lower().split()
        # a known surname after a common word is no name ('New York')
        return None if first in FIRST_NAMES or (last in LAST_NAMES and name_like(first)) else False


GAZETTEER_LOCALES = (
    "en_US", "en_GB", "en_IE", "en_IN", "es_ES", "es_MX", "fr_FR", "de_DE", "de_AT", "it_IT", "pt_BR", "pt_PT",
    "nl_NL", "pl_PL", "sv_SE", "cs_CZ", "fi_FI", "no_NO", "da_DK", "hu_HU", "tr_TR", "hr_HR", "sl_SI", "sk_SK",
    "et_EE", "lv_LV", "lt_LT", "ro_RO", "is_IS", "ga_IE", "el_GR", "ru_RU", "uk_UA",
    "vi_VN", "id_ID", "az_AZ", "uz_UZ", "en_NG", "yo_NG", "ig_NG", "ha_NG", "en_KE", "sw", "zu_ZA", "tw_GH",
    "en_PK", "en_TH", "es_AR", "es_CL", "es_CO", "fr_CA", "de_CH", "ja_JP", "zh_CN", "zh_TW",
)
"""Faker's per-locale name lists the gazetteer reads (an installed package: nothing is downloaded): every locale
whose lists are written in Latin letters, and the romanized lists of the others that have them (Japanese,
Chinese); lists in other scripts add nothing a Latin-script text could hold."""
NAME_LIST_ATTRIBUTES = (
    ("first_names", "first"), ("first_names_female", "first"), ("first_names_male", "first"),
    ("first_romanized_names", "first"), ("first_romanized_names_female", "first"),
    ("first_romanized_names_male", "first"), ("last_names", "last"), ("last_romanized_names", "last"),
)


def _locale_names(locales: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    import importlib

    first: set[str] = set()
    last: set[str] = set()
    for locale in locales:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        for attribute, part in NAME_LIST_ATTRIBUTES:
            names = first if part == "first" else last
            values = getattr(provider, attribute, ())
            if not isinstance(values, (dict, list, tuple)):
                continue  # a locale that computes the list (a property) has it under another attribute too
            names.update(n.lower() for n in (values.keys() if hasattr(values, "keys") else values) if n.isalpha())
    not_names = STOP_WORDS | NOT_NAMES  # 'My' is a Swedish first name, 'May' an English one
    return frozenset(first - not_names), frozenset(last - not_names)


WORLD_FIRST_NAMES, WORLD_LAST_NAMES = _locale_names(GAZETTEER_LOCALES)


def _gendered_names(locales: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """(female, male) first names of Faker's lists, lower case; a name both lists hold is in neither."""
    import importlib

    female: set[str] = set()
    male: set[str] = set()
    for locale in locales:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        for attribute, names in (("first_names_female", female), ("first_names_male", male)):
            values = getattr(provider, attribute, ())
            names.update(n.lower() for n in (values.keys() if hasattr(values, "keys") else values))
    return frozenset(female - male), frozenset(male - female)


FEMALE_FIRST_NAMES, MALE_FIRST_NAMES = _gendered_names(GAZETTEER_LOCALES)
"""A stand-in first name keeps the original's gender where the lists tell it ('Mr. Yusuf' stays a 'Mr.')."""
_AFTER_PARTICLE = regex.compile(r"(?<!\w)(?:de|la|del|della|di|da|van|von|der|den|le|du|dos)[^\S\n]+$")
RARE_WORD_ZIPF = 3.2
"""Below this wordfreq Zipf frequency a capitalised word of the last-name lists is taken alone as a name."""


class PersonGazetteerRecognizer(LocalRecognizer):
    """A capitalised word that Faker's name lists of 55 locales know, and that is not a common English
    word ('Alena', 'Perić'; not 'Rose', 'Bill', 'Will'): a name even without a cue or NER."""

    SCORE = 0.55
    WORD = regex.compile(r"(?<![\w@.#/-])\p{Lu}\p{Ll}+(?:[-'’]\p{Lu}?\p{Ll}+)*(?![\w@-]|\.\w)")

    def __init__(
        self,
        supported_language: str = "en",
        first_names: frozenset[str] = WORLD_FIRST_NAMES,
        last_names: frozenset[str] = WORLD_LAST_NAMES,
        score: float | None = None,
    ) -> None:
        self.first_names = first_names
        self.last_names = last_names
        self.score = self.SCORE if score is None else score
        self.is_name = functools.lru_cache(maxsize=1 << 16)(self.is_name)  # capitalised words recur in every session
        super().__init__(supported_entities=["PERSON"], name="PersonGazetteerRecognizer", supported_language=supported_language)

    def load(self) -> None:
        pass

    def is_name(self, word: str) -> bool:
        lower = word.lower()
        if lower in STOP_WORDS or lower in NOT_NAMES or lower in ADDRESS_WORDS:
            return False
        frequency = zipf_frequency(lower, "en")
        return (lower in self.first_names and frequency < COMMON_WORD_ZIPF) or (lower in self.last_names and frequency < RARE_WORD_ZIPF)

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        results = []
        for match in self.WORD.finditer(text):
            if _AFTER_PARTICLE.search(text, max(0, match.start() - 8), match.start()):
                continue  # 'Casa de la Luz': a name after a particle is left to NER and the cues
            word = match.group()
            if word[-2:] in ("'s", "’s"):  # a possessive: "Zlata's address"
                word = word[:-2]
            if (after := _NEXT_CAPITALISED.match(text, match.end())) and _title_case_word(after.group(1)) and not self.is_name(after.group(1)):
                continue  # a title-case phrase: 'the Merino Wool Crew Socks'
            if self.is_name(word):
                results.append(RecognizerResult("PERSON", match.start(), match.start() + len(word), self.score))
        return results


_ONE_NAME = r"\p{L}[\p{Ll}'’-]*\p{Ll}"
_VOCATIVE_NEXT = r"(?i:can|could|would|will|please|do|did|are|is|have|has|thank|thanks|i|we|you|let|it|this|that|how|what|when|where|why)"
_CALLED = r"(?i:\b(?:call|calls|called)[^\S\n]+me|\bsays|\bsaid|\bnamed(?:[^\S\n]+(?:him|her|them))?|\bi\\?[’']m|\bi[^\S\n]+am)[^\S\n]+"
_SUBJECT_VERBS = r"(?:is|was|has|had|said|says|asked|asks|shouted|told|wrote|writes|wants|wanted|will|would|can|could|called|replied)"
"""Verbs after a sentence's first word that make it the subject ('samantha is a very sympathetic person'):
read in lower-case texts only (capitalised names are NER's and the gazetteer's), and too weak a cue for the
name to be searched for elsewhere."""
_SPOKE = r"(?i:shouted|yelled|screamed|said|says|whispered|replied|spoke|talked|wrote|waved|smiled|nodded)"
"""Verbs after which 'at' / 'to' and one word before a colon or a stop name the person spoken to
('oles shouted at samantha: "…"')."""
_INTRODUCED = r"(?i:\bmy[^\S\n]+name[^\S\n]+is|\bname[^\S\n]*:|\bcall[^\S\n]+me)[^\S\n]+"
"""Cues that say the next word is a name, whatever its case ('my name is oles and …')."""


class PersonAddressedRecognizer(PresetPatternRecognizer):
    """One word that could only be a name where a person is addressed or quoted: a vocative opening a
    line ('Raimond, can I …'), a speaker's label ('Emma: "Who are you?"'), after 'call me' / 'says' /
    'named' / "I'm" ("I'm lindsay's daughter")."""

    ENTITY = "PERSON"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern("Vocative", rf"(?<=(?:^|\n)[^\S\n]*){_ONE_NAME}(?=,[^\S\n]+{_VOCATIVE_NEXT}\b)", 0.55),
        Pattern("Called", rf"(?<={_CALLED}){_ONE_NAME}(?=\\?[’']s\b|[^\S\n]*(?:[.,!?;]|$))", 0.55),
        Pattern("Addressee", rf"(?<=\b{_SPOKE}[^\S\n]+(?:at|to)[^\S\n]+){_ONE_NAME}(?=[^\S\n]*[:,.!?])", 0.55),
        Pattern("Subject", rf"(?<=(?:^|[.!?][^\S\n]+|\n[^\S\n]*))\p{{Ll}}[\p{{Ll}}'’-]*\p{{Ll}}(?=[^\S\n]+{_SUBJECT_VERBS}\b)", 0.5),
    ]
    CONTEXT = ["name", "called", "says"]
    CUES = regex.compile(
        rf"(?:^|\n)[^\S\n]*{_ONE_NAME},|{_CALLED}|{_ONE_NAME}[^\S\n]+{_SUBJECT_VERBS}\b|\b{_SPOKE}[^\S\n]+(?:at|to)\b", regex.MULTILINE
    )

    def validate_result(self, pattern_text: str) -> bool | None:
        word = pattern_text.lower()
        known = word in WORLD_FIRST_NAMES or word in WORLD_LAST_NAMES or word in FIRST_NAMES or word in LAST_NAMES
        return None if name_like(word) and (known or zipf_frequency(word, "en") < RARE_WORD_ZIPF) else False


class PersonNamedRecognizer(PresetPatternRecognizer):
    """One word a cue says is a name: after 'my name is' / 'name:' / 'call me' in any case ('my name is
    oles'), and a speaker's label before a quote ('Brodie: "Who are you?"', quotes escaped as in a log line).
    Taken when it could be a name: capitalised and no common English word, or in lower case known or rare."""

    ENTITY = "PERSON"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern("Speaker", rf"(?<=(?:^|\n)[^\S\n]*){_ONE_NAME}(?=:[^\S\n]*\\?[\"“'])", 0.55),
        Pattern("Introduced", rf"(?<={_INTRODUCED}){_ONE_NAME}(?![\w'’-])", 0.55),
    ]
    CONTEXT = ["name", "called"]
    CUES = regex.compile(rf"(?:^|\n)[^\S\n]*{_ONE_NAME}:|{_INTRODUCED}", regex.MULTILINE)

    def validate_result(self, pattern_text: str) -> bool | None:
        word = pattern_text.lower()
        if not name_like(word):
            return False
        return None if pattern_text[0].isupper() or word in NAME_LISTS or zipf_frequency(word, "en") < RARE_WORD_ZIPF else False


NAME_LISTS = FIRST_NAMES | LAST_NAMES | WORLD_FIRST_NAMES | WORLD_LAST_NAMES
"""Every first and last name the lists know (lower case)."""
_NER_WORD = regex.compile(r"\p{L}+")


_TITLE_OR_SUFFIX = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "md", "dds", "phd", "dvm", "esq", "jr", "sr", "ii", "iii", "iv"})
_OPENS = regex.compile(r"(?:^|[.!?:#*>-])[^\S\n]*\Z|(?:^|\n)[^\S\n]*\Z")


_PLACE_WITH_STATE = regex.compile(r"\p{L}[^\S\n]*,?[^\S\n]+(?:" + "|".join(UsAddress.states_abbr) + r")\Z")
"""A town and a US state's code ('Houston TX', 'Austin, TX'): a place, not a person."""


_PARTICLE_WORDS = frozenset({"de", "la", "del", "della", "di", "da", "van", "von", "der", "den", "le", "du", "dos"})


def _common_words_unlisted(words: list[str]) -> bool:
    """Two words or more, none a name list knows, the first (not a particle: 'van Gijn') a common English word:
    the name of a thing ('Wireless Earbud', 'Digital Camera'). The gold corpus has no such person."""
    return (
        len(words) >= 2
        and not any(w in NAME_LISTS for w in words)
        and words[0] not in _PARTICLE_WORDS
        and zipf_frequency(words[0], "en") >= COMMON_WORD_ZIPF
    )


def _known_or_rare(word: str) -> bool:
    return word in NAME_LISTS or zipf_frequency(word, "en") < RARE_WORD_ZIPF


def ner_name_plausible(text: str, start: int, end: int) -> bool:
    """Whether text[start:end], which spaCy's small model tagged PERSON, could be a name.

    Not when it holds a digit or an underscore ('500ml', 'call_0000') or is a piece of a word
    ('32GB' -> 'GB'). Not when it is only common English words none of which a name list knows
    ('Water Bottle', 'Desk Lamp'; but 'Rose Hill', 'James'), nor when no word is one a name list
    knows and the first is a common English word ('Wireless Earbud': 'earbud' is rare in English).
    A whole text (a JSON value: 'Garden Hose', the colour 'brown') needs a word a name list knows or
    a rare one; in lower case, a known first name first or, alone, only rare words ('level
    intermediate' in a sentence: each word known or rare). One capitalised word ('Modify'
    opening a heading) needs to be known, rare, or not to open a line or a sentence.
    """
    span = text[start:end]
    if any(c.isdigit() or c == "_" for c in span) or _PLACE_WITH_STATE.search(span):
        return False
    if (start > 0 and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
        return False
    words = [w.lower() for w in _NER_WORD.findall(span) if w.lower() not in _TITLE_OR_SUFFIX]
    if not words:
        return False
    alone = not text[:start].strip(" \"'") and not text[end:].strip(" .\"'")  # a JSON value: no sentence around it
    if _common_words_unlisted(words) and not _PERSON_CUE_BEFORE.search(text, max(0, start - 24), start):
        return False  # 'Wireless Earbud', 'Air Purifier': a name list knows a word of a name that opens with an English word
    if span.islower():
        if words[0] in FIRST_NAMES or words[0] in WORLD_FIRST_NAMES:
            return True
        return all(zipf_frequency(w, "en") < RARE_WORD_ZIPF for w in words) if alone else all(map(_known_or_rare, words))
    if alone:
        return any(map(_known_or_rare, words))
    if len(words) == 1 and not _known_or_rare(words[0]) and _OPENS.search(text, max(0, start - 4), start):
        return False
    if _product_after_preposition(text, start, words):
        return False
    if words[-1] not in NAME_LISTS and zipf_frequency(words[-1], "en") >= RARE_WORD_ZIPF and not _PERSON_CUE_BEFORE.search(
        text, max(0, start - 24), start
    ):
        return False  # a name ends with a name: 'Golden Helix', 'Metallica' (English words no name list holds) are no one's
    return any(w in NAME_LISTS or zipf_frequency(w, "en") < COMMON_WORD_ZIPF for w in words)


_THING_PREPOSITION = regex.compile(
    r"(?<!(?i:\b(?:rely|relies|relied|relying|count|counting|depend|depends|depending|call|called|wait|waiting|check|checking|spy|cheated|pick|picked|picking))[^\S\n]+)"
    r"(?i:\b(?:on|onto|via|through|using|in|into|over))[^\S\n]+\Z"
)
"""A preposition a product, a service or a company follows, not a person ('on Dropbox', 'via Etsy', 'over Gmail'),
unless a verb before it takes a person ('rely on', 'wait on')."""
PRODUCT_ZIPF = 2.5
"""How often English text must use a word no name list holds for it to be a product or a company after such a
preposition ('Dropbox' 3.1, 'Etsy' 3.4, 'Gmail' 3.3); names the lists miss are rarer ('Oksana' 2.4, 'Chidi' 2.2)."""


def _product_after_preposition(text: str, start: int, words: list[str]) -> bool:
    """spaCy's model tags a product or a company after 'on' a person ('I'll look on Dropbox tonight'): one word no
    name list holds, that English text uses, after a preposition of things."""
    return (
        len(words) == 1
        and words[0] not in NAME_LISTS
        and zipf_frequency(words[0], "en") >= PRODUCT_ZIPF
        and _THING_PREPOSITION.search(text, max(0, start - 30), start) is not None
    )


_PERSON_CUE_BEFORE = regex.compile(r"(?i:\b(?:mr|mrs|ms|miss|dr|prof|dear|hi|hello|name is|named|called|i am|i'm))\.?,?[^\S\n]+\Z")
"""Before a name, what says it is a person's ('Dear Uber', 'my name is Helix')."""


class NerPersonRecognizer(SpacyRecognizer):
    """Presidio's spaCy PERSON entities, minus those `ner_name_plausible` rules out: on short texts
    without a sentence around them (a JSON value, a heading) the small model calls product names,
    verbs and sizes people."""

    def __init__(self, supported_language: str = "en", supported_entities: list[str] | None = None) -> None:
        super().__init__(supported_language=supported_language, supported_entities=supported_entities or ["PERSON"])

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        results = super().analyze(text, entities, nlp_artifacts) or []
        return [r for r in results if ner_name_plausible(text, r.start, r.end)]


_RELATIONS = (
    r"neighbou?r|partner|wife|husband|spouse|friend|son|daughter|mother|father|mom|mum|dad|sister|brother|boss|colleague"
    r"|roommate|flatmate|boyfriend|girlfriend|fianc[ée]e?|cousin|aunt|uncle|niece|nephew|grandmother|grandfather|grandma|grandpa"
    r"|grandson|granddaughter|landlord|landlady|caretaker|assistant|coworker|co-worker|workmate|manager|supervisor"
    r"|housemate|tenant|carer|nanny|babysitter|stepson|stepdaughter|stepmother|stepfather|mother-in-law|father-in-law"
    r"|sister-in-law|brother-in-law|son-in-law|daughter-in-law|courier|driver|doctor"
)
_OWNED = _RELATIONS + r"|address|phone|number|email|e-mail|account|order|birthday|card|car|house|flat|apartment"
_WORD_NAME = r"\p{L}[\p{L}'’-]*\p{L}"


class PersonRelationRecognizer(PresetPatternRecognizer):
    """A third party a customer names by their relation ('my neighbour Anna Wirth', 'my partner, Joost')
    or whose things they mention ("Gregorina's address", "I'm lindsay's daughter")."""

    ENTITY = "PERSON"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern("After a relation", rf"(?<=(?i:\b(?:my|our|his|her|their)[^\S\n]+(?:{_RELATIONS}))[^\S\n]*,?[^\S\n]+)"
                rf"{_WORD_NAME}(?:[^\S\n]+\p{{Lu}}[\p{{L}}'’-]*\p{{L}})?", 0.55),
        Pattern("Owner", rf"(?<![\w@.-]){_WORD_NAME}(?=[’']s[^\S\n]+(?i:{_OWNED})\b)", 0.55),
    ]
    CONTEXT = ["name", "called"]
    CUES = regex.compile(rf"(?i)\b(?:my|our|his|her|their)[^\S\n]+(?:{_RELATIONS})\b|[’']s[^\S\n]+(?:{_OWNED})\b")

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        """A name typed in lower case after its relation takes its surname too ('my coworker harper ahmed'): the
        next lower-case word, when the surname lists know it and English does not use it much."""
        results = super().analyze(text, entities, nlp_artifacts) or []
        for result in results:
            if " " not in text[result.start : result.end] and (after := _NEXT_LOWER_WORD.match(text, result.end)):
                if _lower_case_surname(after.group(1)):
                    result.end = after.end(1)
        return results

    def validate_result(self, pattern_text: str) -> bool | None:
        first = pattern_text.split()[0]
        lower = first.lower()
        if not name_like(first) or lower in _RELATION_NOT_NAMES:
            return False
        # a capitalised word that could be a name; in lower case, one the name lists know or a rare one
        return None if first[0].isupper() or lower in NAME_LISTS or zipf_frequency(lower, "en") < RARE_WORD_ZIPF else False


_NEXT_LOWER_WORD = regex.compile(r"[^\S\n]+(\p{Ll}[\p{Ll}'’-]*\p{Ll})(?![\w@-])")
LOWER_SURNAME_ZIPF = 4.5
"""A lower-case word after a third party's first name is their surname when the lists know it as one and English
uses it less than this (wordfreq Zipf): 'ahmed' (3.8), 'carpenter' (3.8); not 'brown' (5.0), nor any verb."""


def _lower_case_surname(word: str) -> bool:
    return word in WORLD_LAST_NAMES and word not in STOP_WORDS and zipf_frequency(word, "en") < LOWER_SURNAME_ZIPF


_RELATION_NOT_NAMES = frozenset({"who", "which", "that", "is", "was", "has", "had", "and", "or", "will", "can", "just", "also", "said", "says"})


class LowerCaseNameRecognizer(LocalRecognizer):
    """'leah holmberg': a first name the lists know and that is not a common English word, then a word that
    could be a surname (in the lists, or rare), both in lower case; 'julie novák', 'mark pinto': a first name
    that is a common English word too, before a surname English rarely uses (listed) or does not use at all, or
    before any listed surname that owns something ("ashley spencer's cautionary tales")."""

    SCORE = 0.55
    PAIR = regex.compile(r"(?<![\w@.#/-])(\p{Ll}+)[^\S\n]+(\p{Ll}[\p{Ll}'’-]*\p{Ll})(?![\w@-])")

    def __init__(self, supported_language: str = "en", score: float | None = None) -> None:
        self.score = self.SCORE if score is None else score
        super().__init__(supported_entities=["PERSON"], name="LowerCaseNameRecognizer", supported_language=supported_language)

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        results = []
        for match in self.PAIR.finditer(text, overlapped=True):
            first, last = match.group(1), match.group(2)
            end, possessive = match.end(), _POSSESSIVE.search(last) is not None
            if possessive:  # "spencer's": the name owns what follows
                last, end = last[:-2], end - 2
            if (
                (_lower_first_name(first) and _lower_surname(last))
                or (_lower_common_first_name(first) and _lower_rare_surname(last))
                or (possessive and _lower_common_first_name(first) and last in LISTED_SURNAMES and name_like(last))
            ):
                results.append(RecognizerResult("PERSON", match.start(), end, self.score))
        return results


_POSSESSIVE = regex.compile(r"\p{Ll}[’']s\Z")
LISTED_SURNAMES = LAST_NAMES | WORLD_LAST_NAMES


@functools.lru_cache(maxsize=1 << 16)
def _lower_first_name(word: str) -> bool:
    return (word in FIRST_NAMES or word in WORLD_FIRST_NAMES) and name_like(word) and zipf_frequency(word, "en") < COMMON_WORD_ZIPF


@functools.lru_cache(maxsize=1 << 16)
def _lower_surname(word: str) -> bool:
    return name_like(word) and (word in LAST_NAMES or word in WORLD_LAST_NAMES or zipf_frequency(word, "en") < RARE_WORD_ZIPF)


@functools.lru_cache(maxsize=1 << 16)
def _lower_common_first_name(word: str) -> bool:
    """A first name that is a common English word too ('mark', 'julie'): a name only before a rare surname."""
    return (word in FIRST_NAMES or word in WORLD_FIRST_NAMES) and word not in STOP_WORDS and word not in NOT_NAMES and word not in ADDRESS_WORDS


@functools.lru_cache(maxsize=1 << 16)
def _lower_rare_surname(word: str) -> bool:
    """A surname English rarely uses ('pinto', a listed one) or one English does not use at all ('novák')."""
    frequency = zipf_frequency(word, "en")
    return name_like(word) and ((word in LAST_NAMES or word in WORLD_LAST_NAMES) and frequency < RARE_WORD_ZIPF or frequency < UNKNOWN_WORD_ZIPF)


UNKNOWN_WORD_ZIPF = 2.0
"""Below this wordfreq Zipf frequency a word is practically absent from English text ('Avtorhan', 'Szôllôs')."""


class PersonRareWordRecognizer(LocalRecognizer):
    """A capitalised word English does not use and no name list holds ('Why is Avtorhan so impulsive?',
    'than early Szôllôs?'): inside a sentence a name; opening one, only a word English has never seen
    (a rare English word opens sentences: 'Kudos')."""

    SCORE = 0.5
    WORD = regex.compile(r"(?<![\w@.#/'’&+-])\p{Lu}\p{Ll}{2,}(?:[-'’]\p{Lu}?\p{Ll}+)*(?![\w@&+-]|\.\w)")
    OPENS = regex.compile(r"(?:^|[.!?:\"“(\n])[^\S\n]*\Z")
    CUES = regex.compile(r"\p{Lu}\p{Ll}{2}")

    def __init__(self, supported_language: str = "en", score: float | None = None) -> None:
        self.score = self.SCORE if score is None else score
        self.cues = self.CUES
        super().__init__(supported_entities=["PERSON"], name="PersonRareWordRecognizer", supported_language=supported_language)

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        results = []
        for match in self.WORD.finditer(text):
            word = match.group()
            lower = word.lower()
            if lower in NAME_LISTS or lower in NOT_NAMES or lower in ADDRESS_WORDS or lower in STOP_WORDS:
                continue  # listed names are the gazetteer's
            frequency = _frequency(lower)
            if frequency >= UNKNOWN_WORD_ZIPF:
                continue
            if frequency > 0 and self.OPENS.search(text, max(0, match.start() - 3), match.start()):
                continue
            if _AFTER_PARTICLE.search(text, max(0, match.start() - 8), match.start()):
                continue
            if _PLACE_CUE_BEFORE.search(text, max(0, match.start() - 12), match.start()) or ORG_CUE_AFTER.match(text, match.end()):
                continue  # 'grew up in Kistarcsa', 'Junar Inc', 'the Xignite office': a place, a company
            if (after := _NEXT_CAPITALISED.match(text, match.end())) and _title_case_word(after.group(1)):
                continue  # a title-case phrase: 'the Packable Down Jacket'
            if (heading := _HEADING.match(text, _line_start(text, match.start()))) and heading.end(1) == match.end():
                continue  # a heading: a company's line in an address block, a brand over its text ('Jane Smith\nIntelius\n1250 …')
            end = match.end() - 2 if word[-2:] in ("'s", "’s") else match.end()
            results.append(RecognizerResult("PERSON", match.start(), end, self.score))
        return results


_HEADING = regex.compile(r"[^\S\n]*(?:[>*•-][^\S\n]*)*(\p{L}[\p{L}'’&+-]*)[^\S\n]*\n[^\S\n]*(?:[>*•-][^\S\n]*)*\w")
"""A line of one word and nothing else (quote marks aside) with a line of text after it: a heading, which a word
English does not use makes a company's or a brand's, not a person's (a person alone on a line is a signature, the
last line, or has a cue: 'Dear', 'Thanks,')."""


def _line_start(text: str, position: int) -> int:
    return text.rfind("\n", 0, position) + 1


_PLACE_CUE_BEFORE = regex.compile(r"(?<![\w-])(?i:in|near|city|town|village)[^\S\n]+\Z")
"""Before a word English does not use, a cue that it is a place ('I am in Buják', 'home city Narsaq')."""
ORG_CUE_AFTER = regex.compile(
    r",?[^\S\n]+(?:Inc|LLC|Ltd|Corp|Co|GmbH|PLC|plc|AG|(?i:office|company|band|firm|group|labs|technologies|international))\b"
)
"""After a name, what makes it a company's or a band's ('Junar Inc', 'the Xignite office', 'Metallica band')."""


_NEXT_CAPITALISED = regex.compile(r"[^\S\n]+(\p{Lu}\p{Ll}+)\b")


def _title_case_word(word: str) -> bool:
    """A capitalised common English word no name list holds ('Down', 'Wool'): of a product's or a title's name."""
    lower = word.lower()
    return lower not in NAME_LISTS and _frequency(lower) >= RARE_WORD_ZIPF


@functools.lru_cache(maxsize=1 << 16)
def _frequency(word: str) -> float:
    return zipf_frequency(word, "en")
