"""A series of games at one table: the first drawer of each game (R8) and running totals (R36).

>>> from niugui.game import Result
>>> from niugui.cards import parse_cards
>>> series = Series()
>>> series.first_drawer_known()          # the first game: the table designates (R8)
False
>>> flip = flip_first_drawer(parse_cards("H5")[0])     # 翻牌: a 5 counts five seats from seat 0
>>> flip
0
>>> series.add(Result("2v2", "sweep", [2, 0], [2, -2, 2, -2], [0, 2]))
>>> series.totals, series.next_first_drawer             # the 上游 draws first next (R8)
([2, -2, 2, -2], 2)
>>> series.add(Result("2v2", "escape", [], [0, -9, 0, 0], [0, 2]))
>>> series.totals, series.next_first_drawer             # no 上游: designate again (R8)
([2, -11, 2, -2], None)
"""

from __future__ import annotations

from .cards import Card
from .game import SEATS, Result

__all__ = ["Series", "flip_first_drawer", "flip_value"]


def flip_value(card: Card) -> int:
    """How far a turned-up card counts (翻牌, R8): A=1, 2–10 by pips, J=11, Q=12, K=13, 小王 14, 大王 15."""
    if card.is_joker:
        return 14 if card.code == "BJ" else 15
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(card.rank_name) or int(card.rank_name)


def flip_first_drawer(card: Card) -> int:
    """The first drawer picked by a turned-up card (翻牌法, R8).

    Decision (RULES.md leaves the count open): count the card's value around the table in play order
    (R7), seat 0 counting as one, so the seat reached draws first: seat ``(value - 1) % 4``.

    >>> from niugui.cards import parse_cards
    >>> [flip_first_drawer(c) for c in parse_cards("SA S2 S3 S4 SK RJ")]
    [0, 1, 2, 3, 0, 2]
    """
    return (flip_value(card) - 1) % SEATS


class Series:
    """Running totals (R36) and the next first drawer (R8) across the games of one table."""

    def __init__(self) -> None:
        self.totals = [0] * SEATS
        self.games = 0
        self.next_first_drawer: int | None = None
        """The previous game's 上游; ``None`` before the first game or after one with no 上游."""

    def first_drawer_known(self) -> bool:
        """False when the table must designate the first drawer (翻牌), R8."""
        return self.next_first_drawer is not None

    def totals_with(self, result: Result) -> list[int]:
        """The running totals once ``result`` is counted (R36), without counting it."""
        return [total + change for total, change in zip(self.totals, result.scores, strict=True)]

    def add(self, result: Result) -> None:
        """Count a finished game: add its scores (R36), and its 上游 draws first next (R8)."""
        self.games += 1
        self.totals = self.totals_with(result)
        # finish[0] is the 上游 (R30), also of a game that later ended by escape; none went out: designate.
        self.next_first_drawer = result.finish[0] if result.finish else None
