"""Cold review of scrubbing on text we did not write: spans that were too long, too short, or not personal."""

from __future__ import annotations

from scrubbers.engine import Detector


def _found(detector: Detector, text: str) -> list[tuple[str, str]]:
    (findings,) = detector.analyze_batch([text])
    return [(f.entity_type, text[f.start : f.end]) for f in findings]


def test_two_people_joined_by_to_are_two_people(detector: Detector, scrubber) -> None:
    """'said Mai to Jerry' was one three-word person ('Mai to Jerry'), its stand-in a three-word name."""
    text = '"Let\'s go," said Mai to Jerry.'
    assert _found(detector, text) == [("PERSON", "Mai"), ("PERSON", "Jerry")]
    (said,), _ = scrubber.scrub_json([text])
    assert said.startswith('"Let\'s go," said ') and " to " in said and said.endswith(".") and "Mai" not in said


def test_a_street_s_full_stop_stays(detector: Detector, scrubber) -> None:
    """'12 Kirkland Street. Nice.' became '88 Twelfth Place Nice.': the sentence's full stop went with the street."""
    text = "She lives at 12 Kirkland Street. Nice."
    assert _found(detector, text) == [("STREET_ADDRESS", "12 Kirkland Street")]
    (said,), _ = scrubber.scrub_json([text])
    assert said.endswith(". Nice.") and "Kirkland" not in said


def test_title_case_goods_counted_are_no_street(detector: Detector) -> None:
    """'2 Large Pizzas 3' (product words in title case between numbers) was taken for a street line."""
    assert _found(detector, "We ordered 2 Large Pizzas 3 days ago.") == []
    assert _found(detector, "Send it to Puruntie 82 please.") == [("STREET_ADDRESS", "Puruntie 82")]


def test_a_hyphenated_street_and_a_range_of_numbers_are_one_street_line(detector: Detector, scrubber) -> None:
    """'Ka-Ping Street 5-7' lost only '5': '7 Valley Boulevard-7' kept a piece of the real house number."""
    text = "The office is at Ka-Ping Street 5-7, Berlin."
    assert ("STREET_ADDRESS", "Ka-Ping Street 5-7, Berlin") in _found(detector, text)
    (said,), _ = scrubber.scrub_json([text])
    assert "Ka-Ping" not in said and "-7" not in said and said.endswith(".")


def test_a_street_named_by_via_is_no_person(detector: Detector) -> None:
    """'on Via Appia' was a person 'Appia' (its stand-in 'on Via Federigo'); 'via' in lower case stays English."""
    assert _found(detector, "We met on Via Appia last summer.") == [("STREET_ADDRESS", "Via Appia")]
    assert not [f for f in _found(detector, "I sent it on via the courier.") if f[0] == "STREET_ADDRESS"]


def test_a_name_before_a_unit_word_stays_the_person_s(detector: Detector) -> None:
    """The development half's 'Mrs. Brittany Voronov Apt. 338 …' was one street line from 'Voronov' on: the
    person was lost to the longer street."""
    text = "Mrs. Brittany Voronov Apt. 338 32 216 Menzies Street\nRotokauri nan 88775"
    found = _found(detector, text)
    assert found[0] == ("PERSON", "Mrs. Brittany Voronov")
    assert found[1][0] == "STREET_ADDRESS" and found[1][1].startswith("Apt. 338")
