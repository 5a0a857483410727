"""A postal address is replaced as one unit: street, unit, town, state, zip and country each through its own
keyed stand-in, so the same real address reads the same, and coherent, in JSON fields and in sentences."""

import json
import re

import pytest
from faker.providers.address.en_US import Provider as UsAddress

from scrubbers import addresses
from scrubbers.consistency import ConsistencyMap
from scrubbers.engine import Detector
from scrubbers.pseudonyms import Pseudonymizer
from scrubbers.recognizers.person import NAME_LISTS

WRITTEN = "763 Broadway, Suite 135, Philadelphia, PA 19122, USA"


@pytest.fixture
def cmap() -> ConsistencyMap:
    return ConsistencyMap(Pseudonymizer(b"address-tests-secret"))


def test_a_written_address_splits_into_its_parts() -> None:
    found = [(p.kind, WRITTEN[p.start : p.end]) for p in addresses.parts(WRITTEN)]
    assert found == [("STREET_LINE", "763 Broadway"), ("ADDRESS_UNIT", "Suite 135"), ("CITY", "Philadelphia"),
                     ("STATE", "PA"), ("POSTCODE", "19122"), ("COUNTRY", "USA")]
    found = [(p.kind, "Puruntie 82, 00100 Helsinki"[p.start : p.end]) for p in addresses.parts("Puruntie 82, 00100 Helsinki")]
    assert found == [("STREET_LINE", "Puruntie 82"), ("POSTCODE", "00100"), ("CITY", "Helsinki")]
    inline = "12 Elm Street Apt 4, Boston"
    assert [(p.kind, inline[p.start : p.end]) for p in addresses.parts(inline)] == [
        ("STREET_LINE", "12 Elm Street"), ("ADDRESS_UNIT", "Apt 4"), ("CITY", "Boston")]


def test_a_written_address_gets_the_stand_ins_of_its_fields(cmap: ConsistencyMap) -> None:
    cmap.register_addresses([{"STATE": "PA", "POSTCODE": "19122"}])
    fields = [cmap.replace(kind, value) for kind, value in (
        ("STREET_ADDRESS", "763 Broadway"), ("STREET_ADDRESS", "Suite 135"), ("CITY", "Philadelphia"), ("STATE", "PA"),
        ("POSTCODE", "19122"), ("COUNTRY", "USA"))]
    assert cmap.replace("STREET_ADDRESS", WRITTEN) == "{}, {}, {}, {} {}, {}".format(*fields)
    street, unit, town, state, zip_code, country = fields
    assert "Broadway" not in street and unit.startswith("Suite ") and unit != "Suite 135"
    assert any(town in addresses.towns_of(code) for code in addresses.STATE_TOWNS)
    assert state in UsAddress.states_abbr and state != "PA" and country == "USA"
    low, high = UsAddress.states_postcode[state]
    assert low <= int(zip_code) <= high  # the stand-in zip lies in the stand-in state
    assert cmap.replace("ADDRESS_UNIT", "suite #135") == "suite #" + unit.split()[-1]  # one unit, any layout


def test_a_zip_alone_follows_the_state_it_was_registered_with(cmap: ConsistencyMap) -> None:
    """A zip written alone ('in 19122') gets the stand-in it has in its address, where the state is known."""
    cmap.register_addresses([{"STATE": "CO", "POSTCODE": "19122"}])  # tau-bench's zips do not always match their state
    state = cmap.replace("STATE", "CO")
    low, high = UsAddress.states_postcode[state]
    assert low <= int(cmap.replace("POSTCODE", "19122")) <= high


def test_stand_in_towns_and_streets_carry_no_one_s_name() -> None:
    """Faker's own towns and streets are built from names ('Lake Jennifer', 'James Expressway')."""
    words = [w.lower() for place in (*addresses.TOWNS, *addresses.STREET_NAMES) for w in place.replace("-", " ").split()]
    assert len(addresses.TOWNS) > 50 and not set(words) & NAME_LISTS


def test_the_town_region_postcode_and_country_after_a_street_line_are_part_of_the_address(detector: Detector) -> None:
    text = "The address on file is 763 Broadway, Suite 135, Philadelphia, PA 19122, USA. Anything else?"
    (findings,) = detector.analyze_batch([text])
    assert [(text[f.start : f.end], f.entity_type) for f in findings] == [(WRITTEN, "STREET_ADDRESS")]
    text = "I live at 12 Elm Street, Boston. Thanks, Mary"
    (findings,) = detector.analyze_batch([text])
    assert ("12 Elm Street, Boston", "STREET_ADDRESS") in [(text[f.start : f.end], f.entity_type) for f in findings]


