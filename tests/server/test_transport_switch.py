"""``niugui serve --transport asgi``: the fallback that uses none of the direct path's internals
(niugui/server/transport.py) still plays a whole game, for a player and a spectator alike."""

from __future__ import annotations

from pathlib import Path

from server_harness import Player, Server, drive, game_over, wait_until


def test_the_default_transport_is_the_direct_path(shared_server: Server) -> None:
    assert (
        "(data: " in shared_server.log.read_text() and "; transport: direct)" in shared_server.log.read_text()
    )


def test_a_game_plays_to_its_end_over_plain_asgi(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", "--rate-limit", "50", "--transport", "asgi").start()
    try:
        assert "; transport: asgi)" in server.log.read_text()
        alice, bob = Player(server, "阿丽"), Player(server, "鲍勃")
        table = alice.ok("create_table", settings={"name": "asgi", "turn_seconds": 10})["data"]["table"]["id"]
        assert alice.ok("sit", table=table, seat=0)["data"] == {"seat": 0}
        assert bob.ok("watch", table=table)["data"] == {"seat": None}
        alice.ok("fill_bots", table=table)
        drive([alice, bob], table, game_over(alice, table))
        wait_until([bob], game_over(bob, table), "the spectator to see the game end")
        mine, theirs = ([m["seq"] for m in p.received if m["type"] == "event"] for p in (alice, bob))
        assert theirs == list(range(theirs[0], theirs[-1] + 1))  # none missing, in order
        assert [seq for seq in mine if seq >= theirs[0]] == theirs
        kinds = [m["event"]["kind"] for m in bob.received if m["type"] == "event"]
        assert "deal" in kinds and kinds[-1] == "game_over"
        assert bob.views[table]["seat"] is None and alice.views[table]["seat"] == 0
        alice.close()
        bob.close()
    finally:
        server.stop()
