"""Whole games on a cluster: the four players connected to different nodes (R1–R36 are the engine's;
here: one owner per table, requests forwarded to it, its per-seat frames delivered by every node)."""

from __future__ import annotations

from typing import Any

from server_harness import Player, Server, drive, game_over

from .cluster_harness import Cluster, events_by_seq, gapless


def seat_four(nodes: list[Server], **settings: Any) -> tuple[list[Player], str]:
    """Four players, player n on node n % len(nodes); player 0 creates the table, each sits."""
    players = [Player(nodes[n % len(nodes)], f"p{n}") for n in range(4)]
    ack = players[0].ok("create_table", settings={"name": "cluster", "turn_seconds": 30, **settings})
    table: str = ack["data"]["table"]["id"]
    for n, player in enumerate(players):
        assert player.ok("sit", table=table, seat=n)["data"]["seat"] == n
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
        cluster.wait(
            lambda node=node: table in {t["id"] for t in node.get("/api/tables")["tables"]},
            f"the lobby of {node.url} to list the table",
        )
    assert sum(Cluster.metric(n, "niugui_cluster_forwarded_total") for n in nodes) > 0
    for player in players:
        player.close()


def test_no_node_sends_a_card_of_another_hand(cluster: Cluster) -> None:
    """The hidden-information audit (R11, R12) on the cluster: every message of a whole game, to each
    seat and to a spectator, whichever node built it and whichever delivered it."""
    from test_server_games import assert_no_leak

    from niugui import Game

    nodes = cluster.start(3)
    players, table = seat_four(nodes)
    watcher = Player(nodes[2], "观众")
    watcher.ok("watch", table=table, last_seq=0)  # the game has begun: every event from the first
    drive(players, table, game_over(players[0], table))
    for player in [*players, watcher]:
        player.wait_event("game_over", game_no=1)
    game_id = players[0].states[table]["game_id"]
    game = Game.from_record(nodes[1].get(f"/api/games/{game_id}/record"))
    dealt = {game_id: [[str(c) for c in game.dealt(s)] for s in range(4)]}
    for n, player in enumerate(players):
        assert assert_no_leak(player.received, n, dealt) > 50
    assert assert_no_leak(watcher.received, None, dealt) > 50
    assert all("hand" not in (m.get("view") or {}) for m in watcher.received if m["type"] == "event")
    for player in [*players, watcher]:
        player.close()


def test_new_tables_go_to_the_least_loaded_node_and_sigterm_hands_them_over(cluster: Cluster) -> None:
    """Tables made on one node spread over the nodes; a node stopped with SIGTERM releases its tables
    at once and another node owns them (long before a lease would have expired)."""
    nodes = cluster.start(2)
    creator = Player(nodes[0], "maker")
    tables = [creator.ok("create_table", settings={"name": f"t{n}"})["data"]["table"]["id"] for n in range(4)]
    owners = [cluster.owner(t) for t in tables]
    assert set(owners) == {"n0", "n1"}, owners
    leaving = [t for t, o in zip(tables, owners, strict=True) if o == "n1"]
    nodes[1].stop()
    cluster.wait(lambda: all(cluster.owner(t) == "n0" for t in leaving), "n0 to own n1's tables")
    assert Cluster.metric(nodes[0], "niugui_cluster_takeovers_total") >= len(leaving)
    lobby = {t["id"] for t in nodes[0].get("/api/tables")["tables"]}
    assert set(tables) <= lobby
    creator.close()

