"""Fixed, seeded engine workloads for profiling: cProfile tables and callgrind instruction counts.

Timings on a shared machine are noisy; instruction counts are not. Each workload does the same work
for the same arguments, so ``valgrind --tool=callgrind`` counts are repeatable, and the difference
between a run of N units and a run of 0 units is the cost of N units alone (imports and setup cancel):

    python bench/engine_profile.py playout 300 --cprofile        # where the time goes
    python bench/engine_profile.py --callgrind playout 300       # instructions per unit (runs valgrind)

Workloads (a *unit* in brackets):

- ``playout`` — random games through the public API, exactly as ``bench/engine_bench.py`` plays them
  [one decision];
- ``legal14`` — ``legal_combos()`` at the opening of games whose leader holds 14 cards [one call];
- ``expert`` — whole games of four ``expert_combo`` players [one decision];
- ``expert_views`` — ``ExpertBot.choose(view)`` on the views of such games, as the arena asks it
  (the views are made beforehand and not counted) [one decision];
- ``rollout`` — the ``search`` bot's ``evaluate`` (``fast`` rollouts) at fixed positions [one rollout:
  one candidate played to the end in one sampled world].
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_bench import leading_hands, niugui_games

from niugui import Game


def playout(count: int, seed: int = 1) -> int:
    """Random games until ``count`` decisions are made (the last game is finished); returns them."""
    rng = random.Random(seed)
    done = 0
    while done < count:
        done += niugui_games(1, rng)
    return done


def legal14(count: int) -> int:
    games = leading_hands(20, 1)
    for i in range(count):
        games[i % 20].legal_combos()
    return count


def expert(count: int) -> int:
    from niugui.bots.expert import expert_combo

    done = 0
    deal = 0
    while done < count:
        game = Game.deal(seed=f"expert/{deal}", first_drawer=deal % 4)
        deal += 1
        while game.to_move is not None:
            combo = expert_combo(game)
            if combo is None:
                game.pass_turn()
            else:
                game.play(combo)
            done += 1
    return done


_VIEWS: list[tuple[int, int, Any]] = []


def expert_views(count: int) -> int:
    """``ExpertBot.choose(view)`` on the views of whole expert games, made beforehand (not counted)."""
    from niugui.bots import load_bot

    if not _VIEWS:  # the same views for every count (the setup is not a unit)
        deal = 0
        while len(_VIEWS) < 6000:
            game = Game.deal(seed=f"views/{deal}", first_drawer=deal % 4)
            bots = [load_bot("expert") for _ in range(4)]
            while game.to_move is not None:
                seat = game.to_move
                view = game.view(seat)
                _VIEWS.append((deal, seat, view))
                action = bots[seat].choose(view)
                if action is None:
                    game.pass_turn()
                else:
                    game.play(action)
            deal += 1
        from niugui.bots import hand_split, knowledge

        for cached in (hand_split.split_hand, hand_split._best, knowledge._combo):
            cached.cache_clear()  # as cold as the first time these views were decided
        gc.freeze()  # the stored views are not garbage: keep collections from scanning them
    bots_of: dict[tuple[int, int], Any] = {}
    for deal, seat, view in _VIEWS[:count]:
        bot = bots_of.get((deal, seat))
        if bot is None:
            bot = bots_of[deal, seat] = load_bot("expert")
        bot.choose(view)
    return count


def rollout(count: int) -> int:
    """The search bot's ``evaluate`` at 5 fixed positions, ``count`` worlds each; returns the rollouts
    (a world times the candidates rolled out in it)."""
    from bots_bench import search_positions

    from niugui.bots.expert import expert_combo
    from niugui.bots.sampling import knowledge_of
    from niugui.bots.search import candidates_of, evaluate

    done = 0
    for index, game in enumerate(search_positions(5)):
        seat = game.to_move
        assert seat is not None
        info = knowledge_of(game.view(seat))
        masks = [0 if c is None else c.mask for c in candidates_of(game, expert_combo(game), 10)]
        if count:
            evaluate(info, masks, count, 0.0, index, "fast")
        done += count * len(masks)
    return done


WORKLOADS: dict[str, Callable[[int], int]] = {
    "playout": playout,
    "legal14": legal14,
    "expert": expert,
    "expert_views": expert_views,
    "rollout": rollout,
}


def instructions(workload: str, count: int, warm: int) -> int:
    """Instructions (callgrind's Ir) of one run of this script with ``workload count``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
             workload, str(count), f"--warm={warm}"],
            check=True, capture_output=True, text=True,
        )
        summary = re.search(r"^summary: (\d+)", out.read_text(), re.M)
        assert summary, "callgrind wrote no summary"
        return int(summary[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("count", type=int, help="units of work (see the module docstring)")
    parser.add_argument("--cprofile", action="store_true", help="print the top functions by own time")
    parser.add_argument("--callgrind", action="store_true",
                        help="count instructions under valgrind: (run of count) - (run of 0), per unit")
    parser.add_argument("--warm", type=int, default=0, metavar="DECISIONS",
                        help="first play this many random-playout decisions (fills the tables)")
    args = parser.parse_args(argv)
    if args.warm:
        playout(args.warm, seed=2)  # other games than the measured ones
    if args.callgrind:
        base = instructions(args.workload, 0, args.warm)
        full = instructions(args.workload, args.count, args.warm)
        counted = args.workload in ("playout", "expert", "rollout")  # these return their units
        units = WORKLOADS[args.workload](args.count) if counted else args.count
        print(f"{args.workload}: {full - base:,} instructions for {units} units = "
              f"{(full - base) / units:,.0f} per unit (startup {base:,})")
        return 0
    run = WORKLOADS[args.workload]
    if args.cprofile:
        profile = cProfile.Profile()
        units = profile.runcall(run, args.count)
        stats = pstats.Stats(profile)
        print(f"{args.workload}: {units} units")
        stats.sort_stats("tottime").print_stats(25)
    else:
        run(args.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
