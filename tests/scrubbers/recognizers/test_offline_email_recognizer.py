import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.offline import OfflineEmailRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    ("reach me at jane.gonzalez@gmail.com please", ["jane.gonzalez@gmail.com"]),
    ("Email: o'brien+orders@mail.co.uk.", ["o'brien+orders@mail.co.uk"]),
    ("a@b.io, then c@d.de", ["a@b.io", "c@d.de"]),
    ("write to jane@example.invalidtld", []),  # no public suffix
    ("meet @ noon", []),
])
def test_offline_email_recognizer(text: str, expected: list[str]) -> None:
    assert found(OfflineEmailRecognizer(), text) == expected


def test_the_suffix_list_is_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    import tldextract

    monkeypatch.setattr(tldextract, "extract", lambda *a, **k: pytest.fail("the module-level extractor may fetch the list"))
    assert found(OfflineEmailRecognizer(), "mail jane@shop.example.co.uk") == ["jane@shop.example.co.uk"]
