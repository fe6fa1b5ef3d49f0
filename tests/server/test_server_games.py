"""Complete games through the real server and real WebSocket clients."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_harness import Player, Server, drive, game_over, new_table

from niugui import Game
from niugui.cards import CARDS
from niugui.cli.verify import verify
from niugui.record import meta_of_record

CODES = {str(card) for card in CARDS}


def test_guest_plays_a_whole_game_against_bots(shared_server: Server) -> None:
    """R8 翻牌 picks the first drawer; the game ends with a result; record, ledger and history survive."""
    alice = Player(shared_server, "阿丽")
    table = new_table(alice, turn_seconds=10)
    assert alice.ok("sit", table=table, seat=0)["data"] == {"seat": 0}
    alice.ok("fill_bots", table=table)
    drive([alice], table, game_over(alice, table))
    kinds = [m["event"]["kind"] for m in alice.received if m["type"] == "event"]
    assert kinds.index("flip") < kinds.index("deal") < kinds.index("play") < kinds.index("game_over")
    flip = next(m["event"] for m in alice.received if m["type"] == "event" and m["event"]["kind"] == "flip")
    deal = next(m["event"] for m in alice.received if m["type"] == "event" and m["event"]["kind"] == "deal")
    assert deal["first_drawer"] == flip["first_drawer"] == (flip["value"] - 1) % 4  # R8
    over = next(m for m in alice.received if m["type"] == "event" and m["event"]["kind"] == "game_over")
    game_id = over["event"]["game_id"]
    result = over["event"]["result"]
    assert sum(result["scores"]) == 0 and over["event"]["totals"] == result["scores"]  # R33/R34, R36
    assert over["state"]["status"] == "between" and over["state"]["totals"] == result["scores"]

    record = shared_server.get(f"/api/games/{game_id}/record")
    assert Game.from_record(record).result.to_dict() == result  # type: ignore[union-attr]
    proof = record["meta"]["fairness"]
    assert proof["commitment"] == deal["commitment"] == over["event"]["reveal"]["commitment"]
    assert meta_of_record(record) == record["meta"] and record["meta"]["app"] == "niugui serve"
    assert verify(record, deal["commitment"]).startswith("OK")
    assert record["first_drawer"] == deal["first_drawer"]

    history = shared_server.get(f"/api/players/{alice.account_id}/games")["games"]
    assert [(g["game_id"], g["delta"]) for g in history] == [(game_id, result["scores"][0])]
    ledger = shared_server.get(f"/api/tables/{table}/ledger")["entries"]
    assert [e["delta"] for e in ledger] == result["scores"]
    board = shared_server.get("/api/leaderboard?limit=500")["players"]
    assert alice.account_id not in {p["id"] for p in board}  # one person against bots: not rated, not ranked
    alice.close()


def _codes_in(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        if value in CODES:
            found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _codes_in(item, found)
    elif isinstance(value, list):
        for item in value:
            _codes_in(item, found)


def assert_no_leak(
    messages: list[dict[str, Any]], seat: int | None, dealt: dict[int, list[list[str]]]
) -> int:
    """No message shows a card of another seat's hand before it is played (R11, R12).

    Returns how many messages were checked. ``dealt`` maps game id to the four dealt hands.
    """
    played: set[str] = set()
    checked = 0
    current: int | None = None
    for message in messages:
        if message["type"] not in ("event", "snapshot"):
            continue
        state = message["state"]
        event = message.get("event", {})
        if event.get("kind") == "deal":
            played, current = set(), event["game_id"]
        if event.get("kind") == "play":
            played |= set(event["play"])
        if current is None or event.get("kind") == "game_over" or (message["view"] or {}).get("over"):
            current = None if event.get("kind") == "game_over" else current
            continue
        others = {c for s, hand in enumerate(dealt[current]) if s != seat for c in hand}
        public = dict(message, state=dict(state, flip=None))  # the 翻牌 card is public by design (R8)
        found: set[str] = set()
        _codes_in(public, found)
        leaked = (found & others) - played
        assert not leaked, f"seat {seat} was sent {sorted(leaked)} of another hand in {message}"
        checked += 1
    return checked


def test_four_humans_and_a_spectator_see_no_other_hand(shared_server: Server) -> None:
    """Every message of two whole games, to each seat and to a spectator: no hidden card leaks."""
    players = [Player(shared_server, f"p{n}") for n in range(4)]
    table = new_table(players[0], turn_seconds=20)
    watcher = Player(shared_server, "观众")
    watcher.ok("watch", table=table)
    for n, player in enumerate(players):
        player.ok("sit", table=table, seat=n)
    lobby = {t["id"]: t for t in shared_server.get("/api/tables")["tables"]}
    assert lobby[table]["spectators"] == 1 and lobby[table]["status"] == "playing"
    assert [p["nickname"] for p in lobby[table]["seats"]] == ["p0", "p1", "p2", "p3"]
    for game_no in (1, 2):
        drive(players, table, game_over(players[0], table))
        for player in [*players, watcher]:  # every message of the game, up to its end, for each of them
            player.wait_event("game_over", game_no=game_no)
        if game_no == 1:
            for player in players:
                player.ok("ready", table=table)
            players[0].wait_event("deal", game_no=2)
    game_ids = sorted(
        {
            m["event"]["game_id"]
            for m in watcher.received
            if m["type"] == "event" and m["event"]["kind"] == "game_over"
        }
    )
    assert len(game_ids) == 2
    dealt = {}
    for game_id in game_ids:
        game = Game.from_record(shared_server.get(f"/api/games/{game_id}/record"))
        dealt[game_id] = [[str(c) for c in game.dealt(s)] for s in range(4)]
    for n, player in enumerate(players):
        assert assert_no_leak(player.received, n, dealt) > 50
        hands = [
            m["view"]["hand"]
            for m in player.received
            if m["type"] == "event" and m["view"] and m["event"]["kind"] == "deal"
        ]
        assert [sorted(h) for h in hands] == [sorted(dealt[g][n]) for g in game_ids]  # it does see its own
    assert assert_no_leak(watcher.received, None, dealt) > 50
    assert all("hand" not in (m.get("view") or {}) for m in watcher.received if m["type"] == "event")
    for player in [*players, watcher]:
        player.close()


def test_the_leak_check_catches_a_leak() -> None:
    """The checker above is not vacuous: a view that shows another seat's card fails it."""
    hands = [["D4"], ["C4"], ["H4"], ["S4"]]
    base = {"type": "event", "state": {"flip": None}, "view": None}
    deal = dict(base, event={"kind": "deal", "game_id": 7})
    leaking = dict(
        base, event={"kind": "pass", "seat": 1}, view={"hand": ["D4"], "current": {"play": ["S4"]}}
    )
    try:
        assert_no_leak([deal, leaking], 0, {7: hands})
    except AssertionError as error:
        assert "S4" in str(error)
    else:
        raise AssertionError("the leak of S4 went unnoticed")
    played = dict(base, event={"kind": "play", "seat": 3, "play": ["S4"]}, view={"hand": ["D4"]})
    assert assert_no_leak([deal, played, leaking], 0, {7: hands}) == 3


