"""`make eval-classify`: intent and outcome accuracy on sessions we did not write, and on the demo.

Independent data: the tasks of tau-bench (`tasks_test.json`) and tau2-bench (`tasks.json`) in
`../shared`. Each task becomes a session: the customer's own words (tau-bench's instruction,
tau2-bench's reason for calling and what the customer knows), the agent's calls (the task's gold
actions) and a closing claim of success. Its true intent is that of the first state-changing gold
action (`TAU_ACTION_INTENTS`); tasks without one are left out and counted. Each task also gives a
failed session: the same customer comes back about the same order within the contact window,
repeating the request in the task's own words, after the agent claimed success.

Every set is split into dev and held-out halves by a hash of the scenario (a tau task's first order or
user id, so its variants, its words-only copy and its revision in the other benchmark stay on one side;
a demo session's id): tune on dev only (examples written as configuration come from dev or from
elsewhere, never from held-out).
The demo drop (`ingest.demo`) is measured as generated and with its tickets' tags and statuses
stripped, so only the words and the later contacts tell a failure.

Paraphrases (`tests/taskgen/data/retail_paraphrases.jsonl`, see the README there for who wrote them and how):
requests per intent in varied styles (their intent only), and requests the agent claimed done followed by
what the customer said later, in a ticket joined to the session or a later session about the same order
(their intent and outcome). Split by a hash of each row's id.

The independent set (`retail_independent_*.jsonl` there: written and labelled by two helpers that never saw the code):
requests (their intent), and follow-ups after a claimed success (a complaint must be `failed`), each as a ticket and as
a later session. Split per intent (per follow-up label) by a hash of the id (`stratified_splits`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from ingest.models import Session, Signals, TicketSignal, ToolCall, Turn, sha256_hex
from taskgen.classify import Classification, classify, prepare
from taskgen.taxonomy import Taxonomy
from taskgen.contacts import ContactIndex

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
PARAPHRASES = Path(__file__).resolve().parents[1] / "tests" / "taskgen" / "data" / "retail_paraphrases.jsonl"
INDEPENDENT = PARAPHRASES.with_name("retail_independent_intents.jsonl")
INDEPENDENT_FOLLOWUPS = PARAPHRASES.with_name("retail_independent_followups.jsonl")
FOLLOWUP_OUTCOMES = {"complaint": "failed", "not_complaint": "resolved"}
PARAPHRASE_TOOLS = {"refund": "refund_order", "return_label": "create_return_label", "cancellation": "cancel_order",
                    "address_change": "update_address"}
"""The call an agent makes for a follow-up row's intent (the demo's tool names); other intents: words only."""
TAU_ACTION_INTENTS = {
    "return_delivered_order_items": "return_label",
    "exchange_delivered_order_items": "exchange",
    "modify_pending_order_items": "exchange",
    "cancel_pending_order": "cancellation",
    "modify_pending_order_address": "address_change",
    "modify_user_address": "address_change",
}
"""tau's state-changing tools -> the retail taxonomy's intent they carry out."""
CLAIM = "All done: I have taken care of that for you."
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Case:
    """A session with its true labels, the set it belongs to and its split."""

    name: str
    split: str
    session: Session
    intent: str
    outcome: str
    scored: bool = True
    """False: only a later contact of the set's other sessions, not labelled itself."""
    intent_counted: bool = True
    """False: a copy of another case's words, counted for its outcome only."""
    requests: int = 1
    """How many distinct intents the task's gold actions carry out (tau-bench): 2 or more is several requests."""
    outcome_counted: bool = True
    """False: a request with nothing after it (its intent only is labelled truth)."""


def split_of(key: str) -> str:
    return "dev" if int(sha256_hex(key)[:8], 16) % 2 == 0 else "heldout"


def _tau_tasks(path: Path) -> list[tuple[str, str, list[dict]]]:
    """(task id, what the customer says, gold actions) of tau2's tasks.json or tau-bench's tasks_test.json."""
    found = []
    for index, task in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        if "user_scenario" in task:
            instructions = task["user_scenario"]["instructions"]
            said = f"{instructions.get('known_info') or ''} {instructions.get('reason_for_call') or ''}".strip()
            found.append((str(task["id"]), said, task["evaluation_criteria"].get("actions") or []))
        else:
            found.append((str(index), task["instruction"], task.get("actions") or []))
    return found


