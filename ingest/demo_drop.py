"""Writes a realistic demo production drop of a retail-support AI agent.

`generate_drop` produces, for `days` days of traffic starting at `start` (UTC):

    tickets/export-0001.json ...        Zendesk incremental ticket export pages
    tickets/comments/<ticket_id>.json   Zendesk ticket comments
    traces/YYYY-MM-DD.jsonl             OTLP/JSON spans (OpenTelemetry Collector file exporter)
    error_logs/YYYY-MM-DD.jsonl         OTLP/JSON logs
    error_logs/app-YYYY-MM-DD.log       plain-text application log lines
    escalations/YYYY-MM-DD.jsonl        hand-offs to human agents
    deploys/deploys.jsonl               rollbacks and hotfixes naming the sessions that showed the bug
    state/shop.db, state/mapping.yaml   the shop's production database and its entity mapping
    planted_pii.json, planted_ids.json  oracles for tests: every planted personal value, ids per session

Everything is drawn from `random.Random(seed)` and explicitly seeded Faker instances, so the
same arguments give byte-identical files. Raw personal values are the point of this drop: they
stay inside it and never reach the returned `DropSummary` (counts only).
"""

from __future__ import annotations

import json
import random
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from faker import Faker
from pydantic import BaseModel, ConfigDict, Field

SERVICE = "support-agent"
MODEL = "gpt-4o-2024-08-06"
ZENDESK = "https://acme-outfitters.zendesk.com/api/v2"
SESSION_FIELD_ID = 360001
TICKETS_PER_PAGE = 500
RETURN_WINDOW_DAYS = 30
BASE_VERSION = "2.14.3"
PLANTED_PII_FILE = "planted_pii.json"
PLANTED_IDS_FILE = "planted_ids.json"
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

INTENT_WEIGHTS = {
    "order_status": 36,
    "refund": 16,
    "return_label": 12,
    "cancellation": 9,
    "address_change": 8,
    "account_access": 10,
    "other": 9,
}
OUTCOME_WEIGHTS = {"resolved": 70, "failed": 11, "escalated": 10, "errored": 9}
TICKET_CHANCE = {
    "resolved": 0.22,
    "failed": 1.0,
    "escalated": 0.6,
    "errored": 0.55,
    "rolled_back": 0.35,
    "hotfixed": 0.8,
}
ESCALATION_QUEUE = {
    "order_status": "orders",
    "refund": "returns-refunds",
    "return_label": "returns-refunds",
    "cancellation": "orders",
    "address_change": "orders",
    "account_access": "account-security",
    "other": "general",
}
INTENT_TAG = {
    "order_status": "order_status",
    "refund": "refund",
    "return_label": "return",
    "cancellation": "cancellation",
    "address_change": "address_change",
    "account_access": "account_access",
    "other": "general_question",
}

LOCALES = {  # country -> (Faker locale, weight)
    "US": ("en_US", 50),
    "GB": ("en_GB", 15),
    "DE": ("de_DE", 12),
    "FR": ("fr_FR", 10),
    "IN": ("en_IN", 13),
}

CATALOG = [  # (sku, name, price_cents)
    ("SKU-10482", "Trail Runner 3 Men's Running Shoes", 12900),
    ("SKU-10517", "Women's Waterproof Hiking Boots", 15900),
    ("SKU-20931", "Merino Wool Crew Socks (3-pack)", 2400),
    ("SKU-21876", "Packable Down Jacket", 18900),
    ("SKU-23044", "Fleece Quarter-Zip Pullover", 6400),
    ("SKU-30218", "Insulated Stainless Water Bottle 750ml", 3200),
    ("SKU-31150", "Ultralight 2-Person Tent", 34900),
    ("SKU-31777", "Down Sleeping Bag -5C", 27900),
    ("SKU-40025", "Wireless Noise-Cancelling Earbuds", 14999),
    ("SKU-40388", "Solar Power Bank 20000mAh", 5999),
    ("SKU-48213", "Headlamp 400 Lumen Rechargeable", 4499),
    ("SKU-52090", "Trekking Poles Carbon (pair)", 11900),
    ("SKU-55461", "Daypack 28L", 8900),
    ("SKU-57302", "Rain Shell Jacket Women's", 16900),
    ("SKU-60114", "Camp Stove Compact", 6999),
    ("SKU-61853", "Kids' Winter Gloves", 1999),
    ("SKU-64720", "Yoga Mat Natural Rubber", 7800),
    ("SKU-70056", "Cotton Hoodie Unisex", 5400),
    ("SKU-72249", "Polarized Sunglasses", 8900),
    ("SKU-75981", "Smart Fitness Watch", 24900),
]

HOUR_WEIGHTS = [1, 1, 1, 1, 1, 2, 3, 5, 7, 9, 10, 10, 10, 10, 10, 10, 10, 9, 9, 9, 8, 6, 4, 2]

SYSTEM_PROMPT = (
    "You are ShopBot, the customer support assistant for Acme Outfitters. Help with orders, "
    "refunds, returns, cancellations, address changes and account access. Refunds and return "
    "labels are only allowed within 30 days of delivery. Use the tools; never invent order data. "
    "Escalate to a human when the customer asks for one or when policy requires it."
)


class DropSummary(BaseModel):
    """What `generate_drop` wrote: counts and relative file names, never values."""

    model_config = ConfigDict(extra="forbid")

    sessions: int
    days: int
    files: dict[str, int] = Field(description="file kind (tickets, ticket_comments, traces, error_logs, app_logs, "
                                              "escalations, deploys, state) -> files written")
    records: dict[str, int] = Field(description="record kind -> records written (spans, log_records, tickets, "
                                                "<kind>_lines per JSON-lines/log file kind, state_<table> rows, ...)")
    intents: dict[str, int] = Field(description="true intent -> sessions")
    outcomes: dict[str, int] = Field(description="true outcome -> sessions")
    faults: dict[str, int] = Field(description="planted malformed record kind -> how many")
    planted_pii_file: str = Field(default=PLANTED_PII_FILE, description="relative to the drop folder")
    planted_ids_file: str = Field(default=PLANTED_IDS_FILE, description="relative to the drop folder")


# ---------------------------------------------------------------- small value helpers


