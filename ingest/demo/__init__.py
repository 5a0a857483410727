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

The package, in the order a drop is made:

    plan.py          when each session happens, its intent and outcome, the bad releases, the faults
    world.py         the shop's customers and orders (and its state database, written last)
    conversation.py  what is said and which tools are called, from the phrasings in phrases.yaml
    otlp.py          the conversation as the agent's tracing writes it (OTLP/JSON spans)
    writer.py        every source's files: traces, logs, escalations, tickets, deploys
    drop.py          `generate_drop`, which runs them session by session, day by day
    values.py        timestamps, JSON, money and personal values of the right shape
"""

from .drop import PLANTED_IDS_FILE, PLANTED_PII_FILE, DropSummary, generate_drop

__all__ = ["PLANTED_IDS_FILE", "PLANTED_PII_FILE", "DropSummary", "generate_drop"]
