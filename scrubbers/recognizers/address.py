"""Street addresses: number + street name + suffix, optional unit, optional US city/state/zip."""

from __future__ import annotations

import regex
from faker.providers.address.en_US import Provider as UsAddress
from presidio_analyzer import LocalRecognizer, Pattern, RecognizerResult
from spacy.lang.en.stop_words import STOP_WORDS
from wordfreq import zipf_frequency

from scrubbers.recognizers.person import NAME_LISTS, NOT_NAMES
from scrubbers.recognizers.preset import PresetPatternRecognizer

_ABBREVIATIONS = (
    "St", "Ave", "Av", "Rd", "Blvd", "Dr", "Ln", "Ct", "Pl", "Ter", "Cir", "Pkwy", "Hwy", "Sq",
    "Trl", "Xing", "Aly", "Plz", "Rdg", "Hts", "Pt", "Cres", "Mnr", "Expy", "Fwy", "Cv", "Crk",
)
_SUFFIX = "(?:" + "|".join(sorted({*UsAddress.street_suffixes, *_ABBREVIATIONS}, key=lambda s: (-len(s), s))) + r")\.?"
_STREET_WORD = r"(?:[A-Z][A-Za-z'’-]*|\d{1,3}(?:st|nd|rd|th)|[NSEW]\.?)"
_UNIT = r"(?:,?[^\S\n]+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Fl\.?|Floor|Room|Rm\.?|\#)[^\S\n]*\#?[A-Za-z0-9-]{1,6})?"
_STATE = "(?:" + "|".join(UsAddress.states_abbr) + ")"
_CITY_STATE_ZIP = (
    r"(?:(?:,[^\S\n]*|[^\S\n]*\n[^\S\n]*)[A-Z][A-Za-z.'-]+(?:[^\S\n]+[A-Z][A-Za-z.'-]+){0,2},?[^\S\n]+"
    + _STATE
    + r"[^\S\n]+\d{5}(?:-\d{4})?)?"
)


class StreetAddressRecognizer(PresetPatternRecognizer):
    """'1234 Maple Street, Apt 5B, Springfield, IL 62704' and the like (US-style layout)."""

    ENTITY = "STREET_ADDRESS"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern(
            "Street address",
            r"\b\d{1,6}[A-Z]?[^\S\n]+" + _STREET_WORD + r"(?:[^\S\n]+" + _STREET_WORD + r"){0,3}[^\S\n]+"
            + _SUFFIX + r"(?![A-Za-z])" + _UNIT + _CITY_STATE_ZIP,
            0.6,
        ),
    ]
    CONTEXT = ["address", "ship", "shipping", "deliver", "street", "billing", "live", "moved"]


