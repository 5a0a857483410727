import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.url import PersonalUrlRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("profile https://www.linkedin.com/in/jane-doe-123", ["https://www.linkedin.com/in/jane-doe-123"]),
    ("see linkedin.com/in/jane-doe for more", ["linkedin.com/in/jane-doe"]),
    ("https://shop.example.com/track?email=jane%40mail.com", ["https://shop.example.com/track?email=jane%40mail.com"]),
    ("see https://help.acme.com/returns?lang=en for details", []),
    ("docs at www.example.com/docs/returns", []),
])
def test_personal_url_recognizer(text: str, expected: list[str]) -> None:
    assert found(PersonalUrlRecognizer(), text) == expected
