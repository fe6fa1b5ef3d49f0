"""Leaderboards under load (issue 33, finding 3): a synthetic SQLite store of rated games, then
one address asking ``GET /api/leaderboard`` 40 times at once (8 threads), in-process.

    nice -n 10 .venv/bin/python bench/boards_bench.py --games 20000

Before the fix, run the same script on the commit before it (``PYTHONPATH=/old/checkout``: it has
no ``game_id`` index, no shared board and no budget for reads). Prints the time of one points board
and of one rating board, and for the 40 requests: how many computed a board, how many answered
200 / 429 / 503 / 500, the slowest answer, and a newcomer's ``/healthz`` time while they run.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import sqlalchemy as sa
from fastapi.testclient import TestClient

from niugui.server import store as sm
from niugui.server.app import create_app
from niugui.server.config import Config, Limits


def fill(store: sm.Store, games: int, players: int = 400) -> None:
    """``games`` rated games of four of ``players`` accounts each (4 ledger and rating rows a game)."""
    now = time.time()
    with store.engine.begin() as c:
        c.execute(
            sm.accounts.insert(),
            [{"id": f"p{n}", "nickname": f"p{n}", "created_at": now} for n in range(players)],
        )
        c.execute(
            sm.tables.insert().values(
                id="t", creator="p0", code=None, status="between", last_seq=0, created_at=now, updated_at=now
            )
        )
        c.execute(
            sm.games.insert(),
            [
                {"id": g + 1, "table_id": "t", "game_no": g, "first_drawer": 0, "deck": "", "salt": "",
                 "commitment": "", "meta": "{}", "status": "over", "started_at": now}
                for g in range(games)
            ],
        )  # fmt: skip
        seats = [[f"p{(g * 7 + s * 101) % players}" for s in range(4)] for g in range(games)]
        c.execute(
            sm.ledger.insert(),
            [
                {"table_id": "t", "game_id": g + 1, "seat": s, "account_id": a, "nickname": a,
                 "delta": 1 if s < 2 else -1, "outcome": "win", "created_at": now}
                for g, four in enumerate(seats) for s, a in enumerate(four)
            ],
        )  # fmt: skip
        c.execute(
            sm.rating_history.insert(),
            [
                {"account_id": a, "game_id": g + 1, "mu": 25.0, "sigma": 8.0, "created_at": now}
                for g, four in enumerate(seats) for a in four
            ],
        )  # fmt: skip
        counts: dict[str, int] = {}
        for a in itertools.chain.from_iterable(seats):
            counts[a] = counts.get(a, 0) + 1
        c.execute(
            sm.ratings.insert(),
            [{"account_id": a, "mu": 25.0 + n % 7, "sigma": 3.0, "games": k, "updated_at": now}
             for n, (a, k) in enumerate(counts.items())],
        )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="boards-bench-"))
    app = create_app(Config(data_dir=data, limits=Limits()))
    with TestClient(app) as http:
        services = app.state.services
        store: sm.Store = services.store
        fill(store, args.games)
        indexes = [ix["name"] for ix in sa.inspect(store.engine).get_indexes("ledger")]
        print(f"{args.games} rated games; ledger indexes {indexes}; {sm.__file__}")
        for name, read in (
            ("points", lambda: store.leaderboard(50)),
            ("rating", lambda: store.rating_leaderboard(50, 5)),
        ):
            start = time.perf_counter()
            read()
            print(f"one {name} board: {time.perf_counter() - start:.3f} s")
        computed: list[int] = []
        board = store.leaderboard
        store.leaderboard = lambda limit=50: computed.append(1) or board(limit)  # type: ignore[method-assign]

        def ask(_: int) -> tuple[int, float]:
            start = time.perf_counter()
            answer = http.get("/api/leaderboard")
            return answer.status_code, time.perf_counter() - start

        with ThreadPoolExecutor(8) as pool:
            flood = pool.map(ask, range(40))
            start = time.perf_counter()
            health = TestClient(app, client=("10.9.9.9", 1)).get("/healthz").status_code
            newcomer = time.perf_counter() - start
            results = list(flood)
        codes = [code for code, _ in results]
        print(
            f"40 requests: {len(computed)} boards computed; "
            + ", ".join(f"{codes.count(c)} × {c}" for c in sorted(set(codes)))
            + f"; slowest {max(t for _, t in results):.2f} s"
            + f"; a newcomer's /healthz {health} in {newcomer:.2f} s"
        )


if __name__ == "__main__":
    main()
