"""Engine benchmark: random games of niugui beside rlcard's Dou Dizhu (and open_spiel's, if installed).

Each engine plays whole random games: at every decision the player picks uniformly among its legal
actions, a pass counting as one action. niugui and its peers are driven the same way, in the same
run, by the same sampler, in alternating rounds (so a change of load on a shared machine hits both
alike). It reports games/s and decisions/s of each, the ratio of decisions/s against rlcard
(target: at least 5x), and the time of one ``legal_plays()`` / ``legal_combos()`` call on a
leading 14-card hand: repeated (the game keeps the hand's plays after the first), the first call
at that position (on a new game of the same deal each time) and ``moves.plays(hand)`` from scratch.

    python bench/engine_bench.py [--games N] [--seed S] [--rounds R] [--warmup W] [--no-peers]

``--warmup W`` first plays W untimed games with every engine (other seeds): niugui fills its tables
of five-card combinations the first time it meets each, so the default run (no warm-up) includes
that one-time cost and a warmed-up run shows the steady state.

Timing uses the process's CPU time (``time.process_time``), which other processes on a shared
machine disturb far less than wall-clock time; wall-clock figures are printed beside it.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from niugui import Game
from niugui.moves import plays

TARGET = 5.0
"""niugui's decisions/s must be at least this many times rlcard's (issue 2)."""


@dataclass
class Tally:
    """Games, decisions and time spent by one engine, summed over rounds."""

    name: str
    games: int = 0
    decisions: int = 0
    cpu: float = 0.0
    wall: float = 0.0
    lengths: list[int] = field(default_factory=list)

    def add(self, games: int, decisions: int, cpu: float, wall: float) -> None:
        self.games += games
        self.decisions += decisions
        self.cpu += cpu
        self.wall += wall

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.cpu

    @property
    def games_per_s(self) -> float:
        return self.games / self.cpu


# ---- the engines, each playing ``games`` random games and returning how many decisions it made ------


def niugui_games(games: int, rng: random.Random) -> int:
    """Random niugui games: uniform over ``legal_combos()`` plus the pass when it is allowed."""
    choose = rng.random
    decisions = 0
    for _ in range(games):
        game = Game.deal(seed=rng.getrandbits(64), first_drawer=int(choose() * 4))
        while game.to_move is not None:
            combos = game.legal_combos()
            n = len(combos)
            pick = int(choose() * (n + 1 if game.can_pass() else n))
            if pick == n:
                game.pass_turn()
            else:
                game.play(combos[pick])
            decisions += 1
    return decisions


def rlcard_games(games: int, rng: random.Random) -> int:
    """Random rlcard Dou Dizhu games: uniform over ``state['actions']`` ('pass' is one of them)."""
    import numpy as np
    from rlcard.games.doudizhu.game import DoudizhuGame

    game = DoudizhuGame()
    game.np_random = np.random.RandomState(rng.getrandbits(32))
    choose = rng.random
    decisions = 0
    for _ in range(games):
        state, _player = game.init_game()
        while not game.is_over():
            actions = state["actions"]
            state, _player = game.step(actions[int(choose() * len(actions))])
            decisions += 1
    return decisions


def open_spiel_games(games: int, rng: random.Random) -> int:
    """Random open_spiel Dou Dizhu games (C++ engine): chance outcomes sampled, then uniform actions."""
    import pyspiel

    game = pyspiel.load_game("dou_dizhu")
    choose = rng.random
    decisions = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(choose() * len(outcomes))][0])
                continue
            actions = state.legal_actions()
            state.apply_action(actions[int(choose() * len(actions))])
            decisions += 1
    return decisions


def available_peers() -> dict[str, Callable[[int, random.Random], int]]:
    """The peers that can be imported here, by name."""
    peers: dict[str, Callable[[int, random.Random], int]] = {}
    try:
        import rlcard.games.doudizhu.game  # noqa: F401

        peers["rlcard"] = rlcard_games
    except ImportError:
        pass
    try:
        import pyspiel  # noqa: F401

        peers["open_spiel"] = open_spiel_games
    except ImportError:
        pass
    return peers


def play_rounds(
    engines: dict[str, Callable[[int, random.Random], int]], games: int, rounds: int, seed: int
) -> dict[str, Tally]:
    """Play ``games`` games per engine in ``rounds`` alternating rounds; the same seeds for each round."""
    tallies = {name: Tally(name) for name in engines}
    per_round = [games // rounds + (1 if r < games % rounds else 0) for r in range(rounds)]
    for number, count in enumerate(per_round):
        if not count:
            continue
        for name, engine in engines.items():
            rng = random.Random(seed * 1_000_003 + number)
            cpu, wall = time.process_time(), time.perf_counter()
            decisions = engine(count, rng)
            tallies[name].add(count, decisions, time.process_time() - cpu, time.perf_counter() - wall)
    return tallies


# ---- one call of legal_plays() on a leading 14-card hand --------------------------------------------


def leading_hands(count: int, seed: int) -> list[Game]:
    """Openings whose leader (the ♦4 holder, R26) holds 14 cards: a leading 14-card hand in a real game."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        game = Game.deal(seed=rng.getrandbits(64), first_drawer=rng.randrange(4))
        if game.to_move is not None and game.count(game.to_move) == 14:
            found.append(game)
    return found


