"""Issue 10, point 8: a table whose humans have all left ends — its bots stand up (``seat_left``),
then ``table_finished`` — and leaves the lobby, against the real server over WebSocket.

Two people and two bots: the first person leaves during the game (R35: an escape, which ends the
game), the second stands up between games; then no human holds a seat, so the table ends at once.
A spectator (the creator, watching) sees every event; ``/api/tables`` no longer lists the table.
"""

from __future__ import annotations

from typing import Any

from server_harness import Player, Server, eventually, wait_until


def listed(server: Server) -> list[str]:
    return [t["id"] for t in server.get("/api/tables?limit=100")["tables"]]


def events(player: Player, table: str) -> list[dict[str, Any]]:
    return [
        m["event"] for m in player.received if m["type"] == "event" and m.get("table") == table
    ]


def test_R35_a_table_whose_humans_all_left_ends_its_bots_stand_up_and_it_leaves_the_lobby(
    shared_server: Server,
) -> None:
    host, ann, bob = (Player(shared_server, n) for n in ("房主", "阿安", "阿宝"))
    table = host.ok("create_table", settings={"name": "都走了", "turn_seconds": 60})["data"]["table"]["id"]
    for n, player in ((0, ann), (1, bob)):
        player.ok("sit", table=table, seat=n)
    host.ok("fill_bots", table=table)  # seats 2 and 3: the game is dealt
    host.wait_event("deal")
    eventually(lambda: table in listed(shared_server), "the table listed")

    ann.ok("leave", table=table)  # during the game: an escape, the game ends (R35)
    host.wait_event("escape", seat=0)
    host.wait_event("game_over")
    host.wait_event("seat_left", seat=0)
    wait_until([host], lambda: host.states[table]["status"] == "between", "the game's end")
    eventually(lambda: table in listed(shared_server), "the table listed, bob still seated")
    kinds = [e["kind"] for e in events(host, table)]
    assert "table_finished" not in kinds

    bob.ok("stand", table=table)  # the last human stands up between games
    host.wait_event("table_finished")
    after_bob = events(host, table)
    left = [e["seat"] for e in after_bob if e["kind"] == "seat_left"]
    assert sorted(left) == [0, 1, 2, 3], left  # the bots stood up too
    assert after_bob[-1]["kind"] == "table_finished"
    state = host.states[table]
    assert state["status"] == "finished"
    assert all(seat["player"] is None for seat in state["seats"]), state["seats"]
    eventually(lambda: table not in listed(shared_server), "the finished table gone from the lobby")
    for player in (host, ann, bob):
        player.close()


def test_a_table_with_a_human_left_seated_does_not_end(shared_server: Server) -> None:
    """Not abandoned while one human holds a seat: the other's leaving between games is only a
    ``seat_left`` (the bots stay; the table stays listed)."""
    host, ann = Player(shared_server, "留下"), Player(shared_server, "走开")
    table = host.ok("create_table", settings={"turn_seconds": 60, "games": None})["data"]["table"]["id"]
    host.ok("sit", table=table, seat=0)
    ann.ok("sit", table=table, seat=1)
    ann.ok("stand", table=table)  # before the first game
    host.wait_event("seat_left", seat=1)
    host.ok("fill_bots", table=table)
    host.wait_event("deal")
    eventually(lambda: table in listed(shared_server), "the table listed")
    assert "table_finished" not in [e["kind"] for e in events(host, table)]
    host.close()
    ann.close()
