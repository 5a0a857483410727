"""The leak gate alone: every way an original can survive, and every way it must not be called a leak."""

import json

import pytest

from scrubbers import check_leaks
from scrubbers.leakgate import MIN_DIGITS, StandIns


def _verdict(detector, originals, texts, stand_ins=()):
    """Every case also with the stand-ins read once (`StandIns`, as `scrub_sessions` passes them for a batch)."""
    verdict = check_leaks(originals, texts, frozenset(stand_ins), detector)
    assert check_leaks(originals, texts, StandIns.of(stand_ins), detector) == verdict
    return verdict


def test_a_surviving_name_is_a_person_leak(detector) -> None:
    """No pattern of the residual pass sees a name: only the originals check can fail this."""
    verdict = _verdict(detector, [("PERSON", "Jane Gonzalez")], ["Thanks, jane gonzalez, all done"])
    assert not verdict.passed and verdict.types == ["PERSON"]


def test_a_surviving_street_line_is_an_address_leak(detector) -> None:
    verdict = _verdict(detector, [("STREET_ADDRESS", "12 Puruntie 82")], ["ship to 12 Puruntie 82 please"])
    assert not verdict.passed and verdict.types == ["STREET_ADDRESS"]


def test_the_types_of_every_leak_are_listed_sorted_and_once(detector) -> None:
    originals = [("STREET_ADDRESS", "Kromwater 38"), ("PERSON", "Perić"), ("PERSON", "Alena"), ("USERNAME", "alena_peric")]
    verdict = _verdict(detector, originals, ["Perić at Kromwater 38", "Alena", "alena_peric"])
    assert verdict.types == ["PERSON", "STREET_ADDRESS", "USERNAME"]


def test_a_scrubbed_text_passes(detector) -> None:
    verdict = _verdict(detector, [("PERSON", "Jane Gonzalez"), ("STREET_ADDRESS", "12 Puruntie 82")], ["Thanks, Maria Lopez"])
    assert verdict.passed and verdict.types == []


def test_only_whole_words_survive(detector) -> None:
    assert _verdict(detector, [("PERSON", "Jane")], ["Janet wrote", "no: majane", "jane_doe"]).passed
    assert not _verdict(detector, [("PERSON", "Jane")], ["(Jane) wrote"]).passed
    assert not _verdict(detector, [("PERSON", "Jane")], ["wrote Jane"]).passed


def test_a_stop_word_name_survives_only_as_written(detector) -> None:
    """'Will' the person is not 'will' the verb; any other name survives in any case."""
    assert _verdict(detector, [("PERSON", "Will")], ["we will call back"]).passed
    assert not _verdict(detector, [("PERSON", "Will")], ["Will called back"]).passed
    assert not _verdict(detector, [("PERSON", "Kovalev")], ["KOVALEV called back"]).passed


def test_an_original_equal_to_a_stand_in_is_not_a_leak(detector) -> None:
    """A real 'Maria Lopez' next to our stand-in 'Maria Lopez' cannot be told apart, and is ours."""
    assert _verdict(detector, [("PERSON", "Maria Lopez")], ["Thanks, Maria Lopez"], {"maria lopez"}).passed
    assert not _verdict(detector, [("PERSON", "Maria Lopez")], ["Thanks, Maria Lopez"], {"Maria Lopezz"}).passed


def test_one_letter_originals_are_not_searched(detector) -> None:
    assert _verdict(detector, [("PERSON", "J"), ("PERSON", " K ")], ["J. K. wrote"]).passed
    assert not _verdict(detector, [("PERSON", "Jo")], ["Jo wrote"]).passed


def test_a_number_survives_in_any_layout(detector) -> None:
    originals = [("PHONE_NUMBER", "(415) 555-0132")]
    assert not _verdict(detector, originals, ["call 415.555.0132"]).passed
    assert not _verdict(detector, originals, ["digits 4155550132 only"]).passed
    assert _verdict(detector, originals, ["call 415 555 later, ref 0133"]).passed


def test_a_short_number_is_searched_as_text(detector) -> None:
    short = "55-01" + "3" * (MIN_DIGITS - 5)
    assert len([c for c in short if c.isdigit()]) == MIN_DIGITS - 1
    assert _verdict(detector, [("PHONE_NUMBER", short)], [short.replace("-", "")]).passed
    assert not _verdict(detector, [("PHONE_NUMBER", short)], [f"ext {short}"]).passed


