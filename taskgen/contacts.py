"""Contacts that came after a session: the customer coming back about the same session or order.

A session's own later contacts (a ticket or comment filed after the chat, an escalation's
transcript) are already joined onto it by ingest as user turns; `later_contacts` finds the
other kind: a later session about the same order within a configurable window. The texts
carried here are raw or scrubbed customer words: they are matched, never stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from ingest.models import Session


@dataclass(frozen=True)
class LaterSession:
    """What classification needs of a session that may be a later contact of another."""

    session_id: str
    started_at: datetime
    order_ids: frozenset[str]
    user_texts: tuple[str, ...]

    @classmethod
    def of(cls, session: Session) -> LaterSession | None:
        if session.started_at is None or not session.entity_ids.get("order"):
            return None
        return cls(
            session_id=session.session_id,
            started_at=session.started_at,
            order_ids=frozenset(session.entity_ids["order"]),
            user_texts=tuple(turn.text for turn in session.turns if turn.role == "user"),
        )


class ContactIndex:
    """Sessions by the orders they are about, to find the later contacts of any one session."""

    def __init__(self, sessions: Iterable[Session | LaterSession]) -> None:
        self._by_order: dict[str, list[LaterSession]] = {}
        for item in sessions:
            contact = item if isinstance(item, LaterSession) else LaterSession.of(item)
            if contact is None:
                continue
            for order_id in contact.order_ids:
                self._by_order.setdefault(order_id, []).append(contact)

    def later_contacts(self, session: Session, window: timedelta) -> list[LaterSession]:
        """Other sessions about one of `session`'s orders that started after it ended, within `window`."""
        end = session.ended_at or session.started_at
        if end is None:
            return []
        found: dict[str, LaterSession] = {}
        for order_id in session.entity_ids.get("order", []):
            for contact in self._by_order.get(order_id, []):
                if contact.session_id != session.session_id and end < contact.started_at <= end + window:
                    found[contact.session_id] = contact
        return sorted(found.values(), key=lambda contact: (contact.started_at, contact.session_id))


def later_contacts(session: Session, others: Iterable[Session], window: timedelta) -> list[LaterSession]:
    """The later sessions about the same order as `session` within `window` (see `ContactIndex`)."""
    return ContactIndex(others).later_contacts(session, window)
