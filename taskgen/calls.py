"""A session's tool calls grouped by what they act on: the last attempt of each decides.

An agent retries: its first `return_delivered_order_items` on an order fails, the second on the same order
succeeds, and the return was carried out (a recovered error, not an errored session); or a change that succeeded
is followed by one of the same kind on the same order that fails, and the session ended in that failure. So the
calls are grouped by (target, kind): the id the session names that they act on (else the order, else the user,
else none) and the tool called, in the order first called, and each group's last attempt says how it ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ingest.models import ErrorSignal, Session, ToolCall
from taskgen.taxonomy import Taxonomy

_TARGETS = ("order_id", "user_id")
"""Where no argument holds an id the session names: the arguments naming what a call acts on, first found first."""


def changes_state(name: str, taxonomy: Taxonomy) -> bool:
    """A tool the taxonomy names for an intent, or any whose name does not start with a read-only prefix."""
    prefixes = tuple(prefix.lower() for prefix in taxonomy.read_only_tool_prefixes)
    return name in taxonomy.action_tools or not name.lower().startswith(prefixes)


def target(call: ToolCall, named: Mapping[str, Sequence[str]] | None = None) -> str | None:
    """What the call acts on: the first of its arguments that holds an id the session names (`named`:
    `Session.entity_ids`, found by the configured `ingest.entity_patterns`, whatever the product calls the
    argument), else its `order_id`, else its `user_id`, else nothing named."""
    ids = {value for values in (named or {}).values() for value in values}
    for value in call.arguments.values():
        if isinstance(value, str) and value in ids:
            return value
    return next((value for key in _TARGETS if isinstance(value := call.arguments.get(key), str)), None)


@dataclass(frozen=True)
class Attempts:
    """Every call of one kind on one target, as indexes into the session's calls (from 0), in order."""

    kind: str
    target: str | None
    indexes: tuple[int, ...]
    changes_state: bool
    statuses: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """The last attempt succeeded."""
        return self.statuses[-1] == "ok"

    @property
    def recovered(self) -> tuple[int, ...]:
        """The attempts that failed before the last one that succeeded: errors a later attempt made good."""
        last_ok = max((n for n, status in enumerate(self.statuses) if status == "ok"), default=0)  # none: nothing made good
        return tuple(i for n, i in enumerate(self.indexes[:last_ok]) if self.statuses[n] == "error")

    @property
    def errors(self) -> tuple[int, ...]:
        """The attempts that failed and that no later attempt made good (the last one among them when it failed)."""
        return tuple(i for i, status in zip(self.indexes, self.statuses) if status == "error" and i not in self.recovered)

    @property
    def recovered_by(self) -> int | None:
        """The successful attempt that made the recovered errors good (None: nothing was recovered)."""
        if not self.recovered:
            return None
        return next(i for i, status in zip(self.indexes, self.statuses) if status == "ok" and i > self.recovered[-1])


def attempts(session: Session, taxonomy: Taxonomy) -> list[Attempts]:
    """The session's calls grouped by (target, kind), in the order each group was first called."""
    groups: dict[tuple[str | None, str], list[int]] = {}
    for index, call in enumerate(session.tool_calls):
        groups.setdefault((target(call, session.entity_ids), call.name), []).append(index)
    calls = session.tool_calls
    return [Attempts(kind=name, target=order, indexes=tuple(indexes), changes_state=changes_state(name, taxonomy),
                     statuses=tuple(calls[i].status for i in indexes)) for (order, name), indexes in groups.items()]


def carried_out(groups: Sequence[Attempts]) -> list[str]:
    """The kinds of change whose last attempt (on some target) succeeded, sorted."""
    return sorted({group.kind for group in groups if group.changes_state and group.ok})


def unrecovered_errors(groups: Sequence[Attempts]) -> list[int]:
    """Indexes of the failed calls no later attempt of the same kind on the same target made good, in order."""
    return sorted(i for group in groups for i in group.errors)


def recovered_errors(groups: Sequence[Attempts]) -> list[Attempts]:
    """The groups holding a failed attempt a later successful one made good."""
    return [group for group in groups if group.recovered]


def recovered_trace_errors(session: Session, groups: Sequence[Attempts]) -> list[int]:
    """Indexes into `session.signals.errors` of the trace errors that are a recovered call's own: a failed tool
    span is also counted among the span errors and its status message kept as an error from the traces, at the
    span's start, the call's time, with the call's error message. Error logs of other services stay."""
    calls = [session.tool_calls[i] for group in groups for i in group.recovered]
    found: list[int] = []
    for call in calls:
        match = next((n for n, error in enumerate(session.signals.errors) if n not in found and _same(error, call)), None)
        if match is not None:
            found.append(match)
    return sorted(found)


def _same(error: ErrorSignal, call: ToolCall) -> bool:
    return error.source == "traces" and error.at is not None and error.at == call.at and error.message == call.error


def conflicting_calls(session: Session, taxonomy: Taxonomy) -> list[tuple[int, str, int, str]]:
    """Pairs of different state-changing calls that succeeded on the same order and the same items
    ("exchange_delivered_order_items" then "modify_pending_order_items"): an order is delivered or pending,
    not both, so one of them cannot have done what it says. (call index, tool, call index, tool)."""
    touched: list[tuple[int, str, str, frozenset]] = []
    for index, call in enumerate(session.tool_calls):
        order, items = call.arguments.get("order_id"), call.arguments.get("item_ids")
        if call.status == "ok" and changes_state(call.name, taxonomy) and isinstance(order, str) and isinstance(items, list):
            touched.append((index, call.name, order, frozenset(map(str, items))))
    return [(i, a, j, b) for n, (i, a, order, items) in enumerate(touched) for (j, b, other, others) in touched[n + 1:]
            if a != b and order == other and items & others]