def test_json_address_fields_and_prose_get_one_coherent_stand_in_address(scrubber) -> None:
    """tau-bench's layout: the address object of a tool result, the zip of a look-up's arguments, the zip and
    the address in sentences; a 'state' or 'city' outside an address object is no part of one."""
    address = {"address1": "763 Broadway", "address2": "Suite 135", "city": "Philadelphia", "country": "USA", "state": "PA",
               "zip": "19122"}
    value = [
        "You are Yusuf Rossi in 19122.",
        {"arguments": json.dumps({"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"})},
        {"content": json.dumps({"user_id": "yusuf_rossi_9620", "address": address})},
        f"The address on file is {WRITTEN}.",
        {"state": "pending", "city": "Philadelphia"},
    ]
    (said, call, result, prose, other), _ = scrubber.scrub_json(value)
    new = json.loads(result["content"])["address"]
    assert all(new[k] != address[k] for k in ("address1", "address2", "city", "state", "zip")) and new["country"] == "USA"
    assert said.endswith(f" in {new['zip']}.") and json.loads(call["arguments"])["zip"] == new["zip"]
    assert prose == (f"The address on file is {new['address1']}, {new['address2']}, {new['city']}, {new['state']} {new['zip']}, "
                     f"{new['country']}.")
    low, high = UsAddress.states_postcode[new["state"]]
    assert low <= int(new["zip"]) <= high
    assert other == {"state": "pending", "city": "Philadelphia"}


def test_a_zip_after_a_town_is_a_postcode(detector: Detector) -> None:
    text = "You're Maria King, living in Jacksonville 32278. Ship order 12345678 in 2 days."
    (findings,) = detector.analyze_batch([text])
    assert ("32278", "STREET_ADDRESS") in [(text[f.start : f.end], f.entity_type) for f in findings]
    assert not any(text[f.start : f.end] in ("12345678", "2") for f in findings)


def test_a_postcode_alone_and_a_town_with_its_state_are_parts(cmap: ConsistencyMap) -> None:
    assert [p.kind for p in addresses.parts("19122")] == ["POSTCODE"]
    assert [p.kind for p in addresses.parts("Collinwood DC")] == ["CITY", "STATE"]
    assert cmap.replace("STREET_ADDRESS", "19122").isdigit()  # a zip stays a zip, not a street line


def test_a_state_s_code_and_name_are_one_state(cmap: ConsistencyMap) -> None:
    code = cmap.replace("STATE", "TX")
    assert cmap.replace("STATE", "Texas") == addresses.STATE_NAMES[code] and cmap.replace("STATE", "tx") == code.lower()


def test_a_town_state_and_zip_without_a_street_are_an_address(detector: Detector, scrubber) -> None:
    text = "You are Seth Harris from Pekin, CA, 20022. You live in Texas."
    (findings,) = detector.analyze_batch([text])
    assert ("Pekin, CA, 20022", "STREET_ADDRESS") in [(text[f.start : f.end], f.entity_type) for f in findings]
    (said, result), _ = scrubber.scrub_json([text, {"address": {"address1": "1 Elm Street", "state": "TX", "zip": "75001"}}])
    state = result["address"]["state"]
    assert said.endswith(f"You live in {addresses.STATE_NAMES[state]}.") and "Pekin" not in said and "CA, 20022" not in said


@pytest.mark.parametrize(("text", "street", "kept"), [
    ("She lives on Andreassen Street with her dog.", "Andreassen Street", "She lives on "),
    ("He lives off Puruntie near the station.", "Puruntie", "He lives off "),
    ("Meet me at Kongens gate tomorrow.", "Kongens gate", "Meet me at "),
])
def test_a_street_named_without_a_house_number_is_replaced_without_one(scrubber, text: str, street: str, kept: str) -> None:
    """A street named without its house number after a place word was left as it was; its stand-in has no number either."""
    (scrubbed,), _ = scrubber.scrub_json([text])
    assert street not in scrubbed and scrubbed.startswith(kept), scrubbed
    assert re.match(re.escape(kept) + r"[A-Z][a-z]+(?: [A-Z][a-z]+)* (?:" + "|".join(addresses.STREET_SUFFIXES) + r")\b", scrubbed)


def test_words_that_end_like_a_street_type_after_a_place_word_are_no_street(scrubber) -> None:
    texts = ["Turn left at the road and walk in Spring along the way.", "I live in Norway and walk on Hattie's farm."]
    assert scrubber.scrub_json(texts)[0][0] == texts[0]
    assert scrubber.scrub_json(texts)[0][1].startswith("I live in Norway and walk on ")


