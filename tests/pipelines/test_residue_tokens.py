"""The residue check reads a raw value as a leak only where it stands as a token of its own."""

from pipelines.stages.residue import value_survives


def test_a_zip_inside_a_random_hex_id_is_no_leak_and_a_zip_of_its_own_is():
    hex_id = '{"span_id": "9f77004ab12c", "order": "#w9977004"}'
    assert not value_survives("LOCATION", "77004", hex_id, set())
    assert value_survives("LOCATION", "77004", '{"zip": "77004"}', set())
    assert value_survives("LOCATION", "77004", "houston tx, 77004.", set())


def test_a_name_inside_a_longer_word_is_no_leak_but_a_phone_in_any_grouping_is():
    assert not value_survives("PERSON", "Ann", "annabelle and joanna", set())
    assert value_survives("PERSON", "Anna Smith", "hi, i'm anna smith.", set())
    assert value_survives("PHONE_NUMBER", "202-555-0143", "call (202) 555 0143", {"2025550143"})


def test_a_name_that_is_a_common_word_survives_only_as_written():
    """The customer 'Brown' is not the colour 'brown' of a product's options (the scrubber and the leak gate read it so)."""
    written = '{"options": {"color": "brown"}}'
    assert not value_survives("PERSON", "Brown", written.casefold(), set(), written)
    assert value_survives("PERSON", "Brown", "thanks, mr brown", set(), "Thanks, Mr Brown")
    assert value_survives("PERSON", "Kovalev", "kovalev", set(), "kovalev")  # no English word: any case
    assert value_survives("PERSON", "Brown", written.casefold(), set())  # without the written text, casefolded as before