def _scenario(actions: list[dict]) -> str:
    """What keeps a task's variants and its copy in the other benchmark on one side of the split: the customer's
    first order (or user id) its gold actions touch. tau2-bench revises tau-bench's tasks under other ids, and
    both hold several variants of one scenario; split by id, their words would sit on both sides."""
    keys = sorted({str(a.get("arguments", {}).get(k)) for a in actions for k in ("order_id", "user_id")
                   if a.get("arguments", {}).get(k)})
    return f"tau:{keys[0]}" if keys else ""


_NEEDS = {"cancel_pending_order": ("pending", "cancelled"), "modify_pending_order_items": ("pending", "pending (item modified)"),
          "modify_pending_order_address": ("pending*", None), "modify_pending_order_payment": ("pending*", None),
          "exchange_delivered_order_items": ("delivered", "exchange requested"),
          "return_delivered_order_items": ("delivered", "return requested")}
"""Order status each order tool needs ('pending*': any pending status) and leaves, as the benchmarks' tools.py check it."""


def _orders(path: Path) -> dict[str, dict]:
    """The benchmark's orders as they stood when its tasks start (tau-bench's orders.json, tau2's db.json)."""
    if (path.parent / "orders.json").exists():
        return json.loads((path.parent / "orders.json").read_text(encoding="utf-8"))
    db = path.parent / "db.json"
    return json.loads(db.read_text(encoding="utf-8"))["orders"] if db.exists() else {}


def replayed(actions: list[dict], orders: dict[str, dict], at: datetime) -> list[ToolCall]:
    """The gold actions as traced calls with the result each gets from the benchmark's order-status rules, replayed
    in order on a copy of the orders: a modification of a delivered order, or a second change to an order the first
    one already moved on, fails as the benchmark's tool fails it. Only what the data shows: status and items checks."""
    status = {order_id: order.get("status") for order_id, order in orders.items()}
    calls = []
    for action in actions:
        name, arguments = action["name"], action.get("arguments") or {}
        order_id = arguments.get("order_id")
        needs, leaves = _NEEDS.get(name, (None, None))
        current = status.get(order_id) if isinstance(order_id, str) else None
        error = None
        if needs and order_id not in status:
            error = "Order not found"
        elif needs and not (current == needs or (needs == "pending*" and "pending" in (current or ""))):
            error = f"order is {current}: {name} needs a {needs.rstrip('*')} order"
        elif needs and isinstance(arguments.get("item_ids"), list):
            held = [str(item.get("item_id")) for item in orders[order_id].get("items", [])]
            if any(arguments["item_ids"].count(item) > held.count(str(item)) for item in arguments["item_ids"]):
                error = "item not found in the order"
        if error is None and leaves:
            status[order_id] = leaves
        result = {"order_id": order_id, "status": status[order_id]} if error is None and order_id in status else None
        calls.append(ToolCall(name=name, arguments=arguments, at=at, status="error" if error else "ok", error=error,
                              result=result))
    return calls


def tau_cases(name: str, path: Path, *, with_calls: bool = True) -> tuple[list[Case], int]:
    """Resolved and failed sessions of every task with a state-changing action; and how many were left out."""
    cases, skipped = [], 0
    orders = _orders(path) if with_calls else {}
    for number, (task_id, said, actions) in enumerate(_tau_tasks(path)):
        intents = [TAU_ACTION_INTENTS[a["name"]] for a in actions if a["name"] in TAU_ACTION_INTENTS]
        if not intents:
            skipped += 1
            continue
        at = START + timedelta(days=7 * number)  # tasks share customers and orders: none is another's later contact
        touched = sorted({a["arguments"]["order_id"] for a in actions if "order_id" in a.get("arguments", {})})
        calls = replayed(actions, orders, at) if with_calls else []
        session = Session(
            session_id=f"{name}-{task_id}", started_at=at, ended_at=at + timedelta(minutes=5),
            turns=[Turn(role="user", text=said, at=at, source="traces"),
                   Turn(role="agent", text=CLAIM, at=at + timedelta(minutes=5), source="traces")],
            tool_calls=calls, entity_ids={"order": touched} if touched else {},
        )
        split = split_of(_scenario(actions) or f"{name}:{task_id}")
        cases.append(Case(name, split, session, intents[0], "resolved", requests=len(set(intents))))
        if touched:
            again = Session(
                session_id=f"{name}-{task_id}-again", started_at=at + timedelta(hours=20), ended_at=at + timedelta(hours=20),
                turns=[Turn(role="user", text=said, at=at + timedelta(hours=20), source="traces")],
                entity_ids={"order": touched},
            )
            cases.append(Case(f"{name} (repeat)", split, session.model_copy(update={"session_id": f"{name}-{task_id}-f"}),
                              intents[0], "failed", intent_counted=False))
            cases.append(Case(f"{name} (repeat)", split, again, intents[0], "resolved", scored=False))
    return cases, skipped


