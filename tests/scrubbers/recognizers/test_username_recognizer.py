import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.username import UsernameRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("username: jdoe_88 cannot log in", ["jdoe_88"]),
    ("ping @rosey_w about it", ["rosey_w"]),
    ("login jane.g77 failed", ["jane.g77"]),
    ("my username is 'skater-girl'", ["skater-girl"]),
    ("login failed twice", []),
    ("username: required", []),
    ("write to jane@mail.com", []),
])
def test_username_recognizer(text: str, expected: list[str]) -> None:
    assert found(UsernameRecognizer(), text) == expected