_LETTER_WORD = r"\p{L}[\p{L}'’.-]*"
_STREET_TYPES_BEFORE = (
    r"(?i:via|viale|vicolo|piazza|corso|largo|rua|travessa|avenida|av\.|avda\.|calle|c/|camino|cami[ñn]o|carrer|paseo"
    r"|plaza|pra[çc]a|rue|avenue|boulevard|bd\.?|chemin|all[ée]e|impasse|quai|ul\.|ulica|aleja|al\.|strada|bulevar|trg|ulitsa)"
)
_STREET_TYPES_AFTER = (
    r"(?:\p{L}+-)*\p{L}+\.?(?<=(?i:stra(?:ss|ß)e|str\.|gasse|weg|vej|vejen|veien|vegen|gata|gatan|gade|gränd|laan|straat|plein|gracht|kade"
    r"|tie|katu|kuja|polku|väg|vägen|allee|ring|platz|damm|ufer|steig|markt|u\.|út|útja|utca|tér|köz|sokak|sokağı|caddesi|cad\."
    r"|ulica|ulice|cesta|iela|gatvė|gatve|tänav|maantee"
    r"|rakpart|sétány|fasor|baan|dreef|torg|torget|plass|plads"
    r"|street|road|lane|avenue|drive|way|court|place|square|terrace|close|crescent|gardens|grove|hill|park|row|walk))"
)
"""A word ending in a street type ('Puruntie', 'Floridusgasse', 'tér', 'Karl-Marx-Straße' with its hyphens): the whole
word, then one look back at its end."""
STREET_TYPES_BEFORE = _STREET_TYPES_BEFORE
"""A street type written before the street's name ('ul.', 'Rue', 'Via'), any case."""
_OPENING_NAME_WORD = r"(?!(?:The|A|An|My|Our|Your|His|Her|Their|This|That|At|To|In|On|From|And|Or|Of)\b)\p{Lu}[\p{L}'’.-]*"
"""A capitalised word that may open a street's name: no English article, pronoun or preposition ('The Grote Markt 7')."""
_LOWER_TYPE_WORD = (
    r"(?:gate|gata|gatan|vei|veien|vej|vejen|vegen|gade|gränd|tér|utca|út|körút|rakpart|sétány|fasor|köz|straat|laan|baan"
    r"|weg|dreef|plein|allé|ulica|sokak|sokağı|caddesi)(?!\p{L})"
)
"""A street type written in lower case as a word of its own after the street's name ('Kongens gate 5', 'Bem rakpart 79.')."""
_PLACE_PREPOSITION = r"(?<=\b(?i:on|off|along|down|near|at|onto|opposite|past)[^\S\n]+)"
"""Where a street is named without its house number: 'lives on Andreassen Street', 'lives off Puruntie'."""
_TYPE_WORD = (
    r"(?:Street|St\.|Road|Rd\.|Avenue|Ave\.|Lane|Drive|Boulevard|Blvd\.|Way|Court|Place|Square|Terrace|Close|Crescent"
    r"|Gardens|Grove|Row|Walk|(?i:street|road|avenue|lane|drive|boulevard|gate|gata|gatan|vei|veien|vej|vejen|tér|utca|út|köz"
    r"|allé|allee|straße|strasse|laan|straat|ulica|iela|sokak|sokağı|caddesi))(?![\p{L}'’-])"
)
"""A street type written as a word of its own after the street's name ('Andreassen Street', 'Kongens gate')."""
_TYPE_SUFFIX_WORD = (
    r"\p{Lu}\p{Ll}{2,}(?<=\p{Ll}{2}(?:tie|katu|kuja|polku|gasse|stra(?:ss|ß)e|weg|vej|vejen|veien|vegen|gata|gatan|gade|straat"
    r"|laan|gracht|utca|ulica|iela|gatvė|tänav|maantee|allee|platz|väg|vägen))(?![\p{L}'’-])"
)
_TYPE_SUFFIX_WORD = (
    r"(?:(?:\p{Lu}[\p{L}'’]*-)+\p{Lu}\p{Ll}+\.?(?<=-(?i:stra(?:ss|ß)e|str\.|allee|platz|weg|gasse|ring|damm|ufer|chaussee|gade|vej|gata|katu|tie))"
    rf"|{_TYPE_SUFFIX_WORD})(?![\p{{L}}'’-])"
)
"""One word naming a street by its ending ('Puruntie', 'Floridusgasse', 'Kirkevegen', 'Karl-Marx-Allee'), the ending not the whole word."""
_UNIT_WORD = r"(?i:apt\.?|apartment|suite|ste\.?|unit|flat|room|rm\.?)"
_HOUSE_NUMBER = r"\d{1,5}[A-Za-z]?(?:[-–]\d{1,5}[A-Za-z]?)?"
"""A house number after its street, or a range of them ('Ka-Ping Street 5-7')."""
_PO_BOX = r"(?i:p\.?[^\S\n]?o\.?[^\S\n]?box)[^\S\n]+\d{1,6}"
_NAME_WORD = (
    r"(?:\p{Lu}[\p{L}'’.-]*|(?:de|la|le|del|della|di|da|das|do|dos|des|du|van|von|der|den|al|el|y|i)\b|C/|u\.(?=[^\S\n])"
    r"|(?:gate|gata|gatan|vei|veien|vej|vejen|vegen|gade|gränd|tér|utca|út|köz|straat|laan|weg|ulica|sokak|sokağı|caddesi|χλμ|οδός)(?!\p{L}))"
)
"""A word of a street's name: capitalised, a particle ('Rue de la Sarthe') or a street type in lower case
('Ingelbrecht Knudssøns gate', 'Pernilles vei', 'χλμ Αλεξανδρούπολης')."""
_NAMED_STREET = (
    rf"{_PLACE_PREPOSITION}(?:(?!(?i:the|a|an|this|that|my|our|your|his|her|their)\b)\p{{Lu}}[\p{{L}}'’.-]*[^\S\n]+"
    rf"(?:(?:{_NAME_WORD})[^\S\n]+){{0,3}}{_TYPE_WORD}|{_TYPE_SUFFIX_WORD}"
    rf"|(?!via\b|VIA\b){_STREET_TYPES_BEFORE}(?:[^\S\n]+(?:de|la|le|del|della|di|da|das|do|dos|des|du)){{0,2}}[^\S\n]+\p{{Lu}}[\p{{L}}'’-]*\p{{L}})"
)
NAMED_STREET = regex.compile(_NAMED_STREET)
"""A street named without its house number after a place preposition: the one street line without a digit."""
_LOWER_WORDS = (
    r"(?:(?!(?:and|or|of|the|for|to|in|on|at|by|with|from|is|are|was|were|an?|more|than|it|we|i|you|he|she|they|them|have|has|had"
    r"|got|get|bought|about|each|per|x|items?|days?|weeks?|months?|years?|hours?|minutes?|times?|pairs?)\b)\p{Ll}[\p{Ll}'’-]*[^\S\n]+){1,4}"
)
"""One to four lower-case words of a street's name ('törneby', 'rúa do paseo'), no English function word among them."""
_UNIT_TAIL = (
    rf"(?:,?[^\S\n]+{_UNIT_WORD}[^\S\n]*\#?\d{{1,5}}[A-Za-z]?\b"
    r"(?:(?:[^\S\n]+(?:\p{Lu}[\p{L}'’.-]*|\p{Ll}{2,3}\b)){1,5}(?=[^\S\n]*(?:$|[,.?!])))?)?"
)
"""A unit after the street on the same line, then the town and country (capitalised words, short
lower-case codes: 'Reykjavík nan', 'Rzeszów ky') if they run to the line's or the sentence's end."""


