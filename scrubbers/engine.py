"""Presidio detection, built once per process per `ScrubConfig`, batched over spaCy's `nlp.pipe`."""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import regex
import spacy
from faker.providers.address.en_US import Provider as UsAddress
from presidio_analyzer import AnalyzerEngine, EntityRecognizer, RecognizerRegistry
from presidio_analyzer.nlp_engine import NerModelConfiguration
from spacy.lang.en.stop_words import STOP_WORDS
from wordfreq import zipf_frequency

from scrubbers.config import ScrubConfig
from scrubbers.nlp import NerOnlySpacyNlpEngine
from scrubbers.places import with_place
from scrubbers.pseudonyms import PARTICLES
from scrubbers.recognizers.address import NAMED_STREET, STREET_TYPES_BEFORE
from scrubbers.recognizers.person import COMMON_WORD_ZIPF, NAME_LISTS, NOT_NAMES, WORLD_FIRST_NAMES, WORLD_LAST_NAMES, name_like
from scrubbers.recognizers.table import build_recognizers
from scrubbers.residual import ResidualScanner
from scrubbers.spans import names_before_units, split_joined_people


@dataclass(frozen=True, order=True)
class Finding:
    """One detected span of a text."""

    start: int
    end: int
    entity_type: str
    score: float


def _always(text: str, digits: int) -> bool:
    return True


_USERNAME_CUES = re.compile(r"(?i)@|user|login|handle|screen|gamertag")
_TRIGGERS: dict[str, Callable[[str, int], bool]] = {
    "PHONE_NUMBER": lambda text, digits: digits >= 4,
    "CREDIT_CARD": lambda text, digits: digits >= 12,
    "US_SSN": lambda text, digits: digits >= 9,
    "IBAN_CODE": lambda text, digits: digits >= 2,
    "IP_ADDRESS": lambda text, digits: digits >= 1 and ("." in text or ":" in text),
    "STREET_ADDRESS": lambda text, digits: digits >= 1 or NAMED_STREET.search(text) is not None,
    "DATE_OF_BIRTH": lambda text, digits: digits >= 2,
    "URL": lambda text, digits: "/" in text or "www." in text.lower(),
    "USERNAME": lambda text, digits: _USERNAME_CUES.search(text) is not None,
}
"""Cheap necessary conditions, given a text and its count of digits outside protected identifiers:
a recognizer whose trigger fails on a text cannot make a finding that is kept. A recognizer's own
`cues` (a pattern every match needs somewhere in the text) take precedence."""
_DIGIT = re.compile(r"\d")


def _outside(text: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    """The pieces of `text` outside the protected `spans` (sorted, possibly overlapping).

    A finding overlapping a protected identifier is dropped, so a finding that is kept lies
    wholly in these pieces: the triggers need look only there (an ISO timestamp or an order id
    alone starts no phone, card or IBAN recognizer, and no NER).
    """
    pieces, position = [], 0
    for start, end in spans:
        pieces.append(text[position:start])
        position = max(position, end)
    pieces.append(text[position:])
    return pieces


_TWO_LETTERS = re.compile(r"[^\W\d_]{2}")


def _may_name(pieces: list[str]) -> bool:
    """What any name needs: two letters in a row."""
    return any(_TWO_LETTERS.search(piece) for piece in pieces)


def _trigger(recognizer: EntityRecognizer) -> Callable[[str, int], bool]:
    cues = getattr(recognizer, "cues", None)
    if cues is not None:
        return lambda text, digits: cues.search(text) is not None
    return _TRIGGERS.get(recognizer.supported_entities[0], _always)


def _registry(config: ScrubConfig, entities: Sequence[str]) -> RecognizerRegistry:
    registry = RecognizerRegistry(supported_languages=[config.language])
    for recognizer in build_recognizers(entities, config.language, config.phone_regions):
        registry.add_recognizer(recognizer)
    return registry


def resolve_overlaps(findings: Sequence[Finding]) -> list[Finding]:
    """Keep the longest (then not a person's, then highest-scoring) of overlapping findings; sorted by position.
    A street read by its type and a name the model read on the same words ('on Rue Jean-Jaurès',
    'on Karl-Marx-Allee') are a street: the model reads streets named after people as people."""
    chosen: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.start - f.end, f.entity_type == "PERSON", -f.score, f.start, f.entity_type)):
        if all(finding.end <= kept.start or finding.start >= kept.end for kept in chosen):
            chosen.append(finding)
    return sorted(chosen)


