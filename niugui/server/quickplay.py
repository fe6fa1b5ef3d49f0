"""快速开始 on the server: the queue of connected players (:mod:`.matchmaking` decides who sits with
whom), seating each group it forms at a new rated table, and the ``queue`` messages.

The queue lives in memory: a restart empties it (the players' pages join again when they reconnect
to a waiting view). A player is in the queue only while connected: their last connection closing
takes them out, so nobody is seated at a table they will never see. Docs: docs/community.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from . import logs
from .config import Community
from .matchmaking import EscapePolicy, Preferences, Queue, Ticket, new_ticket
from .protocol import QueueStatus
from .store import PlayerCard
from .tables import Client, Fault

OTHERS_EVERY = 0.5
"""Seconds within which the waiting players are told that the queue changed (once for all changes)."""
Person = tuple[str, str, PlayerCard | None]
"""(account id, nickname, card) of a player to seat."""
Seated = Callable[[str, dict[str, int]], None]
"""Told the new table's id and each account's seat once the group is seated."""


@dataclass(frozen=True)
class Waiting:
    """What the queue knows of a waiting player besides their ticket."""

    nickname: str
    card: PlayerCard | None


class Matchmaker:
    """The quick-play queue of one server.

    ``clients(account_id)``: that account's open connections; ``open_table(people, preferences,
    bots, seated)``: seat them at a new table (``bots``: fill the seats left with bots);
    ``later(delay, callback)``: a timer (for players whose fair-play delay ends while they wait).
    """

    def __init__(
        self,
        settings: Community,
        clients: Callable[[str], Iterable[Client]],
        open_table: Callable[[Sequence[Person], Preferences, bool, Seated], None],
        later: Callable[[float, Callable[[], None]], Any] | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.policy = EscapePolicy(
            settings.escape_window, settings.escape_free, settings.escape_delay, settings.escape_max_delay
        )
        self.queue = Queue()
        self.waiting: dict[str, Waiting] = {}
        self.recent: dict[str, frozenset[str]] = {}
        """Each player's partners at their last quick-play table (fresh faces next time)."""
        self._clients = clients
        self._open_table = open_table
        self._later = later
        self._now = now
        self._timer: Any = None
        self._others_timer: Any = None

    def __contains__(self, account_id: object) -> bool:
        return account_id in self.queue

    def join(
        self, client: Client, preferences: Preferences, card: PlayerCard | None, bots: bool = False
    ) -> None:
        """Queue the client's account (again: its place in line is kept, its preferences replaced);
        ``bots``: it agrees to be seated when another waiting player fills the seats with bots."""
        now = self._now()
        escapes = 0 if card is None else card.recent_escapes
        account = client.account_id
        recent = self.recent.get(account, frozenset())
        ticket = new_ticket(account, client.address, now, preferences, escapes, self.policy, bots, recent)
        again = account in self.queue
        self.queue.join(ticket)
        self.waiting[account] = Waiting(client.nickname, card)
        logs.info("quick play: joined", account=account, waiting=len(self.queue))
        self.update(only=account, others=not again)  # joining again changes no one else's count

    def leave(self, account_id: str) -> bool:
        """Take the account out of the queue; whether it was waiting. It is told, and so are the others."""
        if not self.queue.leave(account_id):
            return False
        self.waiting.pop(account_id, None)
        self._tell(account_id, self._status(account_id, "left"))
        self.update()
        return True

    def with_bots(self, account_id: str) -> None:
        """The player chose to fill the empty seats with bots (after waiting ``bots_after`` seconds)."""
        now = self._now()
        ticket = self.queue.tickets.get(account_id)
        if ticket is None:
            raise Fault("bad_state", "you are not waiting in quick play; press quick play first")
        # only those who agreed (Ticket.bots) are pulled in: a griefer's bot game, which they then
        # leave, takes no stranger along (issue 33, finding 9)
        taken = self.queue.take_with_bots(account_id, now, self.settings.bots_after)
        if taken is None:
            ready = max(ticket.ready_at, ticket.joined_at + self.settings.bots_after)
            raise Fault("bad_state", f"bots can fill the seats in {ready - now:.0f} s")
        self._seat(*taken, bots=True)
        self.update()

    def update(self, only: str | None = None, others: bool = True) -> None:
        """Seat every group that can be formed now, tell ``only`` where they stand and — within
        :data:`OTHERS_EVERY` seconds, all changes of that time in one message each — every other
        waiting player, unless nothing changed for them; arm the timer for the next fair-play delay.
        (Telling everyone at each request made one ``quick_play`` cost a frame per waiting player:
        issue 33, finding 1.)"""
        groups = self.queue.match(self._now())
        for group, preferences in groups:
            self._seat(group, preferences, bots=False)
        if only is not None and only in self.queue:
            self._tell(only, self._status(only, "waiting"))
        if others or groups:
            self._tell_others_soon()
        self._arm()

    def _tell_others_soon(self) -> None:
        if self._later is None:
            self._tell_everyone()
        elif self._others_timer is None:
            self._others_timer = self._later(OTHERS_EVERY, self._tell_everyone)

    def _tell_everyone(self) -> None:
        self._others_timer = None
        for account in list(self.queue.tickets):
            self._tell(account, self._status(account, "waiting"))

    # ---- inside ------------------------------------------------------------------------------------

    def _seat(self, group: list[Ticket], preferences: Preferences, bots: bool) -> None:
        people = []
        for ticket in group:
            who = self.waiting.pop(ticket.account_id, None)
            people.append(
                (ticket.account_id, "" if who is None else who.nickname, None if who is None else who.card)
            )
        accounts = frozenset(t.account_id for t in group)
        for account in accounts:
            self.recent[account] = accounts - {account}

        def seated(table_id: str, seats: dict[str, int]) -> None:
            for account, seat in seats.items():
                self._tell(account, self._status(account, "seated", table_id, seat))

        logs.info("quick play: seated", players=len(group), bots=bots)
        self._open_table(people, preferences, bots, seated)

    def _status(
        self,
        account: str,
        status: Literal["waiting", "seated", "left"],
        table: str | None = None,
        seat: int | None = None,
    ) -> str:
        now = self._now()
        ticket = self.queue.tickets.get(account)
        waiting = status == "waiting" and ticket is not None
        delay = 0.0 if ticket is None else max(0.0, ticket.ready_at - ticket.joined_at)
        bots_in = None
        if waiting and ticket is not None:
            bots_in = max(0.0, max(ticket.ready_at, ticket.joined_at + self.settings.bots_after) - now)
        card = self.waiting[account].card if account in self.waiting else None
        return QueueStatus(
            type="queue",
            status=status,
            waiting=len(self.queue),
            waited=0.0 if ticket is None else round(now - ticket.joined_at, 3),
            bots_in=None if bots_in is None else round(bots_in, 3),
            delay=delay,
            escapes=0 if card is None else card.recent_escapes,
            reason="escapes" if delay > 0 else None,
            turn_seconds=None if ticket is None else ticket.preferences.turn_seconds,
            games=None if ticket is None else ticket.preferences.games,
            table=table,
            seat=seat,
        ).model_dump_json()

    def _tell(self, account: str, frame: str) -> None:
        for client in list(self._clients(account)):
            client.send(frame)

    def _arm(self) -> None:
        if self._later is None:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        now = self._now()
        ready_at = self.queue.next_ready(now)  # the queue's heap: no walk over everyone waiting
        if ready_at is not None:
            self._timer = self._later(ready_at - now + 0.01, self.update)
