import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.person import PersonContextRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Hi, this is Jane Gonzalez from Denver.", ["Jane Gonzalez"]),
    ("Dear Ms. Gonzalez, your parcel is on its way.", ["Gonzalez"]),
    ("my name is damien watkins and I need help", ["damien watkins"]),
    ("Thanks for waiting.\nBest,\nBill Turner", ["Bill Turner"]),
    ("Customer Hope Bustamante asked for a refund.", ["Hope Bustamante"]),
    ("the boots I ordered for Adelmo arrived damaged", ["Adelmo"]),
    ("where is my parcel?\n- Ilaria Chinnici", ["Ilaria Chinnici"]),
    ("I'm still waiting, thanks a lot", []),
    ("my name is still pending", []),  # lower case: only after a known first name
    ("it was a gift I ordered for Christmas", []),
])
def test_person_context_recognizer(text: str, expected: list[str]) -> None:
    assert found(PersonContextRecognizer(), text) == expected
