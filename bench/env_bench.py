"""Research-environment benchmark: what niugui.env costs on top of the engine.

Reports the import time of the action table, ``encode``/``decode`` per call, ``observe`` (one seat's
view encoded) per call, AEC steps/s when every action is drawn from the mask, and Gymnasium
(``SeatEnv``) episodes/s against ``random`` and ``expert``. Timing is CPU time of this process
(``time.process_time``), which a shared machine disturbs less than wall-clock time; the import time
is the median of fresh interpreters' own CPU time.

    python bench/env_bench.py [--episodes N] [--seed S]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from niugui import Game
from niugui.env import actions


def import_ms(repeats: int) -> float:
    """Median CPU milliseconds of ``import niugui.env.actions`` (the table build) in a fresh process."""
    code = (
        "import time, niugui.game; t = time.process_time(); import niugui.env.actions; "
        "print((time.process_time() - t) * 1000)"
    )
    root = str(Path(__file__).resolve().parents[1])
    command = [sys.executable, "-c", code]
    runs = [
        float(subprocess.run(command, capture_output=True, text=True, check=True, cwd=root).stdout)
        for _ in range(repeats)
    ]
    return statistics.median(runs)


def per_call_ns(call: object, args: list[object], repeats: int = 5) -> float:
    """Best of ``repeats`` passes over ``args``: CPU nanoseconds per call."""
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        for arg in args:
            call(arg)  # type: ignore[operator]
        best = min(best, (time.process_time() - started) / len(args))
    return best * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    import numpy as np

    import niugui.env
    from niugui.env.observation import encode_view

    print(f"python {platform.python_version()} on {platform.machine()}")
    print(f"action table: {actions.ACTION_COUNT} ids; import {import_ms(5):.0f} ms CPU (median of 5)")
    rng = random.Random(options.seed)
    ids = [rng.randrange(actions.ACTION_COUNT) for _ in range(100_000)]
    combos = [actions.decode(i) for i in ids]
    decode_ns, encode_ns = per_call_ns(actions.decode, ids), per_call_ns(actions.encode, combos)
    print(f"decode: {decode_ns:.0f} ns   encode: {encode_ns:.0f} ns")

    views = []
    for seed in range(40):
        game = Game.deal(seed=seed)
        while not game.over:
            seat = game.to_move
            views.append(game.view(seat))
            legal = game.legal_combos()
            if game.can_pass() and (not legal or rng.random() < 0.35):
                game.pass_turn()
            else:
                game.play(rng.choice(legal))
    print(f"observe (encode_view of a view on its turn): {per_call_ns(encode_view, views, 3) / 1000:.1f} µs")

    env = niugui.env.env()
    steps = 0
    started = time.process_time()
    for episode in range(options.episodes):
        env.reset(seed=options.seed + episode)
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(observation["action_mask"])))
            steps += 1
    spent = time.process_time() - started
    print(
        f"AEC, masked random actions: {steps / spent:,.0f} steps/s, {options.episodes / spent:.0f} episodes/s"
    )

    for opponent in ("random", "expert"):
        seat_env = niugui.env.SeatEnv(opponents=opponent, seat=None)
        moves = 0
        started = time.process_time()
        for episode in range(options.episodes):
            observation, _ = seat_env.reset(seed=options.seed + episode)
            done = False
            while not done:
                action = rng.choice(np.flatnonzero(observation["action_mask"]))
                observation, _, done, _, _ = seat_env.step(action)
                moves += 1
        spent = time.process_time() - started
        print(
            f"SeatEnv against {opponent}: {options.episodes / spent:.0f} episodes/s, "
            f"{moves / spent:,.0f} learner steps/s"
        )


if __name__ == "__main__":
    main()
