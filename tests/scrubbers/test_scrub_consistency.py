"""The consistency map alone: one stand-in per original, a person's other forms following their full name."""

import hashlib
import re
from urllib.parse import quote

import pytest

from scrubbers.consistency import ConsistencyMap
from scrubbers.pseudonyms import RESERVED_EMAIL_DOMAINS, Pseudonymizer


@pytest.fixture
def pseudo() -> Pseudonymizer:
    return Pseudonymizer(b"consistency-tests-secret")


@pytest.fixture
def cmap(pseudo: Pseudonymizer) -> ConsistencyMap:
    people = ConsistencyMap(pseudo)
    people.register_people(["Jane", "Jane   Gonzalez"])  # the lone first name comes first on purpose
    return people


def _full(cmap: ConsistencyMap) -> list[str]:
    return cmap.replace("PERSON", "Jane Gonzalez").split()


def test_a_name_s_parts_follow_its_full_name_whatever_the_order_given(cmap: ConsistencyMap) -> None:
    first, last = _full(cmap)
    assert (first, last) != ("Jane", "Gonzalez")
    assert cmap.replace("PERSON", "Jane") == first
    assert cmap.replace("PERSON", "Gonzalez") == last
    assert cmap.replace("PERSON", "GONZALEZ") == last.upper()  # the case of the mention
    assert cmap.replace("PERSON", "Ms. Gonzalez") == f"Ms. {last}"


def test_a_title_stays_as_written_and_the_name_after_it_changes(cmap: ConsistencyMap) -> None:
    first, last = _full(cmap)
    assert cmap.replace("PERSON", "Dr. Jane Gonzalez") == f"Dr. {first} {last}"
    assert cmap.replace("PERSON", "dr Jane Gonzalez") == f"dr {first} {last}"
    assert cmap.replace("PERSON", "MR. Gonzalez") == f"MR. {last}"
    assert cmap.replace("PERSON", "Dr") != "Dr"  # a title alone is not a title of anyone


def test_an_unknown_lone_name_gets_one_word(pseudo: Pseudonymizer) -> None:
    alone = ConsistencyMap(pseudo).replace("PERSON", "Zorro")
    assert re.fullmatch(r"[A-Z][a-z'-]+", alone) and alone != "Zorro"
    titled = ConsistencyMap(pseudo).replace("PERSON", "Dr. Zorro")
    assert re.fullmatch(r"Dr\. [A-Z][a-z'-]+", titled) and titled != "Dr. Zorro"


def test_handles_are_rebuilt_from_the_person_s_stand_in(cmap: ConsistencyMap) -> None:
    first, last = (part.lower() for part in _full(cmap))
    assert cmap.replace("USERNAME", "jgonzalez") == f"{first[0]}{last}"
    handle = cmap.replace("USERNAME", "@jane_gonzalez88")
    assert re.fullmatch(rf"@{first}_{last}\d\d", handle) and not handle.endswith("88")  # the digits are the person's too
    assert cmap.replace("USERNAME", "jane_gonzalez_88") == f"{first}_{last}_{handle[-2:]}"  # the same digits, the same stand-in
    assert cmap.replace("EMAIL_ADDRESS", "jane.gonzalez88@gmail.com").startswith(f"{first}.{last}{handle[-2:]}@")
    assert cmap.replace("USERNAME", "Jane.Gonzalez") == f"{first.capitalize()}.{last.capitalize()}"
    assert cmap.replace("USERNAME", "jane_x") == f"{first}_x"  # one letter is no name


def test_a_handle_with_no_known_name_gets_the_pseudonymizer_s_stand_in(cmap: ConsistencyMap, pseudo: Pseudonymizer) -> None:
    assert cmap.replace("USERNAME", "zorro_rides") == pseudo.stand_in("USERNAME", "zorro_rides")
    assert cmap.replace("USERNAME", "@zorro_rides") == "@" + pseudo.stand_in("USERNAME", "zorro_rides")
    assert cmap.replace("USERNAME", "@42") == "@" + pseudo.stand_in("USERNAME", "42")


