"""One stand-in per original across a run, with a person's other forms following their full name.

Keyed by the HMAC digest of (type, normalized original): the originals themselves are never
stored here, only digests and stand-ins.
"""

from __future__ import annotations

import re
from urllib.parse import quote, quote_plus

from scrubbers.pseudonyms import MAX_ATTEMPTS, RESERVED_EMAIL_DOMAINS, TITLES, Pseudonymizer, normalize, same_case
from scrubbers.recognizers.url import personal_url_parts
from scrubbers.recognizers.username import name_built

_HANDLE_PIECES = re.compile(r"([._\-+]|\d+)")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
LAYOUT_TYPES = frozenset({"PHONE_NUMBER", "CREDIT_CARD", "US_SSN", "IBAN_CODE", "DATE_OF_BIRTH"})
"""Types whose stand-in follows each mention's own layout (one number, several formats)."""


def _wordlike(piece: str) -> bool:
    """A name piece of a handle: letters, possibly with an apostrophe ("o'neill")."""
    return piece.replace("'", "").replace("’", "").isalpha()


class ConsistencyMap:
    """`avoid`: digests (`Pseudonymizer.digest("PERSON", name)`) of real people's full names; a
    full-name stand-in never takes one, so no stand-in reads as another real customer."""

    def __init__(self, pseudonymizer: Pseudonymizer, avoid: frozenset[str] = frozenset()) -> None:
        self._pseudonymizer = pseudonymizer
        self._avoid = set(avoid)
        self._stand_ins: dict[str, str] = {}
        self._laid_out: set[str] = set()
        self._last_names: dict[str, str] = {}
        """digest of an original surname's first-name initial + surname -> stand-in initial + surname."""

    @property
    def stand_ins(self) -> frozenset[str]:
        return frozenset(self._stand_ins.values()) | frozenset(self._laid_out)

    def register_people(self, names: list[str]) -> None:
        """Map full names first (most tokens first), so their parts are bound before lone mentions.

        Every full name given is a real person's, so it joins the names stand-ins avoid.
        """
        ordered = sorted(
            {" ".join(n.split()) for n in names}, key=lambda n: (-len(n.split()), normalize("PERSON", n), n)
        )
        self._avoid.update(self._pseudonymizer.digest("PERSON", name) for name in ordered if len(name.split()) > 1)
        for name in ordered:
            self.replace("PERSON", name)

    def replace(self, entity_type: str, value: str) -> str:
        digest = self._pseudonymizer.digest(entity_type, value)
        if entity_type in LAYOUT_TYPES:
            self._laid_out.add(self._pseudonymizer.stand_in(entity_type, value))
        if digest not in self._stand_ins:
            self._stand_ins[digest] = self._make(entity_type, value)
        stand_in = self._stand_ins[digest]
        if entity_type in LAYOUT_TYPES:
            return self._pseudonymizer.stand_in(entity_type, value)
        if entity_type == "PERSON":
            return " ".join(same_case(o, r) for o, r in zip(value.split(), stand_in.split()))
        return stand_in

    def _known(self, entity_type: str, value: str) -> str | None:
        return self._stand_ins.get(self._pseudonymizer.digest(entity_type, value))

    def _make(self, entity_type: str, value: str) -> str:
        if entity_type == "PERSON":
            return self._person(value)
        if entity_type == "EMAIL_ADDRESS":
            return self._email(value)
        if entity_type == "USERNAME":
            prefix = "@" if value.startswith("@") else ""
            handle = value.lstrip("@")
            if name_built(handle) and self._handle_from_names(handle) is None:
                first, last, _ = handle.split("_")
                self._person(f"{first.capitalize()} {last.capitalize()}")  # binds both names, as if written in full
            return prefix + (self._handle_from_names(handle) or self._pseudonymizer.stand_in(entity_type, handle))
        if entity_type == "URL":
            return self._url(value)
        if entity_type in {"STREET_ADDRESS", "ADDRESS"}:
            return self._street(entity_type, value)
        return self._pseudonymizer.stand_in(entity_type, value)

    def _street(self, entity_type: str, value: str) -> str:
        """An address stand-in none of whose words is a real person's name found in the run: Faker names
        streets after people ('313 Nguyen Junction' for the address of a Nguyen)."""
        for attempt in range(MAX_ATTEMPTS):
            stand_in = self._pseudonymizer.stand_in(entity_type, value, attempt)
            if not any(self._known("PERSON", word) for word in _CAPITALISED.findall(stand_in)):
                break
        return stand_in

    def _person(self, value: str) -> str:
        tokens = value.split()
        title = tokens[:1] if len(tokens) > 1 and tokens[0].rstrip(".").lower() in TITLES else []
        names = tokens[len(title) :]
        if len(names) == 1:
            known = self._known("PERSON", names[0])
            return " ".join(title + [known or self._pseudonymizer.stand_in("PERSON", value).split()[-1]])
        stand_in = self._full_name(" ".join(names)).split()
        # a part already bound (a surname two customers share) keeps its stand-in: the full name reads as its parts
        composed = [self._known("PERSON", original) or replacement for original, replacement in zip(names, stand_in)]
        if composed != stand_in and self._pseudonymizer.digest("PERSON", " ".join(composed)) not in self._avoid:
            stand_in = composed
        for original, replacement in zip(names, stand_in):
            part_digest = self._pseudonymizer.digest("PERSON", original)
            self._stand_ins.setdefault(part_digest, replacement)
        initial_key = self._pseudonymizer.digest("PERSON_INITIAL_SURNAME", names[0][0] + names[-1])
        self._last_names.setdefault(initial_key, stand_in[0][0] + stand_in[-1])
        return " ".join(title + stand_in)

    def _full_name(self, name: str) -> str:
        """The first stand-in for `name` that is no real person's full name and reuses no real name part
        met so far, its own included ('Mei Martin' -> 'Patricia Martin' would keep 'Martin' for every
        Martin whose surname follows it); the last tried, if all were."""
        originals = [part.lower() for part in name.split()]
        for attempt in range(MAX_ATTEMPTS):
            stand_in = self._pseudonymizer.stand_in("PERSON", name, attempt)
            reused = any(part.lower() in originals or self._known("PERSON", part) for part in stand_in.split())
            if self._pseudonymizer.digest("PERSON", stand_in) not in self._avoid and not reused:
                break
        return stand_in

    def _handle_from_names(self, handle: str) -> str | None:
        """'jane.gonzalez', 'jgonzalez', 'Jane_Gonzalez88' rebuilt from a known person's stand-in name."""
        pieces = _HANDLE_PIECES.split(handle)
        words = [p for p in pieces if _wordlike(p)]
        if not words:
            return None
        rebuilt = []
        for piece in pieces:
            if not _wordlike(piece):
                rebuilt.append(piece)
                continue
            known = self._known("PERSON", piece) or self._last_names.get(
                self._pseudonymizer.digest("PERSON_INITIAL_SURNAME", piece)
            )
            if known is None and len(piece) > 1:
                return None
            rebuilt.append(same_case(piece, known.replace(" ", "")) if known else piece)
        result = "".join(rebuilt)
        return result if result.lower() != handle.lower() else None

    def _email(self, value: str) -> str:
        local, _, domain = value.rpartition("@")
        base = self._pseudonymizer.stand_in("EMAIL_ADDRESS", value)
        from_names = self._handle_from_names(local)
        if from_names is None:
            return base
        reserved = RESERVED_EMAIL_DOMAINS[int(self._pseudonymizer.digest("EMAIL_DOMAIN", domain), 16) % 3]
        return f"{from_names.lower() if local.islower() else from_names}@{reserved}"

    def _url(self, value: str) -> str:
        result = value
        for part in personal_url_parts(value):
            if "@" in part.strip("@"):
                replacement = self.replace("EMAIL_ADDRESS", part.strip("@"))
            else:
                slug = part.lstrip("@~")
                replacement = part[: len(part) - len(slug)] + (
                    self._handle_from_names(slug) or self._pseudonymizer.stand_in("USERNAME", slug)
                )
            for encode in (str, lambda s: quote(s, safe=""), quote_plus):
                result = result.replace(encode(part), encode(replacement))
        return result
