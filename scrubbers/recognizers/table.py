"""The one table of recognizers: which recognizers find each entity type. The detector builds its
Presidio registry from it and from nothing else; a new recognizer is a row here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType

from presidio_analyzer import EntityRecognizer
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    IbanRecognizer,
    IpRecognizer,
    PhoneRecognizer,
    UsSsnRecognizer,
)

from scrubbers.recognizers.address import (
    AddressBlockStreetRecognizer,
    AddressUnitRecognizer,
    InternationalStreetRecognizer,
    PostcodeRecognizer,
    StreetAddressRecognizer,
)
from scrubbers.recognizers.birth import DateOfBirthRecognizer
from scrubbers.recognizers.card import CardLastFourRecognizer, CardLengthRecognizer, MastercardTwoSeriesRecognizer
from scrubbers.recognizers.iban import LowerCaseIbanRecognizer
from scrubbers.recognizers.offline import OfflineEmailRecognizer, ValidPhoneRecognizer
from scrubbers.recognizers.person import (
    LowerCaseNameRecognizer,
    NerPersonRecognizer,
    PersonAddressedRecognizer,
    PersonClosingRecognizer,
    PersonContextRecognizer,
    PersonGazetteerRecognizer,
    PersonNamedRecognizer,
    PersonNameListRecognizer,
    PersonRareWordRecognizer,
    PersonRelationRecognizer,
)
from scrubbers.recognizers.person_works import LowerCaseRareWordRecognizer, PersonListRecognizer, PersonWorkRecognizer
from scrubbers.recognizers.phone import LabelledShortPhoneRecognizer, PhoneLayoutRecognizer
from scrubbers.recognizers.url import PersonalUrlRecognizer
from scrubbers.recognizers.username import NameBuiltIdRecognizer, UsernameRecognizer

RECOGNIZERS: MappingProxyType[str, tuple[type[EntityRecognizer], ...]] = MappingProxyType({
    "PERSON": (
        NerPersonRecognizer,
        PersonContextRecognizer,
        PersonClosingRecognizer,
        PersonNameListRecognizer,
        PersonGazetteerRecognizer,
        PersonAddressedRecognizer,
        PersonRelationRecognizer,
        LowerCaseNameRecognizer,
        PersonRareWordRecognizer,
        PersonNamedRecognizer,
        PersonWorkRecognizer,
        LowerCaseRareWordRecognizer,
        PersonListRecognizer,
    ),
    "EMAIL_ADDRESS": (OfflineEmailRecognizer,),
    "PHONE_NUMBER": (ValidPhoneRecognizer, PhoneLayoutRecognizer, LabelledShortPhoneRecognizer),
    "STREET_ADDRESS": (
        StreetAddressRecognizer, InternationalStreetRecognizer, AddressBlockStreetRecognizer, AddressUnitRecognizer, PostcodeRecognizer,
    ),
    "CREDIT_CARD": (CreditCardRecognizer, MastercardTwoSeriesRecognizer, CardLengthRecognizer, CardLastFourRecognizer),
    "IBAN_CODE": (IbanRecognizer, LowerCaseIbanRecognizer),
    "US_SSN": (UsSsnRecognizer,),
    "IP_ADDRESS": (IpRecognizer,),
    "DATE_OF_BIRTH": (DateOfBirthRecognizer,),
    "USERNAME": (UsernameRecognizer, NameBuiltIdRecognizer),
    "URL": (PersonalUrlRecognizer,),
})
"""Entity type -> the recognizers that find it (Presidio's predefined ones where they serve, ours
beside them), each built with its class constants."""


def build_recognizers(entities: Iterable[str], language: str, phone_regions: Sequence[str]) -> list[EntityRecognizer]:
    """One of each recognizer of the table's rows for `entities` (in the order of the sorted types);
    the phone-number recognizers validate numbers without a country code for `phone_regions`."""
    entities = sorted(set(entities))
    unknown = [entity for entity in entities if entity not in RECOGNIZERS]
    if unknown:
        raise ValueError(f"no recognizer for entity types {unknown}")
    return [_build(recognizer, language, phone_regions) for entity in entities for recognizer in RECOGNIZERS[entity]]


def _build(recognizer: type[EntityRecognizer], language: str, phone_regions: Sequence[str]) -> EntityRecognizer:
    if issubclass(recognizer, PhoneRecognizer):
        return recognizer(supported_language=language, supported_regions=tuple(phone_regions))
    return recognizer(supported_language=language)