def _iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _iso_ms(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def _unix_ns(at: datetime) -> int:
    return (at - EPOCH) // timedelta(microseconds=1) * 1000


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _day_words(day: date, *, weekday: bool = False) -> str:
    """"November 20" (or "Friday, November 20")."""
    return (f"{day:%A}, " if weekday else "") + f"{day:%B} {day.day}"


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _luhn_digit(body: str) -> str:
    total = 0
    for index, char in enumerate(reversed(body)):
        digit = int(char)
        if index % 2 == 0:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return str((10 - total % 10) % 10)


def _card_number(rng: random.Random) -> str:
    prefix, length = rng.choice([("4", 16), ("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("37", 15)])
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    return body + _luhn_digit(body)


def _iban(rng: random.Random, country: str) -> str:
    digits = lambda n: "".join(rng.choice("0123456789") for _ in range(n))  # noqa: E731
    if country == "GB":
        bban = rng.choice(["NWBK", "BARC", "LOYD", "HBUK", "MIDL"]) + digits(14)
    elif country == "FR":
        bban = digits(23)
    else:
        country, bban = "DE", digits(18)
    numeric = "".join(str(int(char, 36)) for char in bban + country + "00")
    return f"{country}{98 - int(numeric) % 97:02d}{bban}"


def _ssn(rng: random.Random) -> str:
    area = rng.choice([n for n in range(1, 900) if n != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def _public_ipv4(rng: random.Random) -> str:
    while True:
        first = rng.randint(11, 223)
        if first not in (100, 127, 169, 172, 192, 198, 203):
            return f"{first}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def _public_ipv6(rng: random.Random) -> str:
    prefix = rng.choice(["2a02:8108", "2a01:cb00", "2600:1700", "2409:4043", "2a00:23c6"])
    return prefix + ":" + ":".join(f"{rng.getrandbits(16):x}" for _ in range(6))


def _phone(rng: random.Random, country: str) -> tuple[str, list[str]]:
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


def _days_ago_words(days: int, rng: random.Random) -> str:
    words = ["today", "yesterday", "two days ago", "three days ago", "four days ago", "five days ago",
             "six days ago", "a week ago"]
    if days < len(words):
        return words[days] if rng.random() < 0.7 else f"{days} days ago" if days > 1 else words[days]
    if days < 14:
        return rng.choice([f"{days} days ago", "last week", "over a week ago"])
    if days < 30:
        return rng.choice([f"{days // 7} weeks ago", "a few weeks ago", f"about {days} days ago"])
    return rng.choice(["over a month ago", f"{days // 30} month(s) ago", f"back in {'early' if days > 45 else 'late'} summer"])


def _casual(template: str, rng: random.Random) -> str:
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


# ---------------------------------------------------------------- planted personal values


class _PiiLedger:
    """Every personal value written anywhere, exactly as written, with its type."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], None] = {}

    def add(self, value: str | None, kind: str) -> str | None:
        if value:
            self._seen[(kind, value)] = None
        return value

    def as_json(self) -> dict[str, Any]:
        entries = sorted(self._seen)
        return {
            "count": len(entries),
            "types": dict(sorted(Counter(kind for kind, _ in entries).items())),
            "values": [{"type": kind, "value": value} for kind, value in entries],
        }


# ---------------------------------------------------------------- the shop's world


@dataclass
class _Customer:
    id: str
    country: str
    first: str
    last: str
    email: str
    phone: str
    phone_variants: list[str]
    street: str
    address: str
    username: str
    created_at: datetime
    orders: list[_Order] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"


@dataclass
class _Item:
    id: str
    sku: str
    name: str
    price_cents: int
    quantity: int


@dataclass
class _Order:
    id: str
    customer_id: str
    status: str
    created_at: datetime
    delivered_at: datetime | None
    shipping_address: str
    items: list[_Item]
    payment_id: str
    method: str
    card_number: str | None

    @property
    def total_cents(self) -> int:
        return sum(item.price_cents * item.quantity for item in self.items)


@dataclass
class _World:
    """Customers, orders, refunds and return labels; written to state/shop.db at the end."""

    rng: random.Random
    fakers: dict[str, Faker]
    pii: _PiiLedger
    customers: list[_Customer] = field(default_factory=list)
    orders: dict[str, _Order] = field(default_factory=dict)
    refunds: list[tuple[str, str, int, str, datetime]] = field(default_factory=list)
    labels: list[tuple[str, str, datetime]] = field(default_factory=list)
    item_count: int = 0

    def new_customer(self, at: datetime) -> _Customer:
        rng = self.rng
        country = rng.choices(list(LOCALES), weights=[w for _, w in LOCALES.values()])[0]
        fake = self.fakers[country]
        first, last = fake.first_name(), fake.last_name()
        local = rng.choice([f"{first}.{last}", f"{first}{last}{rng.randint(1, 99)}", f"{first[0]}.{last}",
                            f"{first}_{last[0]}", f"{last}.{first}{rng.randint(70, 99)}"])
        email = f"{_ascii(local).lower().replace(' ', '')}@{fake.free_email_domain()}"
        phone, variants = _phone(rng, country)
        street, address, _ = self.address(country, fake)
        username = f"{_ascii(first).lower()[:rng.randint(1, 5)]}{_ascii(last).lower()}{rng.choice(['', '_'])}{rng.randint(1, 99)}"
        customer = _Customer(
            id=f"cus_{len(self.customers) + 1:06d}", country=country, first=first, last=last, email=email,
            phone=phone, phone_variants=variants, street=street, address=address, username=username,
            created_at=at - timedelta(days=rng.randint(120, 1100), seconds=rng.randint(0, 86399)),
        )
        for value, kind in ((customer.name, "PERSON"), (first, "FIRST_NAME"), (last, "LAST_NAME"),
                            (email, "EMAIL_ADDRESS"), (phone, "PHONE_NUMBER"), (street, "ADDRESS"),
                            (address, "ADDRESS")):
            self.pii.add(value, kind)
        self.customers.append(customer)
        return customer

    def address(self, country: str, fake: Faker) -> tuple[str, str, str]:
        """(street line, full address, the full address without its postal code)."""
        if country == "FR":
            street = f"{self.rng.randint(1, 140)} {fake.street_name()}"
        else:
            street = fake.street_address().replace("\n", ", ")
        city, postcode = fake.city(), fake.postcode()
        if country == "US":
            state = fake.state_abbr()
            return street, f"{street}, {city}, {state} {postcode}", f"{street}, {city}, {state}"
        if country in ("DE", "FR"):
            return street, f"{street}, {postcode} {city}", f"{street}, {city}"
        return street, f"{street}, {city} {postcode}", f"{street}, {city}"

    def new_order(self, customer: _Customer, status: str, days_ago: float, at: datetime) -> _Order:
        """An order placed `days_ago` days before `at`, or for a delivered one, delivered then
        (after 2-6 days in transit)."""
        rng = self.rng
        moment = at - timedelta(days=days_ago, seconds=rng.randint(600, 7200))
        delivered = moment if status == "delivered" else None
        created = moment - timedelta(days=rng.randint(2, 6), hours=rng.randint(0, 10)) if delivered else moment
        items = []
        for sku, name, price in rng.sample(CATALOG, rng.choices([1, 2, 3], weights=[60, 30, 10])[0]):
            self.item_count += 1
            items.append(_Item(f"oi_{self.item_count:07d}", sku, name, price, rng.choices([1, 2, 3], [80, 15, 5])[0]))
        method = rng.choices(["card", "paypal", "gift_card"], weights=[75, 18, 7])[0]
        card = self.pii.add(_card_number(rng), "CREDIT_CARD") if method == "card" else None
        while True:
            order_id = f"#W{rng.randint(1000000, 9999999)}"
            if order_id not in self.orders:
                break
        order = _Order(order_id, customer.id, status, created, delivered, customer.address, items,
                       f"pay_{len(self.orders) + 1:07d}", method, card)
        self.orders[order_id] = order
        customer.orders.append(order)
        return order

    def refund(self, order: _Order, cents: int, reason: str, at: datetime) -> str:
        refund_id = f"re_{len(self.refunds) + 1:06d}"
        self.refunds.append((refund_id, order.id, cents, reason, at))
        return refund_id

    def return_label(self, order: _Order, at: datetime) -> str:
        label_id = f"rl_{len(self.labels) + 1:06d}"
        self.labels.append((label_id, order.id, at))
        return label_id


STATE_SCHEMA = """
CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, phone TEXT,
    address TEXT, created_at TEXT NOT NULL);
CREATE TABLE orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id),
    status TEXT NOT NULL, total_cents INTEGER NOT NULL, created_at TEXT NOT NULL, delivered_at TEXT,
    shipping_address TEXT);
CREATE TABLE order_items (id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), sku TEXT NOT NULL,
    name TEXT NOT NULL, price_cents INTEGER NOT NULL, quantity INTEGER NOT NULL);
CREATE TABLE payments (id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), method TEXT NOT NULL,
    card_number TEXT, amount_cents INTEGER NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE refunds (id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id),
    amount_cents INTEGER NOT NULL, reason TEXT, created_at TEXT NOT NULL);
CREATE TABLE return_labels (id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id),
    created_at TEXT NOT NULL);
"""

MAPPING_YAML = """\
# Entity mapping of state/shop.db: how rows relate, which columns hold personal data,
# and which column dates a row (rows created after a session started are not its starting state).
kinds:
  customer:
    table: customers
    key: id
    pii: {name: PERSON, email: EMAIL_ADDRESS, phone: PHONE_NUMBER, address: ADDRESS}
    dated_by: created_at
  order:
    table: orders
    key: id
    foreign_keys: {customer_id: customer}
    pii: {shipping_address: ADDRESS}
    dated_by: created_at
  order_item:
    table: order_items
    key: id
    foreign_keys: {order_id: order}
  payment:
    table: payments
    key: id
    foreign_keys: {order_id: order}
    pii: {card_number: CREDIT_CARD}
    dated_by: created_at
  refund:
    table: refunds
    key: id
    foreign_keys: {order_id: order}
    dated_by: created_at
  return_label:
    table: return_labels
    key: id
    foreign_keys: {order_id: order}
    dated_by: created_at
"""


def _write_state(world: _World, folder: Path) -> dict[str, int]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mapping.yaml").write_text(MAPPING_YAML, encoding="utf-8")
    orders = sorted(world.orders.values(), key=lambda order: order.id)
    rows = {
        "customers": [(c.id, c.name, c.email, c.phone, c.address, _iso(c.created_at)) for c in world.customers],
        "orders": [(o.id, o.customer_id, o.status, o.total_cents, _iso(o.created_at),
                    _iso(o.delivered_at) if o.delivered_at else None, o.shipping_address) for o in orders],
        "order_items": sorted((i.id, o.id, i.sku, i.name, i.price_cents, i.quantity) for o in orders for i in o.items),
        "payments": sorted((o.payment_id, o.id, o.method, o.card_number, o.total_cents, _iso(o.created_at))
                           for o in orders),
        "refunds": [(r[0], r[1], r[2], r[3], _iso(r[4])) for r in world.refunds],
        "return_labels": [(label[0], label[1], _iso(label[2])) for label in world.labels],
    }
    connection = sqlite3.connect(folder / "shop.db")
    try:
        connection.executescript(STATE_SCHEMA)
        for table, table_rows in rows.items():
            if table_rows:
                marks = ",".join("?" * len(table_rows[0]))
                connection.executemany(f"INSERT INTO {table} VALUES ({marks})", table_rows)
        connection.commit()
    finally:
        connection.close()
    return {table: len(table_rows) for table, table_rows in rows.items()}


# ---------------------------------------------------------------- session planning


@dataclass
class _Plan:
    index: int
    at: datetime
    intent: str
    outcome: str

    @property
    def session_id(self) -> str:
        return f"sess-{self.at:%Y%m%d}-{self.index:06d}"


@dataclass
class _Deploy:
    id: str
    kind: str
    at: datetime
    from_version: str
    to_version: str
    released_at: datetime
    reason: str
    incident_id: str | None
    session_ids: list[str]


def _plan_sessions(rng: random.Random, sessions: int, days: int, start: date) -> list[_Plan]:
    day_weights = [0.75 if (start + timedelta(days=d)).weekday() >= 5 else 1.0 for d in range(days)]
    per_day = Counter(rng.choices(range(days), weights=day_weights, k=sessions))
    times: list[datetime] = []
    for day in range(days):
        midnight = datetime.combine(start + timedelta(days=day), datetime.min.time(), tzinfo=timezone.utc)
        for _ in range(per_day[day]):
            hour = rng.choices(range(24), weights=HOUR_WEIGHTS)[0]
            times.append(midnight + timedelta(hours=hour, seconds=rng.randint(0, 3599),
                                              microseconds=rng.randint(0, 999999)))
    times.sort()
    intents = rng.choices(list(INTENT_WEIGHTS), weights=list(INTENT_WEIGHTS.values()), k=sessions)
    outcomes = rng.choices(list(OUTCOME_WEIGHTS), weights=list(OUTCOME_WEIGHTS.values()), k=sessions)
    return [_Plan(i + 1, at, intent, outcome) for i, (at, intent, outcome) in enumerate(zip(times, intents, outcomes))]


def _mark_regressions(rng: random.Random, plans: list[_Plan]) -> list[_Deploy]:
    """Marks a run of refund sessions hit by a bad release (later rolled back) in the first half
    and a run of address changes hit by another (later hotfixed) in the second half."""
    half = len(plans) // 2
    run = max(1, min(15, round(len(plans) * 0.012)))
    rolled_back = _hit(rng, plans[:half], "refund", "rolled_back", run)
    hotfixed = _hit(rng, plans[half:], "address_change", "hotfixed", run)
    gap_middle = rolled_back[-1].at + (hotfixed[0].at - rolled_back[-1].at) / 2
    rollback_at = min(rolled_back[-1].at + timedelta(minutes=rng.randint(35, 240)), gap_middle)
    hotfix_release = max(hotfixed[0].at - timedelta(minutes=rng.randint(20, 600)), gap_middle + timedelta(seconds=1))
    return [
        _Deploy("dep-0001", "rollback", rollback_at, "2.15.0", BASE_VERSION,
                rolled_back[0].at - timedelta(minutes=rng.randint(20, 600)),
                "refund_order was called without checking the 30-day return window; refunds were issued for "
                "orders delivered more than 30 days earlier", f"INC-{rng.randint(2000, 2999)}",
                [plan.session_id for plan in rolled_back]),
        _Deploy("dep-0002", "hotfix", hotfixed[-1].at + timedelta(minutes=rng.randint(35, 240)), "2.16.0", "2.16.1",
                hotfix_release, "update_address accepted addresses without a postal code; added validation before saving",
                None, [plan.session_id for plan in hotfixed]),
    ]


def _hit(rng: random.Random, pool: list[_Plan], intent: str, outcome: str, run: int) -> list[_Plan]:
    """Gives `outcome` to up to `run` consecutive sessions of `intent` in `pool` (making one if none)."""
    matching = [plan for plan in pool if plan.intent == intent]
    if not matching:
        chosen = pool[len(pool) // 2]
        chosen.intent = intent
        matching = [chosen]
    first = rng.randrange(max(1, len(matching) - run + 1))
    hit = matching[first : first + run]
    for plan in hit:
        plan.outcome = outcome
    return hit


def _version_at(deploys: list[_Deploy], at: datetime) -> str:
    events = sorted([(d.released_at, d.from_version) for d in deploys] + [(d.at, d.to_version) for d in deploys])
    version = BASE_VERSION
    for when, value in events:
        if when <= at:
            version = value
    return version


# ---------------------------------------------------------------- conversations


@dataclass
class _ToolError:
    exception_type: str
    message: str
    service: str
    log_body: str


@dataclass
class _ToolStep:
    name: str
    arguments: dict[str, Any]
    result: Any = None
    error: _ToolError | None = None
    effect: Callable[[datetime], dict[str, Any]] | None = None
    """Applies the call to the shop at the call's time; what it returns is merged into the result."""


