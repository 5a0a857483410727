import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import LowerCaseNameRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("the leah holmberg version recorded", ["leah holmberg"]),
    ("will smith and grace period, the mark down", []),  # first names that are common words
])
def test_lower_case_name_recognizer(text: str, expected: list[str]) -> None:
    assert found(LowerCaseNameRecognizer(), text) == expected
