"""The leaderboards as served (issue 33, finding 3): each board is computed at most once while the
ratings stay as they are, and at most once a ``board_seconds`` while rated games keep finishing; every
asker in between gets the same answer. Before, every request recomputed the board over the whole
ledger (4.9 s at 100,000 rated games), and forty requests from one address held every connection of
the database's pool.

Whether the ratings changed is read from the store as the newest rating-history id (its primary key:
one index lookup), so a game finished on another node of a cluster counts too. An answer is never
older than ``max_age`` seconds (a nickname changed); once a rated game finished, it is served at
most ``board_seconds`` longer — or :data:`COST_FACTOR` times what computing it cost, when that is
more, so that rated games finishing all the time never keep the server computing boards more than
a tenth of the time (at 100,000 rated games a board costs seconds). Concurrent askers of a board
that must be recomputed wait for one computation (one connection of the pool) instead of each
starting their own, each board with its own lock and for at most ``wait`` seconds (then
:class:`BoardBusy`). A board is kept whole (its top :data:`BOARD_ROWS`) and each asker gets the slice they
asked for, so asking for other lengths computes nothing more.

>>> calls = []
>>> boards = Boards(lambda: 1, board_seconds=0.0)
>>> boards.get("points", lambda: calls.append(1) or [{"id": "a"}, {"id": "b"}])
[{'id': 'a'}, {'id': 'b'}]
>>> boards.get("points", lambda: calls.append(1) or [], limit=1)  # the ratings did not move: shared
[{'id': 'a'}]
>>> len(calls)
1
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

MAX_BOARDS = 64
"""Distinct boards kept at once; beyond, the oldest is dropped."""
BOARD_ROWS = 500
"""Rows a board is computed with (the most a leaderboard request may ask for)."""


class BoardBusy(TimeoutError):
    """The board is being computed and did not come within the wait (the route answers 503)."""
COST_FACTOR = 10.0
"""A board is computed again at most once per this many times what computing it cost."""


@dataclass
class _Board:
    rows: list[dict[str, Any]]
    version: int
    at: float
    cost: float = 0.0


class Boards:
    """Computed boards, keyed by what was asked, each with the rating version it was computed at."""

    def __init__(
        self,
        version: Callable[[], int],
        board_seconds: float = 1.0,
        max_age: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.version = version
        self.clock = clock
        self.board_seconds = board_seconds
        self.max_age = max_age
        self.computed = 0
        """How many boards were computed (the bench and the tests read it)."""
        self._boards: dict[Hashable, _Board] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._guard = threading.Lock()

    def _fresh(self, board: _Board | None, version: int, now: float) -> bool:
        if board is None or now - board.at >= self.max_age:
            return False
        return board.version == version or now - board.at < max(self.board_seconds, COST_FACTOR * board.cost)

    def get(
        self,
        key: Hashable,
        compute: Callable[[], list[dict[str, Any]]],
        limit: int = BOARD_ROWS,
        wait: float | None = None,
    ) -> list[dict[str, Any]]:
        """The first ``limit`` rows of board ``key``, from ``compute`` (which gives the top
        :data:`BOARD_ROWS`) when the one kept is stale: one computation per board at a time, the others
        wait at most ``wait`` seconds (:class:`BoardBusy` after) and share it. Rows are copied."""
        version = self.version()
        board = self._boards.get(key)
        if not self._fresh(board, version, self.clock()):
            with self._guard:
                lock = self._locks.setdefault(key, threading.Lock())
            if not lock.acquire(timeout=-1 if wait is None else wait):
                raise BoardBusy(key)
            try:
                board = self._boards.get(key)
                if not self._fresh(board, version, self.clock()):
                    board = self._compute(key, compute, version)
            finally:
                lock.release()
        assert board is not None
        return [dict(row) for row in board.rows[:limit]]

    def _compute(self, key: Hashable, compute: Callable[[], list[dict[str, Any]]], version: int) -> _Board:
        start = self.clock()
        rows = compute()
        done = self.clock()
        board = _Board(rows, version, done, done - start)
        with self._guard:
            self.computed += 1
            self._boards.pop(key, None)
            self._boards[key] = board
            while len(self._boards) > MAX_BOARDS:
                dropped = next(iter(self._boards))
                self._boards.pop(dropped)
                self._locks.pop(dropped, None)
        return board
