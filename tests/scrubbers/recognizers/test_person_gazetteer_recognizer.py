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


@pytest.mark.parametrize(("text", "expected"), [
    ("My order never arrived. Regards, J. Vũ", ["Vũ"]),  # Vietnamese
    ("The parcel was signed for by Ngozi, not by me", ["Ngozi"]),  # Igbo
    ("Please ask Takahashi at the front desk", ["Takahashi"]),  # Japanese, romanized
    ("It went to Mr. Xiong instead", ["Xiong"]),  # Chinese, romanized
])
def test_the_gazetteer_reads_every_latin_script_locale_and_the_romanized_lists(text: str, expected: list[str]) -> None:
    """Names from outside Europe and the Americas: Faker's Latin-script locales and its romanized lists."""
    assert found(PersonGazetteerRecognizer(), text) == expected
