import copy
import json
import re
import socket
from datetime import datetime, timezone

import pytest

from ingest.models import ErrorSignal, EscalationSignal, Person, Provenance, Session, Signals, TicketSignal, ToolCall, Turn, canonical_json
from scrubbers import ScrubConfig, Scrubber, check_leaks
from scrubbers.pseudonyms import RESERVED_EMAIL_DOMAINS, Pseudonymizer

AT = datetime(2025, 3, 4, 10, 15, tzinfo=timezone.utc)
ORIGINALS = ["Jane Gonzalez", "Gonzalez", "jane.gonzalez@gmail.com", "415", "555-0132", "4111 1111 1111 1111", "1234 Maple Street", "jgonzalez"]


def make_session(session_id: str = "sess_7f3a9c21") -> Session:
    customer = {"customer": {"name": "Jane Gonzalez", "email": "jane.gonzalez@gmail.com", "phone": "+1 415-555-0132",
                             "address1": "1234 Maple Street"}, "orders": [{"id": "#W1234567", "total": "$12.34", "status": "delivered"}]}
    return Session(
        session_id=session_id,
        trace_ids=["trace-a1b2c3d4"],
        started_at=AT,
        turns=[
            Turn(role="user", source="tickets", at=AT,
                 text="Hi, this is Jane Gonzalez. Order #W1234567 ($12.34) was delivered to the wrong door. Call me at (415) 555-0132."),
            Turn(role="agent", source="traces", text="Thanks Jane, I found the account for jane.gonzalez@gmail.com."),
            Turn(role="human_agent", source="escalations", text="Ms. Gonzalez, I refunded $12.34 to the card 4111 1111 1111 1111."),
        ],
        tool_calls=[
            ToolCall(name="find_customer", call_id="call_1", arguments={"email": "jane.gonzalez@gmail.com"}, result=json.dumps(customer)),
            ToolCall(name="add_note", call_id="call_2", arguments={"note": "Spoke to jgonzalez about #W1234567"}, result={"ok": True}),
        ],
        entity_ids={"order": ["#W1234567"], "customer": ["jane.gonzalez@gmail.com"]},
        people=[Person(role="requester", external_id="zd-user-991", name="Jane Gonzalez", email="jane.gonzalez@gmail.com")],
        signals=Signals(
            tickets=[TicketSignal(id="ZD-4411", status="open", subject="Jane Gonzalez: parcel at the wrong door")],
            errors=[ErrorSignal(message="lookup failed for jane.gonzalez@gmail.com")],
            escalations=[EscalationSignal(id="esc-9", reason="Customer Jane Gonzalez asked for a human")],
        ),
    )


def make_state() -> dict:
    return {
        "customer": {
            "jane.gonzalez@gmail.com": {"full_name": "Jane Gonzalez", "phone": "(415) 555-0132", "tier": "gold",
                                        "notes": "prefers Jane, call after 5"},
        },
        "order": {"#W1234567": {"status": "delivered", "total": "$12.34", "ship_to": "1234 Maple Street, Springfield, IL 62704"}},
    }


PII_FIELDS = {"customer": {"full_name": "PERSON", "phone": "PHONE_NUMBER"}, "order": {"ship_to": "STREET_ADDRESS"}}


@pytest.fixture(scope="module")
def result(scrubber: Scrubber):
    (scrubbed,) = scrubber.scrub_sessions([(make_session(), make_state())], PII_FIELDS)
    return scrubbed


def dump(result) -> str:
    return canonical_json({"session": result.session.model_dump(mode="json"), "state": result.state})


def test_no_original_survives_anywhere(result) -> None:
    output = dump(result).lower()
    for original in ORIGINALS:
        assert original.lower() not in output
    assert "4155550132" not in "".join(c for c in output if c.isdigit())
    assert result.report.leak_passed and result.report.leak_types == []


def test_one_person_one_stand_in_everywhere(result) -> None:
    stand_in = result.session.people[0].name
    first, last = stand_in.split()
    tool = json.loads(result.session.tool_calls[0].result)
    assert tool["customer"]["name"] == stand_in
    assert result.session.turns[0].text.startswith(f"Hi, this is {stand_in}.")
    assert result.session.turns[1].text.startswith(f"Thanks {first},")
    assert result.session.turns[2].text.startswith(f"Ms. {last},")
    assert result.session.signals.tickets[0].subject.startswith(stand_in)
    assert stand_in in result.session.signals.escalations[0].reason
    (row,) = result.state["customer"].values()
    assert row["full_name"] == stand_in and row["notes"].startswith(f"prefers {first},")


