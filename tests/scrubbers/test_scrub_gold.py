"""The public-corpus measurement: its split, its scoring and its categories can each fail."""

from pathlib import Path

import pytest

from scrubbers.gold import DEFAULT_CORPUS, GoldText, GoldValue, _street_line, is_held_out, load_corpus, miss_category, score, split

GOLD = Path(__file__).resolve().parents[3] / "shared" / "data" / "pii-eval" / "generated_large.json"


def _text(text: str, *values: tuple[str, str], template: int = 1) -> GoldText:
    spans = []
    for value, kind in values:
        start = text.index(value)
        spans.append(GoldValue(start, start + len(value), kind, kind != "LOCATION"))
    return GoldText(text, template, tuple(spans))


def test_a_value_is_caught_only_when_every_letter_and_digit_is_covered() -> None:
    item = _text("Call Jane Roe at 555-0100 from Paris.", ("Jane Roe", "PERSON"), ("555-0100", "PHONE_NUMBER"), ("Paris", "LOCATION"))
    jane = item.text.index("Jane")
    half = score([item], [[(jane, jane + 4)]])
    assert half.recall("PERSON") == 0.0 and half.recall("PHONE_NUMBER") == 0.0
    whole = score([item], [[(jane, jane + 8)]])
    assert whole.recall("PERSON") == 1.0 and whole.all_types == 0.5
    assert ("PHONE_NUMBER", "national", 1) in whole.misses


def test_words_kept_counts_only_words_outside_gold_spans() -> None:
    item = _text("Call Jane Roe at home from Paris.", ("Jane Roe", "PERSON"), ("Paris", "LOCATION"))
    home = item.text.index("home")
    untouched = score([item], [[]])
    assert untouched.words == 4 and untouched.kept == 1.0  # Call, at, home, from
    touched = score([item], [[(home, home + 4)]])
    assert touched.words_kept == 3 and touched.precision == 0.0


def test_an_address_is_scored_on_its_street_line() -> None:
    loaded = GoldText("Ship to 12 Puruntie 82, 00100 Helsinki today", 1, ())
    start = loaded.text.index("12")
    street = _street_line(loaded.text, start, loaded.text.index(" today"))
    assert loaded.text[slice(*street)] == "12 Puruntie 82"


def test_miss_categories_name_shapes_not_values() -> None:
    item = _text("our founders: Kovalev, lee and Ωmega", ("Kovalev", "PERSON"), ("lee", "PERSON"))
    assert [miss_category(item.text, v) for v in item.values] == ["list of names", "lower case"]


def test_the_split_is_by_template_and_fixed() -> None:
    texts = [GoldText("a", template, ()) for template in range(200)]
    development, held_out = split(texts)
    assert 60 < len(held_out) < 140 and len(development) + len(held_out) == 200
    assert [t.template_id for t in held_out] == [t for t in range(200) if is_held_out(t)]
    assert is_held_out(1) != is_held_out(0) or is_held_out(2) != is_held_out(0)


@pytest.mark.skipif(not GOLD.is_file(), reason="the public gold corpus is not in ../shared/data/pii-eval")
def test_the_public_corpus_loads_with_both_halves_holding_each_main_type() -> None:
    assert DEFAULT_CORPUS.resolve() == GOLD.resolve()
    development, held_out = split(load_corpus(GOLD))
    assert not {t.template_id for t in development} & {t.template_id for t in held_out}
    for half in (development, held_out):
        kinds = {v.entity_type for t in half for v in t.values if v.scored}
        assert {"PERSON", "STREET_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "EMAIL_ADDRESS", "IBAN_CODE"} <= kinds
