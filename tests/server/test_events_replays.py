"""Issue 30: a duplicate board's replay (and record) tells the board, so before the event ends only
the table's own entrant and those who finished the same board get it; to anyone else — a friend given
the link with its join code, someone who has not played that board yet, an anonymous reader — it is
refused with the same answer as a game that does not exist."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import Player, Server
from test_events_duplicate import page, play_board, weakest


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "data", "--rate-limit", "50", "--community", "daily_boards=2").start()
    yield srv
    srv.stop()


def read(server: Server, path: str, who: Player | None) -> tuple[int, Any]:
    headers = {} if who is None else {"Authorization": f"Bearer {who.token}"}
    reply = httpx.get(server.url + path, headers=headers, timeout=30)
    return reply.status_code, reply.json()


def test_a_board_replay_only_for_those_who_played_it(server: Server) -> None:
    event = server.get("/api/events/daily")["today"]["event"]["id"]
    ann, bob, cy = Player(server, "安"), Player(server, "鲍"), Player(server, "丛")
    done: dict[int, set[str]] = {}
    play_board(server, event, ann, weakest, [bob, cy], done)
    result = page(server, event, ann)["boards"][0]["results"][0]
    replay, game = result["replay"], result["game_id"]
    assert "?code=" in replay
    record = replay.replace("/replay", "/record")
    missing = read(server, "/api/games/999999/replay", ann)
    assert missing[0] == 404
    assert read(server, replay, ann)[0] == 200  # the entrant's own board
    for path in (replay, record):
        for who in (bob, cy, None):  # the code passed on: refused as if there were no such game
            status, body = read(server, path, who)
            assert status == 404, (path, body)
            if path == replay:
                assert body["detail"]["code"] == missing[1]["detail"]["code"] == "not_found"
                assert body["detail"]["message"] == f"no game {game}"
    bob_board = play_board(server, event, bob, weakest, [cy], done)  # bob finishes the same board 1
    assert bob_board["board"] == 1
    assert read(server, replay, bob)[0] == 200 and read(server, record, bob)[0] == 200
    assert read(server, replay, cy)[0] == 404  # cy still has not played it
    for p in (ann, bob, cy):
        p.close()