def test_email_built_from_the_stand_in_name_and_used_everywhere(result) -> None:
    first, last = result.session.people[0].name.lower().split()
    email = result.session.people[0].email
    local, _, domain = email.partition("@")
    assert local == f"{first}.{last}" and domain in RESERVED_EMAIL_DOMAINS
    assert result.session.tool_calls[0].arguments["email"] == email
    assert email in result.session.turns[1].text
    assert result.session.entity_ids["customer"] == [email]
    assert list(result.state["customer"]) == [email]
    assert f"{first[0]}{last}" in result.session.tool_calls[1].arguments["note"]


def test_phone_consistent_across_formats(result) -> None:
    tool = json.loads(result.session.tool_calls[0].result)
    (row,) = result.state["customer"].values()
    digits = lambda s: "".join(c for c in s if c.isdigit())  # noqa: E731
    assert digits(tool["customer"]["phone"])[1:] == digits(row["phone"])
    assert row["phone"] in result.session.turns[0].text


def test_identifiers_amounts_statuses_and_ids_survive(result) -> None:
    session = result.session
    assert session.session_id == "sess_7f3a9c21" and session.trace_ids == ["trace-a1b2c3d4"]
    assert "#W1234567 ($12.34) was delivered" in session.turns[0].text
    assert session.tool_calls[0].name == "find_customer" and session.signals.tickets[0].id == "ZD-4411"
    assert session.people[0].external_id == "zd-user-991"
    assert result.state["order"]["#W1234567"]["status"] == "delivered"
    assert json.loads(session.tool_calls[0].result)["orders"] == [{"id": "#W1234567", "total": "$12.34", "status": "delivered"}]


def test_json_inside_strings_keeps_its_formatting_style(result) -> None:
    text = result.session.tool_calls[0].result
    assert text == json.dumps(json.loads(text))


def test_report_counts_types_never_values(result) -> None:
    report = result.report.model_dump_json()
    assert result.report.counts["PERSON"] >= 6 and result.report.counts["EMAIL_ADDRESS"] >= 4
    for original in ORIGINALS:
        assert original.lower() not in report.lower()


def test_input_is_not_mutated(scrubber: Scrubber) -> None:
    session, state = make_session(), make_state()
    before = (session.model_dump_json(), copy.deepcopy(state))
    scrubber.scrub_sessions([(session, state)], PII_FIELDS)
    assert (session.model_dump_json(), state) == before


def test_same_secret_byte_identical_other_secret_different(scrubber: Scrubber, config: ScrubConfig, secret: bytes) -> None:
    items = [(make_session(), make_state()), (make_session("sess_other01"), {})]
    first = [dump(r) for r in scrubber.scrub_sessions(items, PII_FIELDS)]
    again = [dump(r) for r in Scrubber(config, secret).scrub_sessions(items, PII_FIELDS)]
    other = [dump(r) for r in Scrubber(config, b"a-different-secret").scrub_sessions(items, PII_FIELDS)]
    assert first == again
    assert first[0] != other[0]


def test_a_customer_in_two_sessions_gets_the_same_stand_in(scrubber: Scrubber) -> None:
    one, two = scrubber.scrub_sessions([(make_session(), {}), (make_session("sess_other01"), {})])
    assert one.session.people[0].name == two.session.people[0].name


def test_scrub_text_and_json(scrubber: Scrubber) -> None:
    text, counts = scrubber.scrub_text("Jane Gonzalez (jane.gonzalez@gmail.com) paid $40.00 for #W7654321.")
    assert "Gonzalez" not in text and "gmail" not in text and "$40.00 for #W7654321." in text
    assert counts == {"EMAIL_ADDRESS": 1, "PERSON": 1}
    value = {"customer": {"email": "bob@corp.io"}, "log": '[{"msg": "called Bob Tanaka at +44 20 7946 0958"}]', "n": 3}
    scrubbed, counts = scrubber.scrub_json(value)
    assert scrubbed["n"] == 3 and scrubbed["customer"]["email"].endswith(RESERVED_EMAIL_DOMAINS)
    inner = json.loads(scrubbed["log"])
    assert "Tanaka" not in inner[0]["msg"] and "7946 0958" not in inner[0]["msg"]
    assert counts["PHONE_NUMBER"] == 1 and value["customer"]["email"] == "bob@corp.io"


