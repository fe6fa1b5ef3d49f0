"""Issue 33 (hardening, second round), the app-level findings: expensive reads (3), muting with the
account (5), invitations by consent (6), rating among distinct people (8), queue griefing (9),
private games in profiles (11). Each test is named after its finding and fails before its fix."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from fastapi.testclient import TestClient

from niugui.game import Result
from niugui.server import store as store_module
from niugui.server.app import create_app
from niugui.server.config import Config, Limits
from niugui.server.store import RatedGame, Store

WIN = Result("2v2", "win", [0, 2, 3], [1, 1, -1, -1], [0, 1])


def farm_table(store: Store, table: str, accounts: Sequence[str], code: str | None = None) -> None:
    """The accounts (made when missing) and a table ``table`` for their games."""
    for account in accounts:
        if store.account(account) is None:
            store.create_account(account, account, f"token-{account}")
    with store.engine.begin() as c:
        c.execute(
            store_module.tables.insert().values(
                id=table,
                creator=accounts[0],
                code=code,
                status="between",
                last_seq=0,
                created_at=0.0,
                updated_at=0.0,
            )
        )


def play(store: Store, table: str, seats: Sequence[str | None], games: int, rated: bool = True) -> None:
    """``games`` finished games at ``table`` stored as the server stores them (seats 0 and 1 win);
    a None seat is a server bot."""
    for n in range(games):
        with store.engine.begin() as c:
            game_id = c.execute(
                store_module.games.insert().values(
                    table_id=table,
                    game_no=n,
                    first_drawer=0,
                    deck="",
                    salt="",
                    commitment="",
                    meta="{}",
                    status="over",
                    started_at=0.0,
                    finished_at=0.0,
                    result='{"mode": "2v2", "outcome": "win", "finish": [0, 2, 3], "scores": [1, 1, -1, -1],'
                    ' "black": [0, 1]}',
                )
            ).inserted_primary_key[0]
            rows = [
                {
                    "table_id": table,
                    "game_id": game_id,
                    "seat": s,
                    "account_id": a,
                    "nickname": a or "bot",
                    "delta": WIN.scores[s],
                    "outcome": "win",
                    "created_at": 0.0,
                }
                for s, a in enumerate(seats)
            ]
            c.execute(store_module.ledger.insert(), rows)
            if rated:
                bots = tuple(None if a else "expert" for a in seats)
                store_module._rate(c, RatedGame(WIN, tuple(seats), bots), game_id, float(n))


def counting(calls: list[int], method: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return method(*args, **kwargs)

    return counted


def test_finding_3_leaderboards_are_computed_once_and_reads_are_capped_per_address(tmp_path: Path) -> None:
    """Forty leaderboard requests from one address (under its HTTP allowance) compute the board once,
    and past the address's budget of expensive reads are refused (429 ``too_many_reads``) while another
    address is served; a rated game finished is on the next board; the ledger's ``game_id`` is indexed.
    Before: 40 computations, no refusal, no index (a full scan per rated game)."""
    limits = Limits(board_seconds=0.0, read_burst=20, read_rate=0.01)
    app = create_app(Config(data_dir=tmp_path, limits=limits))
    with TestClient(app) as http:
        store: Store = app.state.services.store
        farm_table(store, "t", ["a", "b", "c", "d"])
        play(store, "t", ["a", "b", "c", "d"], 3)
        computed: list[int] = []
        store.leaderboard = counting(computed, store.leaderboard)  # type: ignore[method-assign]
        answers = [http.get("/api/leaderboard") for _ in range(40)]
        assert [a.status_code for a in answers].count(200) == 20
        refused = [a for a in answers if a.status_code != 200]
        assert {(a.status_code, a.json()["detail"]["code"]) for a in refused} == {(429, "too_many_reads")}
        assert len(computed) == 1
        assert answers[0].json()["players"][0]["games"] == 3
        other = TestClient(app, client=("10.9.9.9", 50000))  # the app is running: no second lifespan
        assert other.get("/api/leaderboard").status_code == 200 and len(computed) == 1
        play(store, "t", ["a", "b", "c", "d"], 1)  # a rated game finished: the next board has it
        board = other.get("/api/leaderboard").json()["players"]
        assert board[0]["games"] == 4 and len(computed) == 2
        assert other.get("/api/players/a/profile").status_code == 200  # the same budget, not spent
        indexed = {tuple(ix["column_names"]) for ix in sa.inspect(store.engine).get_indexes("ledger")}
        assert ("game_id",) in indexed


def test_finding_3_expensive_reads_never_hold_the_whole_pool(tmp_path: Path) -> None:
    """At most ``reads_at_once`` expensive reads use the database at once: one more waits, then
    answers 503 ``busy`` (the other connections of the pool stay for play and logins). Before: every
    request took a connection of its own until the pool ran dry and requests failed with 500."""
    app = create_app(Config(data_dir=tmp_path, limits=Limits(reads_at_once=2)))
    with TestClient(app) as http:
        fair = app.state.services.fair
        assert fair.reads_at_once.acquire() and fair.reads_at_once.acquire()  # two reads in flight
        busy = http.get("/api/leaderboard?by=rating")
        assert busy.status_code == 503 and busy.json()["detail"]["code"] == "busy"
        assert http.post("/api/guest", json={"nickname": "newcomer"}).status_code == 200
        fair.reads_at_once.release()
        assert http.get("/api/leaderboard?by=rating").status_code == 200
