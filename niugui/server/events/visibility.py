"""Who may see a duplicate board's stored table (issue 30): its replay, record and ledger tell the
board, so before the event ends only its own entrant and those who finished the same board see them —
a join code passed to a friend does not show a board early. Any other table: the table's own rule.

>>> from .store import EntryRow
>>> at = [EntryRow("e", "ann", 1, "安", "t1", 0, 0.0, score=3), EntryRow("e", "bob", 1, "鲍", "t2", 0, 0.0)]
>>> [board_shown(at, "t1", who) for who in ("ann", "bob", "cy", None)]
[True, False, False, False]
>>> [board_shown(at, "t2", who) for who in ("ann", "bob", "cy")]
[True, True, False]
>>> board_shown(at, "t9", "cy")  # no entry there (a Swiss round's table): not a board's
True
"""

from __future__ import annotations

from ..store import EVENT_CREATOR
from .base import is_event_table
from .store import EntryRow, EventStore


def may_see_board(events: EventStore, table_id: str, creator: str, viewer: str | None, now: float) -> bool:
    """False when ``table_id`` is a board's table that ``viewer`` may not see yet (reads the store)."""
    if not is_event_table(creator):
        return True
    event = events.event(creator.removeprefix(EVENT_CREATOR))
    if event is None or now >= event.ends_at:
        return True
    return board_shown(events.entries(event.id), table_id, viewer)


def board_shown(entries: list[EntryRow], table_id: str, viewer: str | None) -> bool:
    """Before the event's end: whether ``viewer`` is the entrant at ``table_id`` or finished its board."""
    at = next((e for e in entries if e.table_id == table_id), None)
    if at is None or viewer == at.account_id:
        return True
    return viewer is not None and any(
        e.account_id == viewer and e.board == at.board and e.score is not None for e in entries
    )
