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
- **Distinct people.** No two tickets of one origin (an address key, :mod:`niugui.server.people`)
  at one table (issue 33, finding 8): a search looks at the oldest ticket of each origin in a bucket,
  so one address's guests at the front of a bucket never block it.
- **Bots by consent.** :meth:`Queue.take_with_bots` takes along only tickets that agreed
  (``Ticket.bots``; issue 33, finding 9).

>>> queue = Queue()
>>> for name in "abcd":
...     queue.join(Ticket(name, joined_at=0.0))
>>> [[t.account_id for t in group] for group, _ in queue.match(now=0.0)]
[['a', 'b', 'c', 'd']]
>>> len(queue)
0
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from .people import distinct, origin

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
    bots: bool = False
    """The player agreed to be seated when another waiting player fills the seats with bots."""

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


def new_ticket(
    account_id: str,
    address: str | None,
    now: float,
    preferences: Preferences,
    escapes: int,
    policy: EscapePolicy,
    bots: bool = False,
    recent: frozenset[str] = frozenset(),
) -> Ticket:
    """A player's ticket as they join quick play, on one node or a cluster node alike (one place for
    what it carries): the fair-play delay of ``escapes`` (R35), the origin of the connection's
    ``address`` key (finding 8) and whether they agreed to be seated with bots (finding 9).

    >>> t = new_ticket("a", "203.0.113.7", 10.0, Preferences(), 3, EscapePolicy(), bots=True)
    >>> t.ready_at, t.origin, t.bots
    (130.0, '203.0.113.7', True)
    """
    return Ticket(
        account_id,
        now,
        preferences,
        ready_at=now + escape_delay(escapes, policy),
        recent=recent,
        origin=origin(address),
        bots=bots,
    )


POOL_PER_BUCKET = 8
"""The oldest ready tickets of each preference bucket a search looks at, one per origin (fresh faces
are chosen among them): what bounds one search, whatever the queue holds."""
WITH_BOTS_PER_BUCKET = 4
"""The oldest willing tickets of each bucket, one per origin, ``take_with_bots`` looks at: two are
taken at most, and one of the four may share the asker's origin."""


class Heads:
    """One bucket's tickets by origin: the oldest of each origin, in arrival order (a ticket of no
    known origin is its own). What a search takes from a bucket, so that many tickets of one origin
    cost it one place, not all of them.

    >>> heads = Heads()
    >>> for n, origin in enumerate(["x", "x", "x", "", "y"]):
    ...     heads.add((float(n), f"a{n}"), origin)
    >>> heads.first(3)
    [(0.0, 'a0'), (3.0, 'a3'), (4.0, 'a4')]
    >>> heads.remove((0.0, "a0"), "x"); heads.first(2)
    [(1.0, 'a1'), (3.0, 'a3')]
    """

    def __init__(self) -> None:
        self.heads: list[tuple[float, str]] = []
        self.by_origin: dict[str, list[tuple[float, str]]] = {}

    def __len__(self) -> int:
        return len(self.heads)

    def first(self, n: int) -> list[tuple[float, str]]:
        return self.heads[:n]

    def add(self, entry: tuple[float, str], origin: str) -> None:
        if not origin:
            bisect.insort(self.heads, entry)
            return
        mine = self.by_origin.setdefault(origin, [])
        if mine and entry < mine[0]:
            _drop(self.heads, mine[0])
        if not mine or entry < mine[0]:
            bisect.insort(self.heads, entry)
        bisect.insort(mine, entry)

    def remove(self, entry: tuple[float, str], origin: str) -> None:
        if not origin:
            _drop(self.heads, entry)
            return
        mine = self.by_origin[origin]
        head = mine[0] == entry
        _drop(mine, entry)
        if head:
            _drop(self.heads, entry)
            if mine:
                bisect.insort(self.heads, mine[0])
        if not mine:
            del self.by_origin[origin]

Key = tuple[int | None, int | None, bool]
"""A bucket of the index: the exact preferences (turn seconds, games), and whether the ticket is
delayed (R35)."""


