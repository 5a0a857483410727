"""What happens when: each session's time, intent and outcome, the two bad releases (one rolled
back, one hotfixed) and the sessions they hit, the customer and order each session is about,
and the days that get a deliberately malformed record."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from .world import Customer, Order, World

BASE_VERSION = "2.14.3"
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
HOUR_WEIGHTS = [1, 1, 1, 1, 1, 2, 3, 5, 7, 9, 10, 10, 10, 10, 10, 10, 10, 9, 9, 9, 8, 6, 4, 2]


@dataclass
class Plan:
    index: int
    at: datetime
    intent: str
    outcome: str

    @property
    def session_id(self) -> str:
        return f"sess-{self.at:%Y%m%d}-{self.index:06d}"


@dataclass
class Deploy:
    id: str
    kind: str
    at: datetime
    from_version: str
    to_version: str
    released_at: datetime
    reason: str
    incident_id: str | None
    session_ids: list[str]


def plan_sessions(rng: random.Random, sessions: int, days: int, start: date) -> list[Plan]:
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
    return [Plan(i + 1, at, intent, outcome) for i, (at, intent, outcome) in enumerate(zip(times, intents, outcomes))]


def mark_regressions(rng: random.Random, plans: list[Plan]) -> list[Deploy]:
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
        Deploy("dep-0001", "rollback", rollback_at, "2.15.0", BASE_VERSION,
               rolled_back[0].at - timedelta(minutes=rng.randint(20, 600)),
               "refund_order was called without checking the 30-day return window; refunds were issued for "
               "orders delivered more than 30 days earlier", f"INC-{rng.randint(2000, 2999)}",
               [plan.session_id for plan in rolled_back]),
        Deploy("dep-0002", "hotfix", hotfixed[-1].at + timedelta(minutes=rng.randint(35, 240)), "2.16.0", "2.16.1",
               hotfix_release, "update_address accepted addresses without a postal code; added validation before saving",
               None, [plan.session_id for plan in hotfixed]),
    ]


def _hit(rng: random.Random, pool: list[Plan], intent: str, outcome: str, run: int) -> list[Plan]:
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


def version_at(deploys: list[Deploy], at: datetime) -> str:
    events = sorted([(d.released_at, d.from_version) for d in deploys] + [(d.at, d.to_version) for d in deploys])
    version = BASE_VERSION
    for when, value in events:
        if when <= at:
            version = value
    return version


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


def cast_session(rng: random.Random, world: World, plan: Plan) -> tuple[Customer, Order]:
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


FAULTS = ("truncated_json", "invalid_utf8", "unknown_trace_id", "escalation_missing_session_id")


def fault_schedule(rng: random.Random, plans: list[Plan], sessions: int) -> dict[date, list[str]]:
    """Which day gets which planted fault: one of each kind per started 1500 sessions."""
    busy_days = sorted({plan.at.date() for plan in plans})
    planted: dict[date, list[str]] = {}
    for fault in FAULTS:
        for _ in range(1 + sessions // 1500):
            planted.setdefault(rng.choice(busy_days), []).append(fault)
    return planted
