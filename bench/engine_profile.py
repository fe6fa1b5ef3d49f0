"""Where the engine's time goes: cProfile of random games (the loop of bench/engine_bench.py).

    .venv/bin/python bench/engine_profile.py --games 1000 --warmup 200
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random

from niugui import Game


def play(games: int, seed: int) -> None:
    """Random games: each decision uniform over the legal plays and the pass (when allowed)."""
    rng = random.Random(seed)
    for deal in range(games):
        game = Game.deal(seed=deal)
        while not game.over:
            legal = game.legal_combos()
            choice = rng.randrange(len(legal) + game.can_pass())
            if choice == len(legal):
                game.pass_turn()
            else:
                game.play(legal[choice])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=200, help="untimed games first (steady state)")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    play(args.warmup, 0)
    profile = cProfile.Profile()
    profile.enable()
    play(args.games, 1)
    profile.disable()
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