def test_the_server_runs_on_postgresql_and_survives_sigkill(tmp_path: Path, pg_schema_url: str) -> None:
    """The same code on PostgreSQL: schema migrated at start, a game played, killed, restarted, intact."""
    server = Server(tmp_path / "data", db=pg_schema_url).start()
    try:
        alice = Player(server, "pg")
        table = new_table(alice)
        alice.ok("sit", table=table, seat=1)
        alice.ok("fill_bots", table=table)
        drive([alice], table, game_over(alice, table))
        game_id = alice.states[table]["game_id"]
        record = server.get(f"/api/games/{game_id}/record")
        server.kill()
        alice.ws = None
        server.start()
        assert server.get(f"/api/games/{game_id}/record") == record
        alice.connect()
        assert alice.welcome["seats"] == [{"table": table, "seat": 1}]
        alice.ok("watch", table=table, last_seq=alice.last_seq[table])
        alice.ok("ready", table=table)
        alice.wait_event("deal", game_no=2)
        drive([alice], table, game_over(alice, table))
        ledger = server.get(f"/api/tables/{table}/ledger")["entries"]
        assert len(ledger) == 8 and verify(record).startswith("OK")
        alice.close()
    finally:
        server.stop()


def test_structured_logs_never_carry_a_card(tmp_path: Path) -> None:
    """Every server log line is one JSON object, and none of them names a card (no hand, no deck)."""
    import json
    import re

    server = Server(tmp_path / "data", "--log-level", "info").start()
    try:
        alice = Player(server, "logged")
        table = new_table(alice)
        alice.ok("sit", table=table, seat=0)
        alice.ok("fill_bots", table=table)
        drive([alice], table, game_over(alice, table))
        alice.close()
    finally:
        server.stop()
    lines = [line for line in server.log.read_text(encoding="utf-8").splitlines() if line.startswith("{")]
    entries = [json.loads(line) for line in lines]
    assert {"game started", "game over"} <= {e["message"] for e in entries}
    assert not [line for line in lines if re.search(r'"(?:[SHCD][3-9TJQKA2]|BJ|RJ)"', line)]