class InternationalStreetRecognizer(PresetPatternRecognizer):
    """Street lines as most of the world writes them: the house number after the street ('Puruntie 82',
    'Via Capo le Case 143', 'Erzsébet tér 19.'), often after a building number too ('55 Školní 645'),
    P.O. boxes; a unit on the same line ('Apt. 591'), and the town and country after it up to the line's end."""

    ENTITY = "STREET_ADDRESS"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern(
            "Building number, street, house number",
            rf"(?<![\w.,/-])\d{{1,5}}[A-Za-z]?[^\S\n]+(?:{_NAME_WORD}[^\S\n]+){{1,5}}\d{{1,5}}[A-Za-z]?\b\.?{_UNIT_TAIL}",
            0.55,
        ),
        Pattern(
            "Street type, then name and house number",
            rf"(?<![\w-])(?:\d{{1,5}}[^\S\n]+)?{_STREET_TYPES_BEFORE}[^\S\n]+(?:{_LETTER_WORD}[^\S\n]+){{1,4}}{_HOUSE_NUMBER}\b\.?{_UNIT_TAIL}",
            0.6,
        ),
        Pattern(
            "Number, street type, then name",
            rf"(?<![\w.,/-])(?:\d{{1,5}}[^\S\n]+){{1,2}}{_STREET_TYPES_BEFORE}(?:[^\S\n]+{_NAME_WORD}){{1,5}}\b{_UNIT_TAIL}",
            0.6,
        ),
        Pattern(
            "Street name with its type, then house number",
            rf"(?<![\w-])(?:\d{{1,5}}[^\S\n]+)?(?:(?:{_OPENING_NAME_WORD}|\p{{Ll}}+(?:-\p{{L}}+)+)[^\S\n]+){{0,3}}{_STREET_TYPES_AFTER}"
            rf"[^\S\n]+{_HOUSE_NUMBER}\b\.?{_UNIT_TAIL}",
            0.6,
        ),
        Pattern(
            "Street name, its type as a lower-case word, then house number",
            rf"(?<![\w-])(?:\d{{1,5}}[^\S\n]+)?{_OPENING_NAME_WORD}(?:[^\S\n]+\p{{Lu}}[\p{{L}}'’.-]*){{0,2}}[^\S\n]+{_LOWER_TYPE_WORD}[^\S\n]+{_HOUSE_NUMBER}\b\.?{_UNIT_TAIL}",
            0.6,
        ),
        Pattern(
            "Numbers, then street name ending in its type",
            rf"(?<![\w.,/-])(?:(?:\d{{1,5}}|\p{{Lu}}[\p{{L}}'’.-]*)[^\S\n]+){{0,4}}\d{{1,5}}[A-Za-z]?(?:[^\S\n]+{_LETTER_WORD}){{0,4}}"
            rf"[^\S\n]+{_STREET_TYPES_AFTER}\b\.?{_UNIT_TAIL}",
            0.6,
        ),
        Pattern("Street named without a house number", _NAMED_STREET, 0.55),
        Pattern(
            "Two numbers, then a street's name to the line's end",
            rf"(?<![\w.,/-])\d{{1,5}}[^\S\n]+\d{{1,5}}(?:[^\S\n]+{_NAME_WORD}){{1,4}}(?=[^\S\n]*(?:\n|,|$))",
            0.55,
        ),
        Pattern(
            "Street line in lower case after a unit or an address, or opening a line",
            rf"(?:(?<=(?:{_UNIT_WORD}[^\S\n]*\#?\d{{1,5}}[A-Za-z]?|(?i:address)(?:[^\S\n]+(?:is|with|to))?:?)[^\S\n]+)(?:\d{{1,5}}[^\S\n]+)?"
            rf"|^[^\S\n]*\d{{1,5}}[^\S\n]+){_LOWER_WORDS}\d{{1,5}}[a-z]?\b"
            rf"(?:[^\S\n]+{_UNIT_WORD}[^\S\n]*\#?\d{{1,5}}[A-Za-z]?\b|(?:[^\S\n]+\p{{Ll}}[\p{{Ll}}'’-]*){{1,3}}(?=[^\S\n]*(?:\n|$)))?",
            0.55,
        ),
        Pattern("P.O. box", rf"(?<![\w-])(?:\d{{1,5}}[^\S\n]+)?{_PO_BOX}\b", 0.6),
        Pattern("Military address", r"\b(?i:PSC|Unit|USNS|USS|USNV|USCGC)[^\n]{1,30}?\n?[^\S\n]*(?i:APO|FPO|DPO)[^\S\n]+(?i:AA|AE|AP)[^\S\n]+\d{5}\b", 0.6),
    ]
    CONTEXT = ["address", "ship", "shipping", "deliver", "street", "billing", "live", "lives", "moved", "send"]

    def validate_result(self, pattern_text: str) -> bool | None:
        words = regex.findall(r"\p{L}+", pattern_text)
        if (gate := _ENGLISH_GATE.search(pattern_text)) and zipf_frequency(gate.group(1), "en") >= 3.0:
            return False  # 'Terminal gate 5' is an airport's gate, 'Kongens gate 5' a street
        if len(words) == 1 and not any(c.isdigit() for c in pattern_text) and zipf_frequency(words[0], "en") >= 2.5:
            return False  # 'on Bertie' is a name English text uses, not a street ending in '-tie'
        if words and _counted(pattern_text) and not _STREET_TYPE_ANYWHERE.search(pattern_text) and not any(map(_street_like_name, words)):
            return False  # '2 large pizzas 3', '2 Large Pizzas 3' count things: no street word, only words English uses, no name
        return None if words and not all(w.lower() in _NOT_STREET_WORDS for w in words) else False