@dataclass
class _Turn:
    user: str
    tools: list[_ToolStep]
    reply: str
    interim: str | None = None


@dataclass
class _Play:
    """One intent's conversation material for one customer and order."""

    opener: str
    lookup: list[_ToolStep]
    action: list[_ToolStep]
    reply: str
    bad_action: list[_ToolStep]
    bad_reply: str
    complaint: str
    escalation_reason: str
    resolution: str
    resolution_effect: Callable[[datetime], None] | None = None
    details: str | None = None
    """A second user message the agent asked for (verification details, ...)."""


ERRORS = {
    "get_order": ("TimeoutError", "orders-api", "upstream timeout calling orders-db for order {order} after 30000ms"),
    "refund_order": ("PaymentGatewayError", "payments-gateway", "payment gateway timeout for card ending {last4} customer {email}"),
    "create_return_label": ("HTTPError", "returns-service", "label provider UPS returned 503 for order {order} (attempt 3/3)"),
    "cancel_order": ("ConflictError", "orders-api", "cannot cancel order {order}: fulfillment lock held by wms-worker-{n}"),
    "update_address": ("HTTPError", "customers-api", "address validation service returned 502 for customer {customer}"),
    "get_customer": ("HTTPError", "customers-api", "customers-api 502 Bad Gateway fetching customer {customer}"),
    "list_orders": ("TimeoutError", "orders-api", "upstream timeout listing orders for customer {customer} after 30000ms"),
}
REFUND_ERROR_500 = "refund service returned 500 for order {order}"

SIGN_OFFS = ["", "", "", "\n\nThanks,\n{first}", " - {lower_name}", "\n{name}", " thx, {lower_first}", "\nRegards, {name}"]
THANKS = ["great, thanks!", "Perfect, thank you so much", "ok thx", "Thank you, that's all I needed.", "cool ty",
          "Thanks for the quick help!"]
ORDER_INTERIMS = ["Let me look that up for you.", "One moment while I check {order}.", "Checking order {order} now."]
ACCOUNT_INTERIMS = ["Sure, give me a second to pull up your account.", "Let me look that up for you.",
                    "One moment while I check your account."]
HUMAN_REQUESTS = ["Can I please speak to a real person?", "I want to talk to a human, this bot isn't helping",
                  "agent please", "Is there a person I can talk to? This is urgent."]
RETRY_ASKS = ["is it working now?", "Can you try again please?", "still nothing?"]
STATUS_OPENERS = [
    "Hi, where is my order {order}? I ordered it {ago} and it still says {status}.",
    "Hello, I placed order {order} {ago} and haven't received anything yet. Can you check please?",
    "my package hasn't arrived, order number {order}",
    "Any update on {order}? The {item} was supposed to be here by now.",
    "Can you tell me when order {order} will be delivered? I need the {item} before the weekend.",
    "Tracking for {order} hasn't moved in days... what's going on?",
    "hey, ordered a {item} {ago}, order {order}. when will it ship?",
]
REFUND_OPENERS = [
    "I want a refund for order {order}. The {item} arrived damaged.",
    "Hi, I returned the {item} from order {order} last week and still no refund. What's going on?",
    "please refund {order}, the {item} doesn't fit and I don't want an exchange",
    "The {item} I got (order {order}) stopped working after a week. I'd like my money back.",
    "Hello, can I get a refund on {order}? I was charged {amount} but the {item} was faulty.",
]
RETURN_OPENERS = [
    "How do I return the {item} from order {order}? I need a return label.",
    "hi can you send me a return label for {order}",
    "I'd like to send back the {item} (order {order}), it's the wrong size. Label please?",
    "The {item} from {order} isn't what I expected. Can I return it? It arrived {ago}.",
]
CANCEL_OPENERS = [
    "Please cancel order {order}, I ordered the wrong {item}.",
    "i need to cancel {order} asap, placed it by mistake {ago}",
    "Can I still cancel my order {order}? Found the {item} cheaper elsewhere.",
    "Hi, I want to cancel order {order} before it ships.",
]
ADDRESS_OPENERS = [
    "I moved last month, can you update my address to {new_address}?",
    "Hi, please change the shipping address on my account to {new_address}. My order {order} hasn't shipped yet.",
    "wrong address on my account!! should be {new_address}",
    "Can you update my address? New one is {new_address}. Thanks",
]
ACCOUNT_OPENERS = [
    "I can't log in to my account. My login is {username} and it says my account is locked.",
    "Hi, I've been locked out after too many password attempts. Username {username}, email {email}.",
    "someone tried to access my account from {ip}, I got a security email. I didn't do this! my login is {username}",
    "Password reset email never arrives. I'm using {email}.",
    "My account was blocked, it says suspicious sign-in from IP {ip}. Can you unlock it? Username: {username}",
]


