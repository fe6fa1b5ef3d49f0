"""Bot speed: the expert's CPU time per decision and the search bot's rollouts per second.

- **expert, view path**: whole seeded games of four ``expert`` bots, each asked through
  ``bot.choose(game.view(seat))`` as the arena asks it (a fresh bot per seat and game); the CPU time
  of this thread around each ``choose`` call (``time.thread_time``), as the arena measures it.
- **expert, game path**: the same games decided by ``expert_combo(game, FAST, tracker)``, the fast
  path the search bot's rollouts use (without the race search, one tracker of the history per game).
- **search rollouts**: at fixed positions (the seat to move after a few actions of seeded games), the
  search bot's ``evaluate`` rolls every candidate out on the same sampled worlds; a rollout is one
  candidate played to the end in one world (sampling and rebuilding the world included).

    python bench/bots_bench.py [--games N] [--positions P] [--worlds W]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from niugui import Game
from niugui.bots import load_bot
from niugui.bots.expert import FAST, expert_combo
from niugui.bots.knowledge import Tracker
from niugui.bots.sampling import knowledge_of
from niugui.bots.search import SearchBot, candidates_of, evaluate


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def expert_view_times(games: int) -> list[float]:
    """CPU seconds of each ``ExpertBot.choose(view)`` over ``games`` whole games."""
    times = []
    clock = time.thread_time
    for deal in range(games):
        game = Game.deal(seed=f"bots-bench/{deal}", first_drawer=deal % 4)
        bots = [load_bot("expert") for _ in range(4)]
        while game.to_move is not None:
            seat = game.to_move
            view = game.view(seat)
            started = clock()
            action = bots[seat].choose(view)
            times.append(clock() - started)
            if action is None:
                game.pass_turn()
            else:
                game.play(action)
    return times


def expert_game_times(games: int) -> list[float]:
    """CPU seconds of each ``expert_combo(game, FAST, tracker)`` over ``games`` whole games."""
    times = []
    clock = time.thread_time
    for deal in range(games):
        game = Game.deal(seed=f"bots-bench/{deal}", first_drawer=deal % 4)
        tracker = Tracker(game.first_drawer)
        while game.to_move is not None:
            started = clock()
            combo = expert_combo(game, FAST, tracker)
            times.append(clock() - started)
            if combo is None:
                game.pass_turn()
            else:
                game.play(combo)
    return times


def search_positions(count: int) -> list[Game]:
    """Games stopped at a decision with several candidates, a few actions in."""
    rng = random.Random(7)
    found = []
    deal = 0
    while len(found) < count:
        game = Game.deal(seed=f"bots-bench/search/{deal}", first_drawer=deal % 4)
        deal += 1
        for _ in range(rng.randrange(0, 40)):
            if game.over:
                break
            combo = expert_combo(game)
            if combo is None:
                game.pass_turn()
            else:
                game.play(combo)
        if not game.over and len(game.legal_combos()) + game.can_pass() > 1:
            found.append(game)
    return found


def rollouts_per_second(positions: list[Game], worlds: int) -> tuple[float, float, int]:
    """(rollouts per CPU second, worlds per CPU second, rollouts) of ``evaluate`` over the positions."""
    rollouts = 0
    done_worlds = 0
    cpu = 0.0
    bot = SearchBot(seed=1)
    for index, game in enumerate(positions):
        seat = game.to_move
        assert seat is not None
        info = knowledge_of(game.view(seat))
        first = expert_combo(game)
        masks = [0 if c is None else c.mask for c in candidates_of(game, first, bot.max_candidates)]
        started = time.process_time()
        _, n = evaluate(info, masks, worlds, 0.0, index, "fast")
        cpu += time.process_time() - started
        rollouts += n * len(masks)
        done_worlds += n
    return rollouts / cpu, done_worlds / cpu, rollouts


def report(label: str, times: list[float]) -> None:
    us = [t * 1e6 for t in times]
    print(f"  {label:<28} p50 {percentile(us, 50):7.1f} us  p90 {percentile(us, 90):7.1f}  "
          f"p99 {percentile(us, 99):8.1f}  mean {statistics.mean(us):7.1f}  ({len(us)} decisions)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="expert games (default 200)")
    parser.add_argument("--positions", type=int, default=30, help="search positions (default 30)")
    parser.add_argument("--worlds", type=int, default=10, help="worlds per position (default 10)")
    args = parser.parse_args(argv)
    if min(args.games, args.positions, args.worlds) < 1:
        parser.error("--games, --positions and --worlds must be positive")
    print(f"expert CPU time per decision, {args.games} games of four experts:")
    report("choose(view) (the bot)", expert_view_times(args.games))
    report("expert_combo(game, FAST, t)", expert_game_times(args.games))
    positions = search_positions(args.positions)
    per_s, worlds_s, rollouts = rollouts_per_second(positions, args.worlds)
    print(f"search rollouts ('fast' policy), {args.positions} positions x {args.worlds} worlds "
          f"({rollouts} rollouts): {per_s:.0f} rollouts/s, {worlds_s:.1f} worlds/s of CPU time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