def _counted(text: str) -> bool:
    """Words written as a count of things may be: all lower case, or capitalised as product names are, ending in a
    plural of a word English uses ('2 Large Pizzas 3'). A street named by one capitalised word ('59 Delta 116',
    '71 Paraguay 87') counts nothing."""
    words = regex.findall(r"\p{L}+", text)
    if text.islower():
        return True
    last = words[-1] if words else ""
    plural = len(last) > 3 and last.endswith("s") and max(zipf_frequency(last[:-1], "en"), zipf_frequency(last[:-2], "en")) >= _COUNTED_THING_ZIPF
    return plural and all(w[:1].isupper() and w[1:].islower() for w in words)


def _street_like_name(word: str) -> bool:
    """A word a street is named by: a name the lists know, or one English text rarely uses ('törneby', 'Drandaki')."""
    forms = [word, word[:-1], word[:-2]] if len(word) > 4 and word.endswith("s") else [word]  # 'cokes', 'boxes'
    return word.lower() in NAME_LISTS or max(zipf_frequency(form, "en") for form in forms) < _COUNTED_THING_ZIPF


_COUNTED_THING_ZIPF = 3.0
_STREET_TYPE_ANYWHERE = regex.compile(
    rf"(?<!\p{{L}})(?:{_STREET_TYPES_BEFORE}|{_SUFFIX}|{_STREET_TYPES_AFTER}|{_LOWER_TYPE_WORD}|{_UNIT_WORD}|(?i:box|psc|unit|apo|fpo|dpo))(?!\p{{L}})"
)
"""A street type or a unit word anywhere in a match: a street line by its words, whatever else they are."""


_ENGLISH_GATE = regex.compile(r"(\p{L}+)[^\S\n]+gate[^\S\n]+\d")
_NOT_STREET_WORDS = frozenset(
    "and or of the for to in on at by with from items item pairs times days weeks months years hours minutes x".split()
)


