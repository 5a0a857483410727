"""The scrubber: detect (batched), replace consistently, check for leaks."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict
from spacy.lang.en.stop_words import STOP_WORDS
from wordfreq import zipf_frequency

from ingest.models import Session, StateRows
from scrubbers import addresses
from scrubbers.config import ScrubConfig
from scrubbers.consistency import ConsistencyMap
from scrubbers.engine import Detector, Finding, get_detector, tidy_people
from scrubbers.leakgate import StandIns, check_leaks
from scrubbers.nonpersonal import NonPersonalValues, goods_labels, mentions
from scrubbers.recognizers.person import COMMON_WORD_ZIPF, NAME_LISTS, RARE_WORD_ZIPF, name_like
from scrubbers.recognizers.username import name_built_ids
from scrubbers.pseudonyms import DIGIT_TYPES, PARTICLES, TITLES, Pseudonymizer
from scrubbers.shapes import digits_only
from scrubbers.structured import Policy, address_records, iter_fields, rule_policy, transform

SESSION_SKIP = (
    "session_id", "trace_ids", "started_at", "ended_at", "provenance*", "usage*",
    "turns.role", "turns.source", "turns.at",
    "tool_calls.name", "tool_calls.call_id", "tool_calls.status", "tool_calls.at", "tool_calls.duration_ms",
    "people.role", "people.external_id",
    "signals.tickets.id", "signals.tickets.status", "signals.tickets.priority", "signals.tickets.tags", "signals.tickets.at",
    "signals.errors.severity", "signals.errors.source", "signals.errors.at",
    "signals.escalations.id", "signals.escalations.queue", "signals.escalations.at",
    "signals.deploys.id", "signals.deploys.kind", "signals.deploys.at", "signals.deploys.service",
    "signals.deploys.from_version", "signals.deploys.to_version", "signals.deploys.incident_id",
    "signals.span_errors",
)
IDS = "IDS"
"""A pseudo field rule: identifiers (state-row keys, entity ids) get known-value replacement only, no NER."""
ID_RULES = (("id", IDS), ("*.id", IDS), ("*_id", IDS), ("*_ids", IDS))
"""Fields named as ids ('order_id', 'tool_call_id', 'item_ids'), after every other rule: identifiers,
searched for known values and name-built ids ('fatima_johnson_7581'), never read as free text (a
ten-digit product id is a valid phone number, a call id is no name)."""
SESSION_RULES = (("entity_ids.*", IDS), ("people.name", "PERSON"), ("people.email", "EMAIL_ADDRESS"), ("people.phone", "PHONE_NUMBER"))
GENERIC_LOCAL_PARTS = frozenset({"info", "support", "admin", "help", "sales", "billing", "noreply", "no-reply", "contact", "team", "hello"})


class ScrubReport(BaseModel):
    """What was replaced and whether the leak gate passed: counts and types only, never values."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    counts: dict[str, int]
    leak_passed: bool
    leak_types: list[str]


class ScrubResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session: Session
    state: dict[str, dict[str, dict[str, Any]]]
    report: ScrubReport


@dataclass
class _Document:
    """One JSON-like value to scrub with its field policy; `keyed` means its 2nd-level keys are ids to scrub."""

    value: Any
    policy: Policy
    keyed: bool = False

    @functools.cached_property
    def fields(self) -> list[tuple[str | None, str]]:
        """(rule, string) of every field, walked once (the value is never modified)."""
        return list(_walk_fields(self))

    @functools.cached_property
    def addresses(self) -> list[dict[str, str]]:
        """The address records of the value, read once (for the consistency map and the known values)."""
        return _address_records(self)


@dataclass
class _Item:
    documents: list[_Document]
    originals: set[tuple[str, str]] = field(default_factory=set)
    counts: Counter = field(default_factory=Counter)
    known: list[tuple[str, str]] = field(default_factory=list)
    fields: list[tuple[str | None, str]] = field(default_factory=list)
    """(rule, string) of every document, walked once."""
    non_personal: NonPersonalValues = field(default_factory=lambda: NonPersonalValues(()))
    free_texts: dict[str, tuple[list[Finding], str]] = field(default_factory=dict)
    """Free text -> (the spans replaced in it, its scrubbed form)."""


def _fields(document: _Document) -> list[tuple[str | None, str]]:
    return document.fields


