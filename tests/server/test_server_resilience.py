"""Reconnection, timeouts into 托管, escapes (R35) and a server killed with SIGKILL mid-game."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from server_harness import WAIT, Player, Server, drive, game_over, my_turn, new_table, play_turn, wait_until

from niugui import Game


def events(player: Player, kind: str) -> list[dict[str, Any]]:
    return [m["event"] for m in player.received if m["type"] == "event" and m["event"]["kind"] == kind]


def test_disconnect_is_autoplay_and_reconnect_replays_missed_events(shared_server: Server) -> None:
    alice, bob = Player(shared_server, "alice"), Player(shared_server, "bob")
    table = new_table(alice)
    alice.ok("sit", table=table, seat=0)
    bob.ok("sit", table=table, seat=1)
    alice.ok("fill_bots", table=table)
    alice.wait_event("deal")
    seen = alice.last_seq[table]
    alice.drop()
    bob.wait_event("presence", seat=0, online=False)
    offline = bob.wait_event("autoplay", seat=0, on=True, reason="offline")
    assert offline["state"]["seats"][0]["autoplay"] and not offline["state"]["seats"][0]["online"]
    for turn in range(2):  # the game goes on: 托管 plays seat 0, bob plays his own turns
        wait_until([bob], lambda: my_turn(bob, table), f"bob's turn {turn + 1} while alice is away")
        assert play_turn(bob, table)["type"] == "ack"
    alice.connect()
    assert alice.welcome["seats"] == [{"table": table, "seat": 0}]
    before = len(alice.received)
    ack = alice.ok("watch", table=table, last_seq=seen)
    assert ack["data"] == {"seat": 0}
    replayed = [m for m in alice.received[before:] if m["type"] == "event" and m["replay"]]
    assert [m["seq"] for m in replayed] == list(range(seen + 1, seen + 1 + len(replayed)))
    assert len(replayed) >= 4 and all(m["view"] is None for m in replayed[:-1])
    assert replayed[-1]["view"]["seat"] == 0 and replayed[-1]["view"]["hand"]
    back = [m["event"] for m in alice.received[before:] if m["type"] == "event" and not m["replay"]]
    assert {"kind": "presence", "seat": 0, "online": True} in back
    assert {"kind": "autoplay", "seat": 0, "on": False, "reason": "back"} in back
    drive([alice, bob], table, game_over(alice, table))
    assert alice.views[table]["result"]["outcome"] != "escape"  # a dropped connection is not an escape
    bob.close()
    alice.close()


def test_a_reconnect_without_last_seq_gets_a_snapshot(shared_server: Server) -> None:
    alice = Player(shared_server, "snap")
    table = new_table(alice)
    alice.ok("sit", table=table, seat=2)
    alice.ok("fill_bots", table=table)
    alice.wait_event("deal")
    alice.drop()
    alice.connect()
    alice.ok("watch", table=table)
    snapshot = next(m for m in reversed(alice.received) if m["type"] == "snapshot")
    view = snapshot["view"]
    assert view["seat"] == 2 and "history" in view and "hand" in view
    assert snapshot["state"]["you"] == 2
    alice.close()


def test_two_timeouts_in_a_row_put_the_seat_in_autoplay_until_it_acts(tmp_path: Path) -> None:
    # Bots (and 托管) take 0.2 s a move here, not 0 as on the shared server: after 托管 has played a
    # turn for her, the game then lasts long enough (at least 9 bot moves) for her to take it back.
    server = Server(tmp_path / "data", "--bot-delay", "0.2").start()
    try:
        alice = Player(server, "slow")
        table = new_table(alice, turn_seconds=0.5)
        alice.ok("sit", table=table, seat=0)
        alice.ok("fill_bots", table=table)
        first = alice.wait_event("deal")
        assert first["state"]["seats"][0]["autoplay"] is False

        def mine(kind: str) -> Any:
            """Seat 0's next action, or an event ``kind`` about seat 0, or the end of the game."""
            return lambda m: m["type"] == "event" and (
                (m["event"]["kind"] in ("play", "pass", kind) and m["event"].get("seat") == 0)
                or m["event"]["kind"] == "game_over"
            )

        acted = alice.wait(mine("none"), what="the expiry of her first turn")
        assert acted["event"]["by"] == "timeout"  # the expert bot played that turn for her (托管)
        sticky = alice.wait(mine("autoplay"), what="托管 after her second expiry")
        assert sticky["event"] == {"kind": "autoplay", "seat": 0, "on": True, "reason": "timeout"}
        second = alice.wait(mine("none"), what="the second expiry's own move")
        assert second["event"]["by"] == "timeout"
        later = alice.wait(mine("none"), what="her next turn, in 托管")
        assert later["event"]["kind"] != "game_over", "the game ended before 托管 played her third turn"
        assert later["event"]["by"] == "autoplay"  # stays in 托管, with no timer

        off = alice.ok("autoplay", table=table, on=False)
        back = {"kind": "autoplay", "seat": 0, "on": False, "reason": "player"}
        assert events(alice, "autoplay")[-1] == back
        assert alice.states[table]["status"] == "playing", "the game ended before 托管 could be turned off"
        assert alice.states[table]["seats"][0]["autoplay"] is False
        # Back in control: her next turn is hers again, with its timer; its expiry is a single timeout
        # (the count started again), not 托管. Only what came after the ack counts.
        alice.pending = [m for m in alice.pending if m.get("seq", 0) > off["seq"]]
        own = alice.wait(mine("autoplay"), what="her first turn after 托管 was turned off")
        if own["event"]["kind"] == "game_over":  # she went out on that last turn (1 deal in 2,000)
            assert not alice.views[table]["hand"]
        else:
            assert own["event"]["kind"] in ("play", "pass"), own["event"]
            assert own["event"]["by"] == "timeout"
        alice.close()
    finally:
        server.stop()