def test_an_email_built_from_a_name_is_rebuilt_at_a_reserved_domain(cmap: ConsistencyMap, pseudo: Pseudonymizer) -> None:
    first, last = (part.lower() for part in _full(cmap))
    domain = RESERVED_EMAIL_DOMAINS[int(pseudo.digest("EMAIL_DOMAIN", "gmail.com"), 16) % 3]
    assert cmap.replace("EMAIL_ADDRESS", "Jane.Gonzalez@gmail.com") == f"{first.capitalize()}.{last.capitalize()}@{domain}"
    assert cmap.replace("EMAIL_ADDRESS", "jane.gonzalez@yahoo.com").startswith(f"{first}.{last}@")
    assert cmap.replace("EMAIL_ADDRESS", "a@b@gonzalez.io").endswith(tuple(RESERVED_EMAIL_DOMAINS))
    assert cmap.replace("EMAIL_ADDRESS", "zorro@mask.org") == pseudo.stand_in("EMAIL_ADDRESS", "zorro@mask.org")


def test_domains_spread_over_the_reserved_ones(cmap: ConsistencyMap) -> None:
    domains = {cmap.replace("EMAIL_ADDRESS", f"jane.gonzalez@mail{i}.com").rpartition("@")[2] for i in range(12)}
    assert domains == set(RESERVED_EMAIL_DOMAINS)


def test_other_types_take_the_pseudonymizer_s_stand_in(cmap: ConsistencyMap, pseudo: Pseudonymizer) -> None:
    for entity, value in (("IBAN_CODE", "DE89370400440532013000"), ("IP_ADDRESS", "81.2.69.142")):
        assert cmap.replace(entity, value) == pseudo.stand_in(entity, value)


def test_every_layout_of_a_number_is_one_of_our_stand_ins(cmap: ConsistencyMap) -> None:
    one, two = cmap.replace("PHONE_NUMBER", "(415) 555-0132"), cmap.replace("PHONE_NUMBER", "415.555.0132")
    assert one != two and {one, two} <= cmap.stand_ins
    assert re.fullmatch(r"\(\d{3}\) \d{3}-\d{4}", one) and re.fullmatch(r"\d{3}\.\d{3}\.\d{4}", two)


def test_stand_ins_are_what_was_handed_out(cmap: ConsistencyMap) -> None:
    assert " ".join(_full(cmap)) in cmap.stand_ins and "Jane Gonzalez" not in cmap.stand_ins


def test_a_profile_url_keeps_its_site_and_loses_the_person(cmap: ConsistencyMap) -> None:
    first, last = (part.lower() for part in _full(cmap))
    url = cmap.replace("URL", "https://www.linkedin.com/in/jane-gonzalez")
    assert url == f"https://www.linkedin.com/in/{first}-{last}"
    mailed = cmap.replace("URL", f"https://shop.example/unsubscribe?email={quote('jane.gonzalez@gmail.com', safe='')}")
    assert "gonzalez" not in mailed and mailed.startswith("https://shop.example/unsubscribe?email=")
    assert quote(cmap.replace("EMAIL_ADDRESS", "jane.gonzalez@gmail.com"), safe="") in mailed
    stranger = cmap.replace("URL", "https://x.com/@zorro_rides")
    assert stranger.startswith("https://x.com/@") and "zorro" not in stranger


def test_a_full_name_stand_in_is_never_a_real_person_s_name(pseudo: Pseudonymizer) -> None:
    taken = pseudo.stand_in("PERSON", "Jane Gonzalez")
    avoided = ConsistencyMap(pseudo, avoid=frozenset({pseudo.digest("PERSON", taken)})).replace("PERSON", "Jane Gonzalez")
    assert avoided != taken and len(avoided.split()) == 2
    registered = ConsistencyMap(pseudo)
    registered.register_people([taken, "Jane Gonzalez"])
    assert registered.replace("PERSON", "Jane Gonzalez") != taken


