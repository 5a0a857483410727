"""The fourth cold review's findings (scrub-verdict-3) on text we did not write: each a rule with a case that fails without it."""

import json
import random
import re

import phonenumbers
from faker import Faker

from scrubbers import Scrubber, addresses
from scrubbers.pseudonyms import _make_email, _make_phone


def test_a_reserved_e_mail_domain_is_kept(scrubber) -> None:
    """'…@example.com' is already no one's: its stand-in keeps example.com (it turned into example.net)."""
    texts = [f"Write to maria.lopez{n}@example.com today." for n in range(12)]
    scrubbed, _ = scrubber.scrub_json(texts)
    for before, after in zip(texts, scrubbed):
        assert after != before and re.search(r"@example\.com today\.$", after), after
    # a real domain still becomes a reserved one
    (other,), _ = scrubber.scrub_json(["Write to maria.lopez@gmail.com today."])
    assert re.search(r"@example\.(?:com|net|org) today\.$", other)


def test_a_north_american_stand_in_has_a_real_area_code() -> None:
    """'619-648-6618x20779' -> '665-…': 665 is no US area code. Every stand-in of a North American number is valid
    (libphonenumber), an extension stays an extension, and other countries' layouts are untouched by the rule."""
    fake = Faker()
    for seed in range(200):
        for original in ("619-648-6618x20779", "(415) 555-0132", "+1-203-305-2492"):
            stand_in = _make_phone(fake, random.Random(seed), original)
            main = re.sub(r"x\d+$", "", stand_in)
            assert phonenumbers.is_valid_number(phonenumbers.parse(main, "US")), (original, stand_in)
            assert len(stand_in) == len(original) and ("x" in stand_in) == ("x" in original)
    assert re.fullmatch(r"0\d{3} \d{7}", _make_phone(fake, random.Random(1), "0348 2102744"))


def test_a_unit_number_gets_no_leading_zero() -> None:
    """'Suite 500' -> 'Suite 063' read as made up: a unit number not written with a leading zero gets none."""
    for seed in range(300):
        assert re.fullmatch(r"Suite [1-9]\d\d", addresses.address_unit(random.Random(seed), "Suite 500"))
        assert re.fullmatch(r"[1-9]\d\d", addresses.address_unit(random.Random(seed), "500"))


def test_a_band_or_a_company_is_no_person(scrubber) -> None:
    """NER calls 'Metallica' and 'Golden Helix' people: a name's last word is a name or a word English does not
    use; an English word no name list holds ('Helix', 'Metallica') ends no one's name, unless a cue says it does."""
    texts = ["It was on this street that the clubs where Metallica first played were situated.",
             "Golden Helix\n\nOur office moved last spring.",
             "Dear Ryan Ziherl, thanks for the call."]
    band, company, person = scrubber.scrub_json(texts)[0]
    assert band == texts[0] and company == texts[1]
    assert "Ziherl" not in person and "Ryan" not in person


def test_a_rare_word_after_a_place_cue_or_before_a_company_form_is_no_person(scrubber) -> None:
    """A word English does not use is read as a name ('Why is Avtorhan so impulsive?'), but not after 'in' or
    'city' ('grew up in Kistarcsa', 'refers to X in Keflavíkurflugvöllur') nor before 'Inc' or 'office'."""
    texts = ["Mr. Ford grew up in Kistarcsa.", "The Xignite office is closed.", "During the 1990s, Junar Inc grew.",
             "Why is Avtorhan so impulsive?"]
    town, office, inc, person = scrubber.scrub_json(texts)[0]
    assert "Kistarcsa" in town and office == texts[1] and "Junar Inc" in inc
    assert "Avtorhan" not in person


def test_a_street_line_with_a_second_number_is_one_unit(scrubber) -> None:
    """'21 José matía 66 Apt. 617 Paterna del Madera' was replaced word by word: 'José' became a first name, '66'
    a second street, the town a person, and 'matía' stayed. A line opening with a house number and words before
    the number a street was found from is one street line, and the town after its unit (particles and all) is its town."""
    text = "Acme\n\n14 Pedro ramía 52 Apt. 310 Villar del Monte Estonia"
    (scrubbed,), counts = scrubber.scrub_json([text])
    line = scrubbed.split("\n")[-1]
    for word in ("Pedro", "ramía", "52", "310", "Villar", "Monte"):
        assert word not in line, line
    assert sum(line.count(suffix) for suffix in addresses.STREET_SUFFIXES) == 1 and "PERSON" not in counts, (line, counts)
    assert re.fullmatch(r"\d+ [A-Z][a-z]+(?: [A-Z][a-z]+)* Apt\. \d{3} [A-Z][\w ]+", line), line


def test_a_country_in_an_address_is_replaced_with_it_and_kept_alone(scrubber) -> None:
    """gold-07 replaced 'Latvia' after a comma, gold-05 kept it after its town with spaces only: one rule, a
    country written as a part of an address is the address's and becomes the stand-in's ('United States');
    alone in a sentence it stays."""
    spaced, commas, alone = scrubber.scrub_json([
        "Acme\n\n14 Pedro ramía 52 Apt. 310 Villar del Monte Estonia",
        "Acme\n63 Via Verbano 62, Villa Darwin, Estonia\n",
        "She moved to Estonia last year.",
    ])[0]
    assert spaced.endswith(" United States") and "Estonia" not in spaced, spaced
    assert "United States" in commas and "Estonia" not in commas, commas
    assert alone == "She moved to Estonia last year."
    assert [(p.kind, "14 Pedro ramía 52 Apt. 310 Villar del Monte Estonia"[p.start : p.end])
            for p in addresses.parts("14 Pedro ramía 52 Apt. 310 Villar del Monte Estonia")][-2:] == [
        ("CITY", "Villar del Monte"), ("COUNTRY", "Estonia")]


def test_a_name_built_e_mail_keeps_its_reserved_domain(config) -> None:
    """tau-bench's 'ethan.garcia8085@example.com' got 'cal.dease4691@example.net': an address built from the
    person's name keeps a reserved domain as written too, whatever the secret (the domain was drawn from it)."""
    value = [{"content": json.dumps({"name": {"first_name": "Ethan", "last_name": "Garcia"},
                                     "email": "ethan.garcia8085@example.com"})},
             "Hi Ethan Garcia, is ethan.garcia8085@example.com right?"]
    for secret in (b"secret-one", b"secret-two", b"secret-three", b"secret-four", b"secret-five", b"secret-six"):
        (field, said), _ = Scrubber(config, secret).scrub_json(value)
        email = json.loads(field["content"])["email"]
        assert "garcia" not in email and email.endswith("@example.com") and email in said, (secret, email)