def test_a_card_s_last_four_digits_in_an_amount_are_no_leak(detector) -> None:
    """A 'last_four' field is a card's part: replaced; its digits recur by chance in an amount, a year."""
    assert _verdict(detector, [("CREDIT_CARD", "1999")], ["paid $1999.00", "since 1999"]).passed
    assert not _verdict(detector, [("PHONE_NUMBER", "1999")], ["paid $1999.00"]).passed  # other short numbers are


def test_a_card_number_is_checked_by_digits(detector) -> None:
    originals = [("CREDIT_CARD", "4111 1111 1111 1111")]
    assert not _verdict(detector, originals, ["card 4111-1111-1111-1111"]).passed


def test_a_name_is_not_checked_by_its_digits(detector) -> None:
    assert _verdict(detector, [("USERNAME", "jdoe_1234567")], ["order 1234567"]).passed


def test_a_residual_finding_outside_our_stand_ins_is_a_leak(detector) -> None:
    verdict = _verdict(detector, [], ["write to jane.gonzalez@gmail.com"])
    assert not verdict.passed and verdict.types == ["EMAIL_ADDRESS"]
    assert _verdict(detector, [], ["write to jane.gonzalez@gmail.com"], {"Jane.Gonzalez@gmail.com"}).passed
    assert _verdict(detector, [], ["write to jane.gonzalez@gmail.com"], {"x", "Jane.Gonzalez@gmail.com via"}).passed


@pytest.mark.parametrize("texts", [[], [""]])
def test_nothing_to_check_passes(detector, texts) -> None:
    assert _verdict(detector, [("PERSON", "Jane")], texts).passed


def test_a_number_of_exactly_the_minimum_digits_is_checked_by_digits(detector) -> None:
    number = "555-0" + "1" * (MIN_DIGITS - 4)
    assert sum(c.isdigit() for c in number) == MIN_DIGITS
    assert not _verdict(detector, [("PHONE_NUMBER", number)], ["ref " + number.replace("-", " ")]).passed


def test_a_skipped_original_does_not_stop_the_others_being_checked(detector) -> None:
    verdict = _verdict(detector, [("PERSON", "J"), ("PERSON", "Jo"), ("PERSON", "Kovalev")], ["Kovalev wrote"], {"jo"})
    assert verdict.types == ["PERSON"]


def test_a_number_the_residual_pass_cannot_see_is_still_found_by_its_digits(detector) -> None:
    """Digits split by letters are no phone number to the residual pass; the originals check still sees them."""
    assert detector.residual_findings("ref a415b555c0132") == ()
    assert not _verdict(detector, [("PHONE_NUMBER", "(415) 555-0132")], ["ref a415b555c0132"]).passed


def test_a_town_survives_only_as_written(detector) -> None:
    """The scrubber finds a town field's value in sentences as written; 'reading' is not the town Reading."""
    assert _verdict(detector, [("CITY", "Reading")], ["I was reading the label"]).passed
    verdict = _verdict(detector, [("CITY", "Reading")], ["shipped to Reading today"])
    assert not verdict.passed and verdict.types == ["CITY"]


def test_a_state_left_in_a_sentence_does_not_quarantine_its_session(scrubber) -> None:
    """A state and a country are replaced in their address fields and as parts of an address; alone in a
    sentence ('OK', 'IN' are words) they are not searched for, by the scrubber or by its leak gate."""
    from ingest.models import Session

    session = Session.model_validate({
        "session_id": "s-1", "trace_ids": ["t-1"], "started_at": "2024-05-01T10:00:00Z",
        "turns": [{"role": "user", "source": "traces", "text": "ok, the parcel is OK, I moved here from Tulsa"}],
        "tool_calls": [{"name": "get_user_details", "arguments": {"user_id": "u-1"}, "result": json.dumps(
            {"address": {"address1": "12 Elm Street", "city": "Tulsa", "state": "OK", "zip": "74103"}})}],
    })
    (result,) = scrubber.scrub_sessions([(session, {})])
    assert result.report.leak_passed
    assert "Tulsa" not in json.dumps(result.session.model_dump(mode="json"))
    assert result.session.turns[0].text.startswith("ok, the parcel is OK, I moved here from ")


def test_a_name_that_is_a_common_word_survives_only_as_written(detector) -> None:
    """The customer 'Brown' is not the colour 'brown' of a product's options (the scrubber searches it as written too)."""
    assert _verdict(detector, [("PERSON", "Brown")], ["brown", "dark brown leather"]).passed
    assert not _verdict(detector, [("PERSON", "Brown")], ["Thanks, Brown"]).passed
    assert not _verdict(detector, [("PERSON", "Lucas Brown")], ["thanks, lucas brown"]).passed  # a whole name: any case
    assert not _verdict(detector, [("PERSON", "Kovalev")], ["kovalev"]).passed  # no English word: any case


