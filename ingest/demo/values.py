"""Small values of the demo drop: timestamps and JSON as the producers write them, money,
and personal values of the right shape (Luhn-valid cards, IBANs with their check digits,
phone numbers as people in each country write them), and the way people really type."""

from __future__ import annotations

import json
import random
import unicodedata
from datetime import date, datetime, timedelta, timezone
from typing import Any

from scrubbers.shapes import iban_with_check_digits, luhn_check_digit

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_ms(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def unix_ns(at: datetime) -> int:
    return (at - EPOCH) // timedelta(microseconds=1) * 1000


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def day_words(day: date, *, weekday: bool = False) -> str:
    """"November 20" (or "Friday, November 20")."""
    return (f"{day:%A}, " if weekday else "") + f"{day:%B} {day.day}"


def money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def to_ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def card_number(rng: random.Random) -> str:
    prefix, length = rng.choice([("4", 16), ("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("37", 15)])
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    return body + luhn_check_digit(body)


def iban_number(rng: random.Random, country: str) -> str:
    digits = lambda n: "".join(rng.choice("0123456789") for _ in range(n))  # noqa: E731
    if country == "GB":
        bban = rng.choice(["NWBK", "BARC", "LOYD", "HBUK", "MIDL"]) + digits(14)
    elif country == "FR":
        bban = digits(23)
    else:
        country, bban = "DE", digits(18)
    return iban_with_check_digits(f"{country}00{bban}")


def ssn(rng: random.Random) -> str:
    area = rng.choice([n for n in range(1, 900) if n != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def public_ipv4(rng: random.Random) -> str:
    while True:
        first = rng.randint(11, 223)
        if first not in (100, 127, 169, 172, 192, 198, 203):
            return f"{first}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def public_ipv6(rng: random.Random) -> str:
    prefix = rng.choice(["2a02:8108", "2a01:cb00", "2600:1700", "2409:4043", "2a00:23c6"])
    return prefix + ":" + ":".join(f"{rng.getrandbits(16):x}" for _ in range(6))


def phone_number(rng: random.Random, country: str) -> tuple[str, list[str]]:
    """A phone number: (stored form, other ways a person writes the same number)."""
    d = lambda n: "".join(rng.choice("0123456789") for _ in range(n))  # noqa: E731
    if country == "US":
        area = rng.choice(["212", "310", "415", "312", "617", "206", "512", "303", "404", "305", "702", "718"])
        exchange, line = f"{rng.randint(201, 989)}", d(4)
        if exchange == "555":
            exchange = "556"
        return f"+1 {area}-{exchange}-{line}", [f"({area}) {exchange}-{line}", f"{area}.{exchange}.{line}"]
    if country == "GB":
        mobile = f"7{rng.randint(400, 999)}"
        rest = d(6)
        return f"+44 {mobile} {rest}", [f"0{mobile} {rest}", f"+44{mobile}{rest}"]
    if country == "DE":
        mobile = rng.choice(["151", "160", "170", "176"])
        rest = d(8)
        return f"+49 {mobile} {rest}", [f"0{mobile} {rest}", f"+49 ({mobile}) {rest[:4]} {rest[4:]}"]
    if country == "FR":
        pairs = [f"{rng.choice('67')}"] + [d(2) for _ in range(4)]
        return "+33 " + " ".join(pairs), ["0" + " ".join(pairs), "0" + "".join(pairs)]
    head, tail = rng.choice("6789") + d(4), d(5)
    return f"+91 {head} {tail}", [f"0{head} {tail}", f"+91-{head}-{tail}"]


def days_ago_words(days: int, rng: random.Random) -> str:
    words = ["today", "yesterday", "two days ago", "three days ago", "four days ago", "five days ago",
             "six days ago", "a week ago"]
    if days < len(words):
        return words[days] if rng.random() < 0.7 else f"{days} days ago" if days > 1 else words[days]
    if days < 14:
        return rng.choice([f"{days} days ago", "last week", "over a week ago"])
    if days < 30:
        return rng.choice([f"{days // 7} weeks ago", "a few weeks ago", f"about {days} days ago"])
    return rng.choice(["over a month ago", f"{days // 30} month(s) ago", f"back in {'early' if days > 45 else 'late'} summer"])


def casual(template: str, rng: random.Random) -> str:
    """How people really type: sometimes all lower case, dropped apostrophes, swapped letters.

    Applied to a template before its {slots} are filled, so ids and personal values stay intact.
    """
    if rng.random() < 0.3:
        template = template.lower()
    if rng.random() < 0.25:
        template = template.replace("'", "")
    words = template.split(" ")
    candidates = [i for i, word in enumerate(words) if len(word) >= 5 and word.isalpha() and word.islower()]
    if candidates and rng.random() < 0.3:
        i = rng.choice(candidates)
        j = rng.randrange(len(words[i]) - 1)
        word = words[i]
        words[i] = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
    return " ".join(words)
