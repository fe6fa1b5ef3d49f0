"""Arena games or training shards for a fixed stretch of wall clock, on every core of a machine
lent for a while (a device machine of 16 cores, say), keeping whatever finished.

``arena`` plays deals 0, 1, 2, … of ``niugui arena``'s duplicate scheme (the same games as
``niugui arena --seed S``, since each game depends only on the seed, the deal and the seating) until
``--seconds`` have passed, then reports the *complete prefix* of deals — deals 0 … k−1 all done —
so that slow deals are never left out of the figure (a time cut that kept whichever deals finished
would favour the short ones). ``data`` makes training shards (:func:`niugui.learn.data.make_shard`)
until ``--seconds`` have passed and writes each one as it comes.

Neither needs more than the engine and numpy (no server, no CLI dependencies)::

    PYTHONPATH=. python3 bench/timed_run.py arena --seed 20261205 \\
        --bots "search?budget=0.1&prior=learned,search?budget=0.1" --budget 2 --workers 16 --seconds 470 \\
        --out /tmp/arena
    PYTHONPATH=. python3 bench/timed_run.py data --labels search --worlds 8 --seed 31 --first 1000 \\
        --workers 16 --seconds 120 --folder /tmp/data
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from niugui import arena
from niugui.learn import data
from niugui.parallel import as_backend, each_game


def run_arena(args: argparse.Namespace) -> None:
    """Play deals 0, 1, … until ``--seconds`` have passed, writing each deal as it completes."""
    specs = args.bots.split(",")
    try:
        arena.check_specs(specs)  # a bad name fails now, not after the run
    except ValueError as error:
        raise SystemExit(str(error)) from None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + args.seconds
    jobs = [(deal, args.budget or None) for deal in range(args.max_deals)]
    games = each_game(arena.play_deal, jobs, as_backend(args.workers), common=(specs, args.seed))
    # each deal is written as it completes, so a run stopped from outside keeps what it finished
    with (out / "deals.jsonl").open("w") as deals, (out / "records.jsonl").open("w") as records:
        for _, reports in games:
            for report in reports:
                records.write(json.dumps(report.record, ensure_ascii=False, separators=(",", ":")) + "\n")
                report.record = {}
            deals.write(json.dumps([dataclasses.asdict(r) for r in reports]) + "\n")
            records.flush()
            deals.flush()
            if time.monotonic() > deadline:
                break
        # Deals not yet handed to a worker are cancelled; those running (and up to one more a worker
        # already holds) finish and are dropped, so a run can end up to two deal lengths late.
        games.close()
    summarise_prefix(specs, out, args.seed)


def summarise_prefix(specs: list[str], out: Path, seed: int) -> None:
    """Summarise the complete prefix of deals in ``out/deals.jsonl`` into ``out/summary.json`` (a last
    line cut off by a kill is skipped). ``records.jsonl`` holds every finished deal, the prefix's and
    any beyond it."""
    done: dict[int, list[arena.GameReport]] = {}
    for line in (out / "deals.jsonl").read_text().splitlines():
        try:
            rows = json.loads(line)
        except json.JSONDecodeError:
            continue
        reports = [
            arena.GameReport(
                **{
                    **r,
                    "seats": tuple(r["seats"]),
                    "times": tuple(r["times"]),
                    "cpu_times": tuple(r["cpu_times"]),
                }
            )
            for r in rows
        ]
        done[reports[0].deal] = reports
    prefix = 0
    while prefix in done:
        prefix += 1
    summary = arena.summarise(specs, [r for deal in range(prefix) for r in done[deal]])
    result: dict[str, Any] = {
        "bots": specs,
        "seed": seed,
        "deals": prefix,
        "games": summary.games,
        "finished_beyond_prefix": len(done) - prefix,
        "summary": [dataclasses.asdict(bot) for bot in summary.bots],
        "outcomes": summary.outcomes,
    }
    (out / "summary.json").write_text(json.dumps(result, indent=1))
    for bot in summary.bots:
        print(
            f"{bot.spec}: {bot.mean:+.3f} ± {bot.ci:.3f} over {summary.games} games ({prefix} deals); "
            f"p50 {bot.p50_ms:.1f} ms, p99 {bot.p99_ms:.1f} ms, cpu p99 {bot.cpu_p99_ms:.1f} ms, "
            f"fallbacks {bot.fallbacks}"
        )


def run_data(args: argparse.Namespace) -> None:
    """Make shards ``--first``, ``--first`` + 1, … until ``--seconds`` have passed, each written at once."""
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + args.seconds
    numbers = list(range(args.first, args.first + args.max_shards))
    jobs = [(number, data.shard_games(args.labels), args.labels, args.worlds) for number in numbers]
    shards = each_game(data.make_shard, jobs, as_backend(args.workers), common=(args.seed,))
    made = 0
    for index, shard in shards:
        data.write_shard(folder, numbers[index], shard)
        made += 1
        if time.monotonic() > deadline:
            break
    shards.close()
    print(f"{made} shards of {data.shard_games(args.labels)} games ({args.labels} labels) in {folder}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    a = sub.add_parser("arena")
    a.add_argument("--bots", required=True)
    a.add_argument("--seed", type=int, required=True)
    a.add_argument("--budget", type=float, default=10.0,
                   help="hard limit per decision, seconds, as niugui arena's (10; 0: none)")
    a.add_argument("--max-deals", type=int, default=5000)
    a.add_argument("--out", required=True, help="folder: deals.jsonl, records.jsonl, summary.json")
    d = sub.add_parser("data")
    d.add_argument("--labels", choices=data.LABELS, default="search")
    d.add_argument("--worlds", type=int, default=16)
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--first", type=int, default=0, help="number of the first shard")
    d.add_argument("--max-shards", type=int, default=5000)
    d.add_argument("--folder", required=True)
    for p in (a, d):
        p.add_argument("--workers", type=int, default=2)
        p.add_argument("--seconds", type=float, required=True)
    s = sub.add_parser("summary", help="summarise an arena folder again (a run stopped from outside)")
    s.add_argument("--bots", required=True)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.what == "arena":
        run_arena(args)
    elif args.what == "data":
        run_data(args)
    else:
        summarise_prefix(args.bots.split(","), Path(args.out), args.seed)


if __name__ == "__main__":
    main()