def median_call(call: Callable[[], Any], repeats: int) -> float:
    """Median seconds of one call over ``repeats`` calls."""
    times = []
    clock = time.perf_counter
    for _ in range(repeats):
        start = clock()
        call()
        times.append(clock() - start)
    return statistics.median(times)


def first_calls(game: Game, repeats: int) -> Callable[[], Any]:
    """A call of ``legal_combos()`` on a new copy of ``game``'s deal each time (made beforehand): the
    first call at a position, which builds the hand's kept plays."""
    deal = [game.hand_mask(s) for s in range(4)]
    fresh = iter([Game.from_hands(deal, game.first_drawer) for _ in range(repeats)])
    return lambda: next(fresh).legal_combos()


def call_times(games: list[Game], repeats: int) -> dict[str, tuple[float, float, float, float]]:
    """Per call: (median over hands of the per-hand median µs, min, max, mean number of plays)."""
    calls: dict[str, tuple[Callable[[Game], Callable[[], Any]], Callable[[Game], int]]] = {
        "legal_plays()": (lambda g: g.legal_plays, lambda g: len(g.legal_plays())),
        "legal_combos()": (lambda g: g.legal_combos, lambda g: len(g.legal_combos())),
        "legal_combos(), first call": (lambda g: first_calls(g, repeats), lambda g: len(g.legal_combos())),
        "plays(hand) (free lead, no ♦4 rule)": (
            lambda g: lambda: plays(g.hand_mask(g.to_move or 0)),
            lambda g: len(plays(g.hand_mask(g.to_move or 0))),
        ),
    }
    out = {}
    for label, (make, size) in calls.items():
        medians = [median_call(make(g), repeats) * 1e6 for g in games]
        out[label] = (
            statistics.median(medians),
            min(medians),
            max(medians),
            statistics.mean(size(g) for g in games),
        )
    return out


# ---- the report ---------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4000, help="games per engine (default 4000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and choices (default 1)")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds (default 4)")
    parser.add_argument("--hands", type=int, default=20, help="14-card hands timed (default 20)")
    parser.add_argument("--repeats", type=int, default=500, help="calls per hand (default 500)")
    parser.add_argument("--warmup", type=int, default=0, help="untimed games per engine first (default 0)")
    parser.add_argument("--no-peers", action="store_true", help="time niugui alone")
    args = parser.parse_args(argv)
    if args.games < 1 or args.rounds < 1 or args.hands < 1 or args.repeats < 1 or args.warmup < 0:
        parser.error("--games, --rounds, --hands and --repeats must be positive, --warmup not negative")

    engines: dict[str, Callable[[int, random.Random], int]] = {"niugui": niugui_games}
    peers = {} if args.no_peers else available_peers()
    engines.update(peers)
    print(f"machine: {platform.machine()}, {_cores()} cores; Python {platform.python_version()}")
    print(f"games per engine: {args.games} in {args.rounds} alternating rounds, seed {args.seed}"
          + (f", after {args.warmup} untimed warm-up games each" if args.warmup else ""))
    if not args.no_peers:
        for name in ("rlcard", "open_spiel"):
            if name not in peers:
                print(f"{name}: not importable here, left out")
    print()

    if args.warmup:
        play_rounds(engines, args.warmup, 1, args.seed + 1_000_000)
    tallies = play_rounds(engines, args.games, args.rounds, args.seed)
    header = (
        f"{'engine':<12}{'games':>7}{'decisions':>11}{'dec/game':>10}{'games/s':>10}"
        f"{'decisions/s':>13}{'wall dec/s':>12}"
    )
    print(header)
    for tally in tallies.values():
        print(
            f"{tally.name:<12}{tally.games:>7}{tally.decisions:>11}{tally.decisions / tally.games:>10.1f}"
            f"{tally.games_per_s:>10.0f}{tally.decisions_per_s:>13.0f}{tally.decisions / tally.wall:>12.0f}"
        )
    print()
    ours = tallies["niugui"]
    for name, tally in tallies.items():
        if name == "niugui":
            continue
        ratio = ours.decisions_per_s / tally.decisions_per_s
        line = f"ratio niugui/{name} decisions/s: {ratio:.2f}x"
        if name == "rlcard":
            line += f" (target >= {TARGET:g}x: {'met' if ratio >= TARGET else 'NOT met'})"
        print(line)
    print()

    games = leading_hands(args.hands, args.seed)
    print(
        f"one call on a leading 14-card hand (the opening, R26), median of {args.repeats} calls, "
        f"{args.hands} hands:"
    )
    for label, (median, low, high, size) in call_times(games, args.repeats).items():
        print(f"  {label:<38} {median:8.1f} us  (hands {low:.1f}-{high:.1f} us; {size:.0f} plays)")
    return 0


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    sys.exit(main())