def test_the_town_after_a_street_line_and_in_goes_with_it(scrubber) -> None:
    """'… street in Keflavíkurflugvöllur': the street was replaced, its real town kept."""
    text = "The parcel went to 12 Ástráðsson street in Keflavíkurflugvöllur last week."
    found = [(p.kind, "12 Ástráðsson street in Keflavíkurflugvöllur"[p.start : p.end])
             for p in addresses.parts("12 Ástráðsson street in Keflavíkurflugvöllur")]
    assert found == [("STREET_LINE", "12 Ástráðsson street"), ("CITY", "Keflavíkurflugvöllur")]
    assert [p.kind for p in addresses.parts("Via in Arcione 12")] == ["STREET_LINE"]  # 'in' inside a street's name
    (scrubbed, month), _ = scrubber.scrub_json([text, "It is at 4 Oak Road in March."])
    assert "Keflavíkurflugvöllur" not in scrubbed and "Ástráðsson" not in scrubbed
    assert re.fullmatch(r"The parcel went to \d{2} [A-Z][a-z]+ [A-Z][a-z]+ in [A-Z][\w ]+ last week\.", scrubbed), scrubbed
    assert month.endswith(" in March.")


@pytest.mark.parametrize(("text", "street", "town"), [
    ("Our flat is at Széchenyi rakpart 14 in Győr.", "Széchenyi rakpart 14", "Győr"),
    ("The parcel went to Petőfi tér 8. in Vác last week.", "Petőfi tér 8", "Vác"),
    ("Address: Kongens gate 5, Oslo.", "Kongens gate 5", "Oslo"),
    ("It refers to Kossuth utca 12. street in Debrecen.", "Kossuth utca 12", "Debrecen"),
])
def test_a_street_written_before_its_number_goes_with_its_town(scrubber, text: str, street: str, town: str) -> None:
    """A foreign street line with its number after the street's name was left as it was, with its town."""
    (scrubbed,), _ = scrubber.scrub_json([text])
    assert street not in scrubbed and town not in scrubbed, scrubbed
    assert scrubbed.endswith((".", " last week.")), scrubbed  # the sentence keeps its full stop


@pytest.mark.parametrize(("text", "heading"), [
    ("Adobe Digital Government\n\nMille and Truhlářská 996", "Adobe Digital Government\n\n"),
    ("Acme Analytics\n\nTruhlářská 996", "Acme Analytics\n\n"),
])
def test_a_street_line_under_a_company_gets_a_street_stand_in(scrubber, text: str, heading: str) -> None:
    """'Mille and Truhlářská 996' became 'Celia and Svenja 996': its street's name a person's, its house number kept."""
    (scrubbed,), _ = scrubber.scrub_json([text])
    suffixes = "|".join(addresses.STREET_SUFFIXES)
    assert re.fullmatch(re.escape(heading) + rf"[1-9]\d\d [A-Z][a-z]+(?: [A-Z][a-z]+)* (?:{suffixes})", scrubbed), scrubbed
    assert "996" not in scrubbed


def test_a_number_s_dot_at_a_sentence_end_stays(scrubber) -> None:
    (scrubbed,), _ = scrubber.scrub_json(["Address is Kirchweg 22."])
    assert re.fullmatch(r"Address is \d{2} [A-Z][a-z]+(?: [A-Z][a-z]+)* [A-Z][a-z]+\.", scrubbed), scrubbed


ILLINOIS = ("Peoria", "Rockford", "Naperville", "Evanston", "Joliet", "Aurora", "Elgin", "Decatur")


def test_distinct_real_towns_get_distinct_stand_ins_in_their_stand_in_state(scrubber) -> None:
    """Cold review: two towns in one text read as one stand-in town. Eight towns of one state are more than
    its well-known stand-ins (three or four): drawn from all its towns with a zip, here each gets one of its own,
    in the stand-in state (rarely two share one: no stand-in looks at the others', see the next tests)."""
    text = "Offices: " + "; ".join(f"{i + 1} Elm Street, {town}, IL 6160{i}" for i, town in enumerate(ILLINOIS)) + "."
    (scrubbed,), _ = scrubber.scrub_json([text])
    lines = [line.split(", ") for line in scrubbed.removeprefix("Offices: ").removesuffix(".").split("; ")]
    towns, states = [town for _, town, _ in lines], {state_zip.split()[0] for _, _, state_zip in lines}
    assert len(set(towns)) == len(ILLINOIS) and not set(towns) & set(ILLINOIS), towns
    (state,) = states
    assert all(town in (*addresses.STATE_TOWNS[state], *addresses.other_towns(state)) for town in towns)