class _Conversation:
    """Writes one session's conversation material for its customer, order, intent and outcome."""

    def __init__(self, rng: random.Random, world: _World, plan: _Plan, customer: _Customer, order: _Order) -> None:
        self.rng, self.world, self.plan, self.customer, self.order = rng, world, plan, customer, order
        self.pii = world.pii
        self.at = plan.at
        self.listed_orders: list[str] = []

    # -- text

    def say(self, template: str, personal: dict[str, str] | None = None, **slots: str) -> str:
        """Fills a casually typed template; `personal` (slot -> PII type) names the slots whose
        values are personal, which are recorded when the template uses them."""
        for key, kind in (personal or {}).items():
            if "{" + key + "}" in template:
                self.pii.add(slots[key], kind)
        return _casual(template, self.rng).format(**slots)

    def sign_off(self) -> str:
        c = self.customer
        template = self.rng.choice(SIGN_OFFS)
        slots = {"first": c.first, "name": c.name, "lower_name": c.name.lower(), "lower_first": c.first.lower()}
        for key, kind in (("first", "FIRST_NAME"), ("name", "PERSON"), ("lower_name", "PERSON"),
                          ("lower_first", "FIRST_NAME")):
            if "{" + key + "}" in template:
                self.pii.add(slots[key], kind)
        return template.format(**slots)

    def contact(self) -> str:
        c, rng = self.customer, self.rng
        roll = rng.random()
        if roll < 0.2:
            phone = self.pii.add(rng.choice([c.phone, *c.phone_variants]), "PHONE_NUMBER")
            return rng.choice([f" You can call me on {phone}.", f" my number is {phone}", f" Call me: {phone}"])
        if roll < 0.32:
            return f" My email is {c.email}."
        return ""

    def card_mention(self) -> str:
        pan = self.order.card_number
        if not pan or self.rng.random() > 0.25:
            return ""
        groups = [pan[i : i + 4] for i in range(0, len(pan), 4)]
        written = self.pii.add(self.rng.choice([" ".join(groups), "-".join(groups), pan]), "CREDIT_CARD")
        return self.rng.choice([f" I paid with card {written}.", f" (card {written})", f" it was on my card {written}"])

    def iban_mention(self) -> str:
        if self.customer.country not in ("DE", "FR", "GB") or self.rng.random() > 0.35:
            return ""
        iban = _iban(self.rng, self.customer.country)
        written = " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if self.rng.random() < 0.5 else iban
        self.pii.add(written, "IBAN_CODE")
        return f" If it's easier, send the money to my bank account, IBAN {written}."

    def ago(self, moment: datetime) -> str:
        return _days_ago_words(max(0, (self.at - moment).days), self.rng)

    def order_slots(self) -> dict[str, str]:
        o = self.order
        return {"order": o.id, "item": o.items[0].name, "amount": _money(o.total_cents),
                "ago": self.ago(o.delivered_at or o.created_at), "status": o.status}

    # -- tools

    def order_view(self) -> dict[str, Any]:
        o = self.order
        return {
            "id": o.id, "customer_id": o.customer_id, "status": o.status, "total_cents": o.total_cents,
            "created_at": _iso(o.created_at), "delivered_at": _iso(o.delivered_at) if o.delivered_at else None,
            "shipping_address": o.shipping_address,
            "items": [{"sku": i.sku, "name": i.name, "price_cents": i.price_cents, "quantity": i.quantity} for i in o.items],
            "payment": {"method": o.method, "card_last4": o.card_number[-4:] if o.card_number else None},
        }

    def customer_view(self) -> dict[str, Any]:
        c = self.customer
        return {"id": c.id, "name": c.name, "email": c.email, "phone": c.phone, "address": c.address,
                "created_at": _iso(c.created_at), "orders_count": len(c.orders)}

    def get_order(self) -> _ToolStep:
        return _ToolStep("get_order", {"order_id": self.order.id}, self.order_view())

    def get_customer(self) -> _ToolStep:
        return _ToolStep("get_customer", {"customer_id": self.customer.id}, self.customer_view())

    def list_orders(self) -> _ToolStep:
        self.listed_orders = [o.id for o in self.customer.orders]
        rows = [{"id": o.id, "status": o.status, "total_cents": o.total_cents, "created_at": _iso(o.created_at)}
                for o in sorted(self.customer.orders, key=lambda o: o.created_at, reverse=True)]
        return _ToolStep("list_orders", {"customer_id": self.customer.id}, {"orders": rows})

    def refund(self, reason: str) -> _ToolStep:
        order, cents = self.order, self.order.total_cents

        def apply(at: datetime) -> dict[str, Any]:
            return {"refund_id": self.world.refund(order, cents, reason, at), "status": "succeeded"}

        return _ToolStep("refund_order", {"order_id": order.id, "amount_cents": cents, "reason": reason},
                         {"amount_cents": cents}, effect=apply)

    def return_label(self) -> _ToolStep:
        order, tracking = self.order, "1Z" + "".join(self.rng.choice("0123456789ABCDEF") for _ in range(16))

        def apply(at: datetime) -> dict[str, Any]:
            label_id = self.world.return_label(order, at)
            return {"label_id": label_id, "url": f"https://returns.acme-outfitters.com/labels/{label_id}.pdf"}

        return _ToolStep("create_return_label", {"order_id": order.id},
                         {"carrier": "UPS", "tracking_number": tracking}, effect=apply)

    def cancel(self) -> _ToolStep:
        order = self.order

        def apply(at: datetime) -> dict[str, Any]:
            order.status = "cancelled"
            return {"status": "cancelled"}

        return _ToolStep("cancel_order", {"order_id": order.id}, {"order_id": order.id}, effect=apply)

    def update_address(self, address: str, *, open_orders_too: bool) -> _ToolStep:
        customer = self.customer

        def apply(at: datetime) -> dict[str, Any]:
            customer.address = address
            moved = [o for o in customer.orders if open_orders_too and o.status in ("pending", "processing")]
            for order in moved:
                order.shipping_address = address
            return {"address": address, "orders_updated": [o.id for o in moved]}

        return _ToolStep("update_address", {"customer_id": customer.id, "address": address},
                         {"customer_id": customer.id}, effect=apply)

    def escalate(self, reason: str) -> _ToolStep:
        queue = ESCALATION_QUEUE[self.plan.intent]
        return _ToolStep("escalate_to_human", {"reason": reason},
                         {"queue": queue, "position": self.rng.randint(1, 14), "estimated_wait_minutes": self.rng.randint(2, 45)})

    def error_for(self, step: _ToolStep) -> _ToolError:
        exception_type, service, template = ERRORS[step.name]
        o, c = self.order, self.customer
        if step.name == "refund_order" and (not o.card_number or self.rng.random() < 0.5):
            service, template = "refund-service", REFUND_ERROR_500
        body = template.format(order=o.id, customer=c.id, email=c.email, n=self.rng.randint(1, 12),
                               last4=(o.card_number or "0000")[-4:])
        summary = {"TimeoutError": "tool timed out after 30s", "ConflictError": "409 Conflict"}.get(
            exception_type, "upstream service error 5xx")
        return _ToolError(exception_type, f"{step.name} failed: {summary}", service, body)

    # -- one play per intent

    def play_order_status(self) -> _Play:
        o, slots = self.order, self.order_slots()
        eta = _day_words(self.at + timedelta(days=self.rng.randint(1, 4)), weekday=True)
        if o.status == "delivered":
            truth = (f"Order {o.id} was marked delivered on {_day_words(o.delivered_at)} at {o.shipping_address}. "
                     "If you can't find it, check with neighbours or your building's front desk.")
        else:
            truth = {
                "pending": f"Your order {o.id} is waiting for payment confirmation and should ship within 2 business days.",
                "processing": f"Your order {o.id} is being packed at our warehouse and should ship by {eta}.",
                "shipped": f"Good news: order {o.id} ({o.items[0].name}) has shipped with UPS and is expected on {eta}.",
            }[o.status]
        wrong = f"Your order {o.id} was delivered on {_day_words(self.at - timedelta(days=1))}. Please check around your property."
        return _Play(
            opener=self.say(self.rng.choice(STATUS_OPENERS), **slots) + self.contact() + self.sign_off(),
            lookup=[self.get_order()], action=[], reply=truth, bad_action=[], bad_reply=wrong,
            complaint=self.say("That's not right, there is nothing here and the tracking for {order} still says in transit.", order=o.id),
            escalation_reason=self.rng.choice(["customer requested a human agent", "package reported lost by customer"]),
            resolution=f"Opened a carrier trace with UPS for order {o.id} and promised a replacement if not found within 3 days.",
        )

    def play_refund(self) -> _Play:
        o, slots = self.order, self.order_slots()
        reason, finding = self.rng.choice([("damaged on arrival", "arrived damaged"), ("item defective", "was defective"),
                                           ("does not fit", "was returned unworn"), ("not as described", "did not match the listing")])
        paid = f"card ending {o.card_number[-4:]}" if o.card_number else o.method.replace("_", " ")
        in_window = o.delivered_at is not None and (self.at - o.delivered_at).days <= RETURN_WINDOW_DAYS
        cents = o.total_cents
        return _Play(
            opener=self.say(self.rng.choice(REFUND_OPENERS), **slots) + self.card_mention() + self.iban_mention()
            + self.sign_off(),
            lookup=[self.get_order()],
            action=[self.refund(reason)] if in_window or self.plan.outcome == "rolled_back" else [],
            reply=(f"I've refunded {_money(cents)} for order {o.id} to your {paid}. It usually shows up in 3-5 business days."
                   if in_window or self.plan.outcome == "rolled_back" else
                   f"I'm sorry, order {o.id} was delivered more than {RETURN_WINDOW_DAYS} days ago, so it is outside our return window."),
            bad_action=[],
            bad_reply=f"Done! I've processed a full refund of {_money(cents)} for order {o.id}.",
            complaint=self.say("Your chat bot told me my refund for {order} was processed but nothing has arrived and my bank "
                               "sees no pending refund.", order=o.id),
            escalation_reason=self.rng.choice(["refund amount above agent limit", "customer requested a human agent",
                                               "customer threatens chargeback"]),
            resolution=f"Refunded {_money(cents)} to the original {o.method.replace('_', ' ')} for order {o.id} after confirming the item {finding}.",
            resolution_effect=lambda at: self.world.refund(o, cents, reason + " (human agent)", at),
        )

    def play_return_label(self) -> _Play:
        o, slots = self.order, self.order_slots()
        in_window = o.delivered_at is not None and (self.at - o.delivered_at).days <= RETURN_WINDOW_DAYS
        return _Play(
            opener=self.say(self.rng.choice(RETURN_OPENERS), **slots) + self.sign_off(),
            lookup=[self.get_order()],
            action=[self.return_label()] if in_window else [],
            reply=(f"Here is your prepaid UPS return label for order {o.id}. Drop the parcel at any UPS location within 14 days; "
                   f"the refund is issued once it reaches us." if in_window else
                   f"Unfortunately order {o.id} is past our {RETURN_WINDOW_DAYS}-day return window, so I can't create a label."),
            bad_action=[],
            bad_reply=f"Unfortunately order {o.id} is past our {RETURN_WINDOW_DAYS}-day return window, so I can't create a label.",
            complaint=self.say("The bot refused a return label for {order} saying the return window was over, but it was "
                               "delivered on {delivered}!", order=o.id, delivered=_day_words(o.delivered_at)),
            escalation_reason="customer disputes return eligibility",
            resolution=f"Emailed a prepaid return label for order {o.id} and waived the restocking fee.",
            resolution_effect=lambda at: self.world.return_label(o, at),
        )

    def play_cancellation(self) -> _Play:
        o, slots = self.order, self.order_slots()
        can_cancel = o.status in ("pending", "processing")
        return _Play(
            opener=self.say(self.rng.choice(CANCEL_OPENERS), **slots) + self.sign_off(),
            lookup=[self.get_order()],
            action=[self.cancel()] if can_cancel else [],
            reply=(f"Order {o.id} is cancelled. You'll get {_money(o.total_cents)} back on your original payment method within 5 days."
                   if can_cancel else f"Order {o.id} has already shipped, so I can't cancel it, but you can return it for free once it arrives."),
            bad_action=[],
            bad_reply=f"Order {o.id} is cancelled. You will not be charged.",
            complaint=self.say("I cancelled {order} with your bot and it still shipped and I was charged {amount}!!",
                               order=o.id, amount=_money(o.total_cents)),
            escalation_reason="order already shipped, carrier intercept needed",
            resolution=f"Requested a UPS intercept for order {o.id}; refund will follow when the parcel is returned to the warehouse.",
        )

    def play_address_change(self) -> _Play:
        c, o = self.customer, self.order
        street, full, without_postcode = self.world.address(c.country, self.world.fakers[c.country])
        if self.plan.outcome == "hotfixed":
            full = without_postcode
        self.pii.add(street, "ADDRESS")
        self.pii.add(full, "ADDRESS")
        return _Play(
            opener=self.say(self.rng.choice(ADDRESS_OPENERS), new_address=full, order=o.id)
            + self.contact() + self.sign_off(),
            lookup=[self.get_customer()], action=[self.update_address(full, open_orders_too=True)],
            reply=f"Done, your address is now {full}. Orders that haven't shipped yet will go to the new address.",
            bad_action=[self.update_address(full, open_orders_too=False)],
            bad_reply=f"Done, your address is now {full}.",
            complaint=self.say("I changed my address with your chat and order {order} still went to my OLD address. Now it's lost.",
                               order=o.id),
            escalation_reason="address change for an order already in transit",
            resolution=f"Updated the shipping address of order {o.id} with the carrier and confirmed the new address by phone.",
        )

    def play_account_access(self) -> _Play:
        c, rng = self.customer, self.rng
        ip = _public_ipv4(rng) if rng.random() < 0.7 else _public_ipv6(rng)
        birth = date(rng.randint(1950, 2004), rng.randint(1, 12), rng.randint(1, 28))
        dob = self.pii.add(rng.choice([f"{birth:%m/%d/%Y}", f"{birth:%d.%m.%Y}", f"{_day_words(birth)}, {birth.year}"]), "DATE_OF_BIRTH")
        details = f"my date of birth is {dob}"
        if c.country == "US" and rng.random() < 0.6:
            details += f" and my social is {self.pii.add(_ssn(rng), 'US_SSN')}"
        if rng.random() < 0.5:
            details += f", phone {self.pii.add(rng.choice(c.phone_variants), 'PHONE_NUMBER')}"
        return _Play(
            opener=self.say(rng.choice(ACCOUNT_OPENERS), {"username": "USERNAME", "ip": "IP_ADDRESS"},
                            username=c.username, email=c.email, ip=ip) + self.sign_off(),
            lookup=[self.get_customer()], action=[],
            details=details,
            reply=f"Thanks. I've sent a password reset link to {c.email}; it is valid for 30 minutes. The lock clears once you set a new password.",
            bad_action=[], bad_reply="Please use the 'Forgot password' link on the sign-in page to reset your password.",
            complaint=self.say("I did the forgot password thing 3 times, no email ever comes. The bot just repeats the same answer."),
            escalation_reason="identity verification required to unlock account",
            resolution=f"Verified identity by phone at {c.phone}, unlocked the account and reset the password.",
        )

    def play_other(self) -> _Play:
        o, rng = self.order, self.rng
        item = o.items[0].name
        balance = _money(rng.randint(0, 15000))
        friend = self.world.fakers[self.customer.country].first_name()
        opener, reply, answer = rng.choice([
            ("How much is left on my gift card? I used some of it on order {order}.",
             f"Your gift card balance is {balance}.", f"confirmed a gift card balance of {balance}"),
            ("Does the {item} come in a bigger size?",
             f"The {item} comes in sizes S to XXL; the size chart is on the product page.", "sent the size chart"),
            ("Is the {item} waterproof? Thinking of buying another one for my partner {friend}.",
             f"The {item} is water resistant, not fully waterproof.", "answered the waterproofing question"),
            ("Can I use two gift cards on one order?", "Yes, you can combine up to two gift cards per order.",
             "explained how to combine gift cards"),
        ])
        return _Play(
            opener=self.say(opener, {"friend": "FIRST_NAME"}, order=o.id, item=item, friend=friend) + self.sign_off(),
            lookup=[self.list_orders()], action=[], reply=reply,
            bad_action=[], bad_reply="I'm sorry, I can only help with orders, refunds and returns.",
            complaint=self.say("Your assistant couldn't answer a simple question. Very disappointing."),
            escalation_reason="question outside agent scope",
            resolution=f"Replied by email: {answer}.",
        )

    def turns(self, play: _Play) -> list[_Turn]:
        """The conversation the outcome calls for."""
        rng, outcome, o = self.rng, self.plan.outcome, self.order
        about_order = any(step.name == "get_order" for step in play.lookup)
        interim = rng.choice(ORDER_INTERIMS if about_order else ACCOUNT_INTERIMS).format(order=o.id)
        first_tools = list(play.lookup)
        turns: list[_Turn] = []
        if play.details is not None:
            turns.append(_Turn(play.opener, first_tools, "To verify your identity, please confirm your date of birth.", interim))
            opener, first_tools, interim = play.details, [], None
        else:
            opener = play.opener
        if outcome == "failed":
            turns.append(_Turn(opener, first_tools + play.bad_action, play.bad_reply, interim))
            turns.append(_Turn(play.complaint, [], "I'm sorry for the trouble. Is there anything else I can help with?"))
        elif outcome == "escalated":
            if rng.random() < 0.5:
                holding = f"I can see order {o.id}." if about_order else "I can see your account."
                turns.append(_Turn(opener, first_tools, f"{holding} Let me check what I can do.", interim))
                opener, first_tools, interim = rng.choice(HUMAN_REQUESTS), [], None
            step = self.escalate(play.escalation_reason)
            turns.append(_Turn(opener, first_tools + [step],
                               f"I've passed this to a colleague on our {step.result['queue']} team. "
                               f"You're number {step.result['position']} in the queue.", interim))
        elif outcome == "errored":
            steps = first_tools + play.action or [self.get_customer()]
            failing = steps[-1]
            failing.error = self.error_for(failing)
            turns.append(_Turn(opener, steps, "I'm sorry, I'm having trouble reaching our systems right now. "
                                              "Please try again in a few minutes.", interim))
            if rng.random() < 0.5:
                retry = _ToolStep(failing.name, dict(failing.arguments), error=self.error_for(failing))
                turns.append(_Turn(rng.choice(RETRY_ASKS), [retry], "It's still not working on my side, sorry. "
                                                                    "Our team has been alerted."))
        else:
            turns.append(_Turn(opener, first_tools + play.action, play.reply, interim))
            if rng.random() < 0.45:
                turns.append(_Turn(_casual(rng.choice(THANKS), rng) + self.sign_off(), [],
                                   "You're welcome! Have a great day."))
        return turns