class AddressUnitRecognizer(PresetPatternRecognizer):
    """A unit line of an address ('Apt. 566', 'suite 790'): the unit word and its number."""

    ENTITY = "STREET_ADDRESS"
    FLAGS = regex.MULTILINE
    PATTERNS = [Pattern("Unit", rf"(?<![\w-]){_UNIT_WORD}[^\S\n]*\#?[^\S\n]*\d{{1,5}}[A-Za-z]?\b", 0.55)]
    CONTEXT = ["address", "ship", "deliver", "street", "apartment", "suite"]


_COUNTRIES = "|".join(regex.escape(c) for c in sorted(UsAddress.countries, key=lambda c: (-len(c), c)))


class PostcodeRecognizer(PresetPatternRecognizer):
    """A postcode where an address puts it: after a country or a state/region code at the end of an
    address block ('Uruguay 93613', 'Dallas TX 48486'), after a town ('living in Jacksonville 32278'),
    or named ('my zip code is 35649')."""

    ENTITY = "STREET_ADDRESS"
    FLAGS = regex.MULTILINE
    PATTERNS = [
        Pattern("After a country", rf"(?<=\b(?i:{_COUNTRIES})[^\S\n]+)\d{{3,6}}(?:-\d{{3,4}})?\b", 0.55),
        Pattern("After a region code", r"(?<=\p{L}[^\S\n]+\p{Lu}{1,3}[^\S\n]+)\d{5}(?:-\d{4})?(?=[^\S\n]*(?:$|,))", 0.55),
        Pattern("Town, state and zip", r"\b\p{Lu}\p{Ll}+(?:[^\S\n]+\p{Lu}\p{Ll}+){0,2},[^\S\n]*(?:" + "|".join(UsAddress.states_abbr)
                + r"),?[^\S\n]+\d{5}(?:-\d{4})?(?![\w-])", 0.55),
        Pattern("After a town", r"(?<=\b(?i:in|at|from|near|to)[^\S\n]+\p{Lu}\p{Ll}+(?:[^\S\n]+\p{Lu}\p{Ll}+){0,2},?[^\S\n]+)\d{5}(?:-\d{4})?(?![\w-])", 0.55),
        Pattern("Named", r"(?<=(?i:\bzip(?:[^\S\n]?code)?|\bpost(?:al)?[^\S\n]?code)[^\S\n]*(?:is|:|=)?[^\S\n]*)[A-Z0-9]{3,7}(?:-\d{4})?\b", 0.6),
    ]
    CONTEXT = ["zip", "postcode", "postal", "address"]

    def validate_result(self, pattern_text: str) -> bool | None:
        return None if any(c.isdigit() for c in pattern_text) else False


_LINE_MARK = r"(?:[>?*•·-]+[^\S\n]*)?"
"""What may open each line of a quoted or listed address block ('> ', '??? ')."""
_BLOCK_WORD = r"\p{L}[\p{L}'’.-]*"
_STREET_LINE_ALONE = regex.compile(
    rf"(?:^[^\S\n]*{_LINE_MARK}|(?<=\b(?i:address)(?:[^\S\n]+(?i:is|to))?:?[^\S\n]+))"
    rf"(?P<line>(?:\d{{1,5}}[A-Za-z]?[^\S\n]+)?(?:(?P<corner>{_BLOCK_WORD}(?:[^\S\n]+{_BLOCK_WORD}){{0,2}})[^\S\n]+and[^\S\n]+)?"
    rf"(?P<street>{_BLOCK_WORD}(?:[^\S\n]+{_BLOCK_WORD}){{0,3}})[^\S\n]+{_HOUSE_NUMBER}\.?)[^\S\n]*$",
    regex.MULTILINE,
)
"""A line that is a street's name (a crossing's first street and 'and' before it, a building number before both)
and a house number, nothing after it: 'Truhlářská 996', 'Mille and Truhlářská 996', '76 Boriñaur enparantza 29'."""
_UNIT_LINE = regex.compile(rf"[^\S\n]*{_LINE_MARK}{_UNIT_WORD}[^\S\n]*\#?[^\S\n]*\d{{1,5}}[A-Za-z]?\b")
_HEADER_LINE = regex.compile(rf"[^\S\n]*{_LINE_MARK}\p{{L}}[\p{{L}}&'’.,()-]*(?:[^\S\n]+[\p{{L}}&'’.,()-]+){{0,5}}(?<![.!?;:,])[^\S\n]*")
"""A line of a few words without a digit or a sentence's end: a person's or a company's name heading an address."""
_ADDRESS_CUE_LINE = regex.compile(r"(?i)[^\n]*\baddress(?:es)?\b[^\n]*:[^\S\n]*")
_NUMBERED_THINGS = frozenset(
    "room rm gate page pg chapter table seat row level floor fl platform terminal step item version line flight bus train exit"
    " section part figure track episode season volume vol issue number no nr order ticket day week month year hour minute"
    " question point score grade class group team player tier phase round stage act scene verse lot aisle door dock pier"
    " bay berth booth counter desk window bed ward block hall court pitch zone sector channel box unit suite apt flat".split()
)
"""Words English numbers things by ('Room 12', 'Gate 4', 'Page 3'): no street's name, whatever the name lists hold."""
_COUNTRY = regex.compile(rf"(?i:{_COUNTRIES})")
_BLOCK_LINES = 4
"""How many lines above a street line an address block's heading may start: none of them holds a digit."""
_PARTICLE_WORDS = frozenset("de la le del della di da das do dos des du van von der den al el y i u".split())