def test_town_stand_ins_do_not_depend_on_the_order_the_towns_are_met() -> None:
    """Deterministic under the secret: which real town keeps which stand-in is decided by the keyed digests,
    not by the record a town was met in first."""
    records = [{"CITY": town, "STATE": "IL", "POSTCODE": f"6160{i}"} for i, town in enumerate(ILLINOIS)]

    def stand_ins(ordered: list[dict[str, str]], secret: bytes = b"address-tests-secret") -> dict[str, str]:
        cmap = ConsistencyMap(Pseudonymizer(secret))
        cmap.register_addresses(ordered)
        return {record["CITY"]: cmap.replace("CITY", record["CITY"]) for record in ordered}

    assert stand_ins(records) == stand_ins(records[::-1]) and len(set(stand_ins(records).values())) == len(ILLINOIS)
    assert stand_ins(records) != stand_ins(records, b"another-secret")


def test_a_stand_in_zip_is_one_of_its_stand_in_town_s(cmap: ConsistencyMap, scrubber) -> None:
    """Cold review: the stand-in zip lay in the stand-in state's range, not in the stand-in town. A zip written
    with its town (in JSON fields or in a sentence) is now a real zip of the town's stand-in."""
    cmap.register_addresses([{"CITY": "Malden", "STATE": "MA", "POSTCODE": "02148"}])
    town, state, zip_code = cmap.replace("CITY", "Malden"), cmap.replace("STATE", "MA"), cmap.replace("POSTCODE", "02148")
    assert zip_code in addresses.zips_of(town, state) and addresses.real_state_of_zip(zip_code) == state
    assert addresses.real_state_of_zip("74103") == "OK"  # a real zip's own state: Faker's ranges stop at 73199 there
    (said,), _ = scrubber.scrub_json(["Ship it to 8 Oak Street, Tulsa, OK 74103 please."])
    _, town, state_zip = said.removeprefix("Ship it to ").removesuffix(" please.").split(", ")
    state, zip_code = state_zip.split()
    assert zip_code in addresses.zips_of(town, state), said
    (said,), _ = scrubber.scrub_json(["Puruntie 82, 00100 Helsinki"])  # no state: the town's own state
    _, zip_town = said.split(", ")
    zip_code, town = zip_town.split(" ", 1)
    assert zip_code in addresses.zips_of(town, addresses.real_state_of_zip(zip_code)), said


def test_a_town_s_and_a_zip_s_stand_ins_do_not_depend_on_what_else_the_batch_holds() -> None:
    """The incident path scrubs a few sessions, the nightly run the whole day: one town and one zip get one stand-in
    in both. Stand-ins chosen apart from the other towns' (distinct while any was left) differed between the two,
    so an approved task changed with nothing of its own changed (tests/faults/test_decisions_survive.py)."""
    def stand_ins(records: list[dict[str, str]]) -> tuple[str, str]:
        cmap = ConsistencyMap(Pseudonymizer(b"address-tests-secret"))
        cmap.register_addresses(records)
        return cmap.replace("CITY", "Peoria"), cmap.replace("POSTCODE", "61602")

    alone = stand_ins([{"CITY": "Peoria", "STATE": "IL", "POSTCODE": "61602"}])
    day = [{"CITY": town, "STATE": "IL", "POSTCODE": f"6200{i}"} for i, town in enumerate(ILLINOIS)]
    day += [{"CITY": "Peoria", "STATE": "IL", "POSTCODE": f"616{i:02d}"} for i in range(2, 14)]
    assert stand_ins(day) == alone == stand_ins(day[::-1])


def test_a_country_written_with_the_postcode_is_no_town() -> None:
    """presidio-research's layout 'Uganda 62851' closing an address (cold review 7, items 6 and 7): the country
    was taken for the town and got a US town's name, so the stand-in address named two towns."""
    written = "53 Σκαφίδια 148\n Apt. 795\n ΠΑΡΕΚΚΛΗΣΙΑ\n Uganda 62851"
    assert [(p.kind, written[p.start : p.end]) for p in addresses.parts(written)][-3:] == [
        ("CITY", "ΠΑΡΕΚΚΛΗΣΙΑ"), ("COUNTRY", "Uganda"), ("POSTCODE", "62851")]


