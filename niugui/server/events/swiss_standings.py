"""A Swiss event's standings, computed from its rounds alone (pure, no server imports).

Scoring (the event's ``place_points`` setting, by default 上游 3, 二游 2, 三游 1, 下游 0): each game
scores its place (R30: the order of going out; a seat still holding cards at the end is 下游), and
the game's points (R33–R35) add up as the tie-break. A player absent at a round's start is seated
under 托管 for that round (the bot's places and points count as theirs) and, after two absences, is
dropped from the rounds that follow.

>>> t = SwissTable(seats=("a", "b", "c", None), games=(GameResult(finish=(2, 0), scores=(2, -2, 2, -2)),))
>>> [(s.account_id, s.score, s.points, s.bots) for s in standings(["a", "b", "c"], [SwissRound((t,))])]
[('c', 3, 2, 1), ('a', 2, 2, 1), ('b', 0, -2, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .swiss_pairing import pair_round, pairs_of

PLACE_POINTS = (3, 2, 1, 0)
DROP_AFTER = 2  # absences


@dataclass(frozen=True)
class GameResult:
    """One finished game at a table: the seats in the order they went out, and each seat's points."""

    finish: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True)
class SwissTable:
    """A round's table: the account at each seat (``None``: a bot filling the table) and its games."""

    seats: tuple[str | None, ...]
    games: tuple[GameResult, ...] = ()

    def people(self) -> tuple[str, ...]:
        return tuple(p for p in self.seats if p is not None)


@dataclass(frozen=True)
class SwissRound:
    """A round: its tables and who was absent at its start (托管 for the round)."""

    tables: tuple[SwissTable, ...]
    absent: frozenset[str] = field(default_factory=frozenset)


@dataclass
class SwissStanding:
    """One entrant's line: place points, game points (tie-break), games, absences, games at a table
    with bots, and whether they were dropped."""

    account_id: str
    score: int = 0
    points: int = 0
    games: int = 0
    absences: int = 0
    bots: int = 0
    dropped: bool = False


def places(finish: Sequence[int], seats: int = 4) -> list[int]:
    """Each seat's place, 0 = 上游 … 3 = 下游 (R30: seats not out at the end are all 下游).

    >>> places([2, 0]), places([3, 0, 2])
    ([1, 3, 0, 3], [1, 3, 2, 0])
    """
    return [finish.index(s) if s in finish else seats - 1 for s in range(seats)]


def standings(
    entrants: Sequence[str], rounds: Sequence[SwissRound], place_points: Sequence[int] = PLACE_POINTS
) -> list[SwissStanding]:
    """Every entrant's line, best first: place points, then game points, then registration order."""
    lines = {p: SwissStanding(p) for p in entrants}
    for rnd in rounds:
        for p in rnd.absent:
            if p in lines:
                lines[p].absences += 1
        for table in rnd.tables:
            for game in table.games:
                for seat, place in enumerate(places(game.finish, len(table.seats))):
                    who = table.seats[seat]
                    if who is None or who not in lines:
                        continue
                    line = lines[who]
                    line.score += place_points[place]
                    line.points += game.scores[seat]
                    line.games += 1
                    line.bots += None in table.seats
    for line in lines.values():
        line.dropped = line.absences >= DROP_AFTER
    rank = {p: i for i, p in enumerate(entrants)}
    return sorted(lines.values(), key=lambda s: (-s.score, -s.points, rank[s.account_id]))


def met_pairs(rounds: Sequence[SwissRound]) -> set[frozenset[str]]:
    """Every pair of people who already sat at one table."""
    return pairs_of(t.people() for r in rounds for t in r.tables)


def next_round(
    entrants: Sequence[str], rounds: Sequence[SwissRound], place_points: Sequence[int] = PLACE_POINTS
) -> list[tuple[str | None, ...]]:
    """The next round's tables (seats; ``None`` a bot): the entrants not dropped, paired by standing.

    >>> next_round(["a", "b", "c", "d", "e"], [])
    [('a', 'b', 'c', None), ('d', 'e', None, None)]
    """
    order = [s.account_id for s in standings(entrants, rounds, place_points) if not s.dropped]
    tables = pair_round(order, met_pairs(rounds))
    return [(*t, *([None] * (4 - len(t)))) for t in tables]
