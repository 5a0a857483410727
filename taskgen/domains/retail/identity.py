"""Who is asking, told from the customer's own words: the identity rule a task states in its prompt.

A session an app signed in names its customer (an id among the session's entities, or a customer
look-up the agent made). A session that names none is verified the way tau2-bench's retail policy has
the agent do it ("locating their user id via email, or via name + zip code"): the words give the e-mail
address of a customer on the seed, or their full name together with their zip code, and no other
customer of the seed fits them. The rule is the same on both
tasks of a pair, so "verified" is never a flag the prompt does not show: the identity negative
changes the words (the customer cannot give the details), never only the requester.

Values are read from the product's own customer rows (any column whose name says name, e-mail or
zip/postcode), matched as whole tokens: a zip inside a longer number or id is no zip.
"""

from __future__ import annotations

import re
from typing import Any

from ingest.leaves import leaves

CANNOT_SAY = "I can't give the e-mail address or the zip code on my account: I don't remember them."
"""What the identity negative's customer says in place of the details that would identify them."""

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_OPENING = re.compile(r"(?:hi|hello|hey|good (?:morning|afternoon|evening))\b|(?:my name is|i'm|i am) [A-Z]", re.IGNORECASE)


def details(row: dict[str, Any]) -> dict[str, list[str]]:
    """A customer row's identifying values: the words of its name, its e-mail addresses, its zip codes."""
    names, emails, zips = [], [], []
    for path, value in leaves(row):
        text = str(value)
        column = path.rsplit(".", 1)[-1].lower()
        if "@" in text and "mail" in path.lower():
            emails.append(text)
        elif re.search(r"zip|post(?:al)?_?code|postcode", column):
            zips.append(text)
        elif "name" in column and not column.endswith(("_id", "username", "user_name")) and "mail" not in column:
            names += text.split()
    return {"name": names, "email": emails, "zip": zips}


def _token(value: str) -> re.Pattern[str]:
    """The value as a whole token: not inside a longer word, number, e-mail or id."""
    return re.compile(r"(?<![\w@.+-])" + re.escape(value) + r"(?![\w@+-]|\.\w)", re.IGNORECASE)


def said(text: str, value: str) -> bool:
    return bool(value.strip()) and bool(_token(value.strip()).search(text))


def gives_identity(text: str, row: dict[str, Any]) -> bool:
    """The words give this customer's e-mail address, or their full name and their zip code."""
    found = details(row)
    if any(said(text, value) for value in found["email"]):
        return True
    full_name = bool(found["name"]) and all(said(text, word) for word in found["name"])
    return full_name and any(said(text, value) for value in found["zip"])


def identified_customer(text: str, customers: dict[str, dict[str, Any]]) -> str | None:
    """The one customer of the seed whose e-mail, or name and zip, the words give; None when none or several fit."""
    matching = sorted(customer_id for customer_id, row in customers.items() if gives_identity(text, row))
    return matching[0] if len(matching) == 1 else None


def without_identity(text: str, row: dict[str, Any], also: tuple[str, ...] = ()) -> str:
    """The words with this customer's e-mail and zip (and the values `also` names, such as their account
    id) taken out, saying so: a sentence that only gave them goes; in a longer one, the value itself is
    replaced."""
    found = details(row)
    values = [value for value in (*found["email"], *found["zip"], *also) if value.strip()]
    kept = []
    for sentence in _SENTENCE.split(text.strip()):
        if not any(said(sentence, value) for value in values):
            kept.append(sentence)
            continue
        if len(sentence.split()) <= 14:
            continue
        for value in values:
            sentence = _token(value.strip()).sub("(which I don't remember)", sentence)
        kept.append(sentence)
    # said after a greeting or the customer's name, where the details stood
    opening = 1 if kept and _OPENING.match(kept[0]) and not any(said(kept[0], value) for value in values) else 0
    return " ".join([*kept[:opening], CANNOT_SAY, *kept[opening:]]).strip()


def with_identity(text: str, row: dict[str, Any]) -> str | None:
    """The words with this customer's full name and e-mail (else zip) said first; None when the row has neither."""
    found = details(row)
    if not found["name"]:
        return None
    if found["email"]:
        return f"My name is {' '.join(found['name'])} and my e-mail address is {found['email'][0]}. {text}".strip()
    if found["zip"]:
        return f"My name is {' '.join(found['name'])} and my zip code is {found['zip'][0]}. {text}".strip()
    return None


def with_name(text: str, row: dict[str, Any], account_id: str) -> str | None:
    """The words with the customer's full name said after the sentence giving their account id, where that makes
    them verifiable (the zip or e-mail is said too); None otherwise. A source's readable account id ('emma_smith_8564')
    carries the name its scrubbed stand-in ('cust_be4baeb56c') no longer shows (fifth cold review, #12 family 4)."""
    found = details(row)
    if not found["name"] or not said(text, account_id):
        return None
    sentences = _SENTENCE.split(text.strip())
    at = next(index for index, sentence in enumerate(sentences) if said(sentence, account_id))
    named = " ".join([*sentences[: at + 1], f"My full name is {' '.join(found['name'])}.", *sentences[at + 1:]])
    return named if gives_identity(named, row) else None
