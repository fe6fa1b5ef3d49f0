"""The clock: what a table is waiting for (a turn timer, a bot's move, a seat's grace period) and the
timers that say so when it is due.

:func:`turn_due` is pure: what the seat to move is waiting for, from the state alone. :class:`Clock`
keeps one timer for the turn and one per offline seat, re-armed only when what is due changes, and
tells the glue (``on_due``) when one goes off; it never changes the table itself.

The turn's timer is lazy: a human's deadline moves later with every action, and a timer armed to go
off no later than the new deadline is kept — when it goes off early it arms itself again for the
rest. So an action arms no timer of the event loop, most of the time (each armed one is four objects
that live until the next action, and every young garbage collection walks them).

>>> from niugui.server.tables.state import TableModel
>>> turn_due(TableModel("t1", creator="a1", code=None)) is None   # no game: nothing is due
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from .state import TableModel


@dataclass(frozen=True, slots=True)
class Due:
    """Something a table waits for. ``turn`` names the turn (stale timers are recognised by it)."""

    kind: Literal["timeout", "bot", "grace", "ready", "vote"]
    seat: int
    turn: tuple[int, int] | None = None
    at: float | None = None
    """For a timeout: the UNIX time it falls due (the state's ``deadline``)."""


def turn_due(state: TableModel) -> Due | None:
    """What the seat to move is waiting for: its turn timer (a human), or a bot's move (a bot, or a
    human seat in 托管); ``None`` when no game is waiting on anyone."""
    turn = state.turn
    if turn is None or state.game is None or state.game.to_move is None:
        return None
    seat = state.game.to_move
    deadline = state.deadline
    if deadline is not None:
        return Due("timeout", seat, turn, deadline)
    return Due("bot", seat, turn)


def ready_due(state: TableModel, ready_seconds: float) -> Due | None:
    """Between games, when the seats not ready yet are freed (``seat`` -1: the whole table); ``None``
    when nobody is waited for or there is no ready timeout.

    >>> from niugui.server.tables.state import TableModel
    >>> ready_due(TableModel("t1", creator="a1", code=None), 60.0) is None   # waiting, not between
    True
    """
    if ready_seconds <= 0 or state.status != "between":
        return None
    if all(slot.ready or not slot.human for slot in state.seats):
        return None
    return Due("ready", -1, (state.game_no, -1), state.between_since + ready_seconds)


DISSOLVE_SECONDS = 60.0
"""How long a dissolve vote (解散, issue 29) waits for every seated person's answer."""


def vote_due(state: TableModel) -> Due | None:
    """When the dissolve vote in progress runs out (``turn`` names the vote by its proposal's seq).

    >>> from niugui.server.tables.state import TableModel, Vote
    >>> state = TableModel("t1", creator="a1", code=None)
    >>> state.vote = Vote(proposer=0, since=100.0, seconds=DISSOLVE_SECONDS, seq=7, agreed={0})
    >>> vote_due(state)
    Due(kind='vote', seat=-1, turn=(7, -2), at=160.0)
    """
    vote = state.vote
    if vote is None:
        return None
    return Due("vote", -1, (vote.seq, -2), vote.since + vote.seconds)


def grace_seats(state: TableModel) -> set[int]:
    """Seats whose player is away (and not leaving already): each has a grace period before it
    counts as gone (R35)."""
    seats = enumerate(state.seats)
    return {n for n, slot in seats if slot.human and not slot.online and n not in state.leaving}


EARLY = 0.001
"""Seconds before its time a turn still counts as due when its timer goes off (uvloop rounds a
timer's delay to the millisecond, so one may go off up to half a millisecond early)."""


class Handle(Protocol):
    def cancel(self) -> None: ...


class Timers(Protocol):
    """What the clock needs of an event loop (``asyncio``'s ``call_later`` and ``time``; a fake one
    in tests)."""

    def call_later(self, delay: float, callback: Callable[[Due], None], due: Due, /) -> Handle: ...

    def time(self) -> float:
        """The timers' own clock: monotonic, unlike the UNIX time of deadlines."""
        ...


class Clock:
    """One table's timers."""

    def __init__(
        self,
        timers: Timers,
        on_due: Callable[[Due], None],
        *,
        bot_delay: float,
        grace_seconds: float,
        now: Callable[[], float],
        ready_seconds: float = 0.0,
    ) -> None:
        self._timers = timers
        self._on_due = on_due
        self._bot_delay = bot_delay
        self._grace_seconds = grace_seconds
        self._now = now
        self._turn: Due | None = None
        """What the turn waits for: it falls due at ``_turn_at``, on the timers' clock (a deadline,
        a UNIX time, is turned into it when armed: a step of the system's clock afterwards neither
        hastens nor postpones it)."""
        self._turn_at = 0.0
        self._timer: Handle | None = None
        """The turn's timer: it goes off at ``_timer_at``, at or before ``_turn_at``."""
        self._timer_at = 0.0
        self._grace: dict[int, Handle] = {}
        self._ready_seconds = ready_seconds
        self._ready: tuple[Due, Handle] | None = None
        self._vote: tuple[Due, Handle] | None = None

    @property
    def armed(self) -> Due | None:
        """What the turn waits for (the loop's timer may be armed for earlier, see :meth:`_arm_turn`)."""
        return self._turn

    def sync(self, state: TableModel, busy: Due | None = None) -> None:
        """Arm what the state makes due and cancel what it no longer does. ``busy``: what a bot is
        choosing for already (nothing is armed for it)."""
        due = turn_due(state)
        if due == busy:
            due = None
        if self._turn != due:
            self._arm_turn(due)
        self._ready = self._rearm(self._ready, ready_due(state, self._ready_seconds))
        self._vote = self._rearm(self._vote, vote_due(state))
        away = grace_seats(state)
        for seat in list(self._grace):
            if seat not in away:
                self._grace.pop(seat).cancel()
        for seat in away:
            if seat not in self._grace:
                grace = Due("grace", seat)
                self._grace[seat] = self._timers.call_later(self._grace_seconds, self._fire, grace)

    def _rearm(self, armed: tuple[Due, Handle] | None, due: Due | None) -> tuple[Due, Handle] | None:
        """A one-off timer (the ready timeout, a vote's end): kept while it is still what is due."""
        if (armed and armed[0]) == due:
            return armed
        if armed is not None:
            armed[1].cancel()
        if due is None or due.at is None:
            return None
        return (due, self._timers.call_later(max(0.0, due.at - self._now()), self._fire, due))

    def stop(self) -> None:
        self._cancel_turn()
        for armed in (self._ready, self._vote):
            if armed is not None:
                armed[1].cancel()
        self._ready = self._vote = None
        for handle in self._grace.values():
            handle.cancel()
        self._grace.clear()

    def _arm_turn(self, due: Due | None) -> None:
        """Wait for ``due`` (nothing when None); the timer armed already is kept if it goes off no
        later than ``due`` falls due (it finds nothing, or arms itself again, when it does)."""
        self._turn = due
        if due is None:
            return
        now = self._timers.time()
        at = now + (self._bot_delay if due.at is None else due.at - self._now())
        self._turn_at = at
        if self._timer is not None:
            if self._timer_at <= at:
                return
            self._timer.cancel()
        self._timer_at = at
        self._timer = self._timers.call_later(max(0.0, at - now), self._turn_timer, due)

    def _cancel_turn(self) -> None:
        self._turn = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _turn_timer(self, _armed_for: Due) -> None:
        self._timer = None
        due = self._turn
        if due is None:
            return
        rest = self._turn_at - self._timers.time()
        if rest > EARLY:  # it was armed for something due earlier: wait for the rest
            self._timer_at = self._turn_at
            self._timer = self._timers.call_later(rest, self._turn_timer, due)
            return
        self._turn = None
        self._on_due(due)

    def _fire(self, due: Due) -> None:
        if due.kind == "grace":
            self._grace.pop(due.seat, None)
        elif due.kind == "ready" and self._ready is not None and self._ready[0] == due:
            self._ready = None
        elif due.kind == "vote" and self._vote is not None and self._vote[0] == due:
            self._vote = None
        self._on_due(due)