@pytest.mark.parametrize("text", [
    "the card ending in 4417 was declined",
    "Charge my Visa. It's the one ending 4417.",
    "last 4: 4417",
    "**** **** **** 4417",
    "4417",  # a whole string: a 'last_four' field kept
])
def test_a_card_s_last_four_digits_written_as_such_leak(detector, text) -> None:
    """No residual pattern sees four digits: only the last-four check can fail these."""
    for original in ("4417", "4111 1111 1111 4417"):  # a last four alone, or a whole card's last four
        verdict = _verdict(detector, [("CREDIT_CARD", original)], [text])
        assert not verdict.passed and verdict.types == ["CREDIT_CARD"]


def test_a_stand_in_card_s_last_four_is_ours(detector) -> None:
    assert _verdict(detector, [("CREDIT_CARD", "4417")], ["the card ending in 4417"], {"4417"}).passed
    assert _verdict(detector, [("CREDIT_CARD", "5500 0000 0000 4417")], ["the card ending in 4417"], {"4111 1111 1111 4417"}).passed


def test_numbers_of_exactly_the_minimum_digits_are_found_by_their_digits_where_no_residual_pass_sees_them(detector) -> None:
    """At MIN_DIGITS a phone number, and a card number cut that short, are still searched digit by digit: split by
    letters, no residual pass sees them, only their digits tell."""
    phone, card = "555-0" + "1" * (MIN_DIGITS - 4), "4111 " + "1" * (MIN_DIGITS - 4)
    assert sum(c.isdigit() for c in phone) == sum(c.isdigit() for c in card) == MIN_DIGITS
    for entity_type, number in (("PHONE_NUMBER", phone), ("CREDIT_CARD", card)):
        split = "ref a" + "b".join(number.replace("-", " ").split())
        assert detector.residual_findings(split) == ()
        assert not _verdict(detector, [(entity_type, number)], [split]).passed, entity_type


def test_a_name_exactly_as_common_as_the_threshold_survives_only_as_written(detector) -> None:
    from wordfreq import zipf_frequency

    from scrubbers.recognizers.person import COMMON_WORD_ZIPF

    assert zipf_frequency("clerk", "en") == COMMON_WORD_ZIPF  # the boundary: a word this common is a common word
    assert _verdict(detector, [("PERSON", "Clerk")], ["Please ask the clerk at the desk."]).passed
    assert not _verdict(detector, [("PERSON", "Clerk")], ["Regards, Clerk"]).passed


def test_the_last_four_of_a_stand_in_card_or_last_four_is_ours_and_of_no_other_stand_in(detector) -> None:
    """A stand-in card of 12 digits (the shortest card numbers) or a stand-in last four makes 'ending in 4417' ours; a
    stand-in phone number ending in those digits does not: the real card's last four written so is a leak."""
    original, text = [("CREDIT_CARD", "5500 0000 0000 4417")], ["the card ending in 4417"]
    assert _verdict(detector, original, text, {"6759 6498 4417"}).passed
    assert _verdict(detector, original, text, {"4417"}).passed
    assert not _verdict(detector, original, text, {"555-4417"}).passed


def test_a_name_surviving_in_a_structural_field_is_a_leak(detector) -> None:
    """A field scrubbing leaves alone (an error's template, a tag) is searched for originals written as text: an
    error template mined from one message is that message, name and all."""
    verdict = check_leaks([("PERSON", "Ana Clara Jesus")], ["payment declined for Reni Nolcini <<EMAIL>>"],
                          frozenset(), detector, ["payment declined for Ana Clara Jesus <<EMAIL>>", "errored"])
    assert not verdict.passed and verdict.types == ["PERSON"]


def test_digits_in_structural_fields_are_no_leak(detector) -> None:
    """Timestamps and trace ids hold digit runs a phone or a card may share by chance: only content is searched for
    digit originals."""
    verdict = check_leaks([("PHONE_NUMBER", "(415) 555-0132"), ("PERSON", "Jane Gonzalez")], ["Thanks, Maria Lopez"],
                          frozenset(), detector, ["trace-4155550132ab", "2026-11-16T04:15:55.0132Z"])
    assert verdict.passed