# ---------------------------------------------------------------- OTLP spans


def _otlp_attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    attributes = []
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, bool):
            encoded: dict[str, Any] = {"boolValue": value}
        elif isinstance(value, int):
            encoded = {"intValue": str(value)}
        elif isinstance(value, float):
            encoded = {"doubleValue": value}
        else:
            encoded = {"stringValue": str(value)}
        attributes.append({"key": key, "value": encoded})
    return attributes


def _message(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


@dataclass
class _Rendered:
    """A session as the agent's tracing saw it."""

    trace_id: str
    started_at: datetime
    ended_at: datetime
    spans: list[dict[str, Any]]
    messages: list[tuple[str, str, datetime]]
    errors: list[tuple[datetime, str, str, _ToolError]]
    """(when, span id, tool name, error) of every failed tool call."""
    tools: list[tuple[datetime, str, int]]
    """(when, tool name, duration ms) of every tool call."""
    escalated_at: datetime | None


class _Tracer:
    """Lays a conversation out in time and writes its spans the way the agent's SDK does."""

    def __init__(self, rng: random.Random, session_id: str, customer_id: str) -> None:
        self.rng, self.session_id = rng, session_id
        self.trace_id = f"{rng.getrandbits(128) | 1:032x}"
        self.root_id = self.span_id()
        self.spans: list[dict[str, Any]] = []
        self.history = [_message("system", f"{SYSTEM_PROMPT}\nAuthenticated customer: {customer_id}")]
        self.tokens_in = self.tokens_out = 0

    def span_id(self) -> str:
        return f"{self.rng.getrandbits(64) | 1:016x}"

    def span(self, name: str, start: datetime, end: datetime, attributes: dict[str, Any], *,
             span_id: str | None = None, parent: str | None = None, kind: int = 1,
             error: _ToolError | None = None) -> str:
        span_id = span_id or self.span_id()
        span: dict[str, Any] = {
            "traceId": self.trace_id, "spanId": span_id, "parentSpanId": self.root_id if parent is None else parent,
            "name": name, "kind": kind, "startTimeUnixNano": str(_unix_ns(start)), "endTimeUnixNano": str(_unix_ns(end)),
            "attributes": _otlp_attributes({"gen_ai.conversation.id": self.session_id, **attributes}),
            "status": {},
        }
        if error is not None:
            span["status"] = {"code": "STATUS_CODE_ERROR", "message": error.message}
            span["events"] = [{"timeUnixNano": str(_unix_ns(end)), "name": "exception", "attributes": _otlp_attributes(
                {"exception.type": error.exception_type, "exception.message": error.log_body})}]
        self.spans.append(span)
        return span_id

    def chat(self, at: datetime, output: str) -> datetime:
        end = at + timedelta(milliseconds=self.rng.randint(600, 4800))
        prompt_chars = sum(len(part["content"]) for message in self.history for part in message["parts"])
        tokens_in, tokens_out = 410 + prompt_chars // 4, 3 + len(output) // 4
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        self.span(f"chat {MODEL}", at, end, {
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": MODEL,
            "gen_ai.response.model": MODEL, "gen_ai.input.messages": _dumps(self.history),
            "gen_ai.output.messages": _dumps([_message("assistant", output)]),
            "gen_ai.usage.input_tokens": tokens_in, "gen_ai.usage.output_tokens": tokens_out,
        }, kind=3)
        self.history.append(_message("assistant", output))
        return end

    def tool(self, at: datetime, step: _ToolStep) -> tuple[datetime, str, int]:
        rng = self.rng
        millis = 30000 + rng.randint(0, 40) if step.error and step.error.exception_type == "TimeoutError" else rng.randint(35, 950)
        end = at + timedelta(milliseconds=millis)
        result = None
        if step.error is None:
            result = dict(step.result or {})
            if step.effect is not None:
                result.update(step.effect(at))
        span_id = self.span(f"execute_tool {step.name}", at, end, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": step.name, "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": f"call_{rng.getrandbits(96):024x}",
            "gen_ai.tool.call.arguments": _dumps(step.arguments),
            "gen_ai.tool.call.result": None if result is None else _dumps(result),
        }, error=step.error)
        return end, span_id, millis