def tidy_people(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """Trim cue words NER includes ('Dear Jane' -> 'Jane') and join adjacent name pieces on a line."""
    trimmed = []
    for f in _within_lines(text, findings):
        start, end = f.start, f.end
        if f.entity_type == "PERSON":
            while (match := re.match(r"([^\W\d_]+)[.,:]?\s+", text[start : f.end])) and match.group(1).lower() in NOT_NAMES:
                start += match.end()
            if text[start : f.end].strip(",: ").lower() in NOT_NAMES or _STATE_AFTER.match(text, f.end):
                continue  # a cue word alone; a town before its state's code ('Austin, TX')
            if (unit := _UNIT_AFTER_NAME.search(text, start, end)) and unit.start() > start:
                end = unit.start()  # 'Katie Giles Apt' -> 'Katie Giles': the unit word starts an address
        trimmed.append(Finding(start, end, f.entity_type, f.score))
    merged: list[Finding] = []
    for f in resolve_overlaps(trimmed):
        previous = merged[-1] if merged else None
        if previous and f.entity_type == previous.entity_type == "PERSON" and _NAME_GAP.fullmatch(text[previous.end : f.start]):
            merged[-1] = Finding(previous.start, f.end, "PERSON", max(previous.score, f.score))
        else:
            merged.append(f)
    people = [
        _with_title(text, _with_surname(text, _with_suffix(text, _with_particles(text, f)))) if f.entity_type == "PERSON" else f
        for f in merged
    ]
    return _tidy_streets(text, _with_listed(text, people))


_LINE_PIECE = re.compile(r"[^\n]+")


def _within_lines(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """A name ends at a line break: a PERSON span across lines ('Tom Hale\nTacuarembo\nUruguay', which the
    small NER model reads as one person) keeps its first line, and of the next lines only those whose words
    the name lists all know; a town or country line is no person's."""
    if not any(f.entity_type == "PERSON" and "\n" in text[f.start : f.end] for f in findings):
        return list(findings)
    result = []
    for f in findings:
        if f.entity_type != "PERSON" or "\n" not in text[f.start : f.end]:
            result.append(f)
            continue
        for index, line in enumerate(_LINE_PIECE.finditer(text, f.start, f.end)):
            words = line.group().split()
            if words and (index == 0 or all(w.strip(".,").lower() in NAME_LISTS for w in words)):
                lead = len(line.group()) - len(line.group().lstrip())
                result.append(Finding(line.start() + lead, line.start() + len(line.group().rstrip()), "PERSON", f.score))
    return result


_STATE_AFTER = regex.compile(
    r",?[^\S\n]+(?:" + "|".join(sorted(set(UsAddress.states_abbr) - {"MD", "OK", "ME", "OR", "IN", "HI", "DE"})) + r")(?![\w'’])"
)
"""A US state's code after a name: the name is a town ('Austin, TX'); codes that are words or a doctor's
degree ('OK', 'MD') do not count."""
_NUMBER_BEFORE = regex.compile(r"(?:^|(?<=[\s:]))\d{1,5}[^\S\n]+$")
_LINE_OPENING_STREET = regex.compile(
    r"(?:^|(?<=\n))[^\S\n]*\d{1,5}[^\S\n]+\p{L}[\p{L}.'’-]*(?:[^\S\n]+\p{L}[\p{L}.'’-]*){0,3}[^\S\n]+\Z"
)
"""A line's house number and street name before a second number ('21 José matía ' before '66 Apt. 617')."""
_CORNER_BEFORE = regex.compile(r"(?i)\bthe[^\S\n]+corner[^\S\n]+of[^\S\n]+$")


_STREET_WORDS = r"[\p{L}\d.'’-]*(?:[^\S\n]+[\p{L}\d][\p{L}\d.'’-]*){0,4}?"
_CROSSING = regex.compile(
    r"(?<=(?i:\b(?:to|at|is|with|same|are|of))[:,]?[^\S\n]+)"
    r"\p{Lu}[\p{L}'’-]*(?:[^\S\n]+\p{Lu}[\p{L}'’-]*){0,3}[^\S\n]+and[^\S\n]+"
    rf"(?:\d{{1,5}}[^\S\n]+[\p{{Lu}}\d]{_STREET_WORDS}|(?:\p{{Lu}}|{STREET_TYPES_BEFORE}[^\S\n]+\p{{Lu}}){_STREET_WORDS}[^\S\n]+\d{{1,5}}[a-zA-Z]?\.?)"
    r"(?=[^\S\n]*(?:[,;!?\n]|\.(?:\s|$)|$)|[^\S\n]+(?:in|for|on|at|by|last|please|today|tomorrow|and|or)\b)"
)
"""A crossing after a place cue ('return to Eloise and 226 Thomas Avenue', 'the corner of Ries and Κασνέτη 290',
'at Romano and ul. Paderewskiego Ignacego 85'): a street named like a person, 'and', a street line with a house number
(before or after the street, a street type in lower case opening it)."""


_MILITARY = regex.compile(r"(?i)\b(?:unit|psc|cmr)[^\S\n]+\d{3,5}[^\S\n]*,?[^\S\n]+box[^\S\n]+\d{1,5}\b")
"""A US military street line ('Unit 8087 Box 7596', 'PSC 1234, Box 567'): the unit and the box are one line."""


def with_crossings(text: str, findings: list[Finding]) -> list[Finding]:
    """A crossing of two streets is one street line: its first street, often named after a person, is no
    person on its own."""
    crossings = [Finding(*m.span(), "STREET_ADDRESS", 0.6) for m in _MILITARY.finditer(text)]
    if " and " not in text:
        return resolve_overlaps([*findings, *crossings]) if crossings else findings
    for match in _CROSSING.finditer(text):
        second = match.group().split(" and ", 1)[-1]
        if any(c.isdigit() for c in second) and any(
            f.entity_type == "STREET_ADDRESS" and f.start < match.end() and match.start() < f.end for f in findings
        ) or any(c.isdigit() for c in second.split()[-1]):
            crossings.append(Finding(match.start(), match.end() - match.group().endswith("."), "STREET_ADDRESS", 0.6))
    return resolve_overlaps([*findings, *crossings]) if crossings else findings


def phones_before_streets(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """No street line starts inside an international phone number: '+41 (0)44 668 18 00 tomorrow' is a number,
    not a number then a street '44 668 18 00 tomorrow' (which, longer, would win the overlap and leave
    '+41 (0)'). Digit groups without '+' may run into a house number ('722 20 40 rue Victor Hugo'): the street wins."""
    phones = [f for f in findings if f.entity_type == "PHONE_NUMBER" and text[f.start] == "+"]
    if not phones:
        return list(findings)
    return [f for f in findings if f.entity_type != "STREET_ADDRESS" or not any(p.start < f.start < p.end for p in phones)]


def without_final_dots(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """A street line's dot after its house number or its street word stays where a sentence ends ('Bem rakpart 79.',
    '12 Kirkland Street.' before a capital or a line break), being its full stop too; before a lower-case word
    ('tér 8. yesterday', 'Oak St. today') it is the number's or the abbreviation's."""
    def ends_sentence(f: Finding) -> bool:
        return text[f.end - 1 : f.end] == "." and text[f.end - 2 : f.end - 1].isalnum() and not regex.match(r"[^\S\n]*[\p{Ll}\d,;]", text[f.end : f.end + 8])
    return [Finding(f.start, f.end - 1, f.entity_type, f.score) if f.entity_type == "STREET_ADDRESS" and ends_sentence(f) else f for f in findings]


def merge_streets(findings: Sequence[Finding]) -> list[Finding]:
    """Overlapping street-address findings as one: their union ('434 40 Rue de la Sarthe' and
    'Rue de la Sarthe 421' are one street line, read by two patterns)."""
    streets = sorted(f for f in findings if f.entity_type == "STREET_ADDRESS")
    if len(streets) < 2:
        return list(findings)
    merged: list[Finding] = []
    for f in streets:
        if merged and f.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Finding(last.start, max(last.end, f.end), "STREET_ADDRESS", max(last.score, f.score))
        else:
            merged.append(f)
    return [f for f in findings if f.entity_type != "STREET_ADDRESS"] + merged


def _tidy_streets(text: str, findings: list[Finding]) -> list[Finding]:
    """A street line whole: a second building number before it ('27 2711 Queens Sq') and 'the corner
    of' before it ('the corner of Auenweg 85 and Kesä Street')."""
    if not any(f.entity_type == "STREET_ADDRESS" for f in findings):
        return findings
    tidied: list[Finding] = []
    for f in findings:
        if f.entity_type == "STREET_ADDRESS":
            start = f.start
            before = text[max(0, start - 40) : start]
            if (match := _CORNER_BEFORE.search(before)) or (match := _NUMBER_BEFORE.search(before)):
                start -= len(match.group())
            if start != f.start and not any(o is not f and o.end > start and o.start < f.start for o in findings):
                f = Finding(start, f.end, f.entity_type, f.score)
            elif start == f.start and text[f.start].isdigit() and (match := _LINE_OPENING_STREET.search(text[max(0, f.start - 60) : f.start])):
                # '21 José matía 66 Apt. 617': a line opening with a house number and words, then the number the
                # street was found from, is one street line; a name read inside it is the street's
                f = Finding(f.start - len(match.group()), f.end, f.entity_type, f.score)
            end = _locality_end(text, f.end)
            inside = [o for o in findings if o is not f and o.start < end and o.end > f.end]
            if end != f.end and all(o.start >= f.end and o.end <= end for o in inside):
                f = Finding(f.start, end, f.entity_type, f.score)  # a town taken for a person is the address's town
        tidied.append(f)
    return resolve_overlaps(tidied) if tidied != findings else tidied


_POSTCODE_WORD = r"(?:\d{3}[^\S\n]?\d{2}|\d{4,6}(?:-\d{3,4})?|[A-Z]{1,2}\d[A-Z\d]?[^\S\n]*\d[A-Z]{2})"
_PLACE_WORD = rf"(?:\p{{Lu}}(?:[\p{{L}}'’-]|\.(?=\p{{L}}))*|{_POSTCODE_WORD}|(?:de|la|le|del|di|da|am|an|im|sur|upon|on)(?=[^\S\n]+\p{{Lu}}))"
_CODE_WORD = r"(?!(?:the|for|and|but|not|are|was|has|had|its|our|you|his|her|who|can|may|any|all|in|at|on|to|is|it|by|or|as|be|we|us|me|my|so|no|do|if|up)\b)\p{Ll}{2,3}\b"
"""A short lower-case code after a town ('Haldenstein nan 76216', 'Rzeszów ky'), not a short English word."""
_UNIT_PIECE = r"(?i:apt|apartment|suite|ste|unit|flat|room|rm|fl|floor)\.?[^\S\n]*\#?[^\S\n]*\d{1,5}[A-Za-z]?"
_LOCALITY_PIECE = regex.compile(
    rf"(?:[^\S\n]*,[^\S\n]*|[^\S\n]*\n[^\S\n]*)({_UNIT_PIECE}|(?!{_UNIT_PIECE}){_PLACE_WORD}(?:[^\S\n]+(?:{_PLACE_WORD}|{_CODE_WORD}|of|and))"
    rf"{{0,4}}(?<![^\S\n](?:of|and)))(?=[^\S\n]*(?:[,\n]|[.!?;)](?:[^\S\n]+\p{{Lu}}|\s*$)|$))"
)
"""One piece of the unit, town, region, postcode and country after a street line: a unit, or capitalised
words ('of', 'and' between them) and postcodes, up to a comma, a line break or a sentence's end
('Suite 135', 'Philadelphia', 'PA 19122', 'Republic of Ireland')."""
MAX_LOCALITY_PIECES = 4


_AFTER_UNIT = regex.compile(rf"{_UNIT_PIECE}\Z")
_TOWN_WORDS_AFTER_UNIT = regex.compile(
    rf"(?:[^\S\n]+(?:\p{{Lu}}[\p{{L}}'’.-]*|{_POSTCODE_WORD})(?:[^\S\n]+(?:de|la|le|del|di|da|do|dos|das|du|am|an|im|nad|pod|pri|u)(?=[^\S\n]+\p{{Lu}}))?){{1,5}}"
)
_LOWER_TOWN_WORDS_AFTER_UNIT = regex.compile(
    rf"(?:[^\S\n]+(?!(?:{'|'.join(sorted(w for w in STOP_WORDS if w.isalpha()))})\b)\p{{Ll}}[\p{{Ll}}'’-]*){{1,5}}(?=[^\S\n]*(?:$|[,.?!;\n]|[^\S\n]+(?:for|in|at|on|to|and|last|this|please)\b))"
)
"""After a unit on the same line, its town and country written with spaces only ('Apt. 478 Uralaane Valgamaa
last night'; in an all lower-case text 'apt. 925 kotka ky')."""


_TOWN_IN = regex.compile(
    r"(?:[^\S\n]+(?i:street|road|avenue|square))?[^\S\n]+in[^\S\n]+((?!(?:(?:Jan|Febr)uary|March|April|May|June|July|August|(?:Sept|Octo|Nov|Dec)ember|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"
    r"|Spring|Summer|Autumn|Fall|Winter)\b)\p{Lu}[\p{L}'’-]*(?:[^\S\n]+\p{Lu}[\p{L}'’-]*){0,2})"
    r"(?=[^\S\n]*(?:[,;!?\n]|\.(?:\s|$)|$)|[^\S\n]+\p{Ll})"
)
"""The town after a street line and 'in', a street word between them ('Kossuth utca 12. street in Debrecen'), no month or day."""


def _locality_end(text: str, end: int) -> int:
    """Where an address ends when the pieces after its street line are its town, region, postcode and
    country ('763 Broadway, Suite 135, Philadelphia, PA 19122, USA'; '… street in Keflavíkurflugvöllur'):
    the address is one unit."""
    if _AFTER_UNIT.search(text, max(0, end - 20), end):
        lower = text[max(0, end - 40) : end].islower()
        if match := (_LOWER_TOWN_WORDS_AFTER_UNIT if lower else _TOWN_WORDS_AFTER_UNIT).match(text, end):
            end = match.end()
    if (match := _TOWN_IN.match(text, end)) and match.group(1).split()[0].lower() not in NOT_NAMES:
        end = match.end(1)
    for _ in range(MAX_LOCALITY_PIECES):
        match = _LOCALITY_PIECE.match(text, end)
        if match is None or match.group(1).split()[0].lower() in NOT_NAMES:
            break
        end = match.end(1)
    return end


_UNIT_AFTER_NAME = regex.compile(r"[^\S\n]+(?i:apt|apartment|suite|ste|unit|flat|room)\.?$")
_LIST_GAP = r"(?:[^\S\n]*,[^\S\n]*(?:and[^\S\n]+|&[^\S\n]*)?|[^\S\n]+(?:and|&)[^\S\n]+)"
_NEXT_IN_LIST = regex.compile(rf"{_LIST_GAP}(\p{{L}}+(?:[-'’]\p{{L}}+)*)(?![\w@-])")
_PREVIOUS_IN_LIST = regex.compile(rf"(?<![\w@-])(\p{{L}}+(?:[-'’]\p{{L}}+)*){_LIST_GAP}$")
_NEXT_WORD = regex.compile(r"[^\S\n]+(\p{Ll}+(?:[-'’]\p{Ll}+)*)(?![\w@-])")


def _same_case(word: str, like: str) -> bool:
    return word.islower() if like.islower() else word[:1].isupper()


def _with_listed(text: str, findings: list[Finding]) -> list[Finding]:
    """A list of people is all people: 'our founders: Leehy, Perkins and Copeland' when one of them was
    found, each neighbour written the same way (capitalised or lower case) that could be a name."""
    people = [f for f in findings if f.entity_type == "PERSON"]
    added: list[Finding] = []
    taken = {(f.start, f.end) for f in findings}
    queue = list(people)
    while queue:
        person = queue.pop()
        name = text[person.start : person.end]
        candidates = []
        if match := _NEXT_IN_LIST.match(text, person.end):
            candidates.append((match.start(1), match.end(1)))
        if match := _PREVIOUS_IN_LIST.search(text[max(0, person.start - 60) : person.start]):
            offset = max(0, person.start - 60)
            candidates.append((offset + match.start(1), offset + match.end(1)))
        for start, end in candidates:
            word = text[start:end]
            overlaps = any(start < f.end and f.start < end for f in [*findings, *added])
            if overlaps or (start, end) in taken or not _same_case(word, name) or not name_like(word):
                continue
            if word.islower() and word not in WORLD_FIRST_NAMES and word not in WORLD_LAST_NAMES:
                continue  # lower case: only a word the name lists know ('smit, zhang and edwards'; not 'thx, adelmo')
            found = Finding(start, end, "PERSON", LISTED_SCORE)
            added.append(found)
            queue.append(found)
    return sorted([*findings, *added]) if added else findings


LISTED_SCORE = 0.5
_TITLE_BEFORE = regex.compile(r"(?<![\w.])(?i:mr|mrs|ms|miss|mx|dr|prof)\.?[^\S\n]+$")


def _with_title(text: str, finding: Finding) -> Finding:
    """'Mr. Ryan Ziherl': the title belongs to the name's span (its stand-in keeps the title as written)."""
    match = _TITLE_BEFORE.search(text, max(0, finding.start - 8), finding.start)
    return Finding(match.start(), finding.end, finding.entity_type, finding.score) if match else finding


def _with_surname(text: str, finding: Finding) -> Finding:
    """'tina roelink' when only 'tina' was found: a lower-case first name runs on to the next word
    when that word could be a name."""
    name = text[finding.start : finding.end]
    if not name.islower() or " " in name or name not in WORLD_FIRST_NAMES:
        return finding
    match = _NEXT_WORD.match(text, finding.end)
    if match and name_like(match.group(1)) and zipf_frequency(match.group(1), "en") < COMMON_WORD_ZIPF:
        return Finding(finding.start, match.end(1), finding.entity_type, finding.score)
    return finding


_PARTICLES = "|".join(sorted(PARTICLES))
_NAME_GAP = re.compile(rf"[^\S\n]+(?:(?:{_PARTICLES})[^\S\n]+)*")
"""What may separate two pieces of one name: spaces, and particles ('Yara van den Velden')."""
_WORD = r"[^\W\d_]+(?:[-'’][^\W\d_]+)*"
_PARTICLES_THEN_WORD = re.compile(rf"(?:[^\S\n]+(?:{_PARTICLES}))+[^\S\n]+({_WORD})")
_WORD_THEN_PARTICLES = re.compile(rf"({_WORD})(?:[^\S\n]+(?:{_PARTICLES}))+[^\S\n]+$")


def _with_particles(text: str, finding: Finding) -> Finding:
    """'María del Carmen' when only 'María' (or only 'Carmen') was found: a name runs on over
    particles to the next capitalised word, and back over them to the previous one."""
    start, end = finding.start, finding.end
    while (match := _PARTICLES_THEN_WORD.match(text, end)) and match.group(1)[0].isupper():
        end = match.end()
    before = text[max(0, start - 80) : start]
    if (match := _WORD_THEN_PARTICLES.search(before)) and match.group(1)[0].isupper() and (
        match.start() == 0 or not before[match.start() - 1].isalnum()
    ):
        start -= len(match.group())
    return Finding(start, end, finding.entity_type, finding.score) if (start, end) != (finding.start, finding.end) else finding


_SUFFIX = re.compile(r"(?:,?[^\S\n]+(?:II|III|IV|Jr\.?|Sr\.?|(?i:md|phd|dds|dvm|esq\.?)))(?!\w)")


def _with_suffix(text: str, finding: Finding) -> Finding:
    """'Nikolaj Koch II', 'Sam Reed Jr.': the generational suffix belongs to the name."""
    match = _SUFFIX.match(text, finding.end)
    return Finding(finding.start, match.end(), finding.entity_type, finding.score) if match else finding


def no_places(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """No place is a person: a PERSON finding that is a place ('Japan', 'Ankeny') or rides on a known town
    ('Ringkøbing Jylland', 'Skjern Jylland': `scrubbers.places`) is dropped. A town or country alone in prose
    stays as it is; in an address it is replaced as a part of the address."""
    return [f for f in findings if f.entity_type != "PERSON" or not with_place(text, f.start, f.end)]


_ID_TOKEN = re.compile(r"#?\w+(?:[-.]\w+)*")
"""A token an identifier may be: '#W2611340', '1008292230', 'INV-2024-001'."""
_PREFIXED_ID = re.compile(r"#?[A-Za-z]{1,4}[-_]?(\d{5,})|#(\d{5,})")
"""An id written as a short prefix and a number ('#W9502127', 'ZD-40211'): its number alone is the same id."""


_FIVE_DIGITS = re.compile(r"\d{5}")


def bare_id(identifier: str) -> str | None:
    """The number of a prefixed id ('#W9502127' -> '9502127'), which people also write alone
    ('please provide 9502127'); None for an id with no such prefix."""
    match = _PREFIXED_ID.fullmatch(identifier)
    return (match.group(1) or match.group(2)) if match else None


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
        self.identifiers: frozenset[str] = frozenset()
        self._protected = [re.compile(p) for p in config.protected_patterns]
        self._protected_spans = functools.lru_cache(maxsize=1 << 14)(self._find_protected)
        """Asked of a text on detection and again by the leak gate (most texts come out unchanged)."""
        self._residual_findings = functools.lru_cache(maxsize=1 << 14)(self._find_residual)
        """The leak gate sees a text again in every session it recurs in (a system prompt, a template)."""
        self._entities = list(config.entities)
        self._recognizers = self.analyzer.registry.get_recognizers(language=config.language, entities=self._entities)
        self._triggers = [(_trigger(r), r) for r in self._recognizers]
        for recognizer in self._recognizers:
            if not recognizer.is_loaded:
                recognizer.load()
                recognizer.is_loaded = True

    @property
    def nlp(self) -> spacy.language.Language:
        return self.nlp_engine.get_nlp(self.config.language)

    def protected_spans(self, text: str) -> tuple[tuple[int, int], ...]:
        return self._protected_spans(text)

    def with_identifiers(self, identifiers: frozenset[str]) -> Detector:
        """This detector (same model and recognizers) also protecting `identifiers`: ids known from the
        state database (`StateSource.identifiers`), left alone wherever they appear as a whole token."""
        # this detector's own ids already hold their bare numbers: only the ones added need theirs (the state's
        # thousands of ids were matched again for each day's few ids written in tool results)
        added = identifiers - self.identifiers if identifiers >= self.identifiers else identifiers
        identifiers = identifiers | {bare for i in added if (bare := bare_id(i))}
        if identifiers == self.identifiers:
            return self
        twin = copy.copy(self)
        twin.identifiers = identifiers
        twin._protected_spans = functools.lru_cache(maxsize=1 << 14)(twin._find_protected)
        twin._residual_findings = functools.lru_cache(maxsize=1 << 14)(twin._find_residual)
        return twin

    def ids_written(self, texts: Iterable[str]) -> frozenset[str]:
        """The prefixed ids the protected patterns find in `texts` ('#W9502127'): with `with_identifiers`,
        their numbers written alone ('provide 9502127 first') are protected too."""
        return frozenset(
            m.group() for text in set(texts) if _FIVE_DIGITS.search(text)
            for pattern in self._protected for m in pattern.finditer(text) if bare_id(m.group())
        )

    def _find_protected(self, text: str) -> tuple[tuple[int, int], ...]:
        spans = [m.span() for pattern in self._protected for m in pattern.finditer(text) if m.end() > m.start()]
        if self.identifiers and any(c.isdigit() for c in text):  # every identifier holds a digit
            spans += [m.span() for m in _ID_TOKEN.finditer(text) if m.group() in self.identifiers]
        return tuple(sorted(spans))

    def unprotected(self, text: str, findings: Sequence[Finding]) -> list[Finding]:
        """Drop every finding that overlaps a protected identifier (order id, amount, status, ...)."""
        spans = self.protected_spans(text)
        return [f for f in findings if all(f.end <= start or f.start >= end for start, end in spans)]

    def needs_ner(self, text: str) -> bool:
        """Whether a name could be found in `text`: two letters in a row outside protected identifiers."""
        return _may_name(_outside(text, self.protected_spans(text)))

    def analyze_batch(self, texts: Sequence[str]) -> list[list[Finding]]:
        """Findings per text (protected spans removed, overlaps resolved); one `nlp.pipe` pass.

        Recognizers are called directly on the shared artifacts (Presidio's per-call `analyze`
        setup is skipped), each only on texts that pass its cheap trigger. Only what lies outside
        protected identifiers counts: a text with no letter or digit there is not analyzed at
        all, and one without two letters in a row there (a timestamp, an order id) skips NER.
        """
        lang = self.config.language
        outside = {i: _outside(text, self.protected_spans(text)) for i, text in enumerate(texts)}
        wanted = [i for i, pieces in outside.items() if any(c.isalnum() for piece in pieces for c in piece)]
        named = {i for i in wanted if _may_name(outside[i])}
        results: list[list[Finding]] = [[] for _ in texts]
        batch = self.nlp_engine.artifacts_batch([texts[i] for i in wanted if i in named], lang, self.config.batch_size)
        for index in wanted:
            text = texts[index]
            artifacts = next(batch) if index in named else self.nlp_engine.without_ner(text, lang)
            digits = sum(len(_DIGIT.findall(piece)) for piece in outside[index])
            active = self._active(text, digits)
            raw = [result for r in active for result in r.analyze(text, self._entities, artifacts) or []]
            threshold = self.config.score_threshold
            passing, below = [r for r in raw if r.score >= threshold], [r for r in raw if r.score < threshold]
            if below:  # context words only raise scores: they matter only to a result still below the threshold
                below = self.analyzer._enhance_using_context(text, below, artifacts, active)
            kept = EntityRecognizer.remove_duplicates(passing + [r for r in below if r.score >= threshold])
            findings = names_before_units(text, merge_streets(phones_before_streets(text, [Finding(r.start, r.end, r.entity_type, round(r.score, 4)) for r in kept])))
            people = no_places(text, tidy_people(text, split_joined_people(text, no_places(text, self.unprotected(text, findings)))))
            results[index] = without_final_dots(text, with_crossings(text, people))
        return results

    def _active(self, text: str, digits: int) -> list[EntityRecognizer]:
        """The recognizers whose trigger passes on `text`; a trigger several share (their type's: the
        street recognizers' searches `NAMED_STREET`) is asked once."""
        passed: dict[Callable[[str, int], bool], bool] = {}
        active = []
        for trigger, recognizer in self._triggers:
            if trigger not in passed:
                passed[trigger] = trigger(text, digits)
            if passed[trigger]:
                active.append(recognizer)
        return active

    def residual_findings(self, text: str) -> tuple[Finding, ...]:
        """Validated leak-gate types in already-scrubbed text (regex and checksums only, no tokenization)."""
        return self._residual_findings(text)

    def _find_residual(self, text: str) -> tuple[Finding, ...]:
        findings = [Finding(start, end, entity, 1.0) for start, end, entity in self.residual.find(text)]
        return tuple(resolve_overlaps(self.unprotected(text, findings)))


@functools.lru_cache(maxsize=4)
def get_detector(config: ScrubConfig) -> Detector:
    """One detector (spaCy model + analyzers) per process for each distinct config."""
    return Detector(config)
