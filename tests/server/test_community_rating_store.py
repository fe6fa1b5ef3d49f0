"""The server's ratings (store.py): a fixed table of games rated one after another through the
store's wiring — who sits where, bots' fixed ratings, escapes — against openskill's own answers for
teams and ranks written out by hand from the rules; and the ratings are still there after a restart."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from openskill.models import PlackettLuce

from niugui.game import Result
from niugui.ratings import BOT_RATINGS, Rating
from niugui.server import collusion
from niugui.server import store as store_module
from niugui.server.config import Community
from niugui.server.store import RatedGame, Store

LIBRARY = PlackettLuce()
H = ("a", "b", "c", "d")
MIXED = ("a", None, "b", None)  # two people and two bots
MIXED_BOTS = (None, "expert", None, "random")

# (seats' accounts, bots, result, teams as seats, ranks, the seats whose rating moves)
GAMES = [
    (
        H,
        (None,) * 4,
        Result("2v2", "sweep", [0, 1], [2, 2, -2, -2], [0, 1]),
        [[0, 1], [2, 3]],
        [1, 2],
        {0, 1, 2, 3},
    ),
    (
        H,
        (None,) * 4,
        Result("1v3", "double_draw", [0, 3], [0, 0, 0, 0], [3]),
        [[3], [0, 1, 2]],
        [1, 1],
        {0, 1, 2, 3},
    ),
    (
        H,
        (None,) * 4,
        Result("2v2", "draw", [1, 0, 2], [0, 0, 0, 0], [1, 3]),
        [[1, 3], [0, 2]],
        [1, 1],
        {0, 1, 2, 3},
    ),
    (
        H,
        (None,) * 4,
        Result("2v2", "escape", [], [0, 0, -9, 0], [0, 2]),
        [[0, 2], [1, 3]],
        [2, 1],
        {2},
    ),  # R35
    (
        MIXED,
        MIXED_BOTS,
        Result("2v2", "win", [0, 2, 3], [1, 1, -1, -1], [0, 1]),
        [[0, 1], [2, 3]],
        [1, 2],
        {0, 2},
    ),
    (
        H,
        (None,) * 4,
        Result("1v3", "double_caught", [0, 1, 3], [2, 2, -6, 2], [2]),
        [[2], [0, 1, 3]],
        [2, 1],
        {0, 1, 2, 3},
    ),
]


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'niugui.sqlite3'}"
    found: str = request.getfixturevalue("pg_schema_url")  # a fresh schema, dropped after
    return found


def open_store(url: str) -> Store:
    store = Store(url)
    store.migrate()
    return store


def circle_store(url: str) -> Store:
    """A migrated store with the accounts a–d and one table "t" for their games."""
    store = open_store(url)
    for account in H:
        store.create_account(account, account, f"token-{account}")
    with store.engine.begin() as c:
        c.execute(
            store_module.tables.insert().values(
                id="t", creator="a", code=None, status="between", last_seq=0, created_at=0.0, updated_at=0.0
            )
        )
    return store


def game_row(c: sa.Connection, n: int) -> int:
    """A finished game ``n`` of table "t", as the store's games table holds it; its id."""
    game_id: int = c.execute(
        store_module.games.insert().values(
            table_id="t",
            game_no=n,
            first_drawer=0,
            deck="",
            salt="",
            commitment="",
            meta="{}",
            status="over",
            started_at=0.0,
        )
    ).inserted_primary_key[0]
    return game_id