def _render(rng: random.Random, plan: _Plan, customer_id: str, turns: list[_Turn]) -> _Rendered:
    tracer = _Tracer(rng, plan.session_id, customer_id)
    at = plan.at
    messages: list[tuple[str, str, datetime]] = []
    errors: list[tuple[datetime, str, str, _ToolError]] = []
    tools: list[tuple[datetime, str, int]] = []
    escalated_at = None
    for number, turn in enumerate(turns):
        if number:
            at += timedelta(seconds=rng.randint(15, 150), milliseconds=rng.randint(0, 999))
        messages.append(("user", turn.user, at))
        tracer.history.append(_message("user", turn.user))
        at += timedelta(milliseconds=rng.randint(120, 900))
        if turn.tools:
            at = tracer.chat(at, turn.interim or "One moment please.")
            for step in turn.tools:
                at += timedelta(milliseconds=rng.randint(5, 60))
                if step.name == "escalate_to_human":
                    escalated_at = at
                started = at
                at, span_id, millis = tracer.tool(at, step)
                tools.append((started, step.name, millis))
                if step.error is not None:
                    errors.append((at, span_id, step.name, step.error))
        at = tracer.chat(at + timedelta(milliseconds=rng.randint(5, 60)), turn.reply)
        reply_at = at
        at, _, millis = tracer.tool(at + timedelta(milliseconds=rng.randint(5, 40)), _ToolStep(
            "send_reply", {"text": turn.reply}, {"delivered": True, "message_id": f"msg_{rng.getrandbits(48):012x}"}))
        tools.append((reply_at, "send_reply", millis))
        messages.append(("agent", turn.reply, reply_at))
    at += timedelta(milliseconds=rng.randint(3, 30))
    tracer.span(f"invoke_agent {SERVICE}", plan.at, at, {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": SERVICE, "gen_ai.provider.name": "openai",
        "gen_ai.request.model": MODEL, "gen_ai.usage.input_tokens": tracer.tokens_in,
        "gen_ai.usage.output_tokens": tracer.tokens_out,
    }, span_id=tracer.root_id, parent="")
    return _Rendered(tracer.trace_id, plan.at, at, tracer.spans, messages, errors, tools, escalated_at)


# ---------------------------------------------------------------- tickets, logs, escalations


TICKET_SUBJECTS = {
    "order_status": "Where is my order {order}?",
    "refund": "Refund for order {order}",
    "return_label": "Return label request for {order}",
    "cancellation": "Cancel order {order}",
    "address_change": "Change of shipping address",
    "account_access": "Can't log in to my account",
    "other": "Question about gift card / product",
}
FOLLOW_UPS = ["Still waiting on this. Second time I'm writing!!", "Any news? nobody has replied",
              "This is ridiculous, I want this fixed today.", "hello?? is anyone reading these"]
HUMAN_OPENERS = ["Hi {first}, this is {agent} from the {queue} team. I've read your conversation with our assistant.",
                 "Hello {first}, {agent} here from {queue}. Sorry for the wait!"]


@dataclass
class _HumanAgent:
    zendesk_id: int
    first: str
    name: str
    email: str


@dataclass
class _Day:
    """What one day adds to the per-day files, kept until the day is written."""

    trace_lines: list[str] = field(default_factory=list)
    log_lines: list[tuple[datetime, bytes]] = field(default_factory=list)
    app_lines: list[tuple[datetime, str]] = field(default_factory=list)
    escalation_lines: list[tuple[datetime, str]] = field(default_factory=list)