def test_two_people_sharing_a_surname_keep_it_in_their_full_names(scrubber) -> None:
    """'Johnson' is bound once; 'Fatima Johnson' then reads as her name fields do, not as a third name."""
    value = [{"name": {"first_name": "Daiki", "last_name": "Johnson"}}, {"name": {"first_name": "Fatima", "last_name": "Johnson"}},
             "Fatima Johnson wrote", "Daiki Johnson wrote"]
    (daiki, fatima, fatima_text, daiki_text), _ = scrubber.scrub_json(value)
    assert fatima_text == f"{fatima['name']['first_name']} {fatima['name']['last_name']} wrote"
    assert daiki_text == f"{daiki['name']['first_name']} {daiki['name']['last_name']} wrote"
    assert daiki["name"]["last_name"] == fatima["name"]["last_name"] != "Johnson"


def test_an_address_stand_in_never_carries_a_real_persons_name(scrubber) -> None:
    """Faker names streets after people: the stand-in of an address is never named after a person
    whose name the run replaced (they would read as a surviving original)."""
    import re

    surnames = ["Nguyen", "Johnson", "Smith", "Garcia", "Brown", "Miller", "Davis", "Wilson", "Moore", "Taylor", "Anderson",
                "Thomas", "Jackson", "White", "Harris", "Martin", "Thompson", "Young", "Allen", "King", "Wright", "Scott", "Hill"]
    people = [{"first_name": "Ava", "last_name": name} for name in surnames]
    streets = [{"address1": f"{n} Elm Street"} for n in range(100, 400)]
    (scrubbed_people, scrubbed_streets), _ = scrubber.scrub_json([people, streets])
    words = {w for s in scrubbed_streets for w in re.findall(r"[A-Z][a-z]+", s["address1"])}
    assert not words & set(surnames)


def test_a_full_name_stand_in_reuses_no_real_name_part(scrubber) -> None:
    """A stand-in keeping a real surname ('Patricia Martin' for 'Mei Martin') would hand it on to every
    Martin whose name follows: no stand-in part is a real name part met in the run."""
    # with the tests' secret, the first stand-ins of these two keep their own surname
    names = ["Sophia Martin", "Noah Brown", "Yusuf Martin", "Zoe Brown"]  # each the first of its surname to be bound
    scrubbed, _ = scrubber.scrub_json([{"full_name": name} for name in names])
    real = {part for name in names for part in name.split()}
    assert not real & {part for person in scrubbed for part in person["full_name"].split()}


def _handle_digits(cmap: ConsistencyMap, digits: str) -> str:
    first, last = (part.lower() for part in _full(cmap))
    handle = cmap.replace("USERNAME", f"jane_gonzalez{digits}")
    assert handle.startswith(f"{first}_{last}")
    return handle[len(f"{first}_{last}") :]


def test_a_handle_s_digits_keep_their_count_and_change(cmap: ConsistencyMap) -> None:
    originals = [str(n) for n in range(1, 10)] + [f"{n}" for n in range(10, 400, 7)] + [f"{n:04d}" for n in range(0, 300, 9)]
    kept_a_zero = 0
    for digits in originals:
        new = _handle_digits(cmap, digits)
        assert new.isdigit() and len(new) == len(digits) and new != digits, (digits, new)
        if digits[0] != "0":
            assert new[0] != "0", (digits, new)  # no leading zero the original did not have
        kept_a_zero += new[0] == "0"
        assert _handle_digits(cmap, digits) == new  # the same digits, the same stand-in
    assert kept_a_zero  # a zero-padded number may stay zero-padded


