"""The shipped ``learned`` bot with and without its check by rollouts, against ``expert`` on the
training's evaluation deals (``learn-margin/SEED/…``, never the arena's), paired by deal.

    .venv/bin/python bench/learned_check.py --seed 2 --games 6000 --check 45 --workers 2

Prints both bots' points a game (mean ± 95% interval over deals) and the paired difference. In
docs/bots.md, "Proposals checked by rollouts", the two lines of "the choosing deals again with the
tree's own command" came from it; the exploring table and the choice came from a script outside the
tree (the same bot, seeded otherwise), the arena figures from ``niugui arena``.
"""

from __future__ import annotations

import argparse

from niugui.arena import mean_ci
from niugui.bots.learned import CHECK
from niugui.learn.evaluate import points_vs_expert
from niugui.learn.model import Network
from niugui.parallel import as_backend


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=2, help="deals learn-margin/SEED/… (default 2)")
    parser.add_argument("--games", type=int, default=6000, help="duplicate games, six a deal")
    parser.add_argument("--check", type=int, default=CHECK, help=f"the checked bot's check (default {CHECK})")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    net, backend = Network.load(), as_backend(args.workers)
    alone = points_vs_expert(net, args.games, args.seed, deals="learn-margin", backend=backend, check=0)
    checked = points_vs_expert(net, args.games, args.seed, deals="learn-margin", backend=backend,
                               check=args.check)
    paired = [b - a for a, b in zip(alone, checked, strict=True)]
    for name, points in (("network alone (check=0)", alone), (f"checked (check={args.check})", checked),
                         ("checked - alone, paired by deal", paired)):
        mean, half = mean_ci(points)
        print(f"{name}: {mean:+.3f} ± {half:.3f} over {len(points)} deals")


if __name__ == "__main__":
    main()
