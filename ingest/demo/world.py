"""The shop's world: customers, their orders, refunds and return labels, every personal value
written (the oracle the tests read), and the shop's state database written at the end."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from faker import Faker

from .values import card_number, iso, phone_number, to_ascii

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


class PiiLedger:
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
class Customer:
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
    orders: list[Order] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"


@dataclass
class Item:
    id: str
    sku: str
    name: str
    price_cents: int
    quantity: int


@dataclass
class Order:
    id: str
    customer_id: str
    status: str
    created_at: datetime
    delivered_at: datetime | None
    shipping_address: str
    items: list[Item]
    payment_id: str
    method: str
    card_number: str | None

    @property
    def total_cents(self) -> int:
        return sum(item.price_cents * item.quantity for item in self.items)


@dataclass
class World:
    """Customers, orders, refunds and return labels; written to state/shop.db at the end."""

    rng: random.Random
    fakers: dict[str, Faker]
    pii: PiiLedger
    customers: list[Customer] = field(default_factory=list)
    orders: dict[str, Order] = field(default_factory=dict)
    refunds: list[tuple[str, str, int, str, datetime]] = field(default_factory=list)
    labels: list[tuple[str, str, datetime]] = field(default_factory=list)
    item_count: int = 0

    def new_customer(self, at: datetime) -> Customer:
        rng = self.rng
        country = rng.choices(list(LOCALES), weights=[w for _, w in LOCALES.values()])[0]
        fake = self.fakers[country]
        first, last = fake.first_name(), fake.last_name()
        local = rng.choice([f"{first}.{last}", f"{first}{last}{rng.randint(1, 99)}", f"{first[0]}.{last}",
                            f"{first}_{last[0]}", f"{last}.{first}{rng.randint(70, 99)}"])
        email = f"{to_ascii(local).lower().replace(' ', '')}@{fake.free_email_domain()}"
        phone, variants = phone_number(rng, country)
        street, address, _ = self.address(country, fake)
        username = f"{to_ascii(first).lower()[:rng.randint(1, 5)]}{to_ascii(last).lower()}{rng.choice(['', '_'])}{rng.randint(1, 99)}"
        customer = Customer(
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

    def new_order(self, customer: Customer, status: str, days_ago: float, at: datetime) -> Order:
        """An order placed `days_ago` days before `at`, or for a delivered one, delivered then
        (after 2-6 days in transit)."""
        rng = self.rng
        moment = at - timedelta(days=days_ago, seconds=rng.randint(600, 7200))
        delivered = moment if status == "delivered" else None
        created = moment - timedelta(days=rng.randint(2, 6), hours=rng.randint(0, 10)) if delivered else moment
        items = []
        for sku, name, price in rng.sample(CATALOG, rng.choices([1, 2, 3], weights=[60, 30, 10])[0]):
            self.item_count += 1
            items.append(Item(f"oi_{self.item_count:07d}", sku, name, price, rng.choices([1, 2, 3], [80, 15, 5])[0]))
        method = rng.choices(["card", "paypal", "gift_card"], weights=[75, 18, 7])[0]
        card = self.pii.add(card_number(rng), "CREDIT_CARD") if method == "card" else None
        while True:
            order_id = f"#W{rng.randint(1000000, 9999999)}"
            if order_id not in self.orders:
                break
        order = Order(order_id, customer.id, status, created, delivered, customer.address, items,
                       f"pay_{len(self.orders) + 1:07d}", method, card)
        self.orders[order_id] = order
        customer.orders.append(order)
        return order

    def refund(self, order: Order, cents: int, reason: str, at: datetime) -> str:
        refund_id = f"re_{len(self.refunds) + 1:06d}"
        self.refunds.append((refund_id, order.id, cents, reason, at))
        return refund_id

    def return_label(self, order: Order, at: datetime) -> str:
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
    owner: true   # reached as an order's parent, a customer brings their other orders with their rows
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


def write_state(world: World, folder: Path) -> dict[str, int]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mapping.yaml").write_text(MAPPING_YAML, encoding="utf-8")
    orders = sorted(world.orders.values(), key=lambda order: order.id)
    rows = {
        "customers": [(c.id, c.name, c.email, c.phone, c.address, iso(c.created_at)) for c in world.customers],
        "orders": [(o.id, o.customer_id, o.status, o.total_cents, iso(o.created_at),
                    iso(o.delivered_at) if o.delivered_at else None, o.shipping_address) for o in orders],
        "order_items": sorted((i.id, o.id, i.sku, i.name, i.price_cents, i.quantity) for o in orders for i in o.items),
        "payments": sorted((o.payment_id, o.id, o.method, o.card_number, o.total_cents, iso(o.created_at))
                           for o in orders),
        "refunds": [(r[0], r[1], r[2], r[3], iso(r[4])) for r in world.refunds],
        "return_labels": [(label[0], label[1], iso(label[2])) for label in world.labels],
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

