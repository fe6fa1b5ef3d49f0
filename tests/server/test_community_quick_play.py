"""快速开始 on a real server with real WebSocket clients (issue 11): groups of four seated at new
tables, leaving the queue, bots after the wait, ratings after a rated game (and after a restart), the
fair-play delay for players with recent escapes, and what the new messages may show (R11, R12).

No timed assertion: each test waits for the thing itself (a message, a seat) with a deadline.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import WAIT, Player, Server, drive, game_over, wait_until
from test_server_games import assert_no_leak

from niugui import Game
from niugui.game import Result
from niugui.ratings import Rating, rate_game


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "data", "--rate-limit", "50", "--community", "bots_after=1").start()
    yield srv
    srv.stop()


def queue_message(status: str) -> Any:
    return lambda m: m["type"] == "queue" and m["status"] == status


def seated(player: Player) -> dict[str, Any]:
    message = player.wait(queue_message("seated"), what="a seat from quick play")
    assert message["table"] and message["seat"] is not None
    return message


def dealt(player: Player) -> None:
    """Wait until the player has been sent a game's deal (read already or still to come)."""

    def seen() -> bool:
        return any(m["type"] == "event" and m["event"]["kind"] == "deal" for m in player.received)

    wait_until([player], seen, "a deal")


def seats_of(player: Player, table: str) -> list[dict[str, Any] | None]:
    return [s["player"] for s in player.states[table]["seats"]]


def test_eight_players_pressing_quick_play_sit_at_two_full_tables(server: Server) -> None:
    # names no table id can contain (a seated `queue` message names its table: "…q3…" matched "q3")
    players = [Player(server, f"排队{n}") for n in range(8)]
    for player in players:
        assert player.request("quick_play")["type"] == "ack"
    where = {p.account_id: seated(p) for p in players}
    tables: dict[str, set[str]] = {}
    for account, message in where.items():
        tables.setdefault(message["table"], set()).add(account)
    assert sorted(len(group) for group in tables.values()) == [4, 4]
    for player in players:  # every player sees their table's game dealt, in their own seat
        table = where[player.account_id]["table"]
        dealt(player)
        assert {p["id"] for p in seats_of(player, table) if p} == tables[table]
        assert player.states[table]["settings"]["rated"] is True
        assert player.states[table]["you"] == where[player.account_id]["seat"]
    # the queue's messages carry counts and the player's own standing only: no one else's identity
    for player in players:
        for message in player.received:
            if message["type"] == "queue":
                others = {p.account_id for p in players} - {player.account_id}
                assert not any(o in str(message) for o in others)
                assert not any(p.session["account"]["nickname"] in str(message) for p in players)


def test_a_player_who_leaves_the_queue_is_never_seated(server: Server) -> None:
    a, b, c = (Player(server, n) for n in ("a", "b", "c"))
    for p in (a, b, c):
        p.ok("quick_play")
    c.ok("leave_queue")
    c.wait(queue_message("left"))
    d, e = Player(server, "d"), Player(server, "e")
    d.ok("quick_play")
    e.ok("quick_play")
    table = seated(a)["table"]
    for p in (b, d, e):
        assert seated(p)["table"] == table
    dealt(a)
    assert {p["id"] for p in seats_of(a, table) if p} == {
        a.account_id,
        b.account_id,
        d.account_id,
        e.account_id,
    }
    c.pump()
    assert not any(m["type"] == "queue" and m["status"] == "seated" for m in c.received)
    assert not any(m["type"] in ("event", "snapshot") for m in c.received)


def test_the_queue_says_how_many_wait(server: Server) -> None:
    a, b = Player(server, "a"), Player(server, "b")
    a.ok("quick_play", turn_seconds=30)
    first = a.wait(queue_message("waiting"))
    assert first["waiting"] == 1 and first["turn_seconds"] == 30 and first["delay"] == 0
    assert first["reason"] is None and first["bots_in"] is not None
    b.ok("quick_play")
    assert a.wait(lambda m: m["type"] == "queue" and m["waiting"] == 2)["status"] == "waiting"
    b.drop()  # the last connection gone: out of the queue
    assert a.wait(lambda m: m["type"] == "queue" and m["waiting"] == 1)["status"] == "waiting"
    bad = a.request("quick_play", turn_seconds="20")
    assert bad["type"] == "error" and bad["code"] == "invalid_message"
    assert a.request("quick_play", turn_seconds=1)["code"] == "invalid_message"  # out of range
    assert httpx.get(f"{server.url}/api/players/nobody/profile", timeout=10).status_code == 404
    assert httpx.get(f"{server.url}/api/leaderboard?by=luck", timeout=10).status_code == 422


def take_bots(player: Player) -> dict[str, Any]:
    """Ask for bots until the wait is over (the server refuses before, with ``bad_state``)."""
    deadline = time.monotonic() + WAIT
    while True:
        answer = player.request("queue_bots")
        if answer["type"] == "ack":
            return seated(player)
        assert answer["code"] == "bad_state", answer
        assert time.monotonic() < deadline, "bots were never allowed"
        time.sleep(0.05)


