"""The one table of recognizers and the shape every recognizer of ours has: class constants the
constructor may override, and a test module of its own in this folder."""

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest
from mock_nlp_engine import found
from presidio_analyzer import EntityRecognizer, Pattern

import scrubbers.recognizers
from scrubbers.config import ScrubConfig
from scrubbers.recognizers.person import PersonGazetteerRecognizer
from scrubbers.recognizers.phone import PhoneLayoutRecognizer
from scrubbers.recognizers.preset import PresetPatternRecognizer
from scrubbers.recognizers.table import RECOGNIZERS, build_recognizers


def _ours() -> list[type[EntityRecognizer]]:
    classes = set()
    for module in pkgutil.iter_modules(scrubbers.recognizers.__path__):
        loaded = importlib.import_module(f"scrubbers.recognizers.{module.name}")
        classes |= {
            c for _, c in inspect.getmembers(loaded, inspect.isclass)
            if issubclass(c, EntityRecognizer) and c.__module__ == loaded.__name__ and c is not PresetPatternRecognizer
        }
    return sorted(classes, key=lambda c: c.__name__)


OURS = _ours()
PRESET = [c for c in OURS if issubclass(c, PresetPatternRecognizer)]


def test_every_recognizer_of_ours_is_in_the_table_once() -> None:
    rows = [recognizer for row in RECOGNIZERS.values() for recognizer in row]
    assert len(rows) == len(set(rows))
    assert sorted({r for r in rows if r.__module__.startswith("scrubbers.")}, key=lambda c: c.__name__) == OURS


@pytest.mark.parametrize("recognizer", OURS, ids=lambda c: c.__name__)
def test_every_recognizer_of_ours_has_its_test_module(recognizer: type) -> None:
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", recognizer.__name__).lower()
    assert (Path(__file__).parent / f"test_{snake}.py").is_file()


def test_every_default_entity_type_has_recognizers() -> None:
    recognizers = build_recognizers(ScrubConfig().entities, "en", ScrubConfig().phone_regions)
    assert {entity for r in recognizers for entity in r.supported_entities} == set(ScrubConfig().entities)


def test_an_entity_type_without_a_recognizer_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"no recognizer for entity types \['SHOE_SIZE'\]"):
        build_recognizers(["PERSON", "SHOE_SIZE"], "en", ("US",))


@pytest.mark.parametrize(("regions", "expected"), [(("US",), []), (("IL",), ["050-234-5678"])])
def test_the_configured_phone_regions_reach_the_phone_recognizer(regions: tuple[str, ...], expected: list[str]) -> None:
    """An Israeli number without its country code is valid for 'IL' only: 'US' must not find it."""
    valid, *_layouts = build_recognizers(["PHONE_NUMBER"], "en", regions)
    assert found(valid, "call 050-234-5678 now") == expected


@pytest.mark.parametrize("recognizer", PRESET, ids=lambda c: c.__name__)
def test_a_preset_recognizer_is_built_from_its_class_constants(recognizer: type[PresetPatternRecognizer]) -> None:
    built = recognizer(supported_language="en")
    assert (built.patterns, built.context, built.supported_entities) == (recognizer.PATTERNS, recognizer.CONTEXT, [recognizer.ENTITY])
    assert (built.global_regex_flags, built.cues, built.name) == (recognizer.FLAGS, recognizer.CUES, recognizer.__name__)


@pytest.mark.parametrize("recognizer", PRESET, ids=lambda c: c.__name__)
def test_the_constructor_overrides_each_constant(recognizer: type[PresetPatternRecognizer]) -> None:
    patterns = [Pattern("zebra", r"\bzebra\b", 0.9)]
    built = recognizer(patterns=patterns, context=["zoo"], supported_entity="ANIMAL", name="Zebra", global_regex_flags=0)
    assert (built.patterns, built.context, built.supported_entities) == (patterns, ["zoo"], ["ANIMAL"])
    assert (built.global_regex_flags, built.name) == (0, "Zebra")
    assert built.cues is None  # its cues were those of the class's patterns: it runs on every text


def test_overridden_context_words_are_the_ones_that_count() -> None:
    text = "You can reach me at 30/166 1318 after five."
    assert found(PhoneLayoutRecognizer(), text) == ["30/166 1318"]
    assert found(PhoneLayoutRecognizer(context=["fax"]), text) == []
    assert found(PhoneLayoutRecognizer(context=["fax"]), text.replace("reach me", "fax me")) == ["30/166 1318"]


def test_an_overridden_score_is_the_one_given() -> None:
    assert found(PersonGazetteerRecognizer(), "Why is Alena so impulsive?") == ["Alena"]
    assert found(PersonGazetteerRecognizer(score=0.4), "Why is Alena so impulsive?") == []
