"""Per-recognizer tables of (text, expected spans), Presidio style, through the real engine."""

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
     [("55 Školní 645", "STREET_ADDRESS"), ("Suite 992", "STREET_ADDRESS"), ("Mexico 33716"[7:], "STREET_ADDRESS")]),
    ("my address is Puruntie 82, Helsinki", [("Puruntie 82", "STREET_ADDRESS")]),
    ("she lives at 25 Rákóczi út 81. Suite 540 Balatonalmádi Algeria", [("25 Rákóczi út 81. Suite 540 Balatonalmádi Algeria", "STREET_ADDRESS")]),
    ("please return to 43 p.o. box 178\nwarszawa", [("43 p.o. box 178", "STREET_ADDRESS")]),
    ("I bought 3 items for 25 dollars", []),
    ("Dr. Katie Giles Apt. 276 27 Sorlaskeid 32", [("Dr. Katie Giles", "PERSON"), ("Apt. 276", "STREET_ADDRESS"), ("27 Sorlaskeid 32", "STREET_ADDRESS")]),
    ("here they are: 01 6 Rue Hsine Eloued\nWOODGATE", [("01 6 Rue Hsine Eloued", "STREET_ADDRESS")]),
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
    process_batch = detector.nlp_engine.process_batch
    monkeypatch.setattr(
        detector.nlp_engine, "process_batch", lambda texts, *a, **k: (to_ner.extend(texts), process_batch(texts, *a, **k))[1]
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


# Each recognizer alone, without spaCy: pattern and list recognizers need no NLP artifacts.

def _alone(recognizer, text: str) -> list[str]:
    entities = recognizer.supported_entities
    return [text[r.start : r.end] for r in recognizer.analyze(text, entities, None) if r.score >= 0.5]


def test_international_street_recognizer() -> None:
    from scrubbers.recognizers.address import InternationalStreetRecognizer

    recognizer = InternationalStreetRecognizer()
    assert _alone(recognizer, "Meet at 30 Veslebakken 48, Harstad") == ["30 Veslebakken 48"]
    assert _alone(recognizer, "address: Via Capo le Case 143, Calino") == ["Via Capo le Case 143"]
    assert _alone(recognizer, "at Duizendmonnikenstraat 189") == ["Duizendmonnikenstraat 189"]
    assert _alone(recognizer, "Please return to 59 Rue de la Sarthe today") == ["59 Rue de la Sarthe"]
    assert _alone(recognizer, "PSC 7004, Box 8380\nAPO AP 11949") == ["PSC 7004, Box 8380\nAPO AP 11949"]
    assert _alone(recognizer, "I want 3 items for 25 dollars and 2 of them in 10 days") == []


def test_address_unit_recognizer() -> None:
    from scrubbers.recognizers.address import AddressUnitRecognizer

    assert _alone(AddressUnitRecognizer(), "Kromwater 38\n Apt. 705\n suite 790") == ["Apt. 705", "suite 790"]
    assert _alone(AddressUnitRecognizer(), "a suite of 5 tests") == []


def test_postcode_recognizer() -> None:
    from scrubbers.recognizers.address import PostcodeRecognizer

    assert sorted(_alone(PostcodeRecognizer(), " Bhutan 43145\nDallas TX 48486\nmy zip code is 86786")) == ["43145", "48486", "86786"]
    assert _alone(PostcodeRecognizer(), "order 48486 of 2024, 12 items") == []


def test_person_gazetteer_recognizer() -> None:
    from scrubbers.recognizers.person import PersonGazetteerRecognizer

    recognizer = PersonGazetteerRecognizer(first_names=frozenset({"alena", "rose"}), last_names=frozenset({"perić"}))
    assert _alone(recognizer, "Why is Alena so sad? Perić's song. Rose sang") == ["Alena", "Perić"]  # 'Rose' is a common word
    assert _alone(recognizer, "the Casa de la Alena lamp, alena") == []


def test_phone_layout_recognizer() -> None:
    """North American layouts with extensions, and digits labelled as a phone, whatever their metadata says."""
    from scrubbers.recognizers.phone import PhoneLayoutRecognizer

    recognizer = PhoneLayoutRecognizer()
    assert _alone(recognizer, "(505)498-8487x6837-Fax") == ["(505)498-8487x6837"]
    assert _alone(recognizer, "write 001-748-088-2851x818 down") == ["001-748-088-2851x818"]
    assert _alone(recognizer, "reach 730.347.5681.") == ["730.347.5681"]
    assert _alone(recognizer, "070-073-058-Office") == ["070-073-058"]
    assert _alone(recognizer, "fax: 92 34 70") == ["92 34 70"]
    assert _alone(recognizer, "87/789-3287-Office") == ["87/789-3287"]  # a slash between groups
    assert _alone(recognizer, "on 2024-05-12 order 1008292230, sku 123-456-7890123, v1.2.3-4 office") == []


def test_phone_layout_recognizer_takes_any_international_number() -> None:
    """'+', a country code, a '(0)' trunk prefix or an area code in brackets: a phone number, whether
    or not the numbering plan knows the range."""
    from scrubbers.recognizers.phone import PhoneLayoutRecognizer

    recognizer = PhoneLayoutRecognizer()
    assert _alone(recognizer, "+41 (0)66 712 76 84 or +7 (016) 613-1860") == ["+41 (0)66 712 76 84", "+7 (016) 613-1860"]
    assert _alone(recognizer, "+49(0) 016613186, +910166131860 x12.") == ["+49(0) 016613186", "+910166131860 x12"]
    assert _alone(recognizer, "a 2+3 = 5 sum, +1 point") == []


@pytest.mark.parametrize("number", ["30/166 1318", "(26)/018-1590", "(0016) 613186", "(06)36/671-2768", "0786 6661", "1390996030"])
def test_digit_groups_after_a_phone_word_are_a_phone_number(detector, number: str) -> None:
    """Below the threshold alone, above it after a context word (Presidio's context enhancement)."""
    text = f"You can reach me at {number} after five."
    (findings,) = detector.analyze_batch([text])
    assert [(text[f.start : f.end], f.entity_type) for f in findings] == [(number, "PHONE_NUMBER")]
    from scrubbers.recognizers.phone import PhoneLayoutRecognizer

    assert _alone(PhoneLayoutRecognizer(), f"The box holds {number} screws.") == []


def test_valid_phones_take_their_extension_and_a_trunk_prefix_in_brackets() -> None:
    from scrubbers.recognizers.offline import ValidPhoneRecognizer

    recognizer = ValidPhoneRecognizer(("US", "CH"))
    assert _alone(recognizer, "call +41 (0)44 668 18 00 now") == ["+41 (0)44 668 18 00"]
    assert _alone(recognizer, "call (415) 555-0132 ext. 12 now") == ["(415) 555-0132 ext. 12"]


def test_lower_case_iban_recognizer() -> None:
    from scrubbers.recognizers.iban import LowerCaseIbanRecognizer

    assert _alone(LowerCaseIbanRecognizer(), "my iban is gb48awjv07221741105646") == ["gb48awjv07221741105646"]
    assert _alone(LowerCaseIbanRecognizer(), "my iban is gb48awjv07221741105647") == []


def test_the_leak_gate_sees_a_lower_case_iban(detector) -> None:
    assert [f.entity_type for f in detector.residual_findings("iban gb48awjv07221741105646")] == ["IBAN_CODE"]


def test_person_addressed_recognizer() -> None:
    from scrubbers.recognizers.person import PersonAddressedRecognizer

    recognizer = PersonAddressedRecognizer()
    assert _alone(recognizer, "Raimond, can I please speak to your manager?") == ["Raimond"]
    assert _alone(recognizer, 'marilena: "who are you?"\nangela: "a friend"') == ["marilena", "angela"]
    assert _alone(recognizer, "sometimes people call me philipp") == ["philipp"]
    assert _alone(recognizer, "I'm lindsay's daughter") == ["lindsay"]
    assert _alone(recognizer, 'Note: "fragile"\nThanks, can you check? I am fine. Customer: "hi"') == []


def test_ner_person_recognizer_drops_what_no_name_could_be(detector) -> None:
    """spaCy's small model calls ids, pieces of sizes and product names alone people; Presidio's
    SpacyRecognizer passes them on, NerPersonRecognizer does not, and keeps names."""
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


def test_ner_name_plausible() -> None:
    from scrubbers.recognizers.person import ner_name_plausible

    def plausible(text: str, span: str) -> bool:
        start = text.index(span)
        return ner_name_plausible(text, start, start + len(span))

    assert not plausible("500ml", "500ml") and not plausible("credit_card_9513926", "credit_card_9513926")
    assert not plausible("ram 32GB, storage", "GB")
    assert not plausible("It holds: Water Bottle (capacity 500ml)", "Water Bottle")  # common words no list knows
    assert not plausible("Garden Hose", "Garden Hose") and not plausible("brown", "brown")  # a JSON value alone
    assert not plausible("difficulty level intermediate", "level intermediate")
    assert not plausible("## Intro\n\n### Modify payment\n\n- The user", "Modify")  # a heading's first word
    assert plausible("we asked Modify about it", "Modify") and plausible("Kovalev", "Kovalev")
    assert plausible("Rose Hill called", "Rose Hill") and plausible("our founders: smit, zhang", "smit")
    assert plausible("Garden Hose wrote to me", "Garden Hose")  # in a sentence, a rare-enough word may be a name


def test_name_built_id_recognizer() -> None:
    from scrubbers.recognizers.username import NameBuiltIdRecognizer

    text = "You are mei_kovacs_8020 (raj_li_8594 too), paid with credit_card_9513926 and gift_card_1725971; call_0000"
    assert _alone(NameBuiltIdRecognizer(), text) == ["mei_kovacs_8020", "raj_li_8594"]
    assert _alone(NameBuiltIdRecognizer(), "see a.mei_kovacs_8020 and mei_kovacs_8020@x.io") == []


def test_card_length_recognizer() -> None:
    """12 to 19 digits passing the Luhn check: from 15 digits alone, shorter only after a card word."""
    from scrubbers.recognizers.card import CardLengthRecognizer

    recognizer = CardLengthRecognizer()
    assert _alone(recognizer, "4057 5594 7090 0547 494 and 4634648485069506999.") == ["4057 5594 7090 0547 494", "4634648485069506999"]
    assert _alone(recognizer, "4057 5594 7090 0547 495 and 5018 7483 3780") == []  # not Luhn-valid; 12 digits alone


def test_twelve_and_nineteen_digit_cards_are_found(detector) -> None:
    for text, card in (("my maestro card 5018 7483 3780 please", "5018 7483 3780"), ("charge 4252-5594-4610-9248-347 now", "4252-5594-4610-9248-347")):
        (findings,) = detector.analyze_batch([text])
        assert [(text[f.start : f.end], f.entity_type) for f in findings] == [(card, "CREDIT_CARD")]


def test_a_number_named_as_an_id_is_not_a_phone_number() -> None:
    """tau-bench's ten-digit item ids are valid US numbers: after 'item ID', 'tracking number', 'order'
    (and in a list after them) they are identifiers, for the detector and the leak gate alike."""
    from scrubbers.recognizers.offline import ValidPhoneRecognizer

    recognizer = ValidPhoneRecognizer(("US",))
    assert _alone(recognizer, "Your item IDs are 6469567736, 8426249116 and 6777246137. Tracking number: 3579625010") == []
    assert _alone(recognizer, "my phone number is 6469567736, call 8426249116") == ["6469567736", "8426249116"]


@pytest.mark.parametrize(("text", "street"), [
    ("The letter arrived at 27 2711 Queens Sq, Kostelec", "27 2711 Queens Sq"),  # a second building number before it
    ("Please return to the corner of Auenweg 85 and Kesä Street in case of an issue.", "the corner of Auenweg 85 and Kesä Street"),
    ("a taxi to the corner of 69 Spencer Street and Vokatý Street", "the corner of 69 Spencer Street and Vokatý Street"),
])
def test_a_street_line_is_replaced_whole(detector, text: str, street: str) -> None:
    (findings,) = detector.analyze_batch([text])
    assert street in [text[f.start : f.end] for f in findings if f.entity_type == "STREET_ADDRESS"]


def test_the_town_after_a_unit_may_hold_a_short_lower_case_code() -> None:
    from scrubbers.recognizers.address import InternationalStreetRecognizer

    text = "send it to 56 ul. Karpacka 69 Apt. 837 Bydgoszcz nan? I am away"
    assert _alone(InternationalStreetRecognizer(), text) == ["56 ul. Karpacka 69 Apt. 837 Bydgoszcz nan"]


def test_person_relation_recognizer() -> None:
    """Third parties a customer names in free text: by their relation, or by what is theirs."""
    from scrubbers.recognizers.person import PersonRelationRecognizer

    recognizer = PersonRelationRecognizer()
    assert _alone(recognizer, "my neighbour Anna Wirth took the parcel") == ["Anna Wirth"]
    assert _alone(recognizer, "I ordered it with my partner, joost, last week") == ["joost"]
    assert _alone(recognizer, "As promised, here's Gregorina's address") == ["Gregorina"]
    assert _alone(recognizer, "my neighbour who lives next door, the order's address, my friend said so") == []


def test_lower_case_name_recognizer() -> None:
    from scrubbers.recognizers.person import LowerCaseNameRecognizer

    recognizer = LowerCaseNameRecognizer()
    assert _alone(recognizer, "the leah holmberg version recorded") == ["leah holmberg"]
    assert _alone(recognizer, "will smith and grace period, the mark down") == []


def test_person_name_list_recognizer_takes_no_surname_after_a_common_word() -> None:
    from scrubbers.recognizers.person import PersonNameListRecognizer

    assert _alone(PersonNameListRecognizer(), "I moved to New York, Karen Moreno too") == ["Karen Moreno"]