def test_standing_up_mid_game_is_an_escape(shared_server: Server) -> None:
    """R35: leaving a game in progress costs 9 points and ends the game; it is recorded."""
    alice = Player(shared_server, "quitter")
    table = new_table(alice)
    alice.ok("sit", table=table, seat=3)
    alice.ok("fill_bots", table=table)
    alice.wait_event("deal")
    alice.ok("stand", table=table)
    escape = events(alice, "escape")
    assert escape == [{"kind": "escape", "seat": 3, "reason": "left"}]
    over = events(alice, "game_over")[-1]
    assert over["result"]["outcome"] == "escape" and over["result"]["scores"] == [0, 0, 0, -9]
    left = events(alice, "seat_left")  # hers, then the bots' (no human left: the table ends, issue 10)
    assert left[0] == {"kind": "seat_left", "seat": 3, "reason": "left"}
    assert sorted(e["seat"] for e in left[1:]) == [0, 1, 2]
    assert alice.states[table]["seats"][3]["player"] is None
    record = shared_server.get(f"/api/games/{over['game_id']}/record")
    assert record["actions"][-1] == {"seat": 3, "escape": True}
    assert Game.from_record(record).result.scores == [0, 0, 0, -9]  # type: ignore[union-attr]
    history = shared_server.get(f"/api/players/{alice.account_id}/games")["games"]
    assert history[0]["delta"] == -9 and history[0]["outcome"] == "escape"
    alice.close()


