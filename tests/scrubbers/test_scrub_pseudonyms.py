import ipaddress
import re
from datetime import datetime
from pathlib import Path

import pytest

from scrubbers.pseudonyms import DOC_IPV4_NETWORKS, DOC_IPV6_NETWORK, RESERVED_EMAIL_DOMAINS, Pseudonymizer, load_secret
from scrubbers.shapes import digits_only, iban_valid, luhn_valid

SECRET = b"pseudonym-tests"


@pytest.fixture(scope="module")
def pseudo() -> Pseudonymizer:
    return Pseudonymizer(SECRET)


def layout(value: str) -> str:
    return re.sub(r"\d", "9", value)


@pytest.mark.parametrize("card", ["4111 1111 1111 1111", "5500-0000-0000-0004", "378282246310005", "3782 822463 10005"])
def test_card_stand_in_is_luhn_valid_with_the_same_grouping(pseudo: Pseudonymizer, card: str) -> None:
    stand_in = pseudo.stand_in("CREDIT_CARD", card)
    assert luhn_valid(stand_in)
    assert layout(stand_in) == layout(card)
    assert digits_only(stand_in) != digits_only(card)


@pytest.mark.parametrize("ip", ["81.2.69.142", "10.0.0.7", "2a02:8070:a28c::1", "fe80::1ff:fe23:4567:890a"])
def test_ip_stand_in_is_in_documentation_ranges(pseudo: Pseudonymizer, ip: str) -> None:
    stand_in = ipaddress.ip_address(pseudo.stand_in("IP_ADDRESS", ip))
    assert stand_in.version == ipaddress.ip_address(ip).version
    networks = DOC_IPV4_NETWORKS if stand_in.version == 4 else (DOC_IPV6_NETWORK,)
    assert any(stand_in in network for network in networks)


@pytest.mark.parametrize("email", ["jane.gonzalez@gmail.com", "BOB@CORP.IO", "x_y+z@mail.co.uk"])
def test_email_stand_in_uses_a_reserved_domain(pseudo: Pseudonymizer, email: str) -> None:
    local, _, domain = pseudo.stand_in("EMAIL_ADDRESS", email).partition("@")
    assert local and domain in RESERVED_EMAIL_DOMAINS


@pytest.mark.parametrize("phone", ["(415) 555-0132", "+44 20 7946 0958", "020 7946 0958", "+49 30 901820", "+91 98765 43210", "01 42 68 53 00"])
def test_phone_stand_in_keeps_layout_and_prefix(pseudo: Pseudonymizer, phone: str) -> None:
    stand_in = pseudo.stand_in("PHONE_NUMBER", phone)
    assert layout(stand_in) == layout(phone)
    assert digits_only(stand_in) != digits_only(phone)
    if phone.startswith("+"):
        assert stand_in[:3] == phone[:3]
    if phone.startswith("0"):
        assert stand_in.startswith("0")


def test_one_phone_in_two_formats_gets_the_same_national_digits(pseudo: Pseudonymizer) -> None:
    assert digits_only(pseudo.stand_in("PHONE_NUMBER", "+1 415-555-0132"))[1:] == digits_only(
        pseudo.stand_in("PHONE_NUMBER", "(415) 555-0132")
    )


@pytest.mark.parametrize("iban", ["GB82 WEST 1234 5698 7654 32", "DE89370400440532013000"])
def test_iban_stand_in_is_valid_same_country_same_layout(pseudo: Pseudonymizer, iban: str) -> None:
    stand_in = pseudo.stand_in("IBAN_CODE", iban)
    assert iban_valid(stand_in) and stand_in[:2] == iban[:2]
    assert [len(g) for g in stand_in.split()] == [len(g) for g in iban.split()]
    assert stand_in != iban


@pytest.mark.parametrize(("value", "fmt"), [("03/14/1985", "%m/%d/%Y"), ("1985-03-14", "%Y-%m-%d"), ("March 14, 1985", "%B %d, %Y"), ("14.03.1985", "%d.%m.%Y")])
def test_birth_date_stand_in_keeps_the_format(pseudo: Pseudonymizer, value: str, fmt: str) -> None:
    stand_in = pseudo.stand_in("DATE_OF_BIRTH", value)
    born = datetime.strptime(stand_in, fmt)
    assert 1940 <= born.year <= 2006 and stand_in != value


def test_person_stand_in_keeps_title_token_count_and_case(pseudo: Pseudonymizer) -> None:
    assert pseudo.stand_in("PERSON", "Ms. Gonzalez").startswith("Ms. ")
    assert len(pseudo.stand_in("PERSON", "Jane Q Gonzalez").split()) == 3
    lower = pseudo.stand_in("PERSON", "jane gonzalez")
    assert lower.islower() and len(lower.split()) == 2
    assert "<" not in pseudo.stand_in("PERSON", "Jane")


def test_ssn_stand_in_is_never_an_issued_number(pseudo: Pseudonymizer) -> None:
    stand_in = pseudo.stand_in("US_SSN", "078-05-1121")
    assert re.fullmatch(r"9\d\d-\d\d-\d{4}", stand_in)


def test_deterministic_normalized_and_secret_dependent() -> None:
    first, again, other = Pseudonymizer(SECRET), Pseudonymizer(SECRET), Pseudonymizer(b"another-secret")
    assert first.stand_in("PERSON", "Jane  Gonzalez") == again.stand_in("PERSON", "jane gonzalez".title())
    assert first.stand_in("CREDIT_CARD", "4111-1111-1111-1111") == first.stand_in("CREDIT_CARD", "4111 1111 1111 1111").replace(" ", "-")
    values = [("PERSON", "Jane Gonzalez"), ("EMAIL_ADDRESS", "jane@x.com"), ("PHONE_NUMBER", "(415) 555-0132")]
    assert [first.stand_in(*v) for v in values] != [other.stand_in(*v) for v in values]


def test_stand_ins_do_not_depend_on_call_order() -> None:
    one, two = Pseudonymizer(SECRET), Pseudonymizer(SECRET)
    one.stand_in("PERSON", "Somebody Else")
    assert one.stand_in("USERNAME", "jdoe_88") == two.stand_in("USERNAME", "jdoe_88")


def test_load_secret_from_env_file_or_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("T2T_TEST_SECRET", "from-env")
    assert load_secret("T2T_TEST_SECRET", None) == b"from-env"
    secret_file = tmp_path / "secret"
    secret_file.write_text("from-file\n")
    monkeypatch.delenv("T2T_TEST_SECRET")
    assert load_secret("T2T_TEST_SECRET", secret_file) == b"from-file"
    with pytest.raises(ValueError, match="no pseudonym secret") as error:
        load_secret("T2T_TEST_SECRET", tmp_path / "missing")
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError):
        Pseudonymizer(b"")