def demo_cases(sessions: int = 600, seed: int = 11, *, untagged: bool = False) -> list[Case]:
    """The demo drop's sessions with their planted intent and outcome (a hotfix counts as rolled_back)."""
    from ingest.check import check_drop
    from ingest.config import IngestConfig
    from ingest.demo import generate_drop

    with tempfile.TemporaryDirectory() as folder:
        drop = Path(folder) / "drop"
        generate_drop(drop, sessions=sessions, days=3, seed=seed, start=date(2026, 3, 2), with_faults=False)
        planted = json.loads((drop / "planted_ids.json").read_text(encoding="utf-8"))["sessions"]
        checked = check_drop(drop, IngestConfig())
    name = "demo (untagged)" if untagged else "demo"
    cases = []
    for session in checked.sessions:
        truth = planted.get(session.session_id)
        if truth is None:
            continue
        if untagged:
            tickets = [t.model_copy(update={"tags": [], "status": None}) for t in session.signals.tickets]
            session = session.model_copy(update={"signals": session.signals.model_copy(update={"tickets": tickets})})
        outcome = {"hotfixed": "rolled_back"}.get(truth["outcome"], truth["outcome"])
        cases.append(Case(name, split_of(f"demo:{session.session_id}"), session, truth["intent"], outcome))
    return cases


def paraphrase_cases(path: Path = PARAPHRASES) -> list[Case]:
    """The paraphrase set's rows as sessions: an `opening` is the customer's words alone (its intent counted);
    a `followup` is the words, the agent's claim of success (and its call, where the intent has a tool), then
    the customer's later words in a ticket joined to the session or in a later session about the same order."""
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        row = json.loads(line)
        at = START + timedelta(days=7 * number)
        split = split_of(f"paraphrase:{row['id']}")
        turns = [Turn(role="user", text=row["text"], at=at, source="traces")]
        if row["kind"] == "opening":
            session = Session(session_id=f"para-{row['id']}", started_at=at, ended_at=at, turns=turns)
            cases.append(Case("paraphrases", split, session, row["intent"], "resolved", outcome_counted=False))
            continue
        order = f"#W{int(sha256_hex(row['id'])[:8], 16) % 10**7:07d}"
        done = at + timedelta(minutes=5)
        turns.append(Turn(role="agent", text=row["agent"], at=done, source="traces"))
        tool = PARAPHRASE_TOOLS.get(row["intent"])
        calls = [ToolCall(name=tool, arguments={"order_id": order}, at=done, result={"order_id": order})] if tool else []
        later_at = at + timedelta(hours=20)
        signals = Signals()
        if row["later_via"] == "ticket":
            turns.append(Turn(role="user", text=row["later"], at=later_at, source="tickets"))
            signals = Signals(tickets=[TicketSignal(id=f"T-{row['id']}", at=later_at)])
        session = Session(session_id=f"para-{row['id']}", started_at=at, ended_at=done, turns=turns, tool_calls=calls,
                          entity_ids={"order": [order]}, signals=signals)
        cases.append(Case("paraphrases (follow-ups)", split, session, row["intent"], row["outcome"]))
        if row["later_via"] == "session":
            again = Session(session_id=f"para-{row['id']}-later", started_at=later_at, ended_at=later_at,
                            turns=[Turn(role="user", text=row["later"], at=later_at, source="traces")],
                            entity_ids={"order": [order]})
            cases.append(Case("paraphrases (follow-ups)", split, again, row["intent"], row["outcome"], scored=False))
    return cases


