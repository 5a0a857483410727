"""The phone evaluation on `phonenumbers`' example numbers: every region and layout, and a miss counted as one."""

import phonenumbers

from scrubbers import phone_examples


def test_every_region_is_written_in_every_layout_and_sentence() -> None:
    items = list(phone_examples.examples())
    assert {i.region for i in items} == set(phonenumbers.SUPPORTED_REGIONS)
    assert {(i.layout, i.sentence) for i in items} == {(f, s) for f in phone_examples.FORMATS for s in phone_examples.SENTENCES}
    swiss = [i for i in items if i.region == "CH" and i.number_type == "mobile"]
    values = {i.layout: i.text[i.start : i.end] for i in swiss}
    assert values["E.164"] == "+41781234567" and values["international ext."] == "+41 78 123 45 67 ext. 1234"
    assert values["national x"] == "078 123 45 67 x1234"


def test_a_number_is_caught_only_when_every_digit_and_its_extension_are_covered() -> None:
    items = [i for i in phone_examples.examples(["CH"]) if i.layout == "national x" and i.number_type == "mobile"]
    whole = [[(i.start, i.end)] for i in items]
    without_extension = [[(i.start, i.end - len(" x1234"))] for i in items]
    too_wide = [[(0, len(i.text))] for i in items]
    assert phone_examples.score(items, whole).recall() == 1.0 and phone_examples.score(items, whole).kept == 1.0
    result = phone_examples.score(items, without_extension)
    assert result.recall() == 0.0 and result.missed_regions == {("national x", s): ("CH",) for s in phone_examples.SENTENCES}
    assert phone_examples.score(items, too_wide).kept == 0.0
