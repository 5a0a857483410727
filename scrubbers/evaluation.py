"""A labelled, deterministic corpus of support-style texts and a per-type recall/precision table.

Recall counts a gold value as caught when replaced spans cover all of it (whatever type they
claim: an e-mail inside a personal URL is gone either way). Precision counts a replaced span as
correct when it overlaps a gold value. Run `python -m scrubbers.evaluation` for the table.
"""

from __future__ import annotations

import random
import string
import sys
from collections import Counter
from dataclasses import dataclass, field

import phonenumbers
from faker import Faker

from scrubbers.shapes import luhn_check_digit

COMMON_WORD_NAMES = ("Rose", "Hope", "Bill", "Grace", "Faith", "Joy", "Iris", "Amber", "Sky", "Will", "Mark", "June")
NAME_LOCALES = ("en_US", "en_US", "en_GB", "en_IN", "es_MX", "fr_FR", "de_DE")
HELDOUT_NAME_LOCALES = ("it_IT", "pt_BR", "nl_NL", "pl_PL", "sv_SE", "tr_TR", "en_NG", "fil_PH")
"""Name locales the recognizers' name lists do not come from: a fairer recall figure."""
PRODUCTS = (
    "Trail Runner 3 Men's Running Shoes", "Wireless Noise-Cancelling Earbuds", "Insulated Stainless Water Bottle",
    "Cotton Hoodie Unisex", "Down Sleeping Bag", "Merino Wool Crew Socks", "Packable Down Jacket", "Smart Fitness Watch",
)
IBAN_LOCALES = ("en_GB", "de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT")
PHONE_LAYOUTS = {
    "US": ("({a}) {b}-{c}", "{a}-{b}-{c}", "+1 {a} {b} {c}", "{a}.{b}.{c}"),
    "GB": ("+44 20 {b4} {c}", "020 {b4} {c}", "+44 7700 {b3}{c2}"),
    "DE": ("+49 30 {c}{c2}", "030 {c}{c2}", "+49 151 {b4}{c}"),
    "FR": ("+33 1 {p} {p} {p} {p}", "01 {p} {p} {p} {p}", "+33 6 {p} {p} {p} {p}"),
    "IN": ("+91 9{b4} {c}{d}", "09{b4} {c}{d}"),
}


@dataclass(frozen=True)
class GoldSpan:
    start: int
    end: int
    entity_type: str


@dataclass
class LabelledText:
    text: str
    spans: list[GoldSpan] = field(default_factory=list)
    keep: list[str] = field(default_factory=list)
    """Identifiers and amounts that must survive scrubbing verbatim."""


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.spans: list[GoldSpan] = []
        self.keep: list[str] = []

    def add(self, text: str, entity_type: str | None = None, keep: bool = False) -> _Builder:
        if entity_type:
            self.spans.append(GoldSpan(self.length, self.length + len(text), entity_type))
        if keep:
            self.keep.append(text)
        self.parts.append(text)
        self.length += len(text)
        return self

    def build(self) -> LabelledText:
        return LabelledText("".join(self.parts), self.spans, self.keep)


class CorpusGenerator:
    def __init__(self, seed: int, name_locales: tuple[str, ...] = NAME_LOCALES) -> None:
        self.rng = random.Random(seed)
        self.name_locales = name_locales
        self.fakers = {loc: Faker(loc) for loc in {*name_locales, *IBAN_LOCALES, "en_US"}}
        for index, loc in enumerate(sorted(self.fakers)):
            self.fakers[loc].seed_instance(seed * 100 + index)
        self.us = self.fakers["en_US"]

    def digits(self, n: int) -> str:
        return "".join(self.rng.choice(string.digits) for _ in range(n))

    def name(self) -> tuple[str, str]:
        faker = self.fakers[self.rng.choice(self.name_locales)]
        first = self.rng.choice(COMMON_WORD_NAMES) if self.rng.random() < 0.2 else faker.first_name()
        return first, faker.last_name()

    def phone(self) -> str:
        while True:
            region = self.rng.choice(sorted(PHONE_LAYOUTS))
            layout = self.rng.choice(PHONE_LAYOUTS[region])
            number = layout.format(
                a=str(self.rng.randint(2, 9)) + self.digits(2), b=str(self.rng.randint(2, 9)) + self.digits(2),
                b3=self.digits(3), b4=self.digits(4), c=self.digits(4), c2=self.digits(2), d=self.digits(1),
                p=self.digits(2),
            )
            parsed = phonenumbers.parse(number, region)
            if phonenumbers.is_valid_number(parsed):
                return number

    def card(self) -> str:
        kind = self.rng.choice(("visa", "mastercard", "amex"))
        prefix, length, groups = {"visa": ("4", 16, (4, 4, 4, 4)), "mastercard": ("5" + str(self.rng.randint(1, 5)), 16, (4, 4, 4, 4)), "amex": ("37", 15, (4, 6, 5))}[kind]
        body = prefix + self.digits(length - len(prefix) - 1)
        number = body + luhn_check_digit(body)
        separator = self.rng.choice((" ", "-", ""))
        chunks, position = [], 0
        for size in groups:
            chunks.append(number[position : position + size])
            position += size
        return separator.join(chunks)

    def iban(self) -> str:
        iban = self.fakers[self.rng.choice(IBAN_LOCALES)].iban()
        return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if self.rng.random() < 0.5 else iban

    def order_id(self) -> str:
        return "#W" + self.digits(7)

    def amount(self) -> str:
        return f"${self.rng.randint(5, 900)}.{self.digits(2)}"

    def text(self) -> LabelledText:
        template = self.rng.choice(_TEMPLATES)
        return template(self, _Builder()).build()