def test_collect_texts_are_the_free_texts(scrubber: Scrubber) -> None:
    texts = scrubber.collect_texts(make_session(), make_state(), PII_FIELDS)
    assert make_session().turns[0].text in texts
    assert "Jane Gonzalez" not in texts  # field-rule values are replaced whole, not analyzed
    assert "sess_7f3a9c21" not in texts and "find_customer" not in texts
    assert len(texts) == len(set(texts))


def test_leak_gate_catches_a_disabled_recognizer(config: ScrubConfig, secret: bytes) -> None:
    blind = Scrubber(config.model_copy(update={"entities": tuple(e for e in config.entities if e != "IBAN_CODE")}), secret)
    session = Session(session_id="sess_iban0001", turns=[Turn(role="user", source="tickets", text="Refund to GB82 WEST 1234 5698 7654 32 please")])
    (result,) = blind.scrub_sessions([(session, {})])
    assert not result.report.leak_passed and result.report.leak_types == ["IBAN_CODE"]
    assert "GB82" not in result.report.model_dump_json()


def test_leak_gate_flags_surviving_originals_by_type(detector) -> None:
    verdict = check_leaks([("PHONE_NUMBER", "(415) 555-0132"), ("PERSON", "Jane Gonzalez")],
                          ["call 415.555.0132 now", "Maria Lopez is fine"], frozenset({"Maria Lopez"}), detector)
    assert not verdict.passed and verdict.types == ["PHONE_NUMBER"]
    ours = check_leaks([], ["write to maria.lopez@example.com"], frozenset({"maria.lopez@example.com"}), detector)
    assert ours.passed


def test_whole_scrub_runs_with_sockets_blocked(monkeypatch: pytest.MonkeyPatch, config: ScrubConfig, secret: bytes) -> None:
    def refuse(*args, **kwargs):
        raise OSError("network access attempted during scrub")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    fresh = Scrubber(config.model_copy(update={"batch_size": 7}), secret)  # a new engine, built offline
    (result,) = fresh.scrub_sessions([(make_session(), make_state())], PII_FIELDS)
    assert result.report.leak_passed and "gmail" not in dump(result)


def test_leak_gate_examines_content_not_structure(scrubber: Scrubber) -> None:
    """Provenance paths, external ids and trace ids are structure: digit runs there are not phones or cards."""
    session = Session(
        session_id="sess_structure1",
        trace_ids=["2125550143"],
        turns=[Turn(role="user", source="tickets", text="Where is order #W1234567?")],
        provenance=[
            Provenance(source="traces", file="traces/2026-11-17.jsonl", position=2125550143, external_id="4111111111111111", sha256="ab" * 32),
            Provenance(source="tickets", file="exports/batch 020 7946 0958.json", position=1, external_id="212 555 0143", sha256="cd" * 32),
        ],
    )
    (result,) = scrubber.scrub_sessions([(session, {})])
    assert result.report.leak_passed, result.report.leak_types
    assert result.session.provenance == session.provenance and result.session.trace_ids == ["2125550143"]


@pytest.mark.parametrize(
    ("text", "entity_type"),
    [
        ("mail jane.gonzalez@gmail.com", "EMAIL_ADDRESS"),
        ("card 4111 1111 1111 1111", "CREDIT_CARD"),
        ("iban GB82 WEST 1234 5698 7654 32", "IBAN_CODE"),
        ("ssn 078-05-1120", "US_SSN"),
        ("itin 912-70-1234", "US_SSN"),  # a 9xx number the IRS issues: a taxpayer's
        ("from 81.2.69.142", "IP_ADDRESS"),
        ("from 2a02:8070:a28c::1", "IP_ADDRESS"),
        ("call +44 20 7946 0958", "PHONE_NUMBER"),
        ("call (415) 555-0132", "PHONE_NUMBER"),
    ],
)
def test_residual_pass_catches_each_leak_type_without_ner(detector, text: str, entity_type: str) -> None:
    assert [f.entity_type for f in detector.residual_findings(text)] == [entity_type]
    assert not check_leaks([], [text], frozenset(), detector).passed


