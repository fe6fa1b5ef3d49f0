"""Skill ratings for finished games: each seat a rating with an uncertainty (openskill).

A game is rated as a team game between its two sides (R10: 黑方 against 红方, or the 双牛鬼 alone
against the other three). The ranks come from the outcome (R32–R34): the side of the 上游 ranks
first; 免炒 and 双牛逃跑 are draws (both sides rank equal). How much a side won by (sweep or win)
does not enter the rating — only who won. An escape (R35) is the worst result for the seat that
escaped: it is rated as a loss of its side against the other side, and only the escaper's rating
moves (the game did not finish for the others, so theirs stays).

Bots keep fixed, published ratings (``BOT_RATINGS``): they take part in the computation, so a game
against stronger bots is worth more, but their ratings never move.

>>> from niugui.game import Result
>>> sweep = Result("2v2", "sweep", [0, 1], [2, 2, -2, -2], [0, 1])
>>> new = rate_game(sweep, [Rating()] * 4)
>>> new[0].mu > 25 > new[2].mu, new[0] == new[1], new[2] == new[3]
(True, True, True)
>>> rate_game(Result("2v2", "draw", [0, 2, 3], [0, 0, 0, 0], [0, 1]), [Rating()] * 4)[0].mu
25.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from niugui.bots.levels import LEVELS
from niugui.game import SEATS, Result

MODEL = PlackettLuce()
"""The rating model: Plackett-Luce (Weng & Lin 2011) with openskill's defaults, μ 25 and σ 25/3."""

DRAWS = frozenset({"draw", "double_draw"})  # 免炒 (R33) and 双牛逃跑 (R34)


@dataclass(frozen=True)
class Rating:
    """A skill estimate: mean ``mu`` and uncertainty ``sigma``; ``shown`` is what players see."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def shown(self) -> int:
        """The conservative rating, μ − 3σ, scaled to the familiar range (0 for a new player, ~1,500
        for a strong one after many games): ``round((μ − 3σ) * 60)``; never below 0.

        >>> Rating().shown, Rating(30.0, 2.0).shown
        (0, 1440)
        """
        return max(0, round((self.mu - 3 * self.sigma) * 60))

    def to_dict(self) -> dict[str, Any]:
        return {"mu": self.mu, "sigma": self.sigma, "shown": self.shown}


BOT_RATINGS: dict[str, Rating] = {level.name: Rating(level.mu, level.sigma) for level in LEVELS}
"""Fixed ratings of the built-in bots, from their registry (``niugui.bots.levels``, where each figure's
measurement is cited; docs/bots.md). They never move; a bot seat uses its level's."""


def sides(result: Result) -> tuple[list[int], list[int]]:
    """The two teams of a finished game (R10): the black side, then the red side."""
    black = sorted(result.black)
    return black, [s for s in range(SEATS) if s not in black]


def ranks(result: Result) -> tuple[int, int]:
    """The ranks of (black, red): 1 for the winner, 2 for the loser, (1, 1) for a draw (R32–R34).

    >>> ranks(Result("1v3", "double_caught", [1, 2, 3], [-6, 2, 2, 2], [0]))
    (2, 1)
    """
    if result.outcome in DRAWS:
        return 1, 1
    if result.outcome == "escape":
        escaper = result.scores.index(-9)
        return (2, 1) if escaper in result.black else (1, 2)
    return (1, 2) if result.finish[0] in result.black else (2, 1)


def rate_game(
    result: Result, before: Sequence[Rating], fixed: Sequence[bool] = (False,) * SEATS
) -> list[Rating]:
    """Every seat's rating after ``result``; seats marked ``fixed`` (bots) keep theirs.

    ``before`` and ``fixed`` are indexed by seat. An escape moves only the escaper (R35).
    """
    black, red = sides(result)
    teams = [[MODEL.rating(before[s].mu, before[s].sigma) for s in side] for side in (black, red)]
    rated = MODEL.rate(teams, ranks=list(ranks(result)))
    after = list(before)
    moving = set(range(SEATS)) if result.outcome != "escape" else {result.scores.index(-9)}
    for side, team in zip((black, red), rated, strict=True):
        for seat, rating in zip(side, team, strict=True):
            if seat in moving and not fixed[seat]:
                after[seat] = Rating(rating.mu, rating.sigma)
    return after
