"""Swiss pairing at tables of four: players of similar standing together, no two players at a
table twice while it can be avoided, bots only when the count is not a multiple of four.

Pure: no server imports. Players are account ids; ``order`` is the standing, best first.

>>> table_sizes(8), table_sizes(5), table_sizes(1)
((4, 4), (3, 2), (1,))
>>> pair_round([1, 2, 3, 4, 5, 6, 7, 8], set())
[(1, 2, 3, 4), (5, 6, 7, 8)]
>>> pair_round([1, 2, 3, 4, 5, 6, 7, 8], pairs_of([(1, 2, 3, 4), (5, 6, 7, 8)]))
[(1, 2, 5, 6), (3, 4, 7, 8)]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from itertools import combinations
from typing import Generic, TypeVar

SEATS = 4
P = TypeVar("P", bound=Hashable)
# The search's budget of visited nodes: complete for small fields (the tests compare it with brute
# force); past it, the best pairing found so far stands (fewest repeats, then closest standing).
SEARCH_BUDGET = 50_000


def table_sizes(players: int) -> tuple[int, ...]:
    """How many people sit at each table: ceil(n / 4) tables, the bots (4k − n ≤ 3 seats) spread
    one per table from the last (lowest) table up.

    >>> table_sizes(7), table_sizes(6), table_sizes(9), table_sizes(0)
    ((4, 3), (3, 3), (3, 3, 3), ())
    """
    if players <= 0:
        return ()
    tables = -(-players // SEATS)
    sizes = [SEATS] * tables
    for i in range(SEATS * tables - players):
        sizes[tables - 1 - i % tables] -= 1
    return tuple(sorted(sizes, reverse=True))


def pairs_of(tables: Iterable[Sequence[P]]) -> set[frozenset[P]]:
    """Every pair of players who sat at one table.

    >>> sorted(sorted(p) for p in pairs_of([(3, 1, 2)]))
    [[1, 2], [1, 3], [2, 3]]
    """
    return {frozenset((a, b)) for table in tables for a, b in combinations(table, 2)}


def repeats(tables: Iterable[Sequence[P]], met: set[frozenset[P]]) -> int:
    """How many pairs at these tables already met (the number the pairing keeps at its least)."""
    return len(pairs_of(tables) & met)


def pair_round(
    order: Sequence[P], met: set[frozenset[P]], budget: int = SEARCH_BUDGET
) -> list[tuple[P, ...]]:
    """Tables for one round: the fewest pairs that already met (zero whenever possible), and among
    those the first in standing order (the best remaining player takes the next table with the best
    players who keep the repeats within the bound). Each player sits exactly once.

    Searches with a bound of 0 repeats, then 1, 2, …, so the first pairing found has the fewest; if
    the budget of visited nodes runs out first, each table in turn takes the mates adding fewest.
    """
    sizes = table_sizes(len(order))
    search: _PairingSearch[P] = _PairingSearch(met, budget)
    for bound in range(len(pairs_of([order])) + 1):
        found = search.run([], list(order), list(sizes), bound)
        if found is not None:
            return found
        if search.budget <= 0:
            break
    return _greedy(list(order), list(sizes), met)


def _greedy(left: list[P], sizes: list[int], met: set[frozenset[P]]) -> list[tuple[P, ...]]:
    """Table by table, the best remaining player with the mates adding the fewest repeats."""
    tables: list[tuple[P, ...]] = []
    for size in sizes:
        head, rest = left[0], left[1:]
        mates = min(combinations(rest, size - 1), key=lambda m: repeats([(head, *m)], met))
        tables.append((head, *mates))
        left = [p for p in rest if p not in mates]
    return tables


class _PairingSearch(Generic[P]):
    """Depth-first over partitions in standing order, pruning past a bound of repeats."""

    def __init__(self, met: set[frozenset[P]], budget: int) -> None:
        self.met = met
        self.budget = budget

    def run(
        self, tables: list[tuple[P, ...]], left: list[P], sizes: list[int], bound: int
    ) -> list[tuple[P, ...]] | None:
        if not left:
            return tables
        head, rest = left[0], left[1:]
        for size in sorted(set(sizes), reverse=True):
            others = list(sizes)
            others.remove(size)
            for mates in combinations(rest, size - 1):
                self.budget -= 1
                if self.budget <= 0:
                    return None
                table = (head, *mates)
                added = repeats([table], self.met)
                if added > bound:
                    continue
                remaining = [p for p in rest if p not in mates]
                found = self.run([*tables, table], remaining, others, bound - added)
                if found is not None:
                    return found
        return None
