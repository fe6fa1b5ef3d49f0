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

Every front end (server, ``niugui play``, the arena) asks :meth:`Series.first_drawer` who draws first,
handing it the 翻牌 card source it trusts (a CSPRNG, a seeded generator):

>>> series.first_drawer(lambda: parse_cards("SK")[0])
FirstDrawer(seat=0, by='flip', card=SK)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, TypedDict

from .cards import Card
from .game import SEATS, Result

__all__ = ["FirstDrawer", "FlipRecord", "Series", "decide_first_drawer", "flip_first_drawer", "flip_value"]


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


class FlipRecord(TypedDict):
    """A 翻牌 as shown to all (R8) and recorded: the card, how far it counts, the seat it reaches."""

    card: str
    value: int
    first_drawer: int


class FirstDrawer(NamedTuple):
    """Who draws first in a game and why (R8): ``by`` is ``"flip"`` (翻牌, ``card`` turned up) or
    ``"previous_first"`` (the previous game's 上游; ``card`` is ``None``)."""

    seat: int
    by: Literal["flip", "previous_first"]
    card: Card | None

    @property
    def flip(self) -> FlipRecord | None:
        """The 翻牌 to show and record, or ``None`` when the previous 上游 draws first."""
        if self.card is None:
            return None
        return {"card": self.card.code, "value": flip_value(self.card), "first_drawer": self.seat}


def decide_first_drawer(previous_first: int | None, turn_up: Callable[[], Card]) -> FirstDrawer:
    """R8, the one place it is decided: the previous game's 上游 draws first; with none (a table's
    first game, or after a game without 上游, R35) the table designates by 翻牌 with the card
    ``turn_up()`` gives (called only then).

    >>> from niugui.cards import parse_cards
    >>> decide_first_drawer(None, lambda: parse_cards("H6")[0])
    FirstDrawer(seat=1, by='flip', card=H6)
    >>> decide_first_drawer(3, lambda: parse_cards("H6")[0])
    FirstDrawer(seat=3, by='previous_first', card=None)
    """
    if previous_first is not None:
        return FirstDrawer(previous_first, "previous_first", None)
    card = turn_up()
    return FirstDrawer(flip_first_drawer(card), "flip", card)


@dataclass
class Series:
    """Running totals (R36) and the next first drawer (R8) across the games of one table (a plain
    dataclass: a server stores it with the table's state between games)."""

    totals: list[int] = field(default_factory=lambda: [0] * SEATS)
    games: int = 0
    next_first_drawer: int | None = None
    """The previous game's 上游; ``None`` before the first game or after one with no 上游."""

    def first_drawer_known(self) -> bool:
        """False when the table must designate the first drawer (翻牌), R8."""
        return self.next_first_drawer is not None

    def first_drawer(self, turn_up: Callable[[], Card]) -> FirstDrawer:
        """Who draws first in the next game (R8): see :func:`decide_first_drawer`."""
        return decide_first_drawer(self.next_first_drawer, turn_up)

    def totals_with(self, result: Result) -> list[int]:
        """The running totals once ``result`` is counted (R36), without counting it."""
        return [total + change for total, change in zip(self.totals, result.scores, strict=True)]

    def add(self, result: Result) -> None:
        """Count a finished game: add its scores (R36), and its 上游 draws first next (R8)."""
        self.games += 1
        self.totals = self.totals_with(result)
        # finish[0] is the 上游 (R30), also of a game that later ended by escape; none went out: designate.
        self.next_first_drawer = result.finish[0] if result.finish else None
