"""Events on a cluster (issue 30, item 5): an entrant on node 0 plays a board of the daily challenge
(its table opened on node 0, leased by its first write); the event's page on node 1 — standings and the
board's results, read from the database — shows the result; and back on node 1, ``play_event`` finds
the next board (the first one done, wherever it was played)."""

from __future__ import annotations

from typing import Any

import httpx
from server_harness import Player, Server, drive, game_over, play_turn
from test_events_restart import actions, make_event

from .cluster_harness import Cluster, act_through_failover, retrying


def page(node: Server, event: str, who: Player) -> dict[str, Any]:
    reply = httpx.get(
        f"{node.url}/api/events/{event}", headers={"Authorization": f"Bearer {who.token}"}, timeout=30
    )
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


def test_a_board_played_on_one_node_shows_on_the_other(cluster: Cluster) -> None:
    nodes = cluster.start(2)
    event = nodes[1].get("/api/events/daily")["today"]["event"]["id"]  # made once, seen by both
    assert nodes[0].get("/api/events/daily")["today"]["event"]["id"] == event
    ann = Player(nodes[0], "安")
    summary = ann.ok("play_event", event=event)["data"]["table"]
    table = summary["id"]
    cluster.wait(lambda: cluster.owner(table) == "n0", "node 0 to hold the board's table's lease")
    drive([ann], table, game_over(ann, table))
    score = next(
        m["event"]["result"]["scores"][ann.views[table]["seat"]]
        for m in ann.received
        if m["type"] == "event" and m.get("table") == table and m["event"]["kind"] == "game_over"
    )
    on_b = Player(nodes[1], "安", session=ann.session)  # the same account, through node 1

    def shown() -> bool:
        return page(nodes[1], event, on_b)["standings"] != []

    cluster.wait(shown, "node 1's page to show the board's result")
    seen = page(nodes[1], event, on_b)
    board = seen["boards"][0]
    assert [r["account_id"] for r in board["results"]] == [ann.account_id]
    assert board["results"][0]["score"] == score and board["mine"]["status"] == "done"
    assert seen["standings"][0]["account_id"] == ann.account_id and seen["standings"][0]["boards"] == 1
    assert seen["me"]["boards_done"] == 1 and seen["me"]["next_board"] == 2
    stranger = Player(nodes[1], "路人")
    assert "results" not in page(nodes[1], event, stranger)["boards"][0]  # not before they play it
    nxt = on_b.ok("play_event", event=event)["data"]["table"]  # board 2, opened on node 1
    assert nxt["id"] != table and nxt["name"].endswith("· 2")
    cluster.wait(lambda: cluster.owner(nxt["id"]) == "n1", "node 1 to hold board 2's table's lease")
    back = ann.request("play_event", event=event)  # through node 0: board 2 is watched at node 1
    assert back["type"] == "ack", back

    def framed() -> bool:
        ann.pump()
        return ann.views.get(nxt["id"]) is not None

    cluster.wait(framed, "board 2's frames to reach node 0's connection")
    for p in (ann, on_b, stranger):
        p.close()


def test_a_board_taken_over_keeps_the_bots_answers(cluster: Cluster) -> None:
    """The node of a board's table killed mid-board: another node adopts the table with the board's
    dealer and seeded bots (``random`` here), so another entrant making the same plays gets the same
    game, action for action."""
    nodes = cluster.start(2)
    event = make_event(nodes[1], boards=1, bot_level="random")
    bob = Player(nodes[0], "鲍")
    table = bob.ok("play_event", event=event)["data"]["table"]["id"]
    cluster.wait(lambda: cluster.owner(table) == "n0", "node 0 to hold the board's table's lease")
    acted: list[int] = []

    def counted(player: Player, at: str) -> dict[str, Any]:
        acted.append(1)
        return play_turn(player, at)

    drive([bob], table, lambda: len(acted) >= 3, act=counted, what="3 moves of bob")
    nodes[0].kill()
    bob.server, bob.ws = nodes[1], None
    bob.connect()
    assert retrying(bob, "watch", table=table, last_seq=bob.last_seq[table])["type"] == "ack"
    cluster.wait(lambda: cluster.owner(table) == "n1", "node 1 to take the board's table over")
    drive([bob], table, game_over(bob, table), act=act_through_failover)
    taken_over = actions(nodes[1], event, bob)
    seat = bob.views[table]["seat"]
    his = iter([a for a in taken_over if a is not None and a["seat"] == seat])

    def copied(player: Player, at: str) -> dict[str, Any]:  # ann plays just what bob's seat played
        action = next(his)
        if action.get("pass"):
            return player.request("pass", table=at)
        return player.request("play", table=at, cards=action["play"])

    ann = Player(nodes[1], "安")
    straight = ann.ok("play_event", event=event)["data"]["table"]["id"]
    drive([ann], straight, game_over(ann, straight), act=copied)
    assert actions(nodes[1], event, ann) == taken_over
    for p in (ann, bob):
        p.close()
