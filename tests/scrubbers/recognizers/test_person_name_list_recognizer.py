import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import PersonNameListRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("I moved to New York, Karen Moreno too", ["Karen Moreno"]),  # no surname after a common word
    ("ask Jennifer Hill about it", ["Jennifer Hill"]),
    ("The Water Bottle Company", []),
])
def test_person_name_list_recognizer(text: str, expected: list[str]) -> None:
    assert found(PersonNameListRecognizer(), text) == expected
