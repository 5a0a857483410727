import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import LowerCaseNameRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("the leah holmberg version recorded", ["leah holmberg"]),
    ("will smith and grace period, the mark down", []),  # first names that are common words
    ("i want to add julie novák as a beneficiary", ["julie novák"]),  # a common first name, a surname English does not use
    ("what's your name? mark pinto", ["mark pinto"]),  # a listed surname English rarely uses
    ("mark pending, grant access, bill payment, rose petals", []),  # common first names before English words
    ("the verses from ashley spencer's cautionary tales", ["ashley spencer"]),  # listed names that own something
    ("the rose garden's gate and the grace period's end", []),
])
def test_lower_case_name_recognizer(text: str, expected: list[str]) -> None:
    assert found(LowerCaseNameRecognizer(), text) == expected