class AddressBlockStreetRecognizer(LocalRecognizer):
    """A street line known by its place in an address block, whatever its words: a street's name then a house number
    alone on a line ('Truhlářská 996', 'Mille and Truhlářská 996') under a person's or a company's name, before a unit
    line ('76 Boriñaur enparantza 29' over 'Apt. 311'), or after 'address:'. The words of the name are no English
    function words, the word before the number numbers no thing ('Room 12', 'Gate 4'), and one of them is a name or
    rare in English; a line of a list of such lines ('Mike 42' over 'Anna 37') is none, nor one alone ('Mike 42')."""

    SCORE = 0.55
    CUES = regex.compile(r"\p{L}[^\S\n]+\d{1,5}[A-Za-z]?\.?[^\S\n]*(?:\n|\Z)")

    def __init__(self, supported_language: str = "en", score: float | None = None) -> None:
        self.score = self.SCORE if score is None else score
        self.cues = self.CUES
        super().__init__(supported_entities=["STREET_ADDRESS"], name="AddressBlockStreetRecognizer", supported_language=supported_language)

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        results = []
        for match in _STREET_LINE_ALONE.finditer(text):
            words = [*(match.group("corner") or "").split(), *match.group("street").split()]
            if _street_words(words) and not _COUNTRY.fullmatch(match.group("street")) and (not _line_start(text, match.start("line")) or _in_address_block(text, match.start(), match.end())):
                results.append(RecognizerResult("STREET_ADDRESS", match.start("line"), match.end("line"), self.score))
        return results


def _street_words(words: list[str]) -> bool:
    lower = [w.strip(".").lower() for w in words]
    if any(w in STOP_WORDS and w not in _PARTICLE_WORDS for w in lower) or lower[-1] in _NUMBERED_THINGS:
        return False
    return any(map(_street_like_name, lower))


def _line_start(text: str, position: int) -> bool:
    """Whether only a line's opening mark is before `position` on its line (not an 'address:' cue)."""
    return regex.fullmatch(rf"[^\S\n]*{_LINE_MARK}", text[text.rfind("\n", 0, position) + 1 : position]) is not None


def _in_address_block(text: str, start: int, end: int) -> bool:
    """Whether the line text[start:end] sits in an address block: a unit line right after it, or after a line naming a
    person or a company or saying 'address:' (blank lines between), and no line of the same shape next to it."""
    before = text[:start].rstrip("\n").split("\n") if text[:start].strip() else []
    after = text[end:].lstrip("\n").split("\n") if text[end:].strip() else []
    if after and _UNIT_LINE.match(after[0]) and text[end : end + 1] == "\n":
        return True
    previous = next((line for line in reversed(before) if line.strip()), None)
    following = next((line for line in after if line.strip()), None)
    if previous is None or following is not None and _STREET_LINE_ALONE.fullmatch(following):
        return False
    if any(c.isdigit() for line in before[-_BLOCK_LINES:] for c in line):
        return False  # a line after the street line's own ('Reykjavík' over 'Turkmenistan 51262'): the street comes first
    if _ADDRESS_CUE_LINE.fullmatch(previous):
        return True
    words = regex.findall(r"\p{L}+", previous)
    return _HEADER_LINE.fullmatch(previous) is not None and not all(w.lower() in STOP_WORDS or w.lower() in NOT_NAMES for w in words)