def test_away_longer_than_the_grace_period_is_an_escape(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", grace=1.0).start()
    try:
        alice, bob = Player(server, "gone"), Player(server, "stays")
        table = new_table(alice, turn_seconds=30)
        alice.ok("sit", table=table, seat=0)
        bob.ok("sit", table=table, seat=1)
        alice.ok("fill_bots", table=table)
        bob.wait_event("deal")
        started = time.monotonic()  # before the drop: the grace period cannot have started earlier
        alice.drop()
        escape = bob.wait_event("escape")
        assert escape["event"] == {"kind": "escape", "seat": 0, "reason": "grace"}
        assert time.monotonic() - started >= 0.9
        over = bob.wait_event("game_over")
        assert over["event"]["result"]["scores"][0] == -9
        assert bob.wait_event("seat_left", seat=0)["event"]["reason"] == "grace"
        ledger = server.get(f"/api/tables/{table}/ledger")["entries"]
        assert [(e["seat"], e["delta"]) for e in ledger if e["delta"]] == [(0, -9)]
        bob.close()
    finally:
        server.stop()


def test_a_server_killed_mid_game_resumes_every_table(tmp_path: Path) -> None:
    """SIGKILL mid-game, restart on the same database: the game finishes, nothing is lost."""
    server = Server(tmp_path / "data").start()
    try:
        alice, bob = Player(server, "alice"), Player(server, "bob")
        table = new_table(alice, rated=True)  # rated: its points reach the leaderboard
        alice.ok("sit", table=table, seat=0)
        bob.ok("sit", table=table, seat=1)
        alice.ok("fill_bots", table=table)
        drive([alice, bob], table, game_over(alice, table))
        first = alice.states[table]["totals"]
        for player in (alice, bob):
            player.ok("ready", table=table)
        alice.wait_event("deal", game_no=2)
        acted: list[Player] = []

        def counted(player: Player, table: str) -> dict[str, Any]:
            acted.append(player)
            return play_turn(player, table)

        drive([alice, bob], table, lambda: len(acted) >= 3, act=counted, what="3 moves of alice and bob")
        bob.pump()  # what has come by now (the rest is caught up after the restart)
        seen = {p.account_id: p.last_seq[table] for p in (alice, bob)}
        actions_before = [
            m["event"]
            for m in bob.received
            if m["type"] == "event" and m["event"]["kind"] in ("play", "pass") and m["state"]["game_no"] == 2
        ]
        assert actions_before and not game_over(bob, table)()
        server.kill()
        alice.ws = bob.ws = None

        server.start()
        for player in (alice, bob):
            player.connect()
            assert player.welcome["seats"] == [{"table": table, "seat": 0 if player is alice else 1}]
            before = len(player.received)
            player.ok("watch", table=table, last_seq=seen[player.account_id])
            caught_up = [m for m in player.received[before:] if m["type"] in ("event", "snapshot")]
            assert caught_up, "the reconnect brought the missed events"
            if caught_up[0]["type"] == "event":
                assert caught_up[0]["seq"] == seen[player.account_id] + 1
        drive([alice, bob], table, game_over(alice, table))
        over = events(alice, "game_over")[-1]
        assert over["game_no"] == 2
        assert over["totals"] == [a + b for a, b in zip(first, over["result"]["scores"], strict=True)]
        record = server.get(f"/api/games/{over['game_id']}/record")
        played = [
            {"seat": e["seat"], "play": e["play"]}
            if e["kind"] == "play"
            else {"seat": e["seat"], "pass": True}
            for e in actions_before
        ]
        assert record["actions"][: len(played)] == played  # what was played before the kill is all there
        ledger = server.get(f"/api/tables/{table}/ledger")["entries"]
        assert len(ledger) == 8  # two games, four seats each
        assert [sum(e["delta"] for e in ledger if e["seat"] == s) for s in range(4)] == over["totals"]
        board = {p["id"]: p["total"] for p in server.get("/api/leaderboard?limit=500")["players"]}
        assert board[alice.account_id] == over["totals"][0] and board[bob.account_id] == over["totals"][1]
        alice.close()
        bob.close()
    finally:
        server.stop()


@pytest.mark.parametrize("token", ["", "nonsense"])
def test_a_connection_without_a_valid_token_is_refused(shared_server: Server, token: str) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{shared_server.port}/ws") as ws:
        ws.send(json.dumps({"type": "auth", "id": "a", "token": token}))
        assert '"forbidden"' in str(ws.recv(timeout=WAIT))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=WAIT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