def _t_intro(g: CorpusGenerator, b: _Builder) -> _Builder:
    first, last = g.name()
    full = f"{first} {last}" if g.rng.random() < 0.85 else f"{first.lower()} {last.lower()}"
    return (
        b.add("Hi, my name is ").add(full, "PERSON").add(" and my order ").add(g.order_id(), keep=True)
        .add(" for ").add(g.amount(), keep=True).add(" never arrived. You can reach me at ")
        .add(g.phone(), "PHONE_NUMBER").add(" or ").add(g.us.email(), "EMAIL_ADDRESS").add(".")
    )


def _t_agent(g: CorpusGenerator, b: _Builder) -> _Builder:
    first, last = g.name()
    return (
        b.add("Customer ").add(f"{first} {last}", "PERSON").add(" (").add(g.us.email(), "EMAIL_ADDRESS")
        .add(") asked to update the card on file to ").add(g.card(), "CREDIT_CARD").add(". Ticket ")
        .add(f"ZD-{g.digits(5)}", keep=True).add(" is pending.", keep=False)
    )


def _t_refund(g: CorpusGenerator, b: _Builder) -> _Builder:
    first, last = g.name()
    return (
        b.add("Please refund ").add(g.amount(), keep=True).add(" to IBAN ").add(g.iban(), "IBAN_CODE")
        .add(" for order ").add(g.order_id(), keep=True).add(". Thanks,\n").add(first, "PERSON")
    )


def _t_identity(g: CorpusGenerator, b: _Builder) -> _Builder:
    first, last = g.name()
    return (
        b.add("Verified identity of ").add(f"{first} {last}", "PERSON").add(" using SSN ")
        .add(g.us.ssn(), "US_SSN").add("; login came from ").add(g.us.ipv4_public(), "IP_ADDRESS")
        .add(" and later ").add(g.us.ipv6(), "IP_ADDRESS").add(".")
    )


def _t_link(g: CorpusGenerator, b: _Builder) -> _Builder:
    first, last = g.name()
    local = f"{first}.{last}".lower().replace(" ", "")
    email = f"{local}@{g.rng.choice(('gmail.com', 'yahoo.com', 'outlook.com'))}"
    return (
        b.add("Dear ").add(first, "PERSON").add(", we emailed the link https://shop.acme-store.com/unsubscribe?email=")
        .add(email, "EMAIL_ADDRESS").add(" after order ").add(g.order_id(), keep=True).add(" was delivered.")
    )


def _t_lowercase(g: CorpusGenerator, b: _Builder) -> _Builder:
    first, last = g.name()
    return (
        b.add("escalated by agent: ").add(f"{first} {last}", "PERSON").add(" says the charge of ")
        .add(g.amount(), keep=True).add(" hit card ").add(g.card(), "CREDIT_CARD").add(" twice, call ")
        .add(g.phone(), "PHONE_NUMBER")
    )


def _t_bill(g: CorpusGenerator, b: _Builder) -> _Builder:
    _, last = g.name()
    first = g.rng.choice(COMMON_WORD_NAMES)
    return (
        b.add(f"{first} {last}", "PERSON").add(" wrote back about order ").add(g.order_id(), keep=True)
        .add(": the replacement was shipped to the wrong address. Contact: ").add(g.phone(), "PHONE_NUMBER")
    )