def test_a_waiting_player_may_fill_the_seats_with_bots_after_the_wait(server: Server) -> None:
    alone = Player(server, "alone")
    refused = alone.request("queue_bots")
    assert refused["type"] == "error" and refused["code"] == "bad_state"  # not waiting
    alone.ok("quick_play")
    message = take_bots(alone)
    table = message["table"]
    dealt(alone)
    seats = seats_of(alone, table)
    assert sum(1 for p in seats if p and p.get("bot")) == 3
    assert all(p["rating"] is not None for p in seats if p and p.get("bot"))  # published bot ratings


def play_rated_game(players: list[Player]) -> tuple[str, dict[str, Any]]:
    for p in players:
        p.ok("quick_play", games=1)
    table = ""
    for p in players:
        table = seated(p)["table"]
    drive(players, table, game_over(players[0], table))
    view = players[0].views[table]
    assert view is not None and view["result"] is not None
    return table, view["result"]


def profile(server: Server, account: str) -> dict[str, Any]:
    answer: dict[str, Any] = server.get(f"/api/players/{account}/profile")
    return answer


def test_a_rated_game_moves_ratings_as_the_library_does_and_they_survive_a_restart(server: Server) -> None:
    players = [Player(server, f"r{n}") for n in range(4)]
    table, result = play_rated_game(players)
    seat_of = {p.account_id: p.states[table]["you"] for p in players}
    expected = rate_game(Result(**result), [Rating()] * 4)
    before_restart = {}
    for p in players:
        mine = profile(server, p.account_id)
        seat = seat_of[p.account_id]
        assert mine["rating"]["mu"] == pytest.approx(expected[seat].mu)
        assert mine["rating"]["sigma"] == pytest.approx(expected[seat].sigma)
        score = result["scores"][seat]
        if score > 0:
            assert mine["rating"]["mu"] > Rating().mu  # winners up
        elif score < 0:
            assert mine["rating"]["mu"] < Rating().mu  # losers down
        assert len(mine["history"]) == 1 and mine["games"] == 1 and mine["recent"][0]["game_id"]
        before_restart[p.account_id] = mine["rating"]
    for p in players:
        p.close()
    server.stop()
    server.start()
    for account, rating in before_restart.items():
        assert profile(server, account)["rating"] == rating
    board = server.get("/api/leaderboard?by=rating")
    assert board["by"] == "rating" and board["players"] == []  # fewer than min_games (5) rated games


def test_escapes_delay_quick_play_and_show_at_the_seat(tmp_path: Path) -> None:
    srv = Server(
        tmp_path / "data",
        "--rate-limit",
        "50",
        "--community",
        "bots_after=0",
        "--community",
        "escape_free=0",
        "--community",
        "escape_delay=3600",
        "--community",
        "escape_max_delay=7200",
    ).start()
    try:
        runner = Player(srv, "runner")
        runner.ok("quick_play")
        table = take_bots(runner)["table"]
        dealt(runner)
        runner.ok("stand", table=table)  # R35: an escape
        runner.wait_event("game_over")
        card = profile(srv, runner.account_id)
        assert card["escapes"] == 1 and card["escape_rate"] == 1.0 and card["games"] == 1
        assert card["rating"] is None  # one person and three bots: not rated (two humans at least)
        runner.ok("quick_play")
        mark = len(runner.received)
        status = runner.wait(lambda m: m["type"] == "queue" and m["status"] == "waiting" and m["delay"] > 0)
        assert status["delay"] == 3600 and status["reason"] == "escapes" and status["escapes"] == 1
        assert status["bots_in"] > 3000  # no bots either before the delay is over
        others = [Player(srv, f"o{n}") for n in range(3)]
        for p in others:
            p.ok("quick_play")
        wait_until(
            others,
            lambda: any(m["type"] == "queue" and m["waiting"] == 4 for m in others[2].received),
            "the fourth in the queue",
        )
        late = Player(srv, "late")
        late.ok("quick_play")
        fresh = seated(late)["table"]
        for p in others:
            assert seated(p)["table"] == fresh  # the four without escapes sit; the runner waits on
        runner.pump()
        assert not any(m["type"] == "queue" and m["status"] == "seated" for m in runner.received[mark:])
        # at an ordinary table, the others see the runner's escape rate at its seat
        host = others[0]
        created = host.ok("create_table", settings={"name": "x"})
        tid = created["data"]["table"]["id"]
        runner.ok("leave_queue")
        runner.ok("sit", table=tid)
        host.ok("watch", table=tid)
        seat = next(
            s for s in host.states[tid]["seats"] if s["player"] and s["player"]["id"] == runner.account_id
        )
        assert seat["player"]["escape_rate"] == 1.0
    finally:
        srv.stop()


def test_hidden_cards_never_leak_at_a_quick_play_table(server: Server) -> None:
    players = [Player(server, f"h{n}") for n in range(4)]
    table, _ = play_rated_game(players)
    game_id = players[0].states[table]["game_id"]
    game = Game.from_record(server.get(f"/api/games/{game_id}/record"))
    dealt = {game_id: [[str(c) for c in game.dealt(s)] for s in range(4)]}
    for p in players:
        assert assert_no_leak(p.received, p.states[table]["you"], dealt) > 0