def test_ratings_follow_the_library_game_after_game_and_survive_a_restart(url: str) -> None:
    store = circle_store(url)
    expected = {account: Rating() for account in H}
    for n, (accounts, bots, result, teams, ranks, moving) in enumerate(GAMES, start=1):
        with store.engine.begin() as c:
            game_id = game_row(c, n)
            store_module._rate(c, RatedGame(result, accounts, bots), game_id, float(n))
        before = [
            expected[a] if a is not None else BOT_RATINGS[b or ""]
            for a, b in zip(accounts, bots, strict=True)
        ]
        rated = LIBRARY.rate(
            [[LIBRARY.rating(before[s].mu, before[s].sigma) for s in team] for team in teams], ranks=ranks
        )
        for team, out in zip(teams, rated, strict=True):
            for seat, rating in zip(team, out, strict=True):
                account = accounts[seat]
                if seat in moving and account is not None:
                    expected[account] = Rating(rating.mu, rating.sigma)
        for account in H:
            found = store.rating(account)
            assert found is not None
            assert found[0].mu == pytest.approx(expected[account].mu), (n, account)
            assert found[0].sigma == pytest.approx(expected[account].sigma), (n, account)
    store.close()
    again = open_store(url)  # a restart: the same ratings, their history, their game counts
    # rated games that moved each: c and d did not play the mixed game; only c moved in its escape
    games = {"a": 5, "b": 5, "c": 5, "d": 4}
    for account in H:
        found = again.rating(account)
        assert found is not None
        rating, count = found
        assert rating.mu == pytest.approx(expected[account].mu)
        assert count == games[account] and len(again.rating_history(account)) == count
    with again.engine.begin() as c:
        assert c.execute(sa.select(sa.func.count()).select_from(store_module.ratings)).scalar_one() == 4
    board = again.rating_leaderboard(10, min_games=5)
    assert [row["id"] for row in board] == sorted(
        (a for a in H if games[a] >= 5), key=lambda a: -(expected[a].mu - 3 * expected[a].sigma)
    )
    again.close()


def play_in_a_circle(store: Store, games: int, rated: bool = True) -> None:
    """``games`` games at table "t" among the accounts a–d only (seats 0 and 1 win each, a point
    each), stored as the server stores them: a game row, its ledger and, when ``rated``, its ratings."""
    win = Result("2v2", "win", [0, 2, 3], [1, 1, -1, -1], [0, 1])
    for n in range(games):
        with store.engine.begin() as c:
            game_id = game_row(c, n)
            c.execute(
                store_module.ledger.insert(),
                [
                    {
                        "table_id": "t",
                        "game_id": game_id,
                        "seat": s,
                        "account_id": a,
                        "nickname": a,
                        "delta": win.scores[s],
                        "outcome": "win",
                        "created_at": 0.0,
                    }
                    for s, a in enumerate(H)
                ],
            )
            if rated:
                store_module._rate(c, RatedGame(win, H, (None,) * 4), game_id, float(n))


def test_a_closed_circle_is_flagged_on_the_rating_leaderboard(url: str) -> None:
    """Issue 15 finding 9 on the ratings: four accounts that only ever play one another are listed
    last and unranked once they have ``flag_min_games`` rated games; with a higher bar, they rank."""
    store = circle_store(url)
    play_in_a_circle(store, 12)
    met = store.co_players(["a"], window=5)["a"]
    assert met == [frozenset({"b", "c", "d"})] * 5  # the window's newest five
    rows = collusion.mark(store, store.rating_leaderboard(10, 1), Community())
    assert [r["flagged"] for r in rows] == [True] * 4 and all(r["rank"] is None for r in rows)
    rows = collusion.mark(store, store.rating_leaderboard(10, 1), Community(flag_min_games=20))
    assert [r["rank"] for r in rows] == [1, 2, 3, 4] and not any(r["flagged"] for r in rows)
    store.close()


def test_the_points_leaderboard_counts_rated_games_only_and_flags_a_closed_circle(url: str) -> None:
    """Issue 15 finding 9 on the points: the red team's farm (one person's four guests at a private,
    unrated table throwing games to one of them) puts nobody on the leaderboard; made rated, the same
    farm counts but its accounts are flagged, listed last and unranked, once ``flag_min_games`` rated
    games are played."""
    store = circle_store(url)
    play_in_a_circle(store, 15, rated=False)
    assert store.leaderboard() == []  # 15 unrated games: nothing to farm
    assert len(store.history("a")) == 15  # ... and still every game in the account's own history
    play_in_a_circle(store, 5)
    board = {r["id"]: (r["total"], r["games"]) for r in store.leaderboard()}
    assert board == {"a": (5, 5), "b": (5, 5), "c": (-5, 5), "d": (-5, 5)}  # the rated five only
    rows = collusion.mark(store, store.leaderboard(), Community())
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]  # five rated games: too few to say
    play_in_a_circle(store, 5)
    rows = collusion.mark(store, store.leaderboard(), Community())
    assert [r["flagged"] for r in rows] == [True] * 4 and all(r["rank"] is None for r in rows)
    store.close()
