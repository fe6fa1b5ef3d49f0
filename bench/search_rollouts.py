"""How fast the search bot evaluates: sampled worlds per CPU second at a fixed number of worlds.

Plays seeded games with the expert bot and, at every decision of seat 0 that has a choice, asks a
search bot with a fixed ``iterations`` (worlds per decision, no time budget) for its move, timing the
process's CPU time. The work per decision is then the same for any version of the code (the same
candidates, worlds and rollouts), so worlds per CPU second compares versions fairly; each world is
rolled out once per candidate still in the running.

    .venv/bin/python bench/search_rollouts.py --games 6 --iterations 48
    PYTHONPATH=OLD_CHECKOUT .venv/bin/python bench/search_rollouts.py ...   # the same on older code
"""

from __future__ import annotations

import argparse
import time

from niugui import Game
from niugui.bots import load_bot


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--iterations", type=int, default=48, help="sampled worlds per decision")
    args = parser.parse_args()
    worlds = decisions = 0
    cpu = 0.0
    for seed in range(args.games):
        game = Game.deal(seed=seed, first_drawer=seed % 4)
        expert = load_bot("expert", seed=seed)
        search = load_bot("search", seed=seed, iterations=args.iterations, budget=1000.0)
        while not game.over:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            if seat == 0 and len(view["legal_plays"]) + bool(view["can_pass"]) > 1:
                started = time.process_time()
                search.choose(view)
                cpu += time.process_time() - started
                worlds += getattr(search, "last_worlds", 0)
                decisions += 1
            action = expert.choose(view)
            if action is None:
                game.pass_turn(seat)
            else:
                game.play(action, seat)
    print(
        f"{decisions} decisions, {worlds} worlds, {cpu:.2f} s CPU: {worlds / cpu:,.0f} worlds per CPU"
        f" second, {cpu / decisions * 1000:.1f} ms CPU per decision"
    )


if __name__ == "__main__":
    main()
