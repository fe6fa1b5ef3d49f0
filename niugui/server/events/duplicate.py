"""Duplicate events (复式赛, issue 30): the same boards for every entrant, each played alone against
the event's bots, each result compared only with the others on the same board (matchpoints).

What a viewer is shown of a board before it is *revealed* to them: its number, its commitment, how
many finished it, and their own state on it. A board is revealed to a viewer who finished it, and to
everyone once the event is over: then its seat, every result with its matchpoints and replay, and the
commitment's statement (:mod:`.boards`). The standings (totals only) are live for everyone.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy.engine import Connection

from niugui.bots.levels import NAMES

from ..config import Community
from ..creation import short_id
from ..protocol import EventCreate, TableSettings
from .base import EventRefused, NewTable, Seating
from .boards import BoardBots, BoardDealer, board_seed, new_board, statement
from .matchpoints import matchpoints, standings
from .store import BoardRow, EntryRow, EventRow, EventStore, insert_boards

LEVELS: tuple[str, ...] = tuple(name for name in NAMES if name != "search")
"""The bots a duplicate event may have: those that answer the same to the same view (``search`` thinks
against a clock, so the same plays may not get the same answers)."""
DEFAULT_BOARDS = 8


class Duplicate:
    """The ``duplicate`` kind (:class:`~niugui.server.events.base.EventKind`)."""

    name = "duplicate"

    def __init__(self, turn_seconds: float = 120.0) -> None:
        self.turn_seconds = turn_seconds

    def settings(self, body: EventCreate, community: Community) -> dict[str, Any]:
        level = body.bot_level or "expert"
        if level not in LEVELS:
            raise EventRefused(
                422, "invalid_input", f"bot_level: a duplicate event's bots are one of {LEVELS}"
            )
        return {"boards": body.boards or DEFAULT_BOARDS, "bot_level": level}

    def created(self, c: Connection, event: EventRow) -> None:
        insert_boards(c, [new_board(event.id, n) for n in range(1, int(event.settings["boards"]) + 1)])

    def view(self, store: EventStore, event: EventRow, viewer: str | None, now: float) -> dict[str, Any]:
        boards, entries = store.boards(event.id), store.entries(event.id)
        return shown(event, boards, entries, viewer, now)

    def seat(self, store: EventStore, event: EventRow, account_id: str, nickname: str, now: float) -> Seating:
        mine = [e for e in store.entries(event.id) if e.account_id == account_id]
        unfinished = next((e for e in mine if e.score is None), None)
        if unfinished is not None:
            return Seating(unfinished.table_id, label=f"board {unfinished.board}")
        done = {e.board for e in mine}
        left = [b for b in store.boards(event.id) if b.board not in done]
        if not left:
            raise EventRefused(409, "event_closed", "you have played every board of this event")
        board = left[0]
        table_id = short_id(8)
        entry = EntryRow(event.id, account_id, board.board, nickname, table_id, board.seat, now)
        if not store.enter(entry):
            raise EventRefused(409, "event_closed", "you began this board a moment ago; try again")
        settings = TableSettings(
            name=f"{event.name} · {board.board}",
            private=True,
            turn_seconds=self.turn_seconds,
            bot_level=event.settings["bot_level"],
            games=1,
        )
        table = NewTable(
            settings, board.seat, settings.bot_level, BoardDealer(board), BoardBots(board_seed(board))
        )
        return Seating(table_id, table, label=f"board {board.board}")


def shown(
    event: EventRow, boards: list[BoardRow], entries: list[EntryRow], viewer: str | None, now: float
) -> dict[str, Any]:
    """The event's boards and standings as ``viewer`` may see them at ``now`` (pure)."""
    over = now >= event.ends_at
    finished = [e for e in entries if e.score is not None]
    results: dict[int, dict[str, float]] = defaultdict(dict)
    for e in finished:
        results[e.board][e.account_id] = float(e.score or 0)
    nicknames = {e.account_id: e.nickname for e in entries}
    lines = standings(results)
    table = [
        {
            "rank": n,
            "account_id": s.entrant,
            "nickname": nicknames.get(s.entrant, ""),
            "boards": s.boards,
            "matchpoints": s.matchpoints,
            "maximum": s.maximum,
            "percent": s.percent,
        }
        for n, s in enumerate(lines, 1)
    ]
    mine = {e.board: e for e in entries if e.account_id == viewer}
    shown_boards = [_board(b, results.get(b.board, {}), finished, mine.get(b.board), over) for b in boards]
    me = next((line for line in table if line["account_id"] == viewer), None)
    progress = None
    if viewer is not None:
        done = sum(1 for e in mine.values() if e.score is not None)
        left = [b.board for b in boards if b.board not in mine]
        playing = next((e.board for e in mine.values() if e.score is None), None)
        progress = {
            "boards_done": done,
            "boards": len(boards),
            "playing": playing,
            "next_board": playing or (left[0] if left else None),
            "rank": None if me is None else me["rank"],
            "matchpoints": None if me is None else me["matchpoints"],
            "percent": None if me is None else me["percent"],
        }
    return {"standings": table, "boards": shown_boards, "me": progress, "entrants": len(nicknames)}


def _board(
    board: BoardRow, results: dict[str, float], finished: list[EntryRow], mine: EntryRow | None, over: bool
) -> dict[str, Any]:
    """One board for one viewer: revealed when the event is over or the viewer finished it."""
    shown: dict[str, Any] = {"board": board.board, "commitment": board.commitment, "played": len(results)}
    points = matchpoints(results)
    if mine is not None:
        done = mine.score is not None
        shown["mine"] = {
            "status": "done" if done else "playing",
            "table": mine.table_id,
            "score": mine.score,
            "matchpoints": points.get(mine.account_id) if done else None,
        }
    if not (over or (mine is not None and mine.score is not None)):
        return shown
    played = sorted((e for e in finished if e.board == board.board), key=lambda e: -(e.score or 0))
    shown["seat"] = board.seat
    shown["reveal"] = statement(board)
    shown["results"] = [
        {
            "account_id": e.account_id,
            "nickname": e.nickname,
            "score": e.score,
            "matchpoints": points[e.account_id],
            "game_id": e.game_id,
            "replay": f"/api/games/{e.game_id}/replay?code={e.code}"
            if e.code
            else f"/api/games/{e.game_id}/replay",
        }
        for e in played
    ]
    return shown