def test_a_known_town_s_short_form_gets_the_town_s_stand_in(scrubber) -> None:
    """tau-bench's 'change your LA order to your NYC address' (cold review 7, item 15): the towns were replaced in
    the tool results and left readable in the sentence, which then contradicted its data."""
    los_angeles = {"address1": "909 Spruce Street", "city": "Los Angeles", "country": "USA", "state": "CA", "zip": "91148"}
    new_york = {"address1": "476 Maple Drive", "city": "New York", "country": "USA", "state": "NY", "zip": "10093"}
    value = ["You want to change your LA order to your NYC address.", {"content": json.dumps({"address": los_angeles})},
             {"content": json.dumps({"address": new_york})}, "A LAMP, la la."]
    (said, first, second, other), _ = scrubber.scrub_json(value)
    towns = [json.loads(result["content"])["address"]["city"] for result in (first, second)]
    assert said == f"You want to change your {towns[0]} order to your {towns[1]} address." and other == "A LAMP, la la."
    assert addresses.short_forms("new york") == ("NYC", "N.Y.C.")
    assert not set(addresses.TOWN_SHORT_FORMS) & set(addresses.TOWNS)  # no short form is a town of its own


@pytest.mark.parametrize(("text", "layout"), [
    ("Please return to PSC 4296, Box 4371\nAPO AA 03140 in case of an issue.",
     r"Please return to PSC (\d{4}), Box (\d{4})\nAPO AA (340\d\d) in case of an issue\."),
    ("Ship it to Unit 4818 Box 0262\nDPO AE 65303", r"Ship it to Unit (\d{4}) Box (\d{4})\nDPO AE (09\d\d\d)"),
    ("It's in USNS Ujváry\nFPO AP 24796", r"It's in USNS ([A-Z][a-z]+)\nFPO AP (96[2-6]\d\d)"),
    ("the billing address with usnv sandberg\nfpo aa 18532 for this card", r"the billing address with usnv ([a-z]+)\nfpo aa (340\d\d) for this card"),
])
def test_a_military_address_gets_a_military_stand_in(scrubber, text: str, layout: str) -> None:
    """'PSC 4296, Box 4371\nAPO AA 03140' became '4654 Lakeview Street, Oakland 1738\nNEWPORT RI 02809': two towns, a
    zip of neither. Its format stays, its numbers are replaced, its zip is one of its region's, its ship is a surname's."""
    (scrubbed,), _ = scrubber.scrub_json([text])
    match = re.fullmatch(layout, scrubbed)
    assert match, scrubbed
    originals = re.findall(r"\d{4,5}|Ujváry|sandberg", text)
    assert not set(match.groups()) & set(originals), scrubbed


def test_a_military_address_s_parts() -> None:
    value = "PSC 4296, Box 4371\nAPO AA 03140"
    assert [(p.kind, value[p.start : p.end]) for p in addresses.military_parts(value)] == [
        ("MILITARY_NUMBER", "4296"), ("MILITARY_NUMBER", "4371"), ("MILITARY_ZIP", "03140")]
    assert addresses.military_parts("763 Broadway, Suite 135") is None
    assert addresses.military_parts("Unit 5, Main Street") is None
    assert addresses.military_parts("USNS Ujváry") is None  # a ship's name alone is no address



class _Index:
    """A stand-in for the keyed rng whose `choice` takes the item at a given index (every index can be tried)."""

    def __init__(self, index: int) -> None:
        self.index = index

    def choice(self, seq):
        return seq[self.index]


@pytest.mark.parametrize("in_state", [None, "TX", "OR", "not a state"])
@pytest.mark.parametrize("town", ["Springfield", " portland ", "Houston", "Nowhere At All"])
def test_a_stand_in_town_is_the_draw_of_its_keyed_rng_over_every_other_town(town: str, in_state: str | None) -> None:
    """A stand-in town is `rng.choice` over the pool of towns (the stand-in state's, or every state's) without
    the original's name: the same draw as ever, so a task approved before keeps its stand-ins, and never the
    original town (every index next to the original's places is tried)."""
    states = [in_state] if in_state in addresses.STATE_TOWNS else sorted(addresses.STATE_TOWNS)
    every = [(t, s) for s in states for t in addresses.towns_of(s)]
    pool = [(t, s) for t, s in every if t.lower() != town.strip().lower()]
    skipped = [i for i, (t, _) in enumerate(every) if t.lower() == town.strip().lower()]
    indices = {0, len(pool) - 1, *range(0, len(pool), 97)} | {i + d for i in skipped for d in range(-3, 3) if 0 <= i + d < len(pool)}
    for index in sorted(indices):
        assert addresses.town(_Index(index), town, in_state) == pool[index]
