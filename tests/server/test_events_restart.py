"""Issue 30: a server restarted in the middle of a duplicate board rebuilds the board's table with the
board's dealer and seeded bots, so the same plays still get the same answers — here with ``random``
bots (the level whose answers most depend on their seed): one entrant plays the board with a SIGKILL
and a restart after three of their moves (then 托管 plays their seat until they are back), another
plays it straight through with the same plays for that seat; the two games are the same, action for
action."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import Player, Server, drive, game_over, my_turn, play_turn


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "data", "--rate-limit", "50").start()
    yield srv
    srv.stop()


def make_event(server: Server, **fields: Any) -> str:
    """A duplicate event of ``fields`` made by a newly registered account; its id."""
    owner = Player(server, "东家")
    auth = {"Authorization": f"Bearer {owner.token}"}
    body = {"username": f"u{owner.account_id[:10]}", "password": "correct horse"}
    assert httpx.post(server.url + "/api/register", json=body, headers=auth, timeout=30).status_code == 200
    made = httpx.post(
        server.url + "/api/events",
        json={"kind": "duplicate", "name": "复式", **fields},
        headers=auth,
        timeout=30,
    )
    assert made.status_code == 200, made.text
    owner.close()
    return str(made.json()["event"]["id"])


def actions(server: Server, event: str, who: Player) -> list[Any]:
    """The board's game of ``who``, action by action (its replay, read as its entrant)."""
    auth = {"Authorization": f"Bearer {who.token}"}
    shown = httpx.get(f"{server.url}/api/events/{event}", headers=auth, timeout=30).json()
    mine = next(r for r in shown["boards"][0]["results"] if r["account_id"] == who.account_id)
    replay = httpx.get(server.url + mine["replay"], headers=auth, timeout=30)
    assert replay.status_code == 200, replay.text
    return [step["action"] for step in replay.json()["steps"]]


def unless_moved(player: Player, table: str) -> dict[str, Any]:
    """:func:`play_turn`, a refusal being no failure when 托管 (still on as the player came back)
    moved for the seat meanwhile: the turn has passed."""
    seq = player.last_seq.get(table, 0)
    answer = play_turn(player, table)
    player.pump()
    if answer["type"] != "ack" and (player.last_seq.get(table, 0) > seq or not my_turn(player, table)):
        return {"type": "ack", "moved": answer}
    return answer


def test_a_restart_mid_board_keeps_the_bots_answers(server: Server) -> None:
    event = make_event(server, boards=1, bot_level="random")
    bob = Player(server, "鲍")
    table = bob.ok("play_event", event=event)["data"]["table"]["id"]
    moves: list[int] = []

    def counted(player: Player, at: str) -> dict[str, Any]:
        moves.append(1)
        return play_turn(player, at)

    drive([bob], table, lambda: len(moves) >= 3, act=counted, what="3 moves of bob")
    assert not game_over(bob, table)()
    server.kill()
    bob.ws = None
    server.start()  # bob's seat is in 托管 while he is away (its bot seeded from the board too)
    bob.connect()
    bob.ok("watch", table=table)
    drive([bob], table, game_over(bob, table), act=unless_moved)  # (托管 may have finished it)
    interrupted = actions(server, event, bob)
    seat = bob.views[table]["seat"]
    his = iter([a for a in interrupted if a is not None and a["seat"] == seat])

    def copied(player: Player, at: str) -> dict[str, Any]:  # ann plays just what bob's seat played
        action = next(his)
        if action.get("pass"):
            return player.request("pass", table=at)
        return player.request("play", table=at, cards=action["play"])

    ann = Player(server, "安")
    straight = ann.ok("play_event", event=event)["data"]["table"]["id"]
    drive([ann], straight, game_over(ann, straight), act=copied)
    assert actions(server, event, ann) == interrupted  # the same plays got the same answers
    for p in (ann, bob):
        p.close()