def stratified_splits(keys: Sequence[tuple[str, str]]) -> dict[str, str]:
    """(id, stratum) -> split: within each stratum (an intent, a follow-up label) the ids in the order of their hash,
    the first half (rounded up) dev and the rest held-out, so both halves hold every intent in its share."""
    by_stratum: dict[str, list[str]] = {}
    for key, stratum in keys:
        by_stratum.setdefault(stratum, []).append(key)
    splits = {}
    for members in by_stratum.values():
        ranked = sorted(members, key=lambda key: (sha256_hex(f"independent:{key}"), key))
        splits.update({key: "dev" if n < (len(ranked) + 1) // 2 else "heldout" for n, key in enumerate(ranked)})
    return splits


def independent_cases(path: Path = INDEPENDENT, followups: Path = INDEPENDENT_FOLLOWUPS) -> list[Case]:
    """The independent set (`tests/taskgen/data/README.md`: written and labelled by two helpers that never saw the
    code): requests as the customer's words alone (their intent counted); and follow-ups, a request the agent claimed
    done, then the customer's later words (a complaint: the outcome is `failed`), once as a ticket joined to the
    session and once as a later session about the same order. Split per intent (per label) by a hash of the id."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    splits = stratified_splits([(row["id"], row["intent"]) for row in rows])
    cases = []
    for number, row in enumerate(rows):
        at = START + timedelta(days=7 * number)
        session = Session(session_id=row["id"], started_at=at, ended_at=at,
                          turns=[Turn(role="user", text=row["text"], at=at, source="traces")])
        cases.append(Case("independent", splits[row["id"]], session, row["intent"], "resolved", outcome_counted=False))
    lines = [json.loads(line) for line in followups.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [{"id": f"indep-fu-{n:03d}", **row} for n, row in enumerate(lines)]
    splits = stratified_splits([(row["id"], row["label"]) for row in rows])
    for number, row in enumerate(rows):
        at = START + timedelta(days=7 * number)
        done, later_at = at + timedelta(minutes=5), at + timedelta(hours=20)
        order = f"#W{int(sha256_hex(row['id'])[:8], 16) % 10**7:07d}"
        turns = [Turn(role="user", text=row["request"], at=at, source="traces"),
                 Turn(role="agent", text=row["agent_claim"], at=done, source="traces")]
        outcome, split = FOLLOWUP_OUTCOMES[row["label"]], splits[row["id"]]
        ticketed = Session(session_id=f"{row['id']}-t", started_at=at, ended_at=done,
                           turns=[*turns, Turn(role="user", text=row["followup"], at=later_at, source="tickets")],
                           entity_ids={"order": [order]}, signals=Signals(tickets=[TicketSignal(id=f"T-{row['id']}", at=later_at)]))
        cases.append(Case("independent (follow-up ticket)", split, ticketed, "", outcome, intent_counted=False))
        first = Session(session_id=f"{row['id']}-s", started_at=at, ended_at=done, turns=turns, entity_ids={"order": [order]})
        again = Session(session_id=f"{row['id']}-later", started_at=later_at, ended_at=later_at,
                        turns=[Turn(role="user", text=row["followup"], at=later_at, source="traces")],
                        entity_ids={"order": [order]})
        cases.append(Case("independent (follow-up session)", split, first, "", outcome, intent_counted=False))
        cases.append(Case("independent (follow-up session)", split, again, "", outcome, scored=False))
    return cases


@dataclass
class Tally:
    right: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.right += ok
        self.total += 1

    def __str__(self) -> str:
        return f"{100 * self.right / self.total:.1f}% ({self.right}/{self.total})" if self.total else "-"


@dataclass
class Report:
    intent: dict[tuple[str, str], Tally] = field(default_factory=dict)
    outcome: dict[tuple[str, str], Tally] = field(default_factory=dict)
    per_intent: dict[tuple[str, str], Tally] = field(default_factory=dict)
    per_outcome: dict[tuple[str, str], Tally] = field(default_factory=dict)
    per_intent_heldout: dict[tuple[str, str], Tally] = field(default_factory=dict)
    per_outcome_heldout: dict[tuple[str, str], Tally] = field(default_factory=dict)
    confusion: Counter = field(default_factory=Counter)
    confusion_heldout: Counter = field(default_factory=Counter)
    outcome_confusion: Counter = field(default_factory=Counter)
    uncertain: dict[tuple[str, str], Tally] = field(default_factory=dict)
    """per (set, split): the labels flagged uncertain (`right` counts the flagged ones)"""
    certain: dict[tuple[str, str], Tally] = field(default_factory=dict)
    """per (set, split): intent accuracy on the labels not flagged uncertain"""
    wrong_flagged: dict[tuple[str, str], Tally] = field(default_factory=dict)
    """per (set, split): of the wrong intents, those flagged uncertain"""
    several_flagged: dict[tuple[str, str], Tally] = field(default_factory=dict)
    """per (set, split): of the sessions whose gold actions carry two intents or more, those flagged several_requests"""
    weak_outcome: dict[tuple[str, str], Tally] = field(default_factory=dict)
    """per (set, split): the outcomes with low evidence (only the agent's claim, or no signal)"""
    conflict: dict[tuple[str, str], Tally] = field(default_factory=dict)
    """per (set, split): the intents flagged text_tool_conflict"""
    seconds: float = 0.0
    sessions: int = 0


def evaluate(cases: Sequence[Case], label: Callable[[Session, list], Classification], taxonomy: Taxonomy) -> Report:
    """Labels every case (with its later contacts among the cases of its set) and tallies the results."""
    report = Report()
    by_set: dict[str, list[Case]] = {}
    for case in cases:
        by_set.setdefault(case.name, []).append(case)
    for name, group in by_set.items():
        index = ContactIndex(case.session for case in group)
        started = time.perf_counter()
        group = [case for case in group if case.scored]
        later = [index.later_contacts(case.session, taxonomy.later_contact_window) for case in group]
        prepare([case.session for case in group], taxonomy, later)
        labels = [label(case.session, contacts) for case, contacts in zip(group, later)]
        report.seconds += time.perf_counter() - started
        report.sessions += len(group)
        for case, got in zip(group, labels):
            for key in ((name, case.split), (name, "all")):
                if case.outcome_counted:
                    report.outcome.setdefault(key, Tally()).add(got.outcome == case.outcome)
                    report.weak_outcome.setdefault(key, Tally()).add(getattr(got, "outcome_uncertain", False))
                if case.intent_counted:
                    right = got.intent == case.intent
                    report.intent.setdefault(key, Tally()).add(right)
                    report.uncertain.setdefault(key, Tally()).add(got.uncertain)
                    report.conflict.setdefault(key, Tally()).add("text_tool_conflict" in got.uncertain_because)
                    if not got.uncertain:
                        report.certain.setdefault(key, Tally()).add(right)
                    if not right:
                        report.wrong_flagged.setdefault(key, Tally()).add(got.uncertain)
                    if case.requests >= 2:
                        report.several_flagged.setdefault(key, Tally()).add("several_requests" in got.uncertain_because)
            if case.outcome_counted:
                report.per_outcome.setdefault((name, case.outcome), Tally()).add(got.outcome == case.outcome)
                if case.split == "heldout":
                    report.per_outcome_heldout.setdefault((name, case.outcome), Tally()).add(got.outcome == case.outcome)
                report.outcome_confusion[(name, case.outcome, got.outcome)] += 1
            if case.intent_counted:
                report.per_intent.setdefault((name, case.intent), Tally()).add(got.intent == case.intent)
                if case.split == "heldout":
                    report.per_intent_heldout.setdefault((name, case.intent), Tally()).add(got.intent == case.intent)
                report.confusion[(name, case.intent, got.intent)] += 1
                report.confusion_heldout[(name, case.intent, got.intent)] += case.split == "heldout"
    return report


def markdown(report: Report) -> str:
    names = sorted({name for name, _ in report.outcome} | {name for name, _ in report.intent})
    lines = ["| set | intent dev | intent held-out | outcome dev | outcome held-out |", "|---|---|---|---|---|"]
    for name in names:
        lines.append(f"| {name} | {report.intent.get((name, 'dev'), '-')} | {report.intent.get((name, 'heldout'), '-')} "
                     f"| {report.outcome.get((name, 'dev'), '-')} | {report.outcome.get((name, 'heldout'), '-')} |")
    lines += ["", "Uncertain intents (below the confidence threshold, a small margin, several requests, or the words and "
              "the agent's calls disagreeing), and outcomes with low evidence (only the agent's own claim, or no signal):", "",
              "| set | uncertain dev | uncertain held-out | right when not uncertain, dev | held-out "
              "| wrong ones flagged, held-out | several requests flagged, held-out | text/tool conflict, held-out "
              "| outcome low evidence, held-out |", "|---|---|---|---|---|---|---|---|---|"]
    for name in names:
        cells = [report.uncertain.get((name, "dev"), "-"), report.uncertain.get((name, "heldout"), "-"),
                 report.certain.get((name, "dev"), "-"), report.certain.get((name, "heldout"), "-"),
                 report.wrong_flagged.get((name, "heldout"), "-"), report.several_flagged.get((name, "heldout"), "-"),
                 report.conflict.get((name, "heldout"), "-"), report.weak_outcome.get((name, "heldout"), "-")]
        lines.append(f"| {name} | " + " | ".join(str(cell) for cell in cells) + " |")
    lines += ["", "| set | true intent | right (dev and held-out) | right (held-out) |", "|---|---|---|---|"]
    lines += [f"| {name} | {intent} | {tally} | {report.per_intent_heldout.get((name, intent), '-')} |"
              for (name, intent), tally in sorted(report.per_intent.items())]
    lines += ["", "| set | true outcome | right (dev and held-out) | right (held-out) |", "|---|---|---|---|"]
    lines += [f"| {name} | {outcome} | {tally} | {report.per_outcome_heldout.get((name, outcome), '-')} |"
              for (name, outcome), tally in sorted(report.per_outcome.items())]
    lines += ["", "Confusion (true -> labelled, where they differ):", "", "| set | true | labelled | sessions | held-out |",
              "|---|---|---|---:|---:|"]
    lines += [f"| {name} | {true} | {got} | {count} | {report.confusion_heldout[(name, true, got)]} |"
              for (name, true, got), count in sorted(report.confusion.items()) if true != got]
    lines += ["", "Outcome confusion (true -> labelled, where they differ):", "", "| set | true | labelled | sessions |",
              "|---|---|---|---:|"]
    lines += [f"| {name} | {true} | {got} | {count} |"
              for (name, true, got), count in sorted(report.outcome_confusion.items()) if true != got]
    per_session = 1000 * report.seconds / max(1, report.sessions)
    lines += ["", f"Cost: {report.sessions} sessions in {report.seconds:.2f} s, {per_session:.2f} ms per session."]
    return "\n".join(lines) + "\n"


def model_cost() -> str:
    """Install size of the meaning model and what it runs on, and its load time in this process."""
    from importlib.util import find_spec

    from taskgen import meaning

    if not meaning.available():
        return "Intent by meaning: model package not installed; the keyword taxonomy decides.\n"
    sizes = {}
    for package in ("torch", "transformers", "sentence_transformers", "tokenizers", meaning.MODEL_PACKAGE):
        spec = find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            folder = Path(next(iter(spec.submodule_search_locations)))
            sizes[package] = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20
    started = time.perf_counter()
    meaning.encoder()
    loaded = time.perf_counter() - started
    listed = ", ".join(f"{name} {size:.0f} MiB" for name, size in sizes.items())
    return f"Intent by meaning: installed {sum(sizes.values()):.0f} MiB ({listed}); model loaded in {loaded:.1f} s.\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the folder holding tau-bench-retail/ and tau2-bench-retail/")
    parser.add_argument("--demo-sessions", type=int, default=600)
    parser.add_argument("--only", choices=("tau", "demo", "paraphrases", "independent"), action="append",
                        help="measure only these sets (repeatable; default: every set)")
    args = parser.parse_args(argv)
    from taskgen.domains import get_domain

    taxonomy = Taxonomy.from_yaml(get_domain("retail").taxonomy_path())
    cases: list[Case] = []
    skipped = {}
    only = set(args.only or ("tau", "demo", "paraphrases", "independent"))
    for name, path in (("tau-bench", args.shared / "tau-bench-retail" / "tasks_test.json"),
                       ("tau2-bench", args.shared / "tau2-bench-retail" / "tasks.json")):
        if "tau" not in only:
            continue
        if not path.is_file():
            print(f"{path} not found: --shared names the folder holding tau-bench-retail/ and tau2-bench-retail/",
                  file=sys.stderr)
            return 1
        words, skipped[name] = tau_cases(f"{name} (words only)", path, with_calls=False)
        with_calls, _ = tau_cases(name, path)
        cases += [case for case in words if "(repeat)" not in case.name] + with_calls
    if "demo" in only:
        cases += demo_cases(args.demo_sessions) + demo_cases(args.demo_sessions, untagged=True)
    if "paraphrases" in only:
        cases += paraphrase_cases()
    if "independent" in only:
        cases += independent_cases()
    print(model_cost())
    print(markdown(evaluate(cases, lambda session, later: classify(session, taxonomy, later), taxonomy)))
    if skipped:
        print("Left out (no state-changing gold action): " + ", ".join(f"{n} {k}" for n, k in skipped.items()) + " tasks.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