def _strings(value: Any) -> Iterator[str]:
    """Every string of a JSON-like value, keys aside."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _walk_fields(document: _Document) -> Iterable[tuple[str | None, str]]:
    if document.keyed:
        for kind, rows in document.value.items():
            for row_id, row in rows.items():
                yield IDS, row_id
                yield from ((rule, text) for _, rule, text in iter_fields(row, document.policy, kind))
    else:
        yield from ((rule, text) for _, rule, text in iter_fields(document.value, document.policy))


_NUMBER_SEPARATORS = frozenset(" \t\n\r\f\v().-")


def _number_mentions(number: str, text: str, positions: list[int], digits: str) -> Iterator[tuple[int, int]]:
    """Spans of `number` in `text` written with any separators between its digits ('415 555-0132'),
    not inside a longer digit run. `positions` and `digits` are the text's digits and where they are."""
    found = digits.find(number)
    while found != -1:
        first, last = positions[found], positions[found + len(number) - 1]
        separated = all(
            set(text[positions[k] + 1 : positions[k + 1]]) <= _NUMBER_SEPARATORS for k in range(found, found + len(number) - 1)
        )
        alone = not (first > 0 and text[first - 1].isdigit()) and not (last + 1 < len(text) and text[last + 1].isdigit())
        if separated and alone:
            yield first, last + 1
        found = digits.find(number, found + 1)


def _as_written(entity: str, value: str) -> bool:
    """Whether a known value matches only as written: an English stop word ('Will', 'May'), or one
    word of a name that is a common English word ('Brown' is not the colour 'brown')."""
    lower = value.lower()
    if lower in STOP_WORDS or entity in ("CITY", "STATE"):  # 'Reading' the town, not 'reading'
        return True
    return entity == "PERSON" and " " not in value and not value.islower() and zipf_frequency(lower, "en") >= COMMON_WORD_ZIPF


class KnownValues:
    """Values known for one item, found as whole words in any text.

    Case-insensitive, except values `_as_written` says match only as written. Numbers match by digits whatever the separators. A handle built from a name
    ('fatima_taylor') also matches with a number after it, as user ids are made ('fatima_taylor_3452').
    """

    def __init__(self, known: list[tuple[str, str]]) -> None:
        self._numbers: dict[str, str] = {}
        self._words: dict[str, str] = {}
        self._exact: dict[str, str] = {}
        self._handles: list[re.Pattern[str]] = []
        for entity, value in known:
            if entity in DIGIT_TYPES:
                self._numbers.setdefault(digits_only(value)[-10:], entity)
            else:
                (self._exact if _as_written(entity, value) else self._words).setdefault(value, entity)
            if entity == "USERNAME" and _HANDLE_JOINT.search(value):
                self._handles.append(re.compile(rf"(?i)(?<![\w.-]){re.escape(value)}[_.-]?\d+(?!\w)"))

    def find(self, text: str) -> list[Finding]:
        """Every mention; overlapping ones too ('Jane Gonzalez' and 'Jane'): the longest wins later."""
        found = []
        if self._numbers:
            positions = [i for i, c in enumerate(text) if c.isdigit()]
            digits = "".join(text[i] for i in positions)
            for number, entity in self._numbers.items():
                found += [Finding(start, end, entity, 1.0) for start, end in _number_mentions(number, text, positions, digits)]
        for values, ignore_case in ((self._words, True), (self._exact, False)):
            for start, end, value in mentions(values, text, ignore_case=ignore_case):
                found.append(Finding(start, end, values[value], 1.0))
        if self._handles and any(c.isdigit() for c in text):
            found += [Finding(*m.span(), "USERNAME", 1.0) for pattern in self._handles for m in pattern.finditer(text)]
        return found


_HANDLE_JOINT = re.compile(r"[._]")


_DIGIT = re.compile(r"\d")


def _non_personal_values(item: _Item) -> NonPersonalValues:
    """Free-text values of the state rows (columns not marked personal), names and options of goods,
    and ids with a digit from fields named as ids, minus any holding a field-rule value."""
    values = [text for document in item.documents if document.keyed for rule, text in _fields(document) if rule is None]
    values += [text for document in item.documents for text in goods_labels(document.value, document.policy)]
    # ids the item's own fields name as ids ('item_id': '6469567736'), where a sentence repeats them
    values += [text for rule, text in item.fields if rule == IDS and _DIGIT.search(text) and not name_built_ids(text)]
    return NonPersonalValues(values, personal=[text for rule, text in item.fields if rule not in (None, IDS)])


PROPAGATED_SCORE = 0.55
"""A detected name is searched for in other texts only from this score up: a name found by weak evidence
alone (a word English does not use, a neighbour in a list) is replaced where it was found."""
NOT_SEARCHED = frozenset({"STATE", "COUNTRY"})
"""Field-rule types not searched for in free text as they are ('PA', 'OK', 'USA' are words too): replaced
in their field, and in a sentence as a part of a detected address or, for a state, by its full name; the
leak gate does not look for them either (a state's code left in a sentence should not quarantine a session)."""


