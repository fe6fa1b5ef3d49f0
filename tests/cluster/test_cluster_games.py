"""Whole games on a cluster: the four players connected to different nodes (R1–R36 are the engine's;
here: one owner per table, requests forwarded to it, its per-seat frames delivered by every node)."""

from __future__ import annotations

from typing import Any

from cluster_harness import Cluster, events_by_seq, gapless
from server_harness import Player, Server, drive, game_over


def seat_four(nodes: list[Server], **settings: Any) -> tuple[list[Player], str]:
    """Four players, player n on node n % len(nodes); player 0 creates the table, each sits."""
    players = [Player(nodes[n % len(nodes)], f"p{n}") for n in range(4)]
    ack = players[0].ok("create_table", settings={"name": "cluster", "turn_seconds": 30, **settings})
    table: str = ack["data"]["table"]["id"]
    for n, player in enumerate(players):
        assert player.ok("sit", table=table, seat=n)["data"] == {"seat": n}
    return players, table


def ledger_matches(node: Server, table: str, players: list[Player]) -> None:
    """The ledger holds each finished game once, with the scores of its game_over event (R33, R36)."""
    overs = {
        m["event"]["game_id"]: m["event"]["result"]["scores"]
        for m in players[0].received
        if m["type"] == "event" and m["event"]["kind"] == "game_over"
    }
    entries = node.get(f"/api/tables/{table}/ledger")["entries"]
    by_game: dict[int, list[int]] = {}
    for e in entries:
        by_game.setdefault(e["game_id"], []).append(e["delta"])
    assert by_game == overs and all(sum(s) == 0 for s in overs.values())


def test_four_players_on_three_nodes_play_a_whole_game(cluster: Cluster) -> None:
    nodes = cluster.start(3)
    players, table = seat_four(nodes)
    owner = cluster.owner(table)
    assert owner is not None
    drive(players, table, game_over(players[0], table))
    for player in players:
        player.wait_event("game_over", game_no=1)
        gapless(player, table)
    events_by_seq(players, table)
    ledger_matches(nodes[1], table, players)
    # every node lists the table, whoever owns it; forwarded requests are counted
    for node in nodes:
        cluster.wait(lambda node=node: table in {t["id"] for t in node.get("/api/tables")["tables"]},
                     f"the lobby of {node.url} to list the table")
    assert sum(Cluster.metric(n, "niugui_cluster_forwarded_total") for n in nodes) > 0
    for player in players:
        player.close()
