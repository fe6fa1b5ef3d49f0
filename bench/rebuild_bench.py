"""How long rebuilding a table from the store takes as it ages (a failover's and a restart's cost per
table, docs/scaling.md "Failover, measured"): a table of one scripted player and three bots plays
``--games`` games in-process (SQLite, tests/server/table_harness.py) and 50 turns into the next,
then it is rebuilt ``--repeat``
times from the state stored with its latest deal and the events since, and as a database from before
that state (migration 0011) has it: from its first event.

    .venv/bin/python bench/rebuild_bench.py --games 10 40
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "server"))
from table_harness import Rig, play_out, rig, seated_table, weakest

from niugui.server.store import games


def rebuild_ms(r: Rig, table_id: str, repeat: int) -> float:
    """The median wall time of :meth:`TableLoader.rebuild`, in ms."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        r.hub.loader.rebuild(table_id)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def one(games_played: int, repeat: int) -> str:
    r = rig(Path(tempfile.mkdtemp(prefix="niugui-rebuild-")))
    table, clients = seated_table(r, humans=1)
    for _ in range(games_played):
        play_out(r, table, clients)
        r.call(table.ready, clients[0])
    for _ in range(50):  # half a game into the next one: its events are replayed either way
        game = table.state.game
        assert game is not None and game.to_move is not None
        if table.state.human_turn(game.to_move):
            r.call(table.act, clients[0], weakest(game.view(game.to_move)))
        else:
            r.clock.advance(r.config.bot_delay)
    saved = rebuild_ms(r, table.id, repeat)
    with r.store.engine.begin() as c:  # as before migration 0011
        c.execute(games.update().values(table_state=None, state_seq=None))
    whole = rebuild_ms(r, table.id, repeat)
    return f"| {games_played} | {table.state.seq:,} | {saved:.1f} ms | {whole:.1f} ms |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10, 40])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    print("| games played | events | from the saved state | from the first event |")
    print("| ---: | ---: | ---: | ---: |")
    for n in args.games:
        print(one(n, args.repeat), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
