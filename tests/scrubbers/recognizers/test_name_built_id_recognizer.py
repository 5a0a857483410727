import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.username import NameBuiltIdRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("You are mei_kovacs_8020 (raj_li_8594 too), paid with credit_card_9513926 and gift_card_1725971; call_0000",
     ["mei_kovacs_8020", "raj_li_8594"]),
    ("see a.mei_kovacs_8020 and mei_kovacs_8020@x.io", []),
])
def test_name_built_id_recognizer(text: str, expected: list[str]) -> None:
    assert found(NameBuiltIdRecognizer(), text) == expected
