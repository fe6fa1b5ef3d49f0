"""A minimal duplicate-match runner for two bots (search vs expert by default).

Every deal is played 6 times, once with each way of seating two copies of bot A and two of bot B
(so the luck of the deal cancels out and each bot sits in each seat equally). Prints bot A's mean
points per seat per game with a 95% interval (deals are the independent units), win/draw/loss rates,
the outcomes, and decision times; writes every game as a record (JSON lines, RECORD.md).

    nice -n 10 .venv/bin/python bench/search_vs_expert.py --deals 50 --budget 0.1 --workers 1 \\
        --records /tmp/search_vs_expert.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from niugui import Game
from niugui.arena import play_out
from niugui.bots import Decision, load_bot
from niugui.record import record_of_game

ARRANGEMENTS = [seats for seats in itertools.combinations(range(4), 2)]
"""The seats of bot A in each of the 6 games of a deal; bot B takes the other two."""


Task = tuple[int, str, str, dict[str, Any], dict[str, Any]]
"""One deal: its number, bot A's and bot B's names and options."""


def play_deal(task: Task) -> list[dict[str, Any]]:
    """Play one deal in all 6 seatings; return one summary per game."""
    return [play_seating(task, k, seats_a) for k, seats_a in enumerate(ARRANGEMENTS)]


def play_seating(task: Task, k: int, seats_a: tuple[int, ...]) -> dict[str, Any]:
    """Play the deal with seating number ``k`` (bot A in ``seats_a``); return the game's summary."""
    deal, name_a, name_b, options_a, options_b = task
    game = Game.deal(seed=deal, first_drawer=deal % 4)
    names = [name_a if s in seats_a else name_b for s in range(4)]
    bots = [
        load_bot(n, seed=deal * 100 + k * 4 + s, **(options_a if n == name_a else options_b))
        for s, n in enumerate(names)
    ]
    times: dict[str, list[float]] = {name_a: [], name_b: []}
    worlds: list[int] = []

    def measure(seat: int, decision: Decision) -> None:
        times[names[seat]].append(decision.seconds)
        searched = getattr(bots[seat], "last_worlds", 0)
        if searched:
            worlds.append(searched)

    play_out(game, bots, on_decision=measure)
    for bot in bots:
        close = getattr(bot, "close", None)
        if close is not None:
            close()
    result = game.result
    assert result is not None
    return {
        "deal": deal,
        "seats_a": list(seats_a),
        "scores": result.scores,
        "outcome": result.outcome,
        "times": times,
        "worlds": worlds,
        "record": record_of_game(game, {"bench": {"bots": names, "deal": deal}}),
    }


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def interval(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="search,expert", help="bot A,bot B (default search,expert)")
    parser.add_argument("--deals", type=int, default=20, help="deals; each is played 6 times")
    parser.add_argument("--seed", type=int, default=1, help="the first deal's seed")
    parser.add_argument("--workers", type=int, default=1, help="processes playing deals in parallel")
    parser.add_argument("--a", action="append", default=[], metavar="KEY=VALUE", help="option of bot A")
    parser.add_argument("--b", action="append", default=[], metavar="KEY=VALUE", help="option of bot B")
    parser.add_argument("--minutes", type=float, default=0, help="stop after this long (0: play all deals)")
    parser.add_argument("--records", help="write every game's record here (JSON lines)")
    args = parser.parse_args()
    name_a, name_b = args.bots.split(",")
    if name_a == name_b:
        parser.error("two different bots are needed")
    options_a, options_b = parse_options(args.a), parse_options(args.b)
    tasks = [(args.seed + d, name_a, name_b, options_a, options_b) for d in range(args.deals)]
    per_deal: list[float] = []
    outcomes: Counter[str] = Counter()
    results: Counter[str] = Counter()
    times: dict[str, list[float]] = {name_a: [], name_b: []}
    worlds: list[int] = []
    records = open(args.records, "w") if args.records else None  # noqa: SIM115
    started = time.time()
    pool = ProcessPoolExecutor(args.workers)
    pending = [pool.submit(play_deal, task) for task in tasks]
    try:
        for done, future in enumerate(as_completed(pending), 1):
            games = future.result()
            points = []
            for game in games:
                for seat in game["seats_a"]:
                    score = game["scores"][seat]
                    points.append(score)
                    results["win" if score > 0 else "draw" if score == 0 else "loss"] += 1
                outcomes[game["outcome"]] += 1
                for name, values in game["times"].items():
                    times[name].extend(values)
                worlds.extend(game["worlds"])
                if records:
                    records.write(json.dumps(game["record"], ensure_ascii=False) + "\n")
            per_deal.append(statistics.fmean(points))
            mean, half = interval(per_deal)
            print(
                f"[{done}/{len(tasks)} deals, {time.time() - started:.0f}s] "
                f"{name_a} {mean:+.3f} ± {half:.3f}",
                file=sys.stderr,
                flush=True,
            )
            if args.minutes and time.time() - started > 60 * args.minutes:
                print(f"stopping after {args.minutes} minutes", file=sys.stderr)
                break
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if records:
        records.close()
    games = len(per_deal) * len(ARRANGEMENTS)
    mean, half = interval(per_deal)
    seat_games = sum(results.values())
    print(
        f"{name_a} ({options_a}) vs {name_b} ({options_b}): "
        f"{len(per_deal)} deals x 6 seatings = {games} games"
    )
    print(
        f"{name_a} mean points per seat per game: {mean:+.3f}, "
        f"95% CI [{mean - half:+.3f}, {mean + half:+.3f}] ({name_b}: {-mean:+.3f})"
    )
    rates = ", ".join(f"{k} {results[k] / seat_games:.1%}" for k in ("win", "draw", "loss"))
    print(f"{name_a} seat results: {rates}")
    print("outcomes: " + ", ".join(f"{k} {v / games:.1%}" for k, v in outcomes.most_common()))
    for name, values in times.items():
        print(
            f"{name} decision time: p50 {percentile(values, 0.5) * 1000:.1f} ms, "
            f"p99 {percentile(values, 0.99) * 1000:.1f} ms, max {max(values) * 1000:.1f} ms "
            f"over {len(values)} decisions"
        )
    if worlds:
        print(
            f"sampled worlds per searched decision: p50 {percentile(worlds, 0.5):.0f}, "
            f"p1 {percentile(worlds, 0.01):.0f}, mean {statistics.fmean(worlds):.0f} "
            f"over {len(worlds)} decisions"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
