import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.birth import DateOfBirthRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("I was born on 03/14/1985.", ["03/14/1985"]),
    ("DOB: March 14, 1985", ["March 14, 1985"]),
    ("date of birth is 1985-03-14", ["1985-03-14"]),
    ("my birthday is on 14th of March, 1985", ["14th of March, 1985"]),
    ("Delivery expected 03/14/2025.", []),
    ("ordered on March 14, 1985 and born later", []),
])
def test_date_of_birth_recognizer(text: str, expected: list[str]) -> None:
    assert found(DateOfBirthRecognizer(), text) == expected


def test_a_text_without_a_birth_cue_is_not_analyzed() -> None:
    assert DateOfBirthRecognizer().cues.search("DOB: March 14, 1985")
    assert not DateOfBirthRecognizer().cues.search("Delivery expected 03/14/2025.")
