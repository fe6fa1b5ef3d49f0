"""Matchpoints (issue 30), pure: each result on a board is compared with every other result on the
same board — 1 for each one it beats, ½ for each tie — so a board of ``n`` results gives out
``n(n−1)/2`` in all. An entrant's total is over the boards they finished; the maximum is ``n−1`` per
board, and the percentage is the total over that maximum (None while no board of theirs was played
by anyone else: there is nothing to compare yet).

>>> matchpoints({"ann": 5, "bob": 2, "cy": 2})
{'ann': 2.0, 'bob': 0.5, 'cy': 0.5}
>>> [(s.entrant, s.matchpoints, s.maximum, s.percent) for s in standings({1: {"ann": 5, "bob": 2}})]
[('ann', 1.0, 1, 100.0), ('bob', 0.0, 1, 0.0)]
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
B = TypeVar("B", bound=Hashable)


def matchpoints(results: Mapping[K, float]) -> dict[K, float]:
    """Each entrant's matchpoints on one board (higher results are better).

    >>> matchpoints({"solo": -3})
    {'solo': 0.0}
    >>> matchpoints({})
    {}
    """
    ordered = sorted(results.values())
    points: dict[K, float] = {}
    for entrant, result in results.items():
        below = _count_below(ordered, result)
        equal = _count_below(ordered, result, or_equal=True) - below
        points[entrant] = below + (equal - 1) / 2
    return points


def _count_below(ordered: list[float], value: float, or_equal: bool = False) -> int:
    """How many of ``ordered`` are below ``value`` (or at most ``value``), by bisection."""
    lo, hi = 0, len(ordered)
    while lo < hi:
        mid = (lo + hi) // 2
        if ordered[mid] < value or (or_equal and ordered[mid] == value):
            lo = mid + 1
        else:
            hi = mid
    return lo


@dataclass(frozen=True)
class Standing(Generic[K]):
    """One entrant's line of the standings."""

    entrant: K
    boards: int
    """Boards finished."""
    matchpoints: float
    maximum: int
    """The most they could have scored on those boards: the others who played each, summed."""
    percent: float | None
    """``100 × matchpoints / maximum``, rounded to 2 places; None while ``maximum`` is 0."""


def standings(boards: Mapping[B, Mapping[K, float]]) -> list[Standing[K]]:
    """Every entrant's totals over ``boards`` (board → entrant → result): best percentage first (those
    with none last), then more matchpoints, then more boards.

    >>> [(s.entrant, s.percent) for s in standings({1: {"a": 1, "b": 1}, 2: {"c": 9}})]
    [('a', 50.0), ('b', 50.0), ('c', None)]
    """
    points: dict[K, float] = {}
    maximum: dict[K, int] = {}
    played: dict[K, int] = {}
    for results in boards.values():
        for entrant, scored in matchpoints(results).items():
            points[entrant] = points.get(entrant, 0.0) + scored
            maximum[entrant] = maximum.get(entrant, 0) + len(results) - 1
            played[entrant] = played.get(entrant, 0) + 1
    lines = [
        Standing(
            e,
            played[e],
            points[e],
            maximum[e],
            round(100 * points[e] / maximum[e], 2) if maximum[e] else None,
        )
        for e in points
    ]
    lines.sort(key=lambda s: (s.percent is None, -(s.percent or 0.0), -s.matchpoints, -s.boards))
    return lines