@pytest.mark.parametrize("text", ["order #W1234567 for $1,234.56", "at 2026-11-17T10:46:20Z", "ssn 900-12-3456 is not issued", "card 4111 1111 1111 1112", "v1.2.3 at 10:46:20", "id msg_8d787596220a"])
def test_residual_pass_ignores_identifiers_and_invalid_numbers(detector, text: str) -> None:
    assert detector.residual_findings(text) == ()


PRODUCTS = ["Cotton Hoodie Unisex", "Down Sleeping Bag -5C", "Wireless Noise-Cancelling Earbuds", "Trail Runner 3 Men's Running Shoes"]


def test_state_values_outside_pii_columns_are_not_replaced_in_texts(scrubber: Scrubber) -> None:
    """NER tags title-case product names as PERSON; the session's own non-PII state values say otherwise."""
    state = {
        "customer": {"cus_1": {"name": "Jane Gonzalez", "notes": "Call Maria Lopez, her sister, after 5."}},
        "order_item": {f"oi_{i}": {"name": product, "status": "shipped"} for i, product in enumerate(PRODUCTS)},
    }
    texts = [f"I need the {product} before the weekend" for product in PRODUCTS] + ["cotton hoodie unisex, still nothing. Jane"]
    session = Session(session_id="sess_products1", turns=[Turn(role="user", source="tickets", text=t) for t in texts])
    (result,) = scrubber.scrub_sessions([(session, state)], {"customer": {"name": "PERSON"}})
    assert [t.text for t in result.session.turns[:-1]] == texts[:-1]
    assert result.session.turns[-1].text.startswith("cotton hoodie unisex, still nothing. ") and "Jane" not in result.session.turns[-1].text
    assert sorted(row["name"] for row in result.state["order_item"].values()) == sorted(PRODUCTS)
    notes = result.state["customer"]["cus_1"]["notes"]
    assert "Maria" not in notes and "Lopez" not in notes  # prose is not a label: names in it are still replaced
    assert result.report.leak_passed


def test_a_label_holding_a_personal_value_protects_nothing(scrubber: Scrubber) -> None:
    state = {"customer": {"cus_1": {"name": "Grace Murphy", "display": "Grace Murphy Store", "nickname": "Grace Murphy"}}}
    session = Session(session_id="sess_products2", turns=[Turn(role="user", source="tickets", text="Hello, Grace Murphy here about my order")])
    (result,) = scrubber.scrub_sessions([(session, state)], {"customer": {"name": "PERSON"}})
    assert "Grace" not in result.session.turns[0].text and "Murphy" not in result.state["customer"]["cus_1"]["nickname"]


def test_handle_with_an_apostrophe_name_is_rebuilt_from_the_stand_in(scrubber: Scrubber) -> None:
    state = {"customer": {"cus_90": {"name": "Tracey O'Neill", "email": "o'neill.tracey91@hotmail.co.uk"}}}
    session = Session(session_id="sess_apostrophe1", turns=[Turn(role="user", source="tickets", text="My email is o'neill.tracey91@hotmail.co.uk. thx, tracey")])
    (result,) = scrubber.scrub_sessions([(session, state)], {"customer": {"name": "PERSON", "email": "EMAIL_ADDRESS"}})
    assert "neill" not in dump(result).lower() and result.report.leak_passed


def test_an_address_field_in_a_tool_result_is_replaced_whatever_its_country():
    from scrubbers import ScrubConfig, Scrubber

    scrubbed, counts = Scrubber(ScrubConfig(), b"k").scrub_json(
        {"result": {"address": "132 avenue Laroche, 04278 Saint Franck", "email_address": "a.b@gmail.com"}}
    )
    assert "Laroche" not in scrubbed["result"]["address"] and counts["ADDRESS"] == 1
    assert scrubbed["result"]["email_address"].endswith(("example.com", "example.net", "example.org"))


def _requester(session_id: str, name: str) -> tuple[Session, dict]:
    turn = Turn(role="user", source="tickets", text=f"Hello, this is {name}, where is my parcel?")
    return Session(session_id=session_id, turns=[turn], people=[Person(role="requester", name=name)]), {}