class _DropWriter:
    """Streams the drop's files: per-day files day by day, ticket export pages as they fill."""

    def __init__(self, out: Path, rng: random.Random, pii: _PiiLedger, agents: list[_HumanAgent],
                 export_start: int) -> None:
        self.out, self.rng, self.pii, self.agents = out, rng, pii, agents
        self.records: Counter[str] = Counter()
        self.files: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.day = _Day()
        self.pending_tickets: list[tuple[datetime, dict[str, Any], list[dict[str, Any]]]] = []
        self.page: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        self.ticket_count = self.comment_count = self.escalation_count = 0
        self.end_time = export_start  # the export cursor: unix time of the last exported ticket's update
        for folder in ("tickets/comments", "traces", "error_logs", "escalations", "deploys", "state"):
            (out / folder).mkdir(parents=True, exist_ok=True)

    # -- per session

    def add_session(self, plan: _Plan, customer: _Customer, order: _Order, play: _Play, rendered: _Rendered,
                    version: str) -> dict[str, Any]:
        """Writes what every source says about one session; returns its ids for planted_ids.json."""
        self.add_trace(rendered, version)
        self.add_logs(plan, customer, order, rendered)
        ids: dict[str, Any] = {"ticket_id": None, "escalation_id": None}
        if plan.outcome == "escalated":
            ids["escalation_id"] = self.add_escalation(plan, customer, play, rendered)
        if self.rng.random() < TICKET_CHANCE[plan.outcome]:
            ids["ticket_id"] = self.add_ticket(plan, customer, order, play, rendered)
        return ids

    def add_trace(self, rendered: _Rendered, version: str) -> None:
        resource = {"attributes": _otlp_attributes({
            "service.name": SERVICE, "service.version": version, "deployment.environment": "production",
            "host.name": f"support-agent-{self.rng.choice(['7f9c4', 'b21d8', 'c03a1'])}"})}
        scope = {"name": "support_agent.tracing", "version": version}
        spans = rendered.spans
        batches = [spans] if self.rng.random() < 0.9 or len(spans) < 4 else [spans[: len(spans) // 2], spans[len(spans) // 2 :]]
        for batch in batches:
            self.day.trace_lines.append(_dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [
                {"scope": scope, "spans": batch}]}]}))
        self.records["spans"] += len(spans)

    def log_record(self, at: datetime, severity: int, body: str, attributes: dict[str, Any],
                   trace_id: str = "", span_id: str = "") -> dict[str, Any]:
        text = {17: "ERROR", 13: "WARN", 9: "INFO"}[severity]
        return {"timeUnixNano": str(_unix_ns(at)), "observedTimeUnixNano": str(_unix_ns(at + timedelta(milliseconds=self.rng.randint(1, 400)))),
                "severityNumber": severity, "severityText": text, "body": {"stringValue": body},
                "attributes": _otlp_attributes(attributes),
                **({"traceId": trace_id} if trace_id else {}), **({"spanId": span_id} if span_id else {})}

    def emit_logs(self, service: str, records: list[dict[str, Any]]) -> None:
        line = _dumps({"resourceLogs": [{"resource": {"attributes": _otlp_attributes(
            {"service.name": service, "deployment.environment": "production"})},
            "scopeLogs": [{"scope": {"name": f"{service}.logger"}, "logRecords": records}]}]})
        at = datetime.fromtimestamp(int(records[0]["timeUnixNano"]) / 1e9, timezone.utc)
        self.day.log_lines.append((at, line.encode("utf-8")))
        self.records["log_records"] += len(records)

    def app_line(self, at: datetime, level: str, session_id: str, trace_id: str, message: str) -> None:
        self.day.app_lines.append((at, f"{_iso_ms(at)} {level} [session={session_id} trace={trace_id}] {message}"))

    def add_logs(self, plan: _Plan, customer: _Customer, order: _Order, rendered: _Rendered) -> None:
        rng, sid, trace = self.rng, plan.session_id, rendered.trace_id
        for at, span_id, tool, error in rendered.errors:
            attributes = {"session.id": sid if rng.random() < 0.7 else None, "tool.name": tool,
                          "exception.type": error.exception_type}
            warn_at = at - timedelta(milliseconds=rng.randint(800, 5000))
            warning = self.log_record(warn_at, 13, f"retrying {error.service} call for {tool} (attempt 2/3)", {}, trace, span_id)
            self.emit_logs(error.service, [warning, self.log_record(at, 17, error.log_body, attributes, trace, span_id)])
            self.app_line(warn_at, "WARN", sid, trace, f"{tool} slow response from {error.service}, retrying (attempt 2/3)")
            self.app_line(at, "ERROR", sid, trace, error.log_body)
        for at, tool, millis in rendered.tools:
            if tool == "refund_order" and not rendered.errors:
                self.emit_logs("refund-service", [self.log_record(
                    at, 9, f"refund issued for order {order.id} amount_cents={order.total_cents}", {"session.id": sid}, trace)])
            if tool != "send_reply" and rng.random() < 0.15:
                self.app_line(at, "INFO", sid, trace, f"tool {tool} completed in {millis}ms")
        if plan.intent == "account_access" and rng.random() < 0.5:
            self.emit_logs("auth-service", [self.log_record(
                plan.at - timedelta(minutes=rng.randint(2, 90)), 13,
                f"account {customer.id} locked after 5 failed sign-in attempts (login {customer.email})", {})])
        if rng.random() < 0.04:
            self.app_line(plan.at + timedelta(seconds=2), "WARN", sid, trace,
                          f"chat completion latency {rng.randint(5200, 14000)}ms above 5000ms threshold")

    def add_day_noise(self, day: date) -> None:
        midnight = datetime.combine(day, datetime.min.time(), tzinfo=timezone.utc)
        rng = self.rng
        sync = midnight + timedelta(hours=2, minutes=rng.randint(0, 50))
        self.emit_logs("inventory-sync", [self.log_record(sync, 9, f"nightly inventory sync finished: {rng.randint(900, 2400)} SKUs updated", {})])
        for _ in range(rng.randint(1, 3)):
            at = midnight + timedelta(seconds=rng.randint(0, 86399))
            self.emit_logs("orders-api", [self.log_record(at, 13, f"orders-db connection pool at {rng.randint(80, 97)}% capacity", {})])
            self.app_line(at, "WARN", "-", "-", f"slow query on orders took {rng.randint(1200, 4800)}ms")

    # -- escalations and tickets

    def add_escalation(self, plan: _Plan, customer: _Customer, play: _Play, rendered: _Rendered) -> str:
        rng = self.rng
        self.escalation_count += 1
        escalation_id = f"esc-{self.escalation_count:06d}"
        at = rendered.escalated_at or rendered.ended_at
        record: dict[str, Any] = {"id": escalation_id, "session_id": plan.session_id, "escalated_at": _iso(at),
                                  "reason": play.escalation_reason, "queue": ESCALATION_QUEUE[plan.intent]}
        agent = rng.choice(self.agents)
        human_at = at + timedelta(minutes=rng.randint(2, 45))
        if rng.random() < 0.8:
            greeting = rng.choice(HUMAN_OPENERS).format(first=customer.first, agent=agent.first, queue=record["queue"])
            self.pii.add(customer.first, "FIRST_NAME")
            self.pii.add(agent.first, "FIRST_NAME")
            transcript = [{"role": role, "text": text, "at": _iso(when)} for role, text, when in rendered.messages]
            transcript.append({"role": "human_agent", "text": greeting, "at": _iso(human_at)})
            if rng.random() < 0.75:
                transcript.append({"role": "human_agent", "text": f"All sorted: {play.resolution}",
                                   "at": _iso(human_at + timedelta(minutes=rng.randint(3, 25)))})
            record["transcript"] = transcript
        if rng.random() < 0.75:
            record["resolution"] = play.resolution
            if play.resolution_effect is not None:
                play.resolution_effect(human_at + timedelta(minutes=30))
        self.day.escalation_lines.append((at, _dumps(record)))
        self.records["escalations"] += 1
        return escalation_id

    def record_agent(self, agent: _HumanAgent) -> None:
        self.pii.add(agent.name, "PERSON")
        self.pii.add(agent.first, "FIRST_NAME")
        self.pii.add(agent.name.split(" ", 1)[1], "LAST_NAME")
        self.pii.add(agent.email, "EMAIL_ADDRESS")

    def zendesk_user(self, customer: _Customer) -> dict[str, Any]:
        phone = customer.phone if int(customer.id[4:]) % 3 else None
        return {"id": 90_000_000_000 + int(customer.id[4:]) * 7919, "name": customer.name, "email": customer.email,
                "phone": phone, "role": "end-user", "created_at": _iso(customer.created_at)}

    def add_ticket(self, plan: _Plan, customer: _Customer, order: _Order, play: _Play, rendered: _Rendered) -> int:
        rng, outcome = self.rng, plan.outcome
        self.ticket_count += 1
        ticket_id = 48_000 + self.ticket_count
        complaint = outcome in ("failed", "hotfixed")
        created = rendered.ended_at + timedelta(minutes=rng.randint(20, 600) if complaint else rng.randint(0, 5),
                                                seconds=rng.randint(0, 59))
        updated = created + timedelta(minutes=rng.randint(30, 4000))
        agent = rng.choice(self.agents)
        requester = self.zendesk_user(customer)
        if outcome == "hotfixed":
            description = (f"My order never arrived. The address your assistant saved for me has no postcode "
                           f"and the carrier returned order {order.id}.")
        elif outcome == "failed":
            description = play.complaint
        else:
            description = rendered.messages[0][1]
        subject = TICKET_SUBJECTS[plan.intent].format(order=order.id)
        topic = order.id if "{order}" in TICKET_SUBJECTS[plan.intent] else "your request"
        tags = [INTENT_TAG[plan.intent]] + {
            "failed": ["complaint", "reopened"], "hotfixed": ["complaint", "address_invalid"],
            "escalated": ["escalated"], "errored": ["bot_error"], "rolled_back": ["refund_audit"]}.get(outcome, [])
        status = {"failed": "open", "hotfixed": rng.choice(["open", "pending"]), "escalated": rng.choice(["solved", "closed"]),
                  "errored": rng.choice(["new", "solved", "pending"])}.get(outcome, rng.choice(["solved", "closed"]))
        comments = [(requester["id"], description, True, created),
                    (agent.zendesk_id, f"Hi {customer.first}, thanks for reaching out about {topic}. "
                                       f"I'm looking into this now and will update you shortly.\n\n{agent.first}",
                     True, created + timedelta(minutes=rng.randint(10, 240)))]
        self.pii.add(customer.first, "FIRST_NAME")
        self.record_agent(agent)
        if outcome == "failed":
            comments.append((requester["id"], _casual(rng.choice(FOLLOW_UPS), rng), True, updated - timedelta(minutes=20)))
            comments.append((agent.zendesk_id, f"Internal: chat {plan.session_id} - assistant told the customer the "
                                               "request was done but no matching tool call. Flagging to the bot team.",
                             False, updated))
        comments.sort(key=lambda comment: comment[3])
        ticket = {
            "id": ticket_id, "url": f"{ZENDESK}/tickets/{ticket_id}.json", "external_id": plan.session_id,
            "subject": subject, "description": description, "status": status,
            "priority": "high" if complaint else rng.choice(["low", "normal", "normal", "high"]),
            "tags": tags, "requester_id": requester["id"], "assignee_id": agent.zendesk_id,
            "created_at": _iso(created), "updated_at": _iso(updated),
            "custom_fields": [{"id": SESSION_FIELD_ID, "value": plan.session_id}], "via": {"channel": "web"},
        }
        comment_rows = []
        for author, body, public, at in comments:
            self.comment_count += 1
            comment_rows.append({"id": 7_100_000 + self.comment_count, "author_id": author, "body": body,
                                 "public": public, "created_at": _iso(at)})
        path = self.out / "tickets" / "comments" / f"{ticket_id}.json"
        path.write_text(_dumps({"comments": comment_rows, "next_page": None, "count": len(comment_rows)}), encoding="utf-8")
        self.files["ticket_comments"] += 1
        self.records["ticket_comments"] += len(comment_rows)
        self.records["tickets"] += 1
        agent_user = {"id": agent.zendesk_id, "name": agent.name, "email": agent.email, "phone": None,
                      "role": "agent", "created_at": "2023-03-01T09:00:00Z"}
        self.pending_tickets.append((updated, ticket, [requester, agent_user]))
        return ticket_id

    def flush_tickets(self, before: datetime | None) -> None:
        """Moves tickets that can no longer be overtaken (updated before `before`) into export pages."""
        ready = [t for t in self.pending_tickets if before is None or t[0] < before]
        self.pending_tickets = [t for t in self.pending_tickets if before is not None and t[0] >= before]
        for _, ticket, users in sorted(ready, key=lambda t: (t[0], t[1]["id"])):
            self.page.append((ticket, users))
            if len(self.page) == TICKETS_PER_PAGE:
                self.write_page(last=False)

    def write_page(self, *, last: bool) -> None:
        tickets = [ticket for ticket, _ in self.page]
        users = {user["id"]: user for _, page_users in self.page for user in page_users}
        if tickets:
            self.end_time = int(datetime.strptime(tickets[-1]["updated_at"], "%Y-%m-%dT%H:%M:%S%z").timestamp())
        end_time = self.end_time
        self.files["tickets"] += 1
        self.records["ticket_users"] += len(users)
        page = {"tickets": tickets, "users": [users[key] for key in sorted(users)], "count": len(tickets),
                "end_time": end_time,
                "next_page": None if last else f"{ZENDESK}/incremental/tickets.json?start_time={end_time}",
                "end_of_stream": last}
        (self.out / "tickets" / f"export-{self.files['tickets']:04d}.json").write_text(_dumps(page), encoding="utf-8")
        self.page = []

    # -- files

    def write_day(self, day: date, faults: list[str]) -> None:
        d, stamp = self.day, f"{day:%Y-%m-%d}"
        for fault in faults:
            self.plant_fault(fault, day)
        log_lines = [line for _, line in sorted(d.log_lines, key=lambda entry: entry[0])]
        escalations = [line for _, line in sorted(d.escalation_lines, key=lambda entry: entry[0])]
        app_lines = [line for _, line in sorted(d.app_lines, key=lambda entry: entry[0])]
        for kind, path, lines in (
            ("traces", self.out / "traces" / f"{stamp}.jsonl", [line.encode("utf-8") for line in d.trace_lines]),
            ("error_logs", self.out / "error_logs" / f"{stamp}.jsonl", log_lines),
            ("app_logs", self.out / "error_logs" / f"app-{stamp}.log", [line.encode("utf-8") for line in app_lines]),
            ("escalations", self.out / "escalations" / f"{stamp}.jsonl", [line.encode("utf-8") for line in escalations]),
        ):
            if lines:
                path.write_bytes(b"\n".join(lines) + b"\n")
                self.files[kind] += 1
                self.records[f"{kind}_lines"] += len(lines)
        self.flush_tickets(datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=timezone.utc))
        self.day = _Day()

    def plant_fault(self, fault: str, day: date) -> None:
        """Adds one deliberately broken record to today's files (readers must quarantine it)."""
        rng, d = self.rng, self.day
        at = datetime.combine(day, datetime.min.time(), tzinfo=timezone.utc) + timedelta(seconds=rng.randint(0, 86399))
        if fault == "truncated_json" and d.trace_lines:
            line = rng.choice(d.trace_lines)
            d.trace_lines.insert(rng.randrange(len(d.trace_lines) + 1), line[: len(line) * rng.randint(35, 75) // 100])
        elif fault == "invalid_utf8":
            record = self.log_record(at, 17, "label provider returned garbled response: Réponse invalide du transporteur", {})
            line = _dumps({"resourceLogs": [{"resource": {"attributes": _otlp_attributes({"service.name": "returns-service"})},
                                             "scopeLogs": [{"scope": {"name": "returns-service.logger"}, "logRecords": [record]}]}]})
            d.log_lines.append((at, line.encode("latin-1")))
        elif fault == "unknown_trace_id":
            record = self.log_record(at, 17, f"webhook delivery to fulfillment partner failed for order #W{rng.randint(1000000, 9999999)}",
                                     {}, f"{rng.getrandbits(128) | 1:032x}", f"{rng.getrandbits(64) | 1:016x}")
            self.emit_logs("fulfillment-webhooks", [record])
        elif fault == "escalation_missing_session_id":
            self.escalation_count += 1
            record = {"id": f"esc-{self.escalation_count:06d}", "escalated_at": _iso(at),
                      "reason": "customer called the hotline about a chat", "queue": "general"}
            d.escalation_lines.append((at, _dumps(record)))
        else:
            return
        self.faults[fault] += 1

    def write_deploys(self, deploys: list[_Deploy]) -> None:
        lines = []
        for deploy in sorted(deploys, key=lambda d: d.at):
            record = {"id": deploy.id, "kind": deploy.kind, "at": _iso(deploy.at), "service": SERVICE,
                      "from_version": deploy.from_version, "to_version": deploy.to_version, "reason": deploy.reason,
                      "incident_id": deploy.incident_id, "session_ids": deploy.session_ids}
            lines.append(_dumps({k: v for k, v in record.items() if v is not None}))
        (self.out / "deploys" / "deploys.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.files["deploys"] += 1
        self.records["deploys"] += len(lines)


# ---------------------------------------------------------------- the drop


FOCUS_ORDER = {  # intent -> outcome (or "*") -> [(status, days ago range, weight)]
    "order_status": {"*": [("processing", (1, 3), 25), ("shipped", (3, 9), 55), ("pending", (0, 1), 8), ("delivered", (1, 10), 12)]},
    "refund": {"rolled_back": [("delivered", (35, 80), 1)], "*": [("delivered", (2, 27), 85), ("delivered", (33, 70), 15)],
               "failed": [("delivered", (2, 27), 1)], "escalated": [("delivered", (2, 40), 1)]},
    "return_label": {"*": [("delivered", (2, 28), 85), ("delivered", (32, 60), 15)], "failed": [("delivered", (2, 27), 1)]},
    "cancellation": {"*": [("pending", (0, 1), 40), ("processing", (0, 2), 50), ("shipped", (1, 3), 10)],
                     "failed": [("processing", (0, 2), 1)], "errored": [("processing", (0, 2), 1)],
                     "escalated": [("shipped", (1, 3), 1)]},
    "address_change": {"*": [("processing", (0, 2), 45), ("pending", (0, 1), 15), ("delivered", (10, 60), 40)],
                       "failed": [("processing", (0, 2), 1)]},
    "account_access": {"*": [("delivered", (5, 90), 1)]},
    "other": {"*": [("delivered", (5, 90), 1)]},
}


def _cast(rng: random.Random, world: _World, plan: _Plan) -> tuple[_Customer, _Order]:
    """The customer a session is about (sometimes a returning one) and the order it is about."""
    if world.customers and rng.random() < 0.12:
        customer = rng.choice(world.customers)
    else:
        customer = world.new_customer(plan.at)
        age = (plan.at - customer.created_at).days
        for _ in range(rng.choices([0, 1, 2, 3], weights=[35, 35, 20, 10])[0]):
            world.new_order(customer, "delivered", rng.randint(95, max(96, age - 10)), plan.at)
    shapes = FOCUS_ORDER[plan.intent]
    options = shapes.get(plan.outcome, shapes["*"])
    status, (low, high), _ = rng.choices(options, weights=[weight for *_, weight in options])[0]
    return customer, world.new_order(customer, status, rng.randint(low, high), plan.at)


def _human_agents(fake: Faker, rng: random.Random) -> list[_HumanAgent]:
    agents = []
    for number in range(8):
        first, last = fake.first_name(), fake.last_name()
        agents.append(_HumanAgent(361_000_000_000 + number * 104729, first, f"{first} {last}",
                                  f"{_ascii(first).lower()}.{_ascii(last).lower()}@acme-outfitters.com"))
    return agents


def generate_drop(
    out: Path,
    *,
    sessions: int,
    days: int,
    seed: int,
    start: date,
    progress: Callable[[int], None] | None = None,
    with_faults: bool = True,
) -> DropSummary:
    """Writes a demo production drop of `sessions` agent sessions over `days` days from `start`
    (UTC) into the empty or missing folder `out`. Same arguments -> byte-identical files.

    `progress` is called with the number of sessions written so far. With `with_faults`, a few
    deliberately malformed records (well under 1%) are planted for the readers to quarantine.
    """
    if sessions < 2 or days < 1:
        raise ValueError("a drop needs at least 2 sessions and 1 day")
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty; generate a drop into a new folder")
    rng = random.Random(seed)
    fakers = {}
    for number, (country, (locale, _)) in enumerate(LOCALES.items()):
        fakers[country] = Faker(locale)
        fakers[country].seed_instance(seed * 1009 + number)
    staff_faker = Faker("en_US")
    staff_faker.seed_instance(seed * 1009 + len(LOCALES))
    pii = _PiiLedger()
    world = _World(rng, fakers, pii)
    agents = _human_agents(staff_faker, rng)

    plans = _plan_sessions(rng, sessions, days, start)
    deploys = _mark_regressions(rng, plans)
    export_start = int(datetime.combine(start, datetime.min.time(), tzinfo=timezone.utc).timestamp())
    writer = _DropWriter(out, rng, pii, agents, export_start)
    fault_days = _fault_days(rng, plans, sessions) if with_faults else {}
    planted_ids: dict[str, Any] = {}
    by_day: dict[date, list[_Plan]] = {}
    for plan in plans:
        by_day.setdefault(plan.at.date(), []).append(plan)
    done = 0
    for offset in range(days):
        day = start + timedelta(days=offset)
        writer.add_day_noise(day)
        for plan in by_day.get(day, []):
            customer, order = _cast(rng, world, plan)
            conversation = _Conversation(rng, world, plan, customer, order)
            play = getattr(conversation, f"play_{plan.intent}")()
            rendered = _render(rng, plan, customer.id, conversation.turns(play))
            ids = writer.add_session(plan, customer, order, play, rendered, _version_at(deploys, plan.at))
            planted_ids[plan.session_id] = {
                "customer_id": customer.id, "order_ids": sorted({order.id, *conversation.listed_orders}), "intent": plan.intent, "outcome": plan.outcome,
                "trace_id": rendered.trace_id, **ids,
                "deploy_id": next((d.id for d in deploys if plan.session_id in d.session_ids), None),
            }
            done += 1
            if progress is not None:
                progress(done)
        writer.write_day(day, fault_days.get(day, []))
    writer.flush_tickets(None)
    writer.write_page(last=True)
    writer.write_deploys(deploys)
    state_rows = _write_state(world, out / "state")
    writer.files["state"] += 2
    (out / PLANTED_PII_FILE).write_text(_dumps(pii.as_json()) + "\n", encoding="utf-8")
    (out / PLANTED_IDS_FILE).write_text(_dumps({"sessions": planted_ids}) + "\n", encoding="utf-8")
    records = dict(writer.records) | {f"state_{table}": count for table, count in state_rows.items()}
    return DropSummary(
        sessions=sessions, days=days,
        files=dict(sorted(writer.files.items())), records=dict(sorted(records.items())),
        intents=dict(sorted(Counter(plan.intent for plan in plans).items())),
        outcomes=dict(sorted(Counter(plan.outcome for plan in plans).items())),
        faults=dict(sorted(writer.faults.items())),
    )


FAULTS = ("truncated_json", "invalid_utf8", "unknown_trace_id", "escalation_missing_session_id")


def _fault_days(rng: random.Random, plans: list[_Plan], sessions: int) -> dict[date, list[str]]:
    """Which day gets which planted fault: one of each kind per started 1500 sessions."""
    busy_days = sorted({plan.at.date() for plan in plans})
    planted: dict[date, list[str]] = {}
    for fault in FAULTS:
        for _ in range(1 + sessions // 1500):
            planted.setdefault(rng.choice(busy_days), []).append(fault)
    return planted
