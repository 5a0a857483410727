"""One stand-in per original across a run, with a person's other forms following their full name.

Keyed by the HMAC digest of (type, normalized original): the originals themselves are never
stored here, only digests and stand-ins.
"""

from __future__ import annotations

import re
from urllib.parse import quote, quote_plus

from scrubbers import addresses
from scrubbers.pseudonyms import (
    MAX_ATTEMPTS,
    PARTIAL_CARD_DIGITS,
    RESERVED_EMAIL_DOMAINS,
    TITLES,
    Pseudonymizer,
    normalize,
    same_case,
    title_for,
)
from scrubbers.shapes import digits_only, pour_digits
from scrubbers.recognizers.url import personal_url_parts
from scrubbers.recognizers.username import name_built

_HANDLE_PIECES = re.compile(r"([._\-+]|\d+)")
LAYOUT_TYPES = frozenset({"PHONE_NUMBER", "CREDIT_CARD", "US_SSN", "IBAN_CODE", "DATE_OF_BIRTH"})
"""Types whose stand-in follows each mention's own layout (one number, several formats)."""
ADDRESS_PARTS = frozenset({"STREET_LINE", "ADDRESS_UNIT", "CITY", "STATE", "POSTCODE", "COUNTRY"})
"""The parts of a postal address, each with its own keyed stand-in (`scrubbers.addresses`)."""


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
        self._zip_states: dict[str, str] = {}
        """digest of a zip -> the stand-in state (abbreviation) of the address it was registered with."""
        self._town_states: dict[str, str] = {}
        """digest of a town -> the stand-in state of the address it was registered with: its stand-in lies there."""
        self._town_places: dict[str, tuple[str, str]] = {}
        """digest of a town -> its stand-in town and that town's state."""
        self._zip_towns: dict[str, str] = {}
        """digest of a zip -> digest of the town it was written with: its stand-in is a zip of that town's stand-in."""
        self._card_ends: dict[str, str] = {}
        """digest of a known card's last four digits -> the last four digits of that card's stand-in."""

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

    def register_cards(self, cards: list[str]) -> None:
        """Full card numbers known in the run: a card's last four digits written alone ('last_four', 'card ending
        in 1111') become the last four of that card's stand-in, so a seed's card and its last four still agree.
        Two cards with the same last four: the one first by digest gives them (the order of mention does not)."""
        numbers = {self._digest("CREDIT_CARD", digits_only(c)): digits_only(c) for c in cards if len(digits_only(c)) >= PARTIAL_CARD_DIGITS}
        for digest in sorted(numbers):
            stand_in = digits_only(self._pseudonymizer.stand_in("CREDIT_CARD", numbers[digest]))
            self._card_ends.setdefault(self._digest("CREDIT_CARD", numbers[digest][-4:]), stand_in[-4:])

    def register_addresses(self, records: list[dict[str, str]]) -> None:
        """Addresses known as a unit ({'STATE': 'PA', 'POSTCODE': '19122', ...}, from the fields of one
        JSON object): each zip's stand-in then lies in the stand-in of the state it is written with,
        wherever the zip appears alone ('in 19122')."""
        for record in records:
            if record.get("CITY") and record.get("POSTCODE"):
                self._zip_towns.setdefault(self._digest("POSTCODE", record["POSTCODE"]), self._digest("CITY", record["CITY"]))
            state = record.get("STATE")
            if not (state and addresses.state_abbreviation(state)):
                continue
            stand_in = addresses.state_abbreviation(self.replace("STATE", state))
            for kind, states in (("POSTCODE", self._zip_states), ("CITY", self._town_states)):
                if record.get(kind) and stand_in:
                    states.setdefault(self._digest(kind, record[kind]), stand_in)
        # the towns first: a zip's stand-in is one of its town's stand-in's zips
        towns = {self._digest("CITY", r["CITY"]): r["CITY"] for r in records if r.get("CITY")}
        for digest in sorted(towns):
            self._town(towns[digest], self._town_states.get(digest))
        zips = {self._digest("POSTCODE", r["POSTCODE"]): r["POSTCODE"] for r in records if r.get("POSTCODE")}
        for digest in sorted(zips):
            self.replace("POSTCODE", zips[digest])

    def _digest(self, kind: str, value: str) -> str:
        return self._pseudonymizer.digest(kind, value)

    def replace(self, entity_type: str, value: str) -> str:
        if entity_type == "STATE":  # 'PA' and 'Pennsylvania' are one state; the stand-in is written the same way
            return addresses.written_as(value, self._known_or_make("STATE", addresses.state_abbreviation(value) or value))
        if entity_type == "CITY" and (town := addresses.TOWN_SHORT_FORMS.get(value.strip())):
            value = town  # 'LA' is Los Angeles: it gets that town's stand-in, not one of its own
        if entity_type == "CREDIT_CARD" and (end := self._card_ends.get(self._digest("CREDIT_CARD", value))) and len(digits_only(value)) == 4:
            stand_in = pour_digits(value, end)  # a known card's last four: its stand-in's
            self._laid_out.add(stand_in)
            return stand_in
        if entity_type == "ADDRESS_UNIT":  # one unit in every layout ('Suite 135', 'suite #135'): its number is keyed
            number = addresses.unit_key(value)
            if number == value.strip():
                return self._known_or_make(entity_type, value)
            stand_in = self._known_or_make(entity_type, number)
            return addresses.address_unit_with(value, stand_in)
        return self._known_or_make(entity_type, value)

    def _known_or_make(self, entity_type: str, value: str) -> str:
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
            return self._address(entity_type, value)
        if entity_type in ADDRESS_PARTS:
            return self._address_part(entity_type, value)
        return self._pseudonymizer.stand_in(entity_type, value)

    def _address(self, entity_type: str, value: str) -> str:
        """A written address part by part (`addresses.parts`), each part through its own keyed entry:
        the street line of '763 Broadway, Suite 135, Philadelphia, PA 19122' gets the stand-in of an
        `address1` field '763 Broadway', its zip the stand-in of a `zip` field '19122'."""
        if (military := addresses.military_parts(value)) is not None:
            return self._military(value, military)
        found = addresses.parts(value)
        if not found:
            return self._pseudonymizer.stand_in(entity_type, value)
        state = next((value[p.start : p.end] for p in found if p.kind == "STATE"), None)
        stand_in_state = addresses.state_abbreviation(self.replace("STATE", state)) if state else None
        written = {p.kind: value[p.start : p.end] for p in reversed(found)}  # the first part of each kind
        if "CITY" in written and "POSTCODE" in written:  # the town first: the zip is one of its stand-in's
            self._zip_towns.setdefault(self._digest("POSTCODE", written["POSTCODE"]), self._digest("CITY", written["CITY"]))
            self._city(written["CITY"], stand_in_state)
        pieces, position = [], 0
        for part in found:
            text = value[part.start : part.end]
            registered = self._digest(part.kind, text) in (self._zip_states | self._town_states)
            if part.kind == "POSTCODE" and stand_in_state and not registered:
                replacement = self._known("POSTCODE", text) or self._postcode(text, stand_in_state)
            elif part.kind == "CITY":
                replacement = self._city(text, stand_in_state)
            else:
                replacement = self.replace(part.kind, text)
            pieces += [value[position : part.start], replacement]
            position = part.end
        return "".join(pieces) + value[position:]

    def _military(self, value: str, found: list[addresses.Part]) -> str:
        """A US military address as one ('PSC 4296, Box 4371\nAPO AA 03140' -> 'PSC 7802, Box 1559\nAPO AA 34021'):
        its format kept, its numbers keyed one by one, its zip one of its region's, its ship named by a surname
        stand-in (a ship is named after a person: 'USNS Ujváry' -> 'USNS Farley'). Read as a civilian address it
        became two towns and a zip of neither ('Box 4371' -> 'Oakland 1738')."""
        region = addresses.military_region(value)
        pieces, position = [], 0
        for part in found:
            text = value[part.start : part.end]
            if part.kind == "SHIP":
                replacement = self.replace("PERSON", text)
            else:
                digest = self._digest(part.kind, f"{region} {text}" if part.kind == "MILITARY_ZIP" else text)
                if digest not in self._stand_ins:
                    _, rng = self._pseudonymizer.seeded(digest)
                    self._stand_ins[digest] = (
                        addresses.military_zip(rng, text, region) if part.kind == "MILITARY_ZIP" else addresses.military_number(rng, text)
                    )
                replacement = self._stand_ins[digest]
            pieces += [value[position : part.start], replacement]
            position = part.end
        return "".join(pieces) + value[position:]

    def _city(self, value: str, stand_in_state: str | None) -> str:
        """A town written in an address: in the address's stand-in state unless it was registered with its own."""
        if stand_in_state and self._digest("CITY", value) not in self._town_states:
            return self._known("CITY", value) or self._town(value, stand_in_state)
        return self.replace("CITY", value)

    def _postcode(self, value: str, in_state: str | None) -> str:
        digest = self._digest("POSTCODE", value)
        if digest not in self._stand_ins:
            _, rng = self._pseudonymizer.seeded(digest)
            in_town = self._town_places.get(self._zip_towns.get(digest, ""))
            self._stand_ins[digest] = addresses.postcode(rng, value, in_state, in_town)
        return self._stand_ins[digest]

    def _town(self, value: str, in_state: str | None) -> str:
        """A real town's stand-in: a real town of `in_state` if given, drawn by the town's keyed digest alone. What
        else the batch holds never changes it: the incident path (a few sessions) and the nightly run (the day)
        give one town the same stand-in, so a reviewed task stays as it was (tests/faults/test_decisions_survive.py)."""
        digest = self._digest("CITY", value)
        if digest not in self._stand_ins:
            _, rng = self._pseudonymizer.seeded(digest)
            self._town_places[digest] = addresses.town(rng, value, in_state)
            self._stand_ins[digest] = same_case(value.strip(), self._town_places[digest][0])
        return self._stand_ins[digest]

    def _address_part(self, kind: str, value: str) -> str:
        digest = self._pseudonymizer.digest(kind, value)
        if kind == "POSTCODE":
            in_state = self._zip_states.get(digest)
            if in_state is None and (real := addresses.real_state_of_zip(value)):
                in_state = addresses.state_abbreviation(self.replace("STATE", real))
            return self._postcode(value, in_state)
        _, rng = self._pseudonymizer.seeded(digest)
        if kind == "STREET_LINE":  # the street's stand-in keyed by the street alone: the same wherever it is named
            _, street_rng = self._pseudonymizer.seeded(self._pseudonymizer.digest("STREET_NAME", addresses.street_name_key(value)))
            return addresses.street_line(rng, value, street_rng)
        if kind == "ADDRESS_UNIT":
            return addresses.address_unit(rng, value)
        if kind == "CITY":
            return self._town(value, self._town_states.get(digest))
        if kind == "STATE":
            return addresses.state(rng, value)
        return addresses.country(rng, value)

    def _person(self, value: str) -> str:
        tokens = value.split()
        title = tokens[:1] if len(tokens) > 1 and tokens[0].rstrip(".").lower() in TITLES else []
        names = tokens[len(title) :]
        if len(names) == 1:
            known = self._known("PERSON", names[0])
            name = known or self._pseudonymizer.stand_in("PERSON", value).split()[-1]
            return " ".join([title_for(t, name) for t in title] + [name])
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
        return " ".join([title_for(t, stand_in[0]) for t in title] + stand_in)

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
            if piece.isdigit():  # the digits of 'fatima_johnson_7581' are the person's too: keyed, same length
                rebuilt.append(self._digits(piece))
                continue
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

    def _digits(self, digits: str) -> str:
        """Other digits of the same length (no leading zero unless the original had one), the same for
        every handle, id and e-mail the digits appear in."""
        _, rng = self._pseudonymizer.seeded(self._pseudonymizer.digest("HANDLE_DIGITS", digits))
        for _ in range(MAX_ATTEMPTS):
            new = "".join(rng.choice("0123456789") for _ in digits)
            if digits[0] != "0" and new[0] == "0":
                new = str(rng.randint(1, 9)) + new[1:]
            if new != digits:
                return new
        return new

    def _email(self, value: str) -> str:
        local, _, domain = value.rpartition("@")
        base = self._pseudonymizer.stand_in("EMAIL_ADDRESS", value)
        from_names = self._handle_from_names(local)
        if from_names is None:
            return base
        reserved = domain if domain.lower() in RESERVED_EMAIL_DOMAINS else RESERVED_EMAIL_DOMAINS[
            int(self._pseudonymizer.digest("EMAIL_DOMAIN", domain), 16) % 3
        ]  # a reserved domain already is no one's: 'example.com' stays as written
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