@dataclass
class Queue:
    """Players waiting for quick play, indexed by preference (issue 33, finding 1).

    Ready tickets sit in buckets by their exact preferences, each sorted by arrival; tickets still
    in their fair-play delay wait in a heap by ``ready_at``. Four players fit together exactly when
    some fully merged preference ``(T, G)`` accepts each of them, and then they all come from the
    (at most) four buckets ``(T, G)``, ``(T, any)``, ``(any, G)``, ``(any, any)``. Matching is
    incremental: a group can only form around a ticket that joined or became ready since the last
    :meth:`match` (nobody else could form one before), and a search for one ticket looks at most at
    ``POOL_PER_BUCKET`` tickets of each of those buckets, for each target its preferences allow —
    so its cost does not grow with the number waiting.

    >>> queue = Queue()
    >>> for i, name in enumerate("abc"):
    ...     queue.join(Ticket(name, float(i), Preferences(turn_seconds=20 + i)))
    >>> queue.join(Ticket("d", 3.0))
    >>> queue.match(now=4.0), len(queue.buckets())  # d fits each of a, b, c, but they do not fit
    ([], 4)
    """

    tickets: dict[str, Ticket] = field(default_factory=dict)
    _buckets: dict[Key, list[tuple[float, str]]] = field(default_factory=dict)
    _heads: dict[Key, Heads] = field(default_factory=dict)
    """Each bucket's oldest ticket per origin (what a search takes from it)."""
    _willing: dict[Key, Heads] = field(default_factory=dict)
    """The same of the tickets that agreed to bots (what ``take_with_bots`` takes from it)."""
    _turns: dict[int, int] = field(default_factory=dict)
    _games: dict[int, int] = field(default_factory=dict)
    _pending: list[tuple[float, float, str]] = field(default_factory=list)
    _dirty: set[str] = field(default_factory=set)
    _indexed: set[str] = field(default_factory=set)
    _sizes: dict[tuple[int | None, int | None], int] = field(default_factory=dict)
    _delayed_sizes: dict[tuple[int | None, int | None], int] = field(default_factory=dict)
    _by_turn: dict[int, dict[int, int]] = field(default_factory=dict)
    """Turn seconds → game counts → tickets ready that name both."""

    def __len__(self) -> int:
        return len(self.tickets)

    def __contains__(self, account_id: object) -> bool:
        return account_id in self.tickets

    def buckets(self) -> list[Key]:
        """The non-empty buckets of ready tickets."""
        return list(self._buckets)

    def join(self, ticket: Ticket) -> None:
        """Add a player (joining again replaces the earlier ticket, keeping its place in line)."""
        old = self.tickets.get(ticket.account_id)
        if old is not None:
            ticket = replace(ticket, joined_at=old.joined_at, ready_at=max(ticket.ready_at, old.ready_at))
            self._unindex(old)
        self.tickets[ticket.account_id] = ticket
        heapq.heappush(self._pending, (ticket.ready_at, ticket.joined_at, ticket.account_id))

    def leave(self, account_id: str) -> bool:
        """Remove a player; whether they were waiting."""
        ticket = self.tickets.pop(account_id, None)
        if ticket is None:
            return False
        self._unindex(ticket)
        return True

    def waiting(self) -> list[Ticket]:
        """The tickets, oldest first."""
        return sorted(self.tickets.values(), key=lambda t: (t.joined_at, t.account_id))

    def next_ready(self, now: float) -> float | None:
        """The earliest ``ready_at`` after ``now`` of a waiting ticket (when to match again)."""
        while self._pending:
            ready_at, _, account = self._pending[0]
            ticket = self.tickets.get(account)
            if ticket is not None and ticket.ready_at == ready_at and account not in self._indexed:
                return ready_at if ready_at > now else now
            heapq.heappop(self._pending)  # stale: seated, left, joined again, or already ready
        return None

    def match(self, now: float) -> list[tuple[list[Ticket], Preferences]]:
        """Form every table that can be formed now; the seated players leave the queue."""
        self._release(now)
        groups: list[tuple[list[Ticket], Preferences]] = []
        fresh = sorted((self.tickets[a] for a in self._dirty if a in self.tickets), key=_arrival)
        self._dirty.clear()
        for ticket in fresh:
            if ticket.account_id not in self.tickets:
                continue  # seated with an earlier one
            found = self._group_with(ticket)
            if found is not None:
                for member in found[0]:
                    self.leave(member.account_id)
                groups.append(found)
        return groups

    def take_with_bots(
        self, account_id: str, now: float, wait: float
    ) -> tuple[list[Ticket], Preferences] | None:
        """A player who has waited ``wait`` seconds (and is past any fair-play delay) chose to fill
        the empty seats with bots: they leave the queue with the compatible players ready to be seated
        (at most two, oldest first; a delayed player only with other delayed ones), only those who
        agreed (``Ticket.bots``) and no two of one origin. None when they may not yet (or do not
        wait). Looks at the :data:`WITH_BOTS_PER_BUCKET` oldest willing tickets of distinct origins
        of each compatible bucket (one may share the asker's origin, two are taken at most).
        """
        first = self.tickets.get(account_id)
        if first is None or now < max(first.ready_at, first.joined_at + wait):
            return None
        self._release(now)
        others: list[Ticket] = []
        mine = first.preferences
        for (turns, games, delayed), willing in self._willing.items():
            fits = _fits(mine.turn_seconds, turns) and _fits(mine.games, games)
            if not fits or (first.delayed and not delayed):
                continue
            others.extend(self.tickets[a] for _, a in willing.first(WITH_BOTS_PER_BUCKET) if a != account_id)
        group, merged = [first], first.preferences
        for ticket in sorted(others, key=_arrival):
            both = merged.merge(ticket.preferences)
            if len(group) < SEATS - 1 and both is not None and apart(group, ticket):
                group.append(ticket)
                merged = both
        for ticket in group:
            self.leave(ticket.account_id)
        return group, merged

    # ---- the index -----------------------------------------------------------------------------------

    def _release(self, now: float) -> None:
        """Move the tickets whose delay is over from the heap into their buckets."""
        while self._pending and self._pending[0][0] <= now:
            ready_at, _, account = heapq.heappop(self._pending)
            ticket = self.tickets.get(account)
            if ticket is None or ticket.ready_at != ready_at or account in self._indexed:
                continue
            self._indexed.add(account)
            key, entry = _key(ticket), (ticket.joined_at, account)
            bisect.insort(self._buckets.setdefault(key, []), entry)
            self._heads.setdefault(key, Heads()).add(entry, ticket.origin)
            if ticket.bots:
                self._willing.setdefault(key, Heads()).add(entry, ticket.origin)
            self._counts(ticket, 1)
            self._dirty.add(account)

    def _unindex(self, ticket: Ticket) -> None:
        account = ticket.account_id
        self._dirty.discard(account)
        if account not in self._indexed:
            return  # still in its delay: its heap entry goes stale
        self._indexed.discard(account)
        key = _key(ticket)
        bucket = self._buckets[key]
        entry = (ticket.joined_at, account)
        del bucket[bisect.bisect_left(bucket, entry)]
        if not bucket:
            del self._buckets[key]
        for index in (self._heads, self._willing) if ticket.bots else (self._heads,):
            index[key].remove(entry, ticket.origin)
            if not index[key]:
                del index[key]
        self._counts(ticket, -1)

    def _counts(self, ticket: Ticket, step: int) -> None:
        turns, games, delayed = _key(ticket)
        _count(self._turns, turns, step)
        _count(self._games, games, step)
        _count(self._sizes, (turns, games), step)
        if delayed:
            _count(self._delayed_sizes, (turns, games), step)
        if turns is not None and games is not None:
            _count(self._by_turn.setdefault(turns, {}), games, step)
            if not self._by_turn[turns]:
                del self._by_turn[turns]

    def _group_with(self, ticket: Ticket) -> tuple[list[Ticket], Preferences] | None:
        """The best four with ``ticket``: of the groups around it, the one whose oldest player came
        first, then the fewest pairs who just met, then the earliest arrivals. A delayed ticket looks
        among delayed ones first (R35)."""
        for delayed_only in (True, False) if ticket.delayed else (False,):
            best: tuple[tuple[float, int, list[float]], list[Ticket]] | None = None
            for keys in self._targets(ticket, delayed_only):
                pool = self._pool(keys, delayed_only, ticket.account_id)
                found = _complete_with(ticket, pool)
                if found is not None and (best is None or found[0] < best[0]):
                    best = found
            if best is not None:
                group = best[1]
                merged: Preferences | None = group[0].preferences
                for member in group[1:]:
                    merged = None if merged is None else merged.merge(member.preferences)
                assert merged is not None  # every one of them fits the target
                return group, merged
        return None

    def _targets(self, ticket: Ticket, delayed_only: bool) -> list[list[tuple[int | None, int | None]]]:
        """For each fully merged preference ``(T, G)`` a group around ``ticket`` could have, the
        buckets it takes from, when they hold three others. At most (turn timers waiting + 1) ×
        (game counts waiting + 1) targets, both bounded by the protocol's ranges, each weighed by
        four look-ups of a count; a turn timer whose buckets cannot hold three is passed over whole."""
        own = (ticket.preferences.turn_seconds, ticket.preferences.games)
        sizes = self._delayed_sizes if delayed_only else self._sizes

        def size(key: tuple[int | None, int | None]) -> int:
            return sizes.get(key, 0) - (key == own)

        turns = [own[0]] if own[0] is not None else [None, *self._turns]
        games = [own[1]] if own[1] is not None else [None, *self._games]
        most_by_games = max((size((None, g)) for g in games), default=0)
        feasible = []
        for t in turns:
            if t is not None and own[1] is None:  # an upper bound on what (t, any G) can hold
                most = max((size((t, g)) for g in self._by_turn.get(t, ())), default=0)
                if size((t, None)) + size((None, None)) + most_by_games + most < SEATS - 1:
                    continue
            for g in games:
                keys = list({(t, g), (t, None), (None, g), (None, None)})
                if sum(size(k) for k in keys) >= SEATS - 1:
                    feasible.append(keys)
        return feasible

    def _pool(self, keys: list[tuple[int | None, int | None]], delayed_only: bool, but: str) -> list[Ticket]:
        """The oldest ready tickets of ``keys``, but ``but``: ``POOL_PER_BUCKET`` of each bucket, one
        per origin (and one more, for ``but`` or one of its origin)."""
        pool: list[Ticket] = []
        for turns, games in keys:
            for delayed in (True,) if delayed_only else (True, False):
                heads = self._heads.get((turns, games, delayed))
                if heads is not None:
                    pool.extend(self.tickets[a] for _, a in heads.first(POOL_PER_BUCKET + 2) if a != but)
        pool.sort(key=_arrival)
        return pool


