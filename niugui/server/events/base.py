"""What every kind of event provides (issue 30), and what the server does with it.

A kind (an entry of :data:`niugui.server.events.kinds.EVENT_KINDS`) checks a new event's settings,
stores what it needs with the event, shows the event to a viewer (standings, boards or rounds) and
says where an entrant plays next. Everything a kind does runs off the event loop (it reads and writes
the store); the server then opens the table it asks for (:mod:`niugui.server.events.seating`).

>>> EventRefused(404, "no_event", "no event 'x'").ws_code
'not_found'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.engine import Connection

from ..config import Community
from ..protocol import ErrorCode, EventCreate, HttpErrorCode, TableSettings
from ..store import EVENT_CREATOR
from ..tables.bots import Bots
from ..tables.commands import Dealer
from .store import EventRow, EventStore

# An event's tables are created by ``event:<event id>`` (``EVENT_CREATOR``, in the store, which
# leaves their games out of profiles): nobody's account, so nobody changes, fills or watches them.


def creator_of(event_id: str) -> str:
    """The creator of ``event_id``'s tables.

    >>> creator_of("abc"), is_event_table(creator_of("abc")), is_event_table("ann")
    ('event:abc', True, False)
    """
    return EVENT_CREATOR + event_id


def is_event_table(creator: str) -> bool:
    """Whether a table whose creator is ``creator`` is an event's (no spectators: issue 30)."""
    return creator.startswith(EVENT_CREATOR)


class EventRefused(Exception):
    """A request about an event refused: its HTTP status and code (worded by the page), in English
    for logs; over the WebSocket the same refusal has the :attr:`ws_code` of its status."""

    def __init__(self, status: int, code: HttpErrorCode, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    @property
    def ws_code(self) -> ErrorCode:
        codes: dict[int, ErrorCode] = {404: "not_found", 403: "forbidden", 422: "invalid_message"}
        return codes.get(self.status, "bad_state")


@dataclass(frozen=True)
class NewTable:
    """A table an entrant is seated at: its settings, the entrant's seat, the bots' level in the other
    seats, its dealer (a board's deal) and its bots (seeded from the board)."""

    settings: TableSettings
    seat: int
    level: str
    dealer: Dealer
    bots: Bots


@dataclass(frozen=True)
class Seating:
    """Where an entrant plays: ``table`` (a new one when ``new`` says how to open it; otherwise one
    that exists, such as a board they have not finished or a Swiss round's table)."""

    table: str
    new: NewTable | None = None
    label: str = ""
    """What the table is of the event (``board 3``), for logs."""


class EventKind(Protocol):
    """One kind of event (``duplicate``, ``swiss``)."""

    name: str

    def settings(self, body: EventCreate, community: Community) -> dict[str, Any]:
        """A new event's settings from the body (raise :class:`EventRefused` 422 when they do not fit)."""

    def created(self, c: Connection, event: EventRow) -> None:
        """Store what the kind needs with ``event`` (the same transaction as the event's row)."""

    def view(self, store: EventStore, event: EventRow, viewer: str | None, now: float) -> dict[str, Any]:
        """What ``GET /api/events/{id}`` shows ``viewer`` beside the event itself: ``standings`` and
        the kind's own parts; nothing that ``viewer`` may not know yet."""

    def seat(self, store: EventStore, event: EventRow, account_id: str, nickname: str, now: float) -> Seating:
        """Where ``account_id`` plays next (``play_event``), the event open; raise
        :class:`EventRefused` when nowhere."""