def _address_records(document: _Document) -> list[dict[str, str]]:
    if not document.keyed:
        return list(address_records(document.value, document.policy))
    return [r for kind, rows in sorted(document.value.items()) for row in rows.values() for r in address_records(row, document.policy, kind)]


def _listed(word: str) -> bool:
    """A name list knows `word`, or it is rare in English ('Kovalev')."""
    word = word.strip(".,;:!?\"'()").lower()
    return word in NAME_LISTS or zipf_frequency(word, "en") < RARE_WORD_ZIPF


def _confident(name: str) -> bool:
    """A detected name sure enough to be searched for in other texts: each word could be a name, and
    one is known or rare (not 'Modify', 'Headphones')."""
    words = name.split()
    return all(map(name_like, words)) and any(map(_listed, words))


def _with_ids(fields: Iterable[tuple[str | None, str]], findings: dict[str, list[Finding]]) -> dict[str, list[Finding]]:
    """`findings` (of free texts) plus the name-built ids of identifier fields, which are not analyzed."""
    for rule, text in fields:
        if rule == IDS and text not in findings:
            findings[text] = [Finding(start, end, "USERNAME", 1.0) for start, end in name_built_ids(text)]
    return findings


def _name_parts(name: str) -> list[str]:
    """The words of a name worth finding alone: not titles, not particles ('del', 'van')."""
    return [t for t in name.split() if len(t) >= 2 and t.rstrip(".").lower() not in TITLES and t not in PARTICLES]


def _name_handles(parts: list[str]) -> list[str]:
    """Handles people build from their name: jgonzalez, janegonzalez, jane.gonzalez, jane_gonzalez."""
    if len(parts) < 2 or not all(p.isalpha() for p in (parts[0], parts[-1])):
        return []
    first, last = parts[0].lower(), parts[-1].lower()
    return [f"{first[0]}{last}", f"{first}{last}", f"{first}.{last}", f"{first}_{last}"]


