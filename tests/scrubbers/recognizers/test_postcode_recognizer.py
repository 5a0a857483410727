import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.address import PostcodeRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    (" Bhutan 43145\nDallas TX 48486\nmy zip code is 86786", ["43145", "48486", "86786"]),
    ("postcode: SW1A1AA", ["SW1A1AA"]),
    ("order 48486 of 2024, 12 items", []),
    ("my zip code is ABCDE", []),  # a postcode holds a digit
])
def test_postcode_recognizer(text: str, expected: list[str]) -> None:
    assert found(PostcodeRecognizer(), text) == expected
