"""`generate_drop`: the whole demo drop, session by session, day by day."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from faker import Faker
from pydantic import BaseModel, ConfigDict, Field

from .conversation import Conversation
from .otlp import render
from .plan import Plan, cast_session, fault_schedule, mark_regressions, plan_sessions, version_at
from .values import dumps
from .world import LOCALES, PiiLedger, World, write_state
from .writer import DropWriter, human_agents

PLANTED_PII_FILE = "planted_pii.json"
PLANTED_IDS_FILE = "planted_ids.json"


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
    pii = PiiLedger()
    world = World(rng, fakers, pii)
    agents = human_agents(staff_faker, rng)

    plans = plan_sessions(rng, sessions, days, start)
    deploys = mark_regressions(rng, plans)
    export_start = int(datetime.combine(start, datetime.min.time(), tzinfo=timezone.utc).timestamp())
    writer = DropWriter(out, rng, pii, agents, export_start)
    fault_days = fault_schedule(rng, plans, sessions) if with_faults else {}
    planted_ids: dict[str, Any] = {}
    by_day: dict[date, list[Plan]] = {}
    for plan in plans:
        by_day.setdefault(plan.at.date(), []).append(plan)
    done = 0
    for offset in range(days):
        day = start + timedelta(days=offset)
        writer.add_day_noise(day)
        for plan in by_day.get(day, []):
            customer, order = cast_session(rng, world, plan)
            conversation = Conversation(rng, world, plan, customer, order)
            play = getattr(conversation, f"play_{plan.intent}")()
            rendered = render(rng, plan, customer.id, conversation.turns(play))
            ids = writer.add_session(plan, customer, order, play, rendered, version_at(deploys, plan.at))
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
    state_rows = write_state(world, out / "state")
    writer.files["state"] += 2
    (out / PLANTED_PII_FILE).write_text(dumps(pii.as_json()) + "\n", encoding="utf-8")
    (out / PLANTED_IDS_FILE).write_text(dumps({"sessions": planted_ids}) + "\n", encoding="utf-8")
    records = dict(writer.records) | {f"state_{table}": count for table, count in state_rows.items()}
    return DropSummary(
        sessions=sessions, days=days,
        files=dict(sorted(writer.files.items())), records=dict(sorted(records.items())),
        intents=dict(sorted(Counter(plan.intent for plan in plans).items())),
        outcomes=dict(sorted(Counter(plan.outcome for plan in plans).items())),
        faults=dict(sorted(writer.faults.items())),
    )

