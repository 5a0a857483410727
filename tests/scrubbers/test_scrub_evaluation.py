from scrubbers import Scrubber
from scrubbers.evaluation import HELDOUT_NAME_LOCALES, PRODUCTS, evaluate, generate_corpus

EXACT_TYPES = ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "IP_ADDRESS")


def test_corpus_is_deterministic_and_labelled() -> None:
    corpus = generate_corpus(40, seed=3)
    assert [c.text for c in corpus] == [c.text for c in generate_corpus(40, seed=3)]
    assert [c.text for c in corpus] != [c.text for c in generate_corpus(40, seed=4)]
    for item in corpus:
        for span in item.spans:
            assert item.text[span.start : span.end].strip() == item.text[span.start : span.end] != ""


def test_recall_targets_and_identifiers_survive(scrubber: Scrubber) -> None:
    result = evaluate(scrubber, generate_corpus(140, seed=11))
    for entity_type in EXACT_TYPES:
        score = result.score(entity_type)
        assert score.gold > 0 and score.recall == 1.0, entity_type
    assert result.score("PERSON").recall >= 0.95
    assert result.kept == result.must_keep > 0
    assert "PERSON" in result.table()


def test_person_recall_and_precision_on_held_out_name_locales(scrubber: Scrubber) -> None:
    """Names from locales the name lists do not come from, next to title-case product names."""
    corpus = generate_corpus(140, seed=5, name_locales=HELDOUT_NAME_LOCALES)
    assert sum(product in item.text for item in corpus for product in PRODUCTS) > 20
    person = evaluate(scrubber, corpus).score("PERSON")
    assert person.recall >= 0.97 and person.precision >= 0.98