def test_no_stand_in_is_the_name_of_another_real_person_in_the_batch(scrubber: Scrubber, secret: bytes) -> None:
    """A Faker stand-in drawn from the pool real names come from could read as another customer."""
    taken = Pseudonymizer(secret).stand_in("PERSON", "Simon Allen")  # the stand-in Simon would get alone
    sessions = [_requester("sess_simon", "Simon Allen"), _requester("sess_other", taken)]
    simon, other = scrubber.scrub_sessions(sessions)
    simon_stand_in = simon.session.people[0].name
    assert simon_stand_in != taken and "Simon" not in dump(simon) and taken not in dump(other)
    assert simon.report.leak_passed and other.report.leak_passed
    (alone,) = scrubber.scrub_sessions(sessions[:1])
    assert alone.session.people[0].name == taken  # without the other customer there is nothing to avoid


def test_stand_ins_avoid_real_people_of_the_state_database_outside_the_batch(scrubber: Scrubber, secret: bytes) -> None:
    taken = Pseudonymizer(secret).stand_in("PERSON", "Simon Allen")
    first, last = taken.split()
    rows = [("customer", {"first": first, "last": last, "email": "x@y.com"}), ("customer", {"first": "Ann", "last": "Lee"})]
    real_people = scrubber.real_people(rows, {"customer": {"first": "PERSON", "last": "PERSON"}})
    assert len(real_people) == 2  # one full name per row: its first and last name columns together
    (result,) = scrubber.scrub_sessions([_requester("sess_simon", "Simon Allen")], real_people=real_people)
    stand_in = result.session.people[0].name
    assert stand_in != taken and len(stand_in.split()) == 2 and "Simon" not in dump(result)
    (again,) = scrubber.scrub_sessions([_requester("sess_simon", "Simon Allen")], real_people=real_people)
    assert again.session.people[0].name == stand_in  # still deterministic


def test_a_common_word_taken_for_a_name_is_replaced_only_where_it_was_found(scrubber) -> None:
    """'Who Cares' taken for a name after 'Dear' is not searched for in the other texts ('Who', 'Cares');
    a name that could only be a name ('Kovalev') is."""
    texts = ["Customer Kovalev wrote in", "Who cares? Ask Kovalev.", "Dear Who Cares, thanks"]
    first, second, third = scrubber.find_spans(texts)
    assert [texts[2][f.start : f.end] for f in third] == ["Who Cares"]
    assert [texts[1][f.start : f.end] for f in second] == ["Kovalev"]


def _tau_session(text: str, result: dict) -> Session:
    return Session(
        session_id="tau-7", trace_ids=["trace-tau7"], started_at=AT,
        turns=[Turn(role="user", source="traces", at=AT, text=text)],
        tool_calls=[ToolCall(name="get_order_details", call_id="call_1", arguments={"order_id": "#W2611340"}, result=json.dumps(result))],
        entity_ids={"order": ["#W2611340"], "customer": ["fatima_taylor_3452"]},
    )


TAU_ORDER = {"order_id": "#W2611340", "user_id": "fatima_taylor_3452", "status": "delivered",
             "items": [{"item_id": "6777246137", "name": "Water Bottle"}, {"item_id": "4947717507", "name": "Grill"}]}
TAU_STATE = {
    "customer": {"fatima_taylor_3452": {"name": {"first_name": "Fatima", "last_name": "Taylor"}, "email": "fatima.taylor@example.com"}},
    "order": {"#W2611340": TAU_ORDER},
}
TAU_PII = {"customer": {"name.first_name": "PERSON", "name.last_name": "PERSON", "email": "EMAIL_ADDRESS"}}


def test_state_identifiers_are_never_taken_for_phone_numbers(config, secret) -> None:
    """tau-bench's ten-digit item ids are valid phone numbers to `phonenumbers`: without the state's
    identifiers the leak gate holds the session back; with them, the ids stay and the gate passes."""
    text = "I want to return item 6777246137 and 4947717507 of order #W2611340."
    session = _tau_session(text, TAU_ORDER)
    (blind,) = Scrubber(config, secret).scrub_sessions([(session, TAU_STATE)], TAU_PII)
    assert not blind.report.leak_passed and blind.report.leak_types == ["PHONE_NUMBER"]
    (aware,) = Scrubber(config, secret, frozenset({"6777246137", "4947717507", "#W2611340"})).scrub_sessions(
        [(session, TAU_STATE)], TAU_PII
    )
    assert aware.report.leak_passed and aware.session.turns[0].text == text
    assert json.loads(aware.session.tool_calls[0].result)["items"] == TAU_ORDER["items"]


