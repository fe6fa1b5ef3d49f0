"""The quick-play queue (快速开始): who waits, and which four sit down together.

Pure logic — no I/O and no clock of its own (the caller passes ``now``) — so the rules of matching
are tested alone. The server keeps one :class:`Queue` and calls :meth:`Queue.match` whenever someone
joins and once a second.

How a group forms:

- **Compatible preferences.** A player may ask for a turn timer and a number of games; ``None``
  means "any". Four players sit together when, for each preference, their non-``None`` wishes agree;
  the table takes that value (or the server's default when all four said "any").
- **Oldest first.** The player who has waited longest is seated first, with the earliest-arrived
  compatible partners.
- **Fresh faces.** Players who just played together are not put at one table again while enough
  other compatible players wait: a partner from the previous table is taken only when nobody else can
  complete the four.
- **Fair play (escapes).** A player with recent escapes (R35) gets a later ``ready_at`` (they wait
  longer before they can be seated) and is matched first with others who also have a delay — see
  :func:`escape_delay` for the rule.

>>> queue = Queue()
>>> for name in "abcd":
...     queue.join(Ticket(name, joined_at=0.0))
>>> [[t.account_id for t in group] for group, _ in queue.match(now=0.0)]
[['a', 'b', 'c', 'd']]
>>> len(queue)
0
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .people import distinct

SEATS = 4


@dataclass(frozen=True)
class Preferences:
    """What a player asks of a quick-play table; ``None`` is "any"."""

    turn_seconds: int | None = None
    games: int | None = None

    def merge(self, other: Preferences) -> Preferences | None:
        """The preferences both players accept, or ``None`` if they conflict.

        >>> Preferences(20).merge(Preferences(None, 3))
        Preferences(turn_seconds=20, games=3)
        >>> Preferences(20).merge(Preferences(30)) is None
        True
        """
        merged = {}
        for name in ("turn_seconds", "games"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine is not None and theirs is not None and mine != theirs:
                return None
            merged[name] = mine if mine is not None else theirs
        return Preferences(**merged)


@dataclass(frozen=True)
class Ticket:
    """One waiting player."""

    account_id: str
    joined_at: float
    preferences: Preferences = Preferences()
    ready_at: float = 0.0
    """When the player may first be seated (later than ``joined_at`` after recent escapes)."""
    recent: frozenset[str] = frozenset()
    """The accounts the player has just played with (their last table)."""
    origin: str = ""
    """Where the player connects from (:func:`niugui.server.people.origin`): never seated with
    another account of the same origin (issue 33, finding 8)."""

    @property
    def delayed(self) -> bool:
        return self.ready_at > self.joined_at


@dataclass(frozen=True)
class EscapePolicy:
    """The fair-play rule for quick play, configurable by the operator.

    Escapes count over a player's last ``window`` finished-or-escaped games. The first ``free``
    escapes cost nothing here (a lost connection happens to everyone); each one beyond adds
    ``delay_per_escape`` seconds of waiting, up to ``max_delay``.
    """

    window: int = 20
    free: int = 1
    delay_per_escape: float = 60.0
    max_delay: float = 600.0


def escape_delay(recent_escapes: int, policy: EscapePolicy = EscapePolicy()) -> float:
    """Seconds a player waits before being seated, for ``recent_escapes`` in the policy's window.

    >>> [escape_delay(n) for n in (0, 1, 2, 3, 20)]
    [0.0, 0.0, 60.0, 120.0, 600.0]
    """
    return min(policy.max_delay, max(0, recent_escapes - policy.free) * policy.delay_per_escape)


@dataclass
class Queue:
    """Players waiting for quick play, in the order they joined."""

    tickets: dict[str, Ticket] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.tickets)

    def __contains__(self, account_id: object) -> bool:
        return account_id in self.tickets

    def join(self, ticket: Ticket) -> None:
        """Add a player (joining again replaces the earlier ticket, keeping its place in line)."""
        old = self.tickets.get(ticket.account_id)
        if old is not None:
            ticket = Ticket(
                ticket.account_id, old.joined_at, ticket.preferences, max(ticket.ready_at, old.ready_at),
                ticket.recent, ticket.origin,
            )
        self.tickets[ticket.account_id] = ticket

    def leave(self, account_id: str) -> bool:
        """Remove a player; whether they were waiting."""
        return self.tickets.pop(account_id, None) is not None

    def waiting(self) -> list[Ticket]:
        """The tickets, oldest first."""
        return sorted(self.tickets.values(), key=lambda t: (t.joined_at, t.account_id))

    def match(self, now: float) -> list[tuple[list[Ticket], Preferences]]:
        """Form every table that can be formed now; the seated players leave the queue."""
        groups: list[tuple[list[Ticket], Preferences]] = []
        while True:
            found = self._one_group(now)
            if found is None:
                return groups
            for ticket in found[0]:
                del self.tickets[ticket.account_id]
            groups.append(found)

    def take_with_bots(
        self, account_id: str, now: float, wait: float, willing: Callable[[Ticket], bool] = lambda _: True
    ) -> tuple[list[Ticket], Preferences] | None:
        """A player who has waited ``wait`` seconds (and is past any fair-play delay) chose to fill
        the empty seats with bots: they leave the queue with the compatible players ready to be seated
        (at most two, oldest first; a delayed player only with other delayed ones). None when they
        may not yet (or do not wait).
        """
        first = self.tickets.get(account_id)
        if first is None or now < max(first.ready_at, first.joined_at + wait):
            return None
        others = [t for t in self.waiting() if t is not first and t.ready_at <= now and willing(t)]
        if first.delayed:
            others = [t for t in others if t.delayed]
        group, prefs = [first], first.preferences
        for ticket in others:
            merged = prefs.merge(ticket.preferences)
            if len(group) < SEATS - 1 and merged is not None and apart(group, ticket):
                group.append(ticket)
                prefs = merged
        for ticket in group:
            del self.tickets[ticket.account_id]
        return group, prefs

    def _one_group(self, now: float) -> tuple[list[Ticket], Preferences] | None:
        ready = [t for t in self.waiting() if t.ready_at <= now]
        for first in ready:
            # Delayed players are matched first with one another (fair play), then with anyone.
            pools = ([t for t in ready if t.delayed], ready) if first.delayed else (ready,)
            for pool in pools:
                found = _complete(first, [t for t in pool if t is not first])
                if found is not None:
                    return found
        return None


def _complete(first: Ticket, others: Iterable[Ticket]) -> tuple[list[Ticket], Preferences] | None:
    """Three partners for ``first``: of the compatible fours, the one with the fewest pairs who have
    just played together, and among those the earliest arrivals (``others`` is in arrival order) — so
    recent partners meet again only when no four without them can be formed.

    A depth-first search in arrival order that stops at the first four with no such pair.
    """
    candidates = list(others)
    best: tuple[int, list[Ticket], Preferences] | None = None

    def search(group: list[Ticket], prefs: Preferences, met: int, start: int) -> None:
        nonlocal best
        if best is not None and met >= best[0]:
            return  # no better than the four already found (an earlier one wins a tie)
        if len(group) == SEATS:
            best = (met, group, prefs)
            return
        for index in range(start, len(candidates)):
            candidate = candidates[index]
            merged = prefs.merge(candidate.preferences)
            if merged is not None and apart(group, candidate):
                search([*group, candidate], merged, met + sum(_met(g, candidate) for g in group), index + 1)
                if best is not None and best[0] == 0:
                    return

    search([first], first.preferences, 0, 0)
    return None if best is None else (best[1], best[2])


def apart(group: Iterable[Ticket], candidate: Ticket) -> bool:
    """May ``candidate`` join ``group``: distinct people (no origin in common; finding 8)."""
    return all(distinct(ticket.origin, candidate.origin) for ticket in group)


def _met(a: Ticket, b: Ticket) -> bool:
    return b.account_id in a.recent or a.account_id in b.recent
