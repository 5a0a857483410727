import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.iban import LowerCaseIbanRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("my iban is gb48awjv07221741105646", ["gb48awjv07221741105646"]),
    ("my iban is gb48awjv07221741105647", []),  # fails the mod-97 check
])
def test_lower_case_iban_recognizer(text: str, expected: list[str]) -> None:
    assert found(LowerCaseIbanRecognizer(), text) == expected