def test_a_user_id_built_from_a_name_gets_a_stand_in_of_the_same_shape_everywhere(config, secret) -> None:
    session = _tau_session("you are fatima_taylor_3452, and Fatima moved", TAU_ORDER)
    scrubber = Scrubber(config, secret, frozenset({"6777246137", "4947717507", "#W2611340"}))
    (scrubbed,) = scrubber.scrub_sessions([(session, TAU_STATE)], TAU_PII)
    (user_id,) = scrubbed.state["customer"]
    first, last = (scrubbed.state["customer"][user_id]["name"][k] for k in ("first_name", "last_name"))
    assert re.fullmatch(rf"{first.lower()}_{last.lower()}_\d{{4}}", user_id) and not user_id.endswith("3452")
    assert scrubbed.session.entity_ids["customer"] == [user_id]
    assert scrubbed.session.turns[0].text == f"you are {user_id}, and {first} moved"
    assert json.loads(scrubbed.session.tool_calls[0].result)["user_id"] == user_id
    assert scrubbed.state["order"]["#W2611340"]["user_id"] == user_id
    assert scrubbed.report.leak_passed


def test_fields_named_as_ids_are_identifiers_and_a_name_built_one_is_replaced_in_its_shape(scrubber) -> None:
    """A ten-digit product id is a valid phone number and NER calls 'call_0000' a person: under a key
    named as an id ('product_id', 'item_ids', 'tool_call_id', 'id') neither is read as free text,
    while a user id built from a name is replaced, by one of the same shape."""
    value = {"id": "call_0000", "tool_call_id": "call_0000", "product_id": "8310926033", "item_ids": ["6469567736", "8426249116"],
             "user_id": "mei_kovacs_8020", "note": "mei_kovacs_8020 asked"}
    scrubbed, _ = scrubber.scrub_json(value)
    assert {k: scrubbed[k] for k in ("id", "tool_call_id", "product_id", "item_ids")} == {
        k: value[k] for k in ("id", "tool_call_id", "product_id", "item_ids")}
    assert re.fullmatch(r"[a-z]+_[a-z]+_\d{4}", scrubbed["user_id"]) and "kovacs" not in scrubbed["user_id"]
    assert not scrubbed["user_id"].endswith("8020")  # its digits are the person's too
    assert scrubbed["note"] == f"{scrubbed['user_id']} asked"


def test_a_name_built_id_alone_binds_the_name_it_carries(scrubber) -> None:
    """With no name field to build it from, the id's stand-in comes from a stand-in person, who is then
    the same person where the name is written out."""
    (scrubbed,), _ = scrubber.scrub_json([{"user_id": "fatima_johnson_7581"}])
    first, last, number = scrubbed["user_id"].split("_")
    assert len(number) == 4 and number != "7581" and "fatima" not in scrubbed["user_id"] and "johnson" not in scrubbed["user_id"]
    (scrubbed, text), _ = scrubber.scrub_json([{"user_id": "fatima_johnson_7581"}, "Fatima wrote again"])
    assert text == f"{scrubbed['user_id'].split('_')[0].capitalize()} wrote again"


def test_goods_described_in_json_keep_their_names_and_options_everywhere(scrubber) -> None:
    """spaCy calls 'Garden Hose' and 'Vacuum Cleaner' people in an agent's summary; an object with a
    price or product id describes goods: its names and options are not personal, in the JSON and in
    the sentences that mention them."""
    product = {"name": "Garden Hose", "product_id": "6679515468", "price": 92.53, "options": {"length": "50ft", "color": "green"}}
    order = {"order_id": "#W2890441", "items": [{"name": "Vacuum Cleaner", "item_id": "1345513440", "options": {"type": "robotic"}},
                                                {"name": "Jigsaw Puzzle", "item_id": "9237024510", "options": {"pieces": "500"}}]}
    value = [json.dumps(product), json.dumps(order), "Garden Hose",
             "It holds: Jigsaw Puzzle (pieces 500, theme animals) at $52.49; Garden Hose (length 50ft, color green) at $96.35.",
             "It holds: Vacuum Cleaner (type robotic, bagged/bagless bagless, features pet hair removal) at $652.61."]
    scrubbed, _ = scrubber.scrub_json(value)
    assert scrubbed == value
    (line,), _ = scrubber.scrub_json([{**product, "gift_note": "a gift for Kovalev"}])  # the object's other strings are read
    assert "Kovalev" not in line["gift_note"] and line["name"] == "Garden Hose"


