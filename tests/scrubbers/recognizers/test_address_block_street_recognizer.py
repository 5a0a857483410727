import pytest
from mock_nlp_engine import found

from scrubbers.recognizers.address import AddressBlockStreetRecognizer


@pytest.mark.parametrize(("text", "expected"), [
    # a street's name and its house number on a line of their own, under a company's or a person's name
    ("Adobe Digital Government\n\nMille and Truhlářská 996", ["Mille and Truhlářská 996"]),
    ("Amida Technology Solutions\n\nInes and Nordahl Rolfsens vei 187", ["Ines and Nordahl Rolfsens vei 187"]),
    (">Jo Bloggs\n>Acme\n>Truhlářská 996\n>Apt. 3", ["Truhlářská 996"]),
    ("adobe digital government\n\nmille and truhlářská 996", ["mille and truhlářská 996"]),
    # before a unit line, a building number first
    ("01 Luite tee 71\n Suite 824\n Äksi", ["01 Luite tee 71"]),
    ("76 Boriñaur enparantza 29\n Apt. 311", ["76 Boriñaur enparantza 29"]),
    # after 'address:'
    ("As promised, here's Liam's address:\n\nTruhlářská 996", ["Truhlářská 996"]),
    ("Name:    Jo Ruud\nAddress:     Erzsébet tér 19.", ["Erzsébet tér 19."]),
])
def test_a_street_line_known_by_its_place_in_an_address_block(text: str, expected: list[str]) -> None:
    assert found(AddressBlockStreetRecognizer(), text) == expected


@pytest.mark.parametrize("text", [
    "Mike 42",  # a line alone: a chat line, a score
    "Thanks\nMike 42",  # under a greeting, no one's name
    "Scores\nMike 42\nAnna 37",  # a list of such lines
    "Acme\nRoom 12", "Acme\n\nGate 4", "Acme\nPage 3",  # words that number things
    "Specs\nWindows 10",  # common English words, no name
    "Reykjavík\nTurkmenistan 51262",  # a country and its postcode
    "He went to Acme\nand paid 12",  # English words of a sentence
])
def test_lines_of_a_name_and_a_number_that_are_no_street(text: str) -> None:
    assert found(AddressBlockStreetRecognizer(), text) == []


def test_a_line_under_the_street_line_is_none() -> None:
    """The town and the country with its postcode come after the street line: the block's heading has no digit."""
    assert found(AddressBlockStreetRecognizer(), "31 Vesturgata 66\nSuite 574\nReykjavík\nTurkmenistan 51262") == ["31 Vesturgata 66"]


def test_an_overridden_score_is_the_one_given() -> None:
    assert found(AddressBlockStreetRecognizer(score=0.4), "Acme\n\nTruhlářská 996") == []
