import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import PersonGazetteerRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Why is Alena so sad? Perić's song. Rose sang", ["Alena", "Perić"]),  # 'Rose' is a common word
    ("the Casa de la Alena lamp, alena", []),  # after a particle; lower case
])
def test_person_gazetteer_recognizer(text: str, expected: list[str]) -> None:
    recognizer = PersonGazetteerRecognizer(first_names=frozenset({"alena", "rose"}), last_names=frozenset({"perić"}))
    assert found(recognizer, text) == expected


def test_the_gazetteer_reads_faker_s_name_lists_by_default() -> None:
    assert found(PersonGazetteerRecognizer(), "Why is Alena so impulsive?") == ["Alena"]
