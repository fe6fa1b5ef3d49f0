"""Measure the built-in bots' ratings (niugui.ratings.BOT_RATINGS) from duplicate matches.

Neighbouring levels of the ladder play duplicate matches (every deal with all six seatings of
{A, A, B, B}); the games of all pairs, interleaved deal by deal, are rated one after another by the
same model the server uses (``niugui.ratings.MODEL``), every level starting as a new player
(μ 25, σ 25/3). A level is one rating: in each game each of its seats is rated from it, and the
level's new rating is the mean of its seats' new ratings. Prints each level's μ, σ and shown rating,
and the published μ (shifted so that the levels' mean is a new player's 25).

    nice -n 10 .venv/bin/python bench/bot_ratings.py --deals 100 --search-budget 0.1 --workers 2
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from niugui import Game
from niugui.arena import ARRANGEMENTS, bot_seed, deal_seed, play_out
from niugui.bots import load_bot
from niugui.game import Result
from niugui.ratings import MODEL, Rating, ranks, sides

PAIRS = (("random", "basic"), ("basic", "expert"), ("expert", "search"))
ANCHOR = 25.0
"""Only differences between levels are measured; the published ratings put the levels' mean at a new
player's μ, so a newcomer starts in the middle of the ladder."""


def play_deal(task: tuple[str, str, int, float]) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """The six games of one deal between levels ``a`` and ``b``: (seat levels, result) each."""
    a, b, deal, budget = task
    games = []
    for k, seats in enumerate(ARRANGEMENTS):
        levels = tuple(a if side == 0 else b for side in seats)
        bots = [
            load_bot(name, seed=bot_seed(7, deal, k, s), **({"budget": budget} if name == "search" else {}))
            for s, name in enumerate(levels)
        ]
        game = play_out(Game.deal(seed=deal_seed(PAIRS.index((a, b)) + 1, deal)), bots)
        assert game.result is not None
        games.append((levels, game.result.to_dict()))
    return games


def rate_levels(games: Sequence[tuple[tuple[str, ...], dict[str, Any]]]) -> dict[str, Rating]:
    """Rate the levels game by game (see the module's docstring)."""
    levels: dict[str, Rating] = {}
    for seat_levels, result_dict in games:
        result = Result(**result_dict)
        black, red = sides(result)
        teams = [[MODEL.rating(*_pair(levels, seat_levels[s])) for s in side] for side in (black, red)]
        rated = MODEL.rate(teams, ranks=list(ranks(result)))
        new: dict[str, list[Rating]] = {}
        for side, team in zip((black, red), rated, strict=True):
            for seat, rating in zip(side, team, strict=True):
                new.setdefault(seat_levels[seat], []).append(Rating(rating.mu, rating.sigma))
        for name, ratings in new.items():
            mu = statistics.fmean(r.mu for r in ratings)
            levels[name] = Rating(mu, statistics.fmean(r.sigma for r in ratings))
    return levels


def _pair(levels: dict[str, Rating], name: str) -> tuple[float, float]:
    rating = levels.get(name, Rating())
    return rating.mu, rating.sigma


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=100, help="deals per pair of levels (6 games each)")
    parser.add_argument("--search-budget", type=float, default=0.1, help="seconds a move for search")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = [(a, b, deal, args.search_budget) for deal in range(args.deals) for a, b in PAIRS]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        games = [game for deal in pool.map(play_deal, tasks) for game in deal]
    levels = rate_levels(games)
    print(f"{len(games)} games, {args.deals} deals per pair, search at {args.search_budget} s a move")
    shift = ANCHOR - statistics.fmean(r.mu for r in levels.values())
    print(f"published: shifted by {shift:+.2f} so that the levels' mean is {ANCHOR} (a new player's mu)")
    for name in ("random", "basic", "expert", "search"):
        r = levels[name]
        published = Rating(r.mu + shift, r.sigma)
        print(
            f"{name:8} mu {r.mu:6.2f}  sigma {r.sigma:5.2f}  published mu {published.mu:6.2f}"
            f"  shown {published.shown:5d}"
        )


if __name__ == "__main__":
    main()