def test_ids_named_in_the_texts_own_json_stay_in_its_sentences(scrubber) -> None:
    """An id under a field named as an id is an identifier wherever the same text repeats it, even where
    nothing in the sentence says so."""
    value = [json.dumps({"item_id": "6469567736", "fulfillments": [{"tracking_id": ["3579625010"]}]}),
             "Water Bottle (6469567736) shipped with 3579625010."]
    scrubbed, _ = scrubber.scrub_json(value)
    assert scrubbed == value
    alone, _ = scrubber.scrub_json(value[1:])
    assert alone != value[1:]  # the same sentence without the JSON: two valid US phone numbers


def test_a_field_rule_holds_for_each_item_of_a_list(scrubber) -> None:
    scrubbed, _ = scrubber.scrub_json({"phone": [4155550132, "415 555 0199"]})
    assert isinstance(scrubbed["phone"][0], int) and scrubbed["phone"][0] != 4155550132 and scrubbed["phone"][1] != "415 555 0199"


def test_a_surname_that_is_a_common_word_is_matched_as_written(scrubber) -> None:
    """'Brown' known from a name field replaces 'Brown', not the colour 'brown'."""
    value = {"first_name": "Noah", "last_name": "Brown", "note": "Brown wants the jacket in brown, size M"}
    scrubbed, _ = scrubber.scrub_json(value)
    assert scrubbed["note"] == f"{scrubbed['last_name']} wants the jacket in brown, size M" and scrubbed["last_name"] != "Brown"


def test_a_detected_word_no_name_list_knows_is_not_searched_for_elsewhere(scrubber) -> None:
    """'Cleaner' taken for a name after 'Dear' is uncommon enough to pass `name_like`, but neither a name
    list nor its rarity vouches for it: 'the cleaner' elsewhere stays."""
    texts = ["Dear Cleaner, thanks", "the cleaner broke again"]
    first, second = scrubber.find_spans(texts)
    assert [texts[0][f.start : f.end] for f in first] == ["Cleaner"] and second == []


def test_a_town_field_is_left_as_it_is(scrubber) -> None:
    """Alone, 'Austin' is a person to NER and 'New York' to the name lists: a town field is not read."""
    value = {"address": {"city": "Austin"}, "city": "Austin", "capacity": "750ml", "note": "I moved to New York"}
    scrubbed, _ = scrubber.scrub_json(value)
    assert scrubbed == value


def test_a_card_s_last_four_digits_get_one_stand_in_everywhere(scrubber) -> None:
    """tau-bench's payment methods carry a card's last four digits: replaced, in the JSON of a tool result, under
    another spelling of the field, and in the sentences of the same text, by the same four digits; the
    payment method's id, the keys and the value types stay as they were."""
    card = {"source": "credit_card", "brand": "mastercard", "last_four": "9212", "id": "credit_card_7815826"}
    value = [json.dumps({"payment_methods": {"credit_card_7815826": card}}), {"last4": 9212},
             "Please use my card ending in 9212, not the one for $92.12."]
    scrubbed, counts = scrubber.scrub_json(value)
    result = json.loads(scrubbed[0])["payment_methods"]["credit_card_7815826"]
    stand_in = result["last_four"]
    assert re.fullmatch(r"\d{4}", stand_in) and stand_in != "9212"
    assert result == {**card, "last_four": stand_in}
    assert scrubbed[1] == {"last4": int(stand_in)}
    assert scrubbed[2] == f"Please use my card ending in {stand_in}, not the one for $92.12."
    assert counts == {"CREDIT_CARD": 3}
    assert scrubber.scrub_json(value)[0] == scrubbed


