"""The quick-play matcher alone (issue 33, finding 1): the cost of one ``quick_play`` matched into
the red team's queue — guests whose preferences never fit (one turn timer or one game count each:
any two fit, no three) — for a re-join of each kind and a newcomer who accepts anything.

    .venv/bin/python bench/matcher_bench.py                          # this checkout
    PYTHONPATH=/path/to/before .venv/bin/python bench/matcher_bench.py  # another one
"""

from __future__ import annotations

import time

from niugui.server.matchmaking import Preferences, Queue, Ticket


def attack_queue(turns: int, games: int) -> tuple[Queue, int]:
    queue, joined = Queue(), 0
    for t in range(turns):
        queue.join(Ticket(f"t{t}", float(joined), Preferences(10 + t, None)))
        joined += 1
    for g in range(games):
        queue.join(Ticket(f"g{g}", float(joined), Preferences(None, 1 + g)))
        joined += 1
    assert queue.match(now=1e6) == []
    return queue, joined


def main() -> None:
    calls = 50
    for turns, games in ((43, 16), (100, 16)):
        queue, joined = attack_queue(turns, games)
        for who, prefs in (
            ("t5", Preferences(15, None)),
            ("g3", Preferences(None, 4)),
            ("new", Preferences()),
        ):
            started = time.perf_counter()
            for k in range(calls):
                queue.join(Ticket(who, float(joined + k), prefs))
                assert queue.match(now=1e6) == []
                if who == "new":
                    queue.leave("new")
            took = (time.perf_counter() - started) / calls
            print(f"{turns + games} waiting, {who}: {took * 1000:.2f} ms per quick_play")


if __name__ == "__main__":
    main()
