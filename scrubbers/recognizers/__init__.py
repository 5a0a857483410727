"""trace2task's own Presidio recognizers (pattern recognizers, like Presidio's predefined ones)."""

from scrubbers.recognizers.address import StreetAddressRecognizer
from scrubbers.recognizers.birth import DateOfBirthRecognizer
from scrubbers.recognizers.offline import OfflineEmailRecognizer, ValidPhoneRecognizer
from scrubbers.recognizers.person import PersonClosingRecognizer, PersonContextRecognizer, PersonNameListRecognizer
from scrubbers.recognizers.url import PersonalUrlRecognizer
from scrubbers.recognizers.username import UsernameRecognizer

__all__ = [
    "DateOfBirthRecognizer",
    "OfflineEmailRecognizer",
    "PersonClosingRecognizer",
    "PersonContextRecognizer",
    "PersonNameListRecognizer",
    "PersonalUrlRecognizer",
    "StreetAddressRecognizer",
    "UsernameRecognizer",
    "ValidPhoneRecognizer",
]