def test_a_card_s_last_four_digits_in_an_amount_do_not_quarantine_a_session(scrubber) -> None:
    """Four digits recur by chance where no rule replaces them (an amount is protected): not a leak."""
    session = Session.model_validate({
        "session_id": "s-1", "trace_ids": ["t-1"], "started_at": "2024-05-01T10:00:00Z",
        "turns": [{"role": "user", "source": "traces", "text": "I paid $1999.00 with the card ending in 1999"}],
        "tool_calls": [{"name": "get_user_details", "arguments": {"user_id": "u-1"}, "result": json.dumps(
            {"payment_methods": [{"source": "credit_card", "last_four": "1999"}]})}],
    })
    (result,) = scrubber.scrub_sessions([(session, {})])
    assert result.report.leak_passed and result.report.counts["CREDIT_CARD"] == 2
    text = result.session.turns[0].text
    assert text.startswith("I paid $1999.00 with the card ending in ") and not text.endswith("1999")


def test_a_card_s_last_four_digits_away_from_the_card_word_are_replaced_and_pass_the_gate(scrubber) -> None:
    """Cold review: 'ending 4417' a sentence after 'my visa', and 'last4 4417', survived; the leak gate, which
    now fails a real last four written as one, passes what the scrubber wrote (its stand-ins)."""
    texts = ["Charge my visa. It's the one ending 4417.", "last4 4417 please"]
    session = Session.model_validate({
        "session_id": "s-2", "trace_ids": ["t-2"], "started_at": "2024-05-01T10:00:00Z",
        "turns": [{"role": "user", "source": "traces", "text": text} for text in texts],
    })
    (result,) = scrubber.scrub_sessions([(session, {})])
    assert result.report.leak_passed and result.report.counts["CREDIT_CARD"] == 2
    assert all("4417" not in turn.text for turn in result.session.turns)
    assert not check_leaks([("CREDIT_CARD", "4417")], texts, frozenset(), scrubber.detector).passed


def test_a_card_s_last_four_digits_written_in_a_sentence_get_one_stand_in(scrubber) -> None:
    """Without a field: 'ending in' after a card word says four digits are a card's (`CardLastFourRecognizer`)."""
    value = ["Please use my card ending in 9212, not the one ending in 4410.", "The card ending in 9212 works.",
             "the meeting ending in 2024 was long"]
    (first, second, meeting), counts = scrubber.scrub_json(value)
    stand_in = re.search(r"card ending in (\d{4}),", first).group(1)
    assert stand_in != "9212" and second == f"The card ending in {stand_in} works." and "4410" not in first
    assert meeting == value[2] and counts == {"CREDIT_CARD": 3}


def test_a_known_card_s_last_four_digits_are_its_stand_in_s(scrubber) -> None:
    """Where the full number is known too (a state's card_number, a card written out), its last four written alone
    are the last four of its stand-in: the seed's card and the 'card ending in' of its sessions still agree."""
    value = [{"card_number": "4111 1111 1111 1111", "card_last4": "1111"}, "the card ending in 1111 was declined",
             "pay with 5500-0000-0000-0004 or the card ending in 0004"]
    (row, text, written), _ = scrubber.scrub_json(value)
    end = row["card_number"][-4:]
    assert row["card_last4"] == end != "1111" and text == f"the card ending in {end} was declined"
    card = re.search(r"\d{4}-\d{4}-\d{4}-\d{4}", written).group()
    assert card != "5500-0000-0000-0004" and written.endswith(f"card ending in {card[-4:]}")


def test_an_error_template_mined_from_one_message_is_scrubbed_like_the_message(scrubber: Scrubber) -> None:
    """drain3 keeps every token of a message no other message varies: a one-message cluster's template is the
    message itself, personal values and all. It is scrubbed as text, with the message's own stand-ins."""
    message = "payment declined for Ana Clara Jesus after 3 attempts"
    session = Session(session_id="s-template", started_at=AT,
                      turns=[Turn(role="user", source="traces", at=AT, text="my payment failed twice today")],
                      signals=Signals(errors=[ErrorSignal(message=message, template=message.replace("3", "<NUM>"))]))
    (scrubbed,) = scrubber.scrub_sessions([(session, {})])
    (error,) = scrubbed.session.signals.errors
    assert "Ana Clara Jesus" not in error.template and "Ana Clara Jesus" not in error.message
    assert error.template == error.message.replace("3", "<NUM>")
    assert scrubbed.report.leak_passed