def _t_product(g: CorpusGenerator, b: _Builder) -> _Builder:
    """Title-case product names NER tends to tag as PERSON: every detection here is a false positive but the name."""
    first, last = g.name()
    return (
        b.add("I need the ").add(g.rng.choice(PRODUCTS)).add(" before the weekend, order ").add(g.order_id(), keep=True)
        .add(" still says processing. I'm ").add(f"{first} {last}", "PERSON").add(".")
    )


def _t_sign_off(g: CorpusGenerator, b: _Builder) -> _Builder:
    first, last = g.name()
    closing, name = g.rng.choice((("thx, ", first.lower()), ("Thanks,\n- ", first), ("regards, ", f"{first} {last}"), ("cheers ", first)))
    return (
        b.add("the ").add(g.rng.choice(PRODUCTS)).add(" I ordered for ").add(first, "PERSON")
        .add(" arrived damaged, can you send a new one? ").add(closing).add(name, "PERSON")
    )


def _t_this_is(g: CorpusGenerator, b: _Builder) -> _Builder:
    first, last = g.name()
    return (
        b.add(g.rng.choice(("hey, this is ", "Hello, I'm ", "hi im ", "Hi! I am "))).add(f"{first} {last}", "PERSON")
        .add(", calling about ").add(g.order_id(), keep=True).add(" again.")
    )


_TEMPLATES = (_t_intro, _t_agent, _t_refund, _t_identity, _t_link, _t_lowercase, _t_bill, _t_product, _t_sign_off, _t_this_is)


def generate_corpus(size: int = 350, seed: int = 7, name_locales: tuple[str, ...] = NAME_LOCALES) -> list[LabelledText]:
    """`size` labelled texts, the same for the same seed (names drawn from `name_locales`)."""
    generator = CorpusGenerator(seed, name_locales)
    return [generator.text() for _ in range(size)]


@dataclass(frozen=True)
class TypeScore:
    entity_type: str
    gold: int
    caught: int
    detected: int
    correct: int

    @property
    def recall(self) -> float:
        return self.caught / self.gold if self.gold else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.detected if self.detected else 1.0


@dataclass(frozen=True)
class Evaluation:
    scores: list[TypeScore]
    kept: int
    must_keep: int

    def score(self, entity_type: str) -> TypeScore:
        return next(s for s in self.scores if s.entity_type == entity_type)

    def table(self) -> str:
        lines = [f"{'type':<16}{'gold':>6}{'recall':>9}{'found':>7}{'precision':>11}"]
        for s in self.scores:
            lines.append(f"{s.entity_type:<16}{s.gold:>6}{s.recall:>9.1%}{s.detected:>7}{s.precision:>11.1%}")
        lines.append(f"identifiers and amounts kept: {self.kept}/{self.must_keep}")
        return "\n".join(lines)


def evaluate(scrubber, corpus: list[LabelledText]) -> Evaluation:
    """Per-type recall/precision of `scrubber.find_spans`, and whether `keep` values survive scrub_json."""
    found = scrubber.find_spans([item.text for item in corpus])
    gold, caught, detected, correct = Counter(), Counter(), Counter(), Counter()
    for item, spans in zip(corpus, found):
        for g in item.spans:
            gold[g.entity_type] += 1
            covered = {i for s in spans for i in range(s.start, s.end)}
            caught[g.entity_type] += all(i in covered or item.text[i].isspace() for i in range(g.start, g.end))
        for s in spans:
            detected[s.entity_type] += 1
            correct[s.entity_type] += any(s.start < g.end and g.start < s.end for g in item.spans)
    outputs, _ = scrubber.scrub_json([item.text for item in corpus])
    kept = sum(value in output for item, output in zip(corpus, outputs) for value in item.keep)
    types = sorted(set(gold) | set(detected))
    scores = [TypeScore(t, gold[t], caught[t], detected[t], correct[t]) for t in types]
    return Evaluation(scores, kept, sum(len(item.keep) for item in corpus))


def main() -> None:
    from scrubbers.config import ScrubConfig
    from scrubbers.scrubber import Scrubber

    size = int(sys.argv[1]) if len(sys.argv) > 1 else 350
    scrubber = Scrubber(ScrubConfig(), b"evaluation-only-secret")
    for title, locales in (("name locales of the recognizers' lists", NAME_LOCALES), ("held-out name locales", HELDOUT_NAME_LOCALES)):
        print(f"{title}:\n{evaluate(scrubber, generate_corpus(size, name_locales=locales)).table()}\n")


if __name__ == "__main__":
    main()
