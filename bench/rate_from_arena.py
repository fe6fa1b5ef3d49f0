"""The rating difference between the two bots of an arena run, by the ratings bench's method.

Reads the JSON-lines records of one ``niugui arena`` run (bots A, B) and rates both game by game
with ``bench/bot_ratings.py``'s ``rate_levels`` (the server's model, both starting as new players),
then prints A's μ minus B's: added to B's published ``BOT_RATINGS`` μ it places A on the ladder.

    .venv/bin/python bench/rate_from_arena.py artifacts/arena/learned-vs-expert-3000.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from niugui.arena import ARRANGEMENTS
from niugui.ratings import BOT_RATINGS, Rating

sys.path.insert(0, str(Path(__file__).parent))
from bot_ratings import rate_levels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", help="an arena run's JSON-lines records")
    args = parser.parse_args()
    games: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    with open(args.records, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            bots = record["meta"]["arena"]["bots"]
            seats = ARRANGEMENTS[record["meta"]["arena"]["arrangement"]]
            games.append((tuple(bots[side] for side in seats), record["result"]))
    a, b = bots
    levels = rate_levels(games)
    difference = levels[a].mu - levels[b].mu
    print(f"{len(games)} games: {a} mu {levels[a].mu:.2f} sigma {levels[a].sigma:.2f}, "
          f"{b} mu {levels[b].mu:.2f} sigma {levels[b].sigma:.2f}; difference {difference:+.2f}")
    if b in BOT_RATINGS:
        placed = Rating(BOT_RATINGS[b].mu + difference, levels[a].sigma)
        print(f"{a} on the ladder: mu {placed.mu:.2f} sigma {placed.sigma:.2f} shown {placed.shown}")


if __name__ == "__main__":
    main()
