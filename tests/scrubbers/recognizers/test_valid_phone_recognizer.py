import pytest
from mock_nlp_engine import found

from scrubbers.config import ScrubConfig
from scrubbers.recognizers.offline import ValidPhoneRecognizer

REGIONS = ScrubConfig().phone_regions


@pytest.mark.parametrize(("regions", "text", "expected"), [
    (("US", "CH"), "call +41 (0)44 668 18 00 now", ["+41 (0)44 668 18 00"]),  # a trunk prefix in brackets
    (("US", "CH"), "call (415) 555-0132 ext. 12 now", ["(415) 555-0132 ext. 12"]),  # with its extension
    (("GB",), "UK office 020 7946 0958", ["020 7946 0958"]),
    (("US",), "UK office 020 7946 0958", []),  # valid only in a region not asked for
    (("US",), "ip 10.20.30.40, ssn 078-05-1121, 2024-05-12", []),
    # tau-bench's ten-digit item ids are valid US numbers: after 'item ID', 'tracking number' (and in a list after them) they are ids
    (REGIONS, "Your item IDs are 6469567736, 8426249116 and 6777246137. Tracking number: 3579625010", []),
    (REGIONS, "my phone number is 6469567736, call 8426249116", ["6469567736", "8426249116"]),
])
def test_valid_phone_recognizer(regions: tuple[str, ...], text: str, expected: list[str]) -> None:
    assert found(ValidPhoneRecognizer(supported_regions=regions), text) == expected