class Scrubber:
    """Replace every person in sessions, state rows, texts and JSON by consistent, realistic stand-ins."""

    def __init__(self, config: ScrubConfig, secret: bytes, identifiers: frozenset[str] = frozenset()) -> None:
        """`identifiers`: ids known from the state database (`StateSource.identifiers()`), never replaced
        and never taken for personal data by the detector or the leak gate."""
        self.config = config
        self.detector = get_detector(config).with_identifiers(identifiers)
        self._pseudonymizer = Pseudonymizer(secret)
        self._config_rules = tuple(config.field_rules) + ID_RULES

    # -- public API -------------------------------------------------------------------------

    def scrub_sessions(
        self,
        items: Sequence[tuple[Session, StateRows]],
        pii_fields: dict[str, dict[str, str]] | None = None,
        real_people: frozenset[str] = frozenset(),
    ) -> list[ScrubResult]:
        """`real_people` (from `real_people()`): full names no stand-in may take, beside the ones in `items`."""
        prepared = [_Item(self._session_documents(session, state, pii_fields)) for session, state in items]
        outputs, cmap, detector = self._run(prepared, real_people)
        stand_ins = StandIns.of(cmap.stand_ins)  # the same for every session's check
        results = []
        for (session, _), item, (session_out, state_out) in zip(items, prepared, outputs):
            scrubbed = [_Document(out, d.policy, d.keyed) for d, out in zip(item.documents, (session_out, state_out))]
            content = [text for document in scrubbed for _, text in _fields(document)]
            originals = {(entity, value) for entity, value in item.originals | set(item.known) if entity not in NOT_SEARCHED}
            verdict = check_leaks(originals, content, stand_ins, detector, _strings((session_out, state_out)))
            report = ScrubReport(
                session_id=session.session_id,
                counts=dict(sorted(item.counts.items())),
                leak_passed=verdict.passed,
                leak_types=verdict.types,
            )
            results.append(ScrubResult(session=Session.model_validate(session_out), state=state_out, report=report))
        return results

    def real_people(self, rows: Iterable[tuple[str, dict[str, Any]]], pii_fields: dict[str, dict[str, str]]) -> frozenset[str]:
        """Keyed digests of every full name in state `rows` ((kind, row) pairs): a row's PERSON
        fields each, and together in path order (first name + last name columns).

        Passed to `scrub_sessions`, so that no stand-in is the name of one of the product's real
        people, even one who is in none of the sessions scrubbed. Only digests are kept.
        """
        digests: set[str] = set()
        for kind, row in rows:
            policy = rule_policy(tuple((f"{kind}.{path}", entity) for path, entity in sorted(pii_fields.get(kind, {}).items())))
            names = [" ".join(text.split()) for _, rule, text in iter_fields(row, policy, kind) if rule == "PERSON"]
            for name in {*names, " ".join(names)}:
                if len(name.split()) > 1:
                    digests.add(self._pseudonymizer.digest("PERSON", name))
        return frozenset(digests)

    def scrub_text(self, text: str) -> tuple[str, dict[str, int]]:
        value, counts = self.scrub_json(text)
        return value, counts

    def scrub_json(self, value: Any) -> tuple[Any, dict[str, int]]:
        """Every string of `value` scrubbed (JSON inside strings too); field rules apply by path."""
        item = _Item([_Document(value, rule_policy(self._config_rules))])
        (output,), _, _ = self._run([item])
        return output, dict(sorted(item.counts.items()))

    def collect_texts(self, session: Session, state: StateRows, pii_fields: dict[str, dict[str, str]] | None = None) -> list[str]:
        """Exactly the free texts this scrubber runs NER over for one session (in order, unique)."""
        documents = self._session_documents(session, state, pii_fields)
        return list(dict.fromkeys(text for d in documents for rule, text in _fields(d) if rule is None))

    def find_spans(self, texts: Sequence[str]) -> list[list[Finding]]:
        """The spans `scrub_json(list(texts))` would replace in each text (for measuring)."""
        item = _Item([_Document(list(texts), rule_policy(self._config_rules))])
        item.fields = list(_fields(item.documents[0]))
        unique = list(dict.fromkeys(texts))
        detector = self._detector_for(text for _, text in item.fields)
        findings = _with_ids(item.fields, dict(zip(unique, detector.analyze_batch(unique))))
        item.non_personal = _non_personal_values(item)
        item.known = self._known_values(item, findings)
        known = KnownValues(item.known)
        return [self._spans(text, item.non_personal.keep(text, findings[text]), known, detector) for text in texts]

    # -- the run ----------------------------------------------------------------------------

    def _session_documents(self, session: Session, state: StateRows, pii_fields: dict[str, dict[str, str]] | None) -> list[_Document]:
        session_policy = rule_policy(SESSION_RULES + self._config_rules, skip=SESSION_SKIP)
        state_rules = tuple(
            (f"{kind}.{path}", entity) for kind, paths in sorted((pii_fields or {}).items()) for path, entity in paths.items()
        )
        return [
            _Document(session.model_dump(mode="python"), session_policy),
            _Document(state, rule_policy(state_rules + self._config_rules), keyed=True),
        ]

    def _detector_for(self, strings: Iterable[str]) -> Detector:
        """The detector also protecting the numbers of the prefixed ids written in `strings` ('#W9502127'
        in a tool result protects '9502127' in a sentence)."""
        written = self.detector.ids_written(strings)
        return self.detector.with_identifiers(self.detector.identifiers | written) if written else self.detector

    def _run(self, items: list[_Item], real_people: frozenset[str] = frozenset()) -> tuple[list[Any], ConsistencyMap, Detector]:
        for item in items:
            item.fields = [pair for d in item.documents for pair in _fields(d)]
        detector = self._detector_for(text for item in items for _, text in item.fields)
        texts = list(dict.fromkeys(text for item in items for rule, text in item.fields if rule is None))
        findings = _with_ids((pair for item in items for pair in item.fields), dict(zip(texts, detector.analyze_batch(texts))))
        cmap = ConsistencyMap(self._pseudonymizer, avoid=real_people)
        cmap.register_addresses([record for item in items for d in item.documents for record in d.addresses])
        people: list[str] = []
        for item in items:
            item.non_personal = _non_personal_values(item)
            item.known = self._known_values(item, findings)
            people += [value for entity, value in item.known if entity == "PERSON"]
        cmap.register_people(people)
        cmap.register_cards([value for item in items for entity, value in item.known if entity == "CREDIT_CARD"]
                            + [text[f.start : f.end] for text, found in findings.items() for f in found if f.entity_type == "CREDIT_CARD"])
        outputs = []
        for item in items:
            known = KnownValues(item.known)
            outputs.append([self._transform(d, item, findings, known, cmap, detector) for d in item.documents])
        return [tuple(o) if len(o) > 1 else o[0] for o in outputs], cmap, detector

    def _known_values(self, item: _Item, findings: dict[str, list[Finding]]) -> list[tuple[str, str]]:
        """Values known from field rules and detected names, with their parts; searched in every free text."""
        known: set[tuple[str, str]] = set()
        detected_names: set[str] = set()
        for rule, text in item.fields:
            if rule in NOT_SEARCHED:
                continue
            if rule not in (None, IDS):
                known.add((rule, text.strip()))
            else:
                detected = item.non_personal.keep(text, findings.get(text, []))
                names = (text[f.start : f.end] for f in detected if f.entity_type == "PERSON" and f.score >= PROPAGATED_SCORE)
                # a detected name is searched for elsewhere only when each of its words could be a name and
                # a name list knows one of them: a word taken for one ('and', 'Apt', 'Modify', 'Wristwatch')
                # is replaced where it was found, nowhere else
                detected_names.update(name for name in names if _confident(name))
        known.update(("PERSON", name) for name in detected_names)
        # a first and a last name in fields next to each other (first_name, last_name) build handles together
        fielded = [text.strip() for rule, text in item.fields if rule == "PERSON"]
        for first, last in zip(fielded, fielded[1:]):
            if len(first.split()) == len(last.split()) == 1:
                known.update(("USERNAME", handle) for handle in _name_handles([first, last]))
        # a state field's name is searched for in sentences ('you live in Texas'), and its code where it cannot
        # be a word ('UT', 'DC'; not 'OK', 'IN', 'ID'); after the address's own town any code is the state's
        # ('the Collinwood DC address', 'Tulsa, OK'), replaced as that town and state
        for rule, text in item.fields:
            if rule == "STATE" and (code := addresses.state_abbreviation(text)):
                known.add(("STATE", addresses.STATE_NAMES[code]))
                if code not in addresses.WORD_STATE_CODES:
                    known.add(("STATE", code))
        for record in (r for document in item.documents for r in document.addresses):
            town, code = record.get("CITY", "").strip(), addresses.state_abbreviation(record.get("STATE", ""))
            if town and code:
                known.update(("ADDRESS", f"{town}{gap}{code}") for gap in (" ", ", "))
        for entity, value in list(known):
            if entity == "CITY":  # 'your LA order': a known town's short form is that town
                known.update(("CITY", short) for short in addresses.short_forms(value))
            if entity == "PERSON":
                parts = _name_parts(value) if value not in detected_names else [p for p in _name_parts(value) if _listed(p)]
                known.update(("PERSON", item.non_personal.as_name(part)) for part in parts)
                known.update(("USERNAME", handle) for handle in _name_handles(parts))
            elif entity == "EMAIL_ADDRESS":
                local = value.rpartition("@")[0]
                if len(local) >= 4 and local.lower() not in GENERIC_LOCAL_PARTS:
                    known.add(("USERNAME", local))
        return sorted(known, key=lambda pair: (-len(pair[1]), pair))

    def _transform(
        self,
        document: _Document,
        item: _Item,
        findings: dict[str, list[Finding]],
        known: KnownValues,
        cmap: ConsistencyMap,
        detector: Detector,
    ) -> Any:
        def replace(rule: str | None, text: str) -> str:
            if rule not in (None, IDS):
                return self._replace_value(rule, text, item, cmap)
            if text not in item.free_texts:  # a text recurs (a tool result quoted in a turn): work it out once
                spans = self._spans(text, item.non_personal.keep(text, findings.get(text, [])), known, detector)
                item.free_texts[text] = (spans, self._replace_spans(text, spans, item, cmap))
            else:
                spans, _ = item.free_texts[text]
                item.counts.update(span.entity_type for span in spans)
            return item.free_texts[text][1]

        if not document.keyed:
            return transform(document.value, document.policy, replace)
        return {
            kind: {replace(IDS, row_id): transform(row, document.policy, replace, kind) for row_id, row in sorted(rows.items())}
            for kind, rows in sorted(document.value.items())
        }

    def _spans(self, text: str, detected: list[Finding], known: KnownValues, detector: Detector) -> list[Finding]:
        """`detected` (already clear of protected identifiers) and the known values' mentions."""
        mentioned = known.find(text)
        return tidy_people(text, [*detected, *detector.unprotected(text, mentioned)] if mentioned else detected)

    def _replace_value(self, entity: str, value: str, item: _Item, cmap: ConsistencyMap) -> str:
        item.originals.add((entity, value))
        item.counts[entity] += 1
        return cmap.replace(entity, value)

    def _replace_spans(self, text: str, spans: list[Finding], item: _Item, cmap: ConsistencyMap) -> str:
        pieces, position = [], 0
        for span in spans:
            pieces += [text[position : span.start], self._replace_value(span.entity_type, text[span.start : span.end], item, cmap)]
            position = span.end
        return "".join(pieces) + text[position:]