def test_a_handle_s_digits_are_the_same_on_every_run(pseudo: Pseudonymizer) -> None:
    """Stand-ins depend on the secret and the value only: a rerun (or another release) gives byte-identical output."""
    people = ConsistencyMap(pseudo)
    people.register_people(["Jane Gonzalez"])
    assert [_handle_digits(people, d) for d in ("88", "7", "1990", "0042")] == ["29", "1", "9091", "4634"]
    many = " ".join(_handle_digits(people, str(n)) for n in range(100, 700))  # some re-draw a leading zero
    assert hashlib.sha256(many.encode()).hexdigest() == "702062ce903f233640c41a30d00742209dfdab7d5d91fb06731d55daace19360"


@pytest.mark.parametrize("title", ["Dr.", "dr.", "Prof.", "Mx", "MX."])
def test_a_title_before_a_lone_name_stays_and_the_name_changes(pseudo: Pseudonymizer, title: str) -> None:
    people = ConsistencyMap(pseudo)
    alone = people.replace("PERSON", "Zorro")
    assert people.replace("PERSON", f"{title} Zorro") == f"{title} {alone}"
    fresh = ConsistencyMap(pseudo)._person(f"{title} Zorro")  # no lone 'Zorro' met before: a stand-in of its own
    assert re.fullmatch(rf"{re.escape(title)} [A-Z][a-z'-]+", fresh) and not fresh.endswith("Zorro")


def test_a_three_part_name_keeps_its_title_and_its_initial_handle(pseudo: Pseudonymizer) -> None:
    people = ConsistencyMap(pseudo)
    people.register_people(["Dr. Jane Maria Gonzalez"])
    title, first, middle, last = people.replace("PERSON", "Dr. Jane Maria Gonzalez").split()
    assert title == "Dr." and (first, middle, last) != ("Jane", "Maria", "Gonzalez")
    assert people._person("Dr. Jane Maria Gonzalez").split()[:2] == ["Dr.", first]
    assert people.replace("USERNAME", "jgonzalez") == f"{first[0]}{last}".lower()


def test_a_lone_unknown_name_is_the_same_on_every_run(pseudo: Pseudonymizer) -> None:
    assert [ConsistencyMap(pseudo).replace("PERSON", n) for n in ("Zorro", "Quimby", "Dr. Xavi")] == ["Isaura", "Maxi", "Dr. Middelkoop"]


def test_a_written_address_takes_its_parts_stand_ins(pseudo: Pseudonymizer) -> None:
    from scrubbers import addresses

    places = ConsistencyMap(pseudo)
    value = ", 763 Broadway, Philadelphia, PA 19122"
    stand_in = places.replace("ADDRESS", value)
    state = places.replace("STATE", "PA")
    town = places.replace("CITY", "Philadelphia")
    zip_code = places.replace("POSTCODE", "19122")
    assert stand_in.startswith(", ") and not stand_in.startswith(", , ")  # the text between the parts stays
    assert stand_in.endswith(f", {town}, {state} {zip_code}"), stand_in
    assert addresses.real_state_of_zip(zip_code) == state != "PA"  # the zip lies in the state's stand-in
    assert zip_code in addresses.zips_of(town, state)


def test_an_address_with_no_part_read_takes_the_pseudonymizer_s_stand_in(pseudo: Pseudonymizer) -> None:
    for value in (",", " , ", ", ,"):
        assert ConsistencyMap(pseudo).replace("STREET_ADDRESS", value) == pseudo.stand_in("STREET_ADDRESS", value)


def test_a_url_s_unknown_handle_takes_the_handle_stand_in(pseudo: Pseudonymizer) -> None:
    for site, slug in (("https://medium.com/@", "zorro"), ("https://medium.com/@", "Xavierq"), ("https://example.com/~", "zorro")):
        stand_in = ConsistencyMap(pseudo).replace("URL", f"{site}{slug}/home")
        assert stand_in == f"{site}{pseudo.stand_in('USERNAME', slug)}/home"