def apart(group: Iterable[Ticket], candidate: Ticket) -> bool:
    """May ``candidate`` join ``group``: distinct people (no origin in common; finding 8)."""
    return all(distinct(ticket.origin, candidate.origin) for ticket in group)


def _drop(entries: list[tuple[float, str]], entry: tuple[float, str]) -> None:
    del entries[bisect.bisect_left(entries, entry)]


def _key(ticket: Ticket) -> Key:
    return ticket.preferences.turn_seconds, ticket.preferences.games, ticket.delayed


def _fits(wish: int | None, other: int | None) -> bool:
    return wish is None or other is None or wish == other


def _arrival(ticket: Ticket) -> tuple[float, str]:
    return ticket.joined_at, ticket.account_id


def _count(counts: dict[Any, int], value: Any, step: int) -> None:
    if value is None:
        return
    left = counts.get(value, 0) + step
    if left > 0:
        counts[value] = left
    else:
        counts.pop(value, None)


def _complete_with(
    must: Ticket, pool: list[Ticket]
) -> tuple[tuple[float, int, list[float]], list[Ticket]] | None:
    """The best four of ``must`` and three of ``pool`` (all compatible, in arrival order), with its
    rank: its oldest player's arrival, then the fewest pairs who just met, then the earliest
    arrivals — so recent partners meet again only when no four without them can be formed.

    For each possible oldest player (up to ``must``), a depth-first search in arrival order that
    stops at the first four with no such pair.
    """
    for first_index, first in enumerate([*[t for t in pool if _arrival(t) < _arrival(must)], must]):
        if first is not must and not apart([must], first):
            continue
        start = [must] if first is must else [first, must]
        best: tuple[int, list[Ticket]] | None = None

        def search(group: list[Ticket], met: int, begin: int) -> None:
            nonlocal best
            if best is not None and met >= best[0]:
                return  # no better than the four already found (an earlier one wins a tie)
            if len(group) == SEATS:
                best = (met, group)
                return
            for index in range(begin, len(pool)):
                candidate = pool[index]
                if not apart(group, candidate):
                    continue
                search([*group, candidate], met + sum(_met(g, candidate) for g in group), index + 1)
                if best is not None and best[0] == 0:
                    return

        if first is must:  # the older ones all failed: three of those after it
            search(start, 0, first_index)
        else:
            search(start, int(_met(first, must)), first_index + 1)
        if best is not None:
            met, group = best
            group = sorted(group, key=_arrival)
            return (first.joined_at, met, [t.joined_at for t in group]), group
    return None


def _met(a: Ticket, b: Ticket) -> bool:
    return b.account_id in a.recent or a.account_id in b.recent
