"""The detector: every recognizer of the table together on the real spaCy engine, with protected
identifiers, overlaps and the tidying of names and streets (each recognizer alone: tests/scrubbers/recognizers/)."""

import copy

import pytest

from scrubbers.engine import Detector

CASES = [
    # PERSON
    ("Hi, this is Jane Gonzalez from Denver.", [("Jane Gonzalez", "PERSON")]),
    ("Dear Ms. Gonzalez, your parcel is on its way.", [("Ms. Gonzalez", "PERSON")]),  # the stand-in keeps the title
    ("hi rose,\nthe replacement will arrive Monday.", [("rose", "PERSON")]),
    ("my name is damien watkins and I need help", [("damien watkins", "PERSON")]),
    ("Thanks for waiting.\nBest,\nBill Turner", [("Bill Turner", "PERSON")]),
    ("Customer Hope Bustamante asked for a refund.", [("Hope Bustamante", "PERSON")]),
    # PERSON cues for names no list knows
    ("Hello, I'm Marinus Hexspoor, calling about my order", [("Marinus Hexspoor", "PERSON")]),
    ("the boots I ordered for Adelmo arrived damaged", [("Adelmo", "PERSON")]),
    ("can you send a new one? thx, adelmo", [("adelmo", "PERSON")]),
    ("where is my parcel?\n- Ilaria Chinnici", [("Ilaria Chinnici", "PERSON")]),
    # a name runs on over particles, forwards and backwards
    ("Dear María del Carmen, your order shipped.", [("María del Carmen", "PERSON")]),
    ("Dear Ana de la Cruz,\nyour refund is on its way.", [("Ana de la Cruz", "PERSON")]),
    ("Thanks,\nMaría del Carmen Ruiz", [("María del Carmen Ruiz", "PERSON")]),
    ("I ordered the Casa de la Luz lamp", []),
    ("escalated by agent: Jaruthip Akçay says the charge hit twice", [("Jaruthip Akçay", "PERSON")]),
    ("Customer Yara van den Velden (vip) wrote again", [("Yara van den Velden", "PERSON")]),
    ("Hi, my name is Nikolaj Koch II and my order is late", [("Nikolaj Koch II", "PERSON")]),
    # ... without taking ordinary words for names
    ("I'm still waiting, thanks a lot", []),
    ("Customer Service never answered, cheers mate", []),
    ("it was a gift I ordered for Christmas", []),
    # names from Faker's lists of 33 locales, in lists, with titles and degrees, lower case
    ("Why is Alena so impulsive?", [("Alena", "PERSON")]),
    ("the brainchild of our 3 founders: Leehy, Perkins and Copeland.", [("Leehy", "PERSON"), ("Perkins", "PERSON"), ("Copeland", "PERSON")]),
    ("our founders: smit, zhang and edwards.", [("smit", "PERSON"), ("zhang", "PERSON"), ("edwards", "PERSON")]),
    ("Hello, this is Mr. Eric Costa. Who are you?", [("Mr. Eric Costa", "PERSON")]),
    ("Customer Amanda Sultygov MD explained", [("Amanda Sultygov MD", "PERSON")]),
    ("what's the name on the account? user: tina roelink", [("tina roelink", "PERSON")]),
    ("As promised, here's Alena's address", [("Alena", "PERSON")]),
    ("I'd like the Vacuum Cleaner in Rose, size large", []),
    # EMAIL_ADDRESS
    ("reach me at jane.gonzalez@gmail.com please", [("jane.gonzalez@gmail.com", "EMAIL_ADDRESS")]),
    ("Email: o'brien+orders@mail.co.uk.", [("o'brien+orders@mail.co.uk", "EMAIL_ADDRESS")]),
    # PHONE_NUMBER: US, UK, DE, FR, IN, international
    ("call (415) 555-0132 after 5", [("(415) 555-0132", "PHONE_NUMBER")]),
    ("UK office 020 7946 0958", [("020 7946 0958", "PHONE_NUMBER")]),
    ("Berlin: 030 901820 or +49 30 901820", [("030 901820", "PHONE_NUMBER"), ("+49 30 901820", "PHONE_NUMBER")]),
    ("Paris 01 42 68 53 00", [("01 42 68 53 00", "PHONE_NUMBER")]),
    ("mobile +91 98765 43210", [("+91 98765 43210", "PHONE_NUMBER")]),
    ("intl +44 20 7946 0958", [("+44 20 7946 0958", "PHONE_NUMBER")]),
    # STREET_ADDRESS
    ("Ship to 1234 Maple Street, Apt 5B, Springfield, IL 62704 today",
     [("1234 Maple Street, Apt 5B, Springfield, IL 62704", "STREET_ADDRESS")]),
    ("moved to 77 Harbor Blvd. last year", [("77 Harbor Blvd.", "STREET_ADDRESS")]),
    # street first, then number; a unit on its own line; a postcode after the country
    ("Ship to 55 Školní 645\n Suite 992\n Kámen\n Mexico 33716",
     [("55 Školní 645\n Suite 992\n Kámen\n Mexico 33716", "STREET_ADDRESS")]),  # the address is one unit
    ("my address is Puruntie 82, Helsinki", [("Puruntie 82, Helsinki", "STREET_ADDRESS")]),  # the address is one unit
    ("she lives at 25 Rákóczi út 81. Suite 540 Balatonalmádi Algeria", [("25 Rákóczi út 81. Suite 540 Balatonalmádi Algeria", "STREET_ADDRESS")]),
    ("please return to 43 p.o. box 178\nwarszawa", [("43 p.o. box 178", "STREET_ADDRESS")]),
    ("I bought 3 items for 25 dollars", []),
    ("Dr. Katie Giles Apt. 276 27 Sorlaskeid 32", [("Dr. Katie Giles", "PERSON"), ("Apt. 276", "STREET_ADDRESS"), ("27 Sorlaskeid 32", "STREET_ADDRESS")]),
    ("here they are: 01 6 Rue Hsine Eloued\nWOODGATE", [("01 6 Rue Hsine Eloued\nWOODGATE", "STREET_ADDRESS")]),
    # CREDIT_CARD (Luhn-checked, spaces or dashes)
    ("card 4111 1111 1111 1111 declined", [("4111 1111 1111 1111", "CREDIT_CARD")]),
    ("card 5500-0000-0000-0004 declined", [("5500-0000-0000-0004", "CREDIT_CARD")]),
    ("card 4111 1111 1111 1112 declined", []),
    ("refund to card 2221 8255 3933 7682 please", [("2221 8255 3933 7682", "CREDIT_CARD")]),
    ("refund to card 2221 8255 3933 7683 please", []),
    # IBAN_CODE
    ("IBAN GB82 WEST 1234 5698 7654 32 please", [("GB82 WEST 1234 5698 7654 32", "IBAN_CODE")]),
    ("IBAN DE89370400440532013000.", [("DE89370400440532013000", "IBAN_CODE")]),
    # US_SSN
    ("SSN 078-05-1121 on file", [("078-05-1121", "US_SSN")]),
    # IP_ADDRESS v4 / v6
    ("login from 81.2.69.142 and 2a02:8070:a28c::1", [("81.2.69.142", "IP_ADDRESS"), ("2a02:8070:a28c::1", "IP_ADDRESS")]),
    # DATE_OF_BIRTH only with a birth cue
    ("I was born on 03/14/1985.", [("03/14/1985", "DATE_OF_BIRTH")]),
    ("DOB: March 14, 1985", [("March 14, 1985", "DATE_OF_BIRTH")]),
    ("Delivery expected 03/14/2025.", []),
    # USERNAME
    ("username: jdoe_88 cannot log in", [("jdoe_88", "USERNAME")]),
    ("ping @rosey_w about it", [("rosey_w", "USERNAME")]),
    ("login jane.g77 failed", [("jane.g77", "USERNAME")]),
    ("login failed twice", []),
    # URL with a personal part
    ("profile https://www.linkedin.com/in/jane-doe-123", [("https://www.linkedin.com/in/jane-doe-123", "URL")]),
    ("see https://help.acme.com/returns?lang=en for details", []),
    # protected identifiers and amounts stay
    ("Order #W1234567 for $12.34 shipped, ticket ZD-4411.", []),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_recognizers_find_exactly_the_expected_spans(detector: Detector, text: str, expected: list) -> None:
    (findings,) = detector.analyze_batch([text])
    found = [(text[f.start : f.end], f.entity_type) for f in findings]
    assert found == expected


def test_batch_gives_the_same_findings_as_one_by_one(detector: Detector) -> None:
    texts = [c[0] for c in CASES]
    assert detector.analyze_batch(texts) == [detector.analyze_batch([t])[0] for t in texts]


def test_only_ner_runs(detector: Detector) -> None:
    assert detector.nlp.pipe_names == ["ner"]


def test_only_what_lies_outside_protected_ids_starts_ner_and_digit_recognizers(
    detector: Detector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A timestamp or an order id alone cannot hold a kept finding: no NER, no phone recognizer."""
    to_ner: list[str] = []
    artifacts_batch = detector.nlp_engine.artifacts_batch
    monkeypatch.setattr(
        detector.nlp_engine, "artifacts_batch", lambda texts, *a, **k: (to_ner.extend(texts), artifacts_batch(texts, *a, **k))[1]
    )
    phone = next(r for r in detector._recognizers if "PHONE_NUMBER" in r.supported_entities)
    phone_texts: list[str] = []
    analyze = phone.analyze
    monkeypatch.setattr(phone, "analyze", lambda text, *a, **k: (phone_texts.append(text), analyze(text, *a, **k))[1])
    texts = ["2026-09-27T10:20:12Z", "#W1234567", "SKU-10482 #W1234567", "Call Jane Smith on 415 555 0132", "ok #W1234567"]

    findings = detector.analyze_batch(texts)

    assert to_ner == ["Call Jane Smith on 415 555 0132", "ok #W1234567"]
    assert phone_texts == ["Call Jane Smith on 415 555 0132"]
    assert findings[:3] == [[], [], []]
    assert {f.entity_type for f in findings[3]} == {"PERSON", "PHONE_NUMBER"}


def test_protected_pattern_beats_any_recognizer(config) -> None:
    from scrubbers.config import ScrubConfig
    from scrubbers.engine import get_detector

    custom = get_detector(config.model_copy(update={"protected_patterns": (*config.protected_patterns, r"jane\.gonzalez@gmail\.com")}))
    (findings,) = custom.analyze_batch(["write to jane.gonzalez@gmail.com"])
    assert findings == []
    assert isinstance(custom.config, ScrubConfig)


@pytest.mark.parametrize("number", ["30/166 1318", "(26)/018-1590", "(0016) 613186", "(06)36/671-2768", "0786 6661", "1390996030"])
def test_digit_groups_after_a_phone_word_are_a_phone_number(detector, number: str) -> None:
    """Below the threshold alone, above it after a context word (Presidio's context enhancement; alone:
    tests/scrubbers/recognizers/test_phone_layout_recognizer.py)."""
    text = f"You can reach me at {number} after five."
    (findings,) = detector.analyze_batch([text])
    assert [(text[f.start : f.end], f.entity_type) for f in findings] == [(number, "PHONE_NUMBER")]


def test_the_leak_gate_sees_a_lower_case_iban(detector) -> None:
    assert [f.entity_type for f in detector.residual_findings("iban gb48awjv07221741105646")] == ["IBAN_CODE"]


def test_ner_person_recognizer_drops_what_no_name_could_be(detector) -> None:
    """spaCy's small model calls ids, pieces of sizes and product names alone people; Presidio's
    SpacyRecognizer passes them on, NerPersonRecognizer does not, and keeps names (the model's own
    tags, which tests/scrubbers/recognizers/test_ner_person_recognizer.py gives its mock engine)."""
    from presidio_analyzer.predefined_recognizers import SpacyRecognizer

    from scrubbers.recognizers.person import NerPersonRecognizer

    def found(recognizer, text: str) -> list[str]:
        artifacts = detector.nlp_engine.process_text(text, "en")
        return [text[r.start : r.end] for r in recognizer.analyze(text, ["PERSON"], artifacts)]

    presidio, ours = SpacyRecognizer(supported_language="en", supported_entities=["PERSON"]), NerPersonRecognizer()
    for text in ("call_0000", "Laptop (screen size 13-inch, processor i5, ram 32GB, storage 256GB SSD)", "Desk Lamp"):
        assert found(presidio, text) and found(ours, text) == [], text
    for text in ("Judy Smith wrote back", "nicholas muir listed his top 20 songs for everyone"):
        assert found(ours, text) == found(presidio, text) != [], text


def test_twelve_and_nineteen_digit_cards_are_found(detector) -> None:
    for text, card in (("my maestro card 5018 7483 3780 please", "5018 7483 3780"), ("charge 4252-5594-4610-9248-347 now", "4252-5594-4610-9248-347")):
        (findings,) = detector.analyze_batch([text])
        assert [(text[f.start : f.end], f.entity_type) for f in findings] == [(card, "CREDIT_CARD")]


@pytest.mark.parametrize(("text", "street"), [
    ("The letter arrived at 27 2711 Queens Sq, Kostelec", "27 2711 Queens Sq"),  # a second building number before it
    ("Please return to the corner of Auenweg 85 and Kesä Street in case of an issue.", "the corner of Auenweg 85 and Kesä Street"),
    ("a taxi to the corner of 69 Spencer Street and Vokatý Street", "the corner of 69 Spencer Street and Vokatý Street"),
])
def test_a_street_line_is_replaced_whole(detector, text: str, street: str) -> None:
    (findings,) = detector.analyze_batch([text])
    assert any(text[f.start : f.end].startswith(street) for f in findings if f.entity_type == "STREET_ADDRESS")


@pytest.mark.parametrize(("text", "street"), [
    # cold review: hyphenated street names, which the model also reads as people
    ("They live on Rue Jean-Jaurès.", "Rue Jean-Jaurès"),
    ("I live on Karl-Marx-Allee.", "Karl-Marx-Allee"),
    ("My address is Karl-Marx-Straße 12, Berlin.", "Karl-Marx-Straße 12"),
    ("My address: Hans-Böckler-Str. 7, 40476 Düsseldorf", "Hans-Böckler-Str. 7"),
    ("ship it to ka-ping street 5 please", "ka-ping street 5"),
    ("The shop on Rue Saint-Denis closed.", "Rue Saint-Denis"),
    ("Send it to Rue Jean-Jaurès 12, Lyon.", "Rue Jean-Jaurès 12"),
    ("My address is Ka-Ping Street 5.", "Ka-Ping Street 5"),
])
def test_a_hyphenated_street_name_is_one_street(detector, text: str, street: str) -> None:
    (findings,) = detector.analyze_batch([text])
    found = [(text[f.start : f.end], f.entity_type) for f in findings]
    assert any(entity == "STREET_ADDRESS" and value.startswith(street) for value, entity in found), found
    assert not any(entity == "PERSON" for _, entity in found), found

@pytest.mark.parametrize(("regions", "expected"), [(("US",), []), (("IL",), [(5, 17, "PHONE_NUMBER")])])
def test_the_leak_gate_validates_phone_numbers_for_the_configured_regions(regions, expected) -> None:
    """An Israeli number without its country code is valid for 'IL' only."""
    from scrubbers.residual import ResidualScanner

    assert ResidualScanner(["PHONE_NUMBER"], regions).find("call 050-234-5678 now") == expected


def test_artifacts_batch_are_presidios_process_batch(detector: Detector) -> None:
    """The detector's own batch (no `doc.text` rebuilt per text) gives Presidio's artifacts, in order."""
    texts = ["Call Jane Smith on 415 555 0132", "ok", "Mr. Ryan Ziherl wrote from Debrecen", "Dear Ana,\nthanks"]
    engine = detector.nlp_engine
    ours = list(engine.artifacts_batch(texts, "en", 2))
    presidio = [artifacts for _, artifacts in engine.process_batch(texts, "en", batch_size=2)]
    def seen(a) -> tuple:
        return [(e.start_char, e.end_char, e.label_) for e in a.entities], a.scores, [t.text for t in a.tokens]

    assert [seen(a) for a in ours] == [seen(a) for a in presidio]


def test_a_twin_adding_ids_protects_as_one_built_with_them_all(detector: Detector) -> None:
    """`with_identifiers` works out bare numbers only for the ids it adds: a detector's own ids already hold theirs."""
    state = frozenset({"#W1234567", "ZD-40211", "1008292230"})
    written = frozenset({"#W7654321", "INV-88812"})
    twin = detector.with_identifiers(state).with_identifiers(state | written)
    assert twin.identifiers == detector.with_identifiers(state | written).identifiers
    assert {"1234567", "40211", "7654321", "88812"} <= twin.identifiers
    assert detector.with_identifiers(state).with_identifiers(written).identifiers == detector.with_identifiers(written).identifiers


@pytest.mark.parametrize("text", ["lives on Andreassen Street", "Call Jane Smith on 415 555 0132", "ok", "ship to 12 Puruntie 82"])
def test_a_shared_trigger_is_asked_once_and_starts_the_same_recognizers(detector: Detector, text: str) -> None:
    digits = sum(c.isdigit() for c in text)
    calls: list[object] = []
    counted = {t: (lambda text, digits, t=t: (calls.append(t), t(text, digits))[1]) for t, _ in detector._triggers}
    twin = copy.copy(detector)
    twin._triggers = [(counted[t], r) for t, r in detector._triggers]
    assert twin._active(text, digits) == [r for t, r in detector._triggers if t(text, digits)]
    assert len(calls) == len(set(calls)) == len(counted) < len(detector._triggers)


_TEMPLATE = (
    "You are the support assistant of a shop. Help with orders, refunds and returns; never invent order data, "
    "and escalate to a human when policy requires it."
)


def test_a_line_many_texts_share_goes_through_the_model_once(detector: Detector, monkeypatch) -> None:
    """A system prompt's template before each customer's own line is read by the model once a batch; the
    entities of the lines around it land where reading each text whole puts them."""
    texts = [
        f"{_TEMPLATE}\nAuthenticated customer: Jane Smith",
        f"Session opened.\n{_TEMPLATE}\nThe customer is Bill Turner from Denver",
        "Call Jane Smith on 415 555 0132",
        "ok",
    ]
    engine = detector.nlp_engine
    whole = [[(e.start_char, e.end_char, e.label_) for e in a.entities] for _, a in engine.process_batch(texts, "en", batch_size=2)]
    nlp, read = engine.nlp["en"], []
    pipe = nlp.pipe
    monkeypatch.setattr(nlp, "pipe", lambda inputs, **kw: pipe((read.append(t) or t for t in inputs), **kw))

    ours = list(engine.artifacts_batch(texts, "en", 2))

    assert read == [
        _TEMPLATE, "Authenticated customer: Jane Smith", "Session opened.", "The customer is Bill Turner from Denver",
        "Call Jane Smith on 415 555 0132", "ok",
    ]
    assert [[(e.start_char, e.end_char, e.label_) for e in a.entities] for a in ours] == whole
    assert [[t.text for t in a.tokens] for a in ours] == [[t.text for t in detector.nlp(text)] for text in texts]
    assert ("Bill Turner", "PERSON") in [(texts[1][e.start_char : e.end_char], e.label_) for e in ours[1].entities]


def test_only_long_lines_that_recur_split_a_text() -> None:
    from scrubbers.nlp import split_at_shared_lines

    short = "Thanks,\nBill"
    texts = [f"{_TEMPLATE}\nuser one", f"\n{_TEMPLATE}", short, short, f"{_TEMPLATE} and more\nuser two", "no newline"]
    assert split_at_shared_lines(texts, 80) == [
        [(0, _TEMPLATE, True), (len(_TEMPLATE) + 1, "user one", False)],
        [(1, _TEMPLATE, True)],  # the empty line before it is not read
        None, None,  # a short line shared is no template
        None,  # the template with more on its line is another line
        None,
    ]