def test_an_email_in_a_url_takes_the_email_s_stand_in_in_every_encoding(pseudo: Pseudonymizer) -> None:
    for url, encode in (("https://x.com/u/zorro%40mask.org", lambda s: quote(s, safe="")), ("https://site.com/@zorro@mask.org", str)):
        places = ConsistencyMap(pseudo)
        stand_in = places.replace("URL", url)
        email = ConsistencyMap(pseudo).replace("EMAIL_ADDRESS", "zorro@mask.org")
        assert encode(email) in stand_in and "zorro" not in stand_in, stand_in


def test_a_military_address_stays_military_in_its_region(pseudo: Pseudonymizer) -> None:
    places = ConsistencyMap(pseudo)
    boxes = set()
    for region, zip_start in (("AA", "340"), ("AE", "09"), ("AP", "96")):
        stand_in = places.replace("ADDRESS", f"PSC 4296, Box 4371\nAPO {region} 03140")  # the same zip written in each
        match = re.fullmatch(rf"PSC (\d{{4}}), Box (\d{{4}})\nAPO {region} (\d{{5}})", stand_in)
        assert match and match.group(3).startswith(zip_start), stand_in
        boxes.add(match.group(1, 2))
    assert len(boxes) == 1 and "4296" not in boxes.pop()  # a number is the same stand-in in every region
    assert places.replace("ADDRESS", "PSC 4296, Box 4371\nAPO AA 03140") == "PSC 8562, Box 1425\nAPO AA 34054"  # pinned per secret


def test_a_ship_is_named_by_a_surname_stand_in(pseudo: Pseudonymizer) -> None:
    places = ConsistencyMap(pseudo)
    ship = places.replace("ADDRESS", "USNS Ujvary\nFPO AP 96678")
    assert ship.startswith(f"USNS {places.replace('PERSON', 'Ujvary')}\nFPO AP 96") and "Ujvary" not in ship


@pytest.mark.parametrize("original", ["K. Virtanen", "J Smith", "Anna M. Szabó"])
def test_an_initial_stays_an_initial_of_the_stand_in(pseudo: Pseudonymizer, original: str) -> None:
    """'K. Virtanen' becomes 'O. Musatti', not 'OTTOMAR Musatti': a one-letter part written in capitals is an
    initial, not a name in capitals; the stand-in's initial keeps the original's dot, and its surname initial key."""
    people = ConsistencyMap(pseudo)
    stand_in = people.replace("PERSON", original).split()
    for part, replaced in zip(original.split(), stand_in):
        if len(part.rstrip(".")) == 1:
            assert len(replaced.rstrip(".")) == 1 and replaced[0].isupper() and replaced[1:] == part[1:]
        else:
            assert replaced[0].isupper() and replaced[1:].islower() and replaced.lower() != part.lower()


def test_a_street_named_alone_takes_the_street_of_its_full_lines_stand_in(pseudo: Pseudonymizer) -> None:
    """'I live on Elm Avenue' and '571 Elm Avenue' are one street: the lone mention reads as the full line's street
    (sixth cold review: a prompt's street matched none of the seed's addresses). Other numbers on it stay on it."""
    people = ConsistencyMap(pseudo)
    full, alone, other = (people.replace("STREET_LINE", value) for value in ("571 Elm Avenue", "Elm Avenue", "12 elm avenue"))
    assert full.split(" ", 1)[1] == alone == other.split(" ", 1)[1].title() and full.split()[0].isdigit()
    assert people.replace("STREET_LINE", "571 Oak Street").split(" ", 1)[1] != alone


@pytest.mark.parametrize(("line", "street"), [
    ("571 Elm Avenue", "elm avenue"), ("Elm Avenue,", "elm avenue"), ("Puruntie 82", "puruntie"),
    ("Erzsébet tér 19.", "erzsébet tér"), ("571 12th Street", "12th street"), ("12th Street", "12th street"),
])
def test_a_street_lines_building_number_is_not_its_street(line: str, street: str) -> None:
    """Before the street or after it; a number in the street's own name ('12th Street') is the street's."""
    from scrubbers.addresses import street_name_key

    assert street_name_key(line) == street
