"""快速开始 on a cluster (issue 32): one queue for every node, the table made where most of its players
are connected, people of different nodes seated together and playing a whole game (R1–R36 are the
engine's), and bots after the wait as on one node. Every wait is for the message itself."""

from __future__ import annotations

from typing import Any

from server_harness import Player, drive, game_over

from .cluster_harness import Cluster, gapless


def queue_message(status: str) -> Any:
    return lambda m: m["type"] == "queue" and m["status"] == status


def redis_text(cluster: Cluster) -> str:
    """Every value under the cluster's key prefix, as text (strings, hashes, sets)."""
    parts = []
    for key in cluster.redis.scan_iter(match=f"{cluster.prefix}:*"):
        kind = cluster.redis.type(key)
        if kind == "string":
            parts.append(str(cluster.redis.get(key)))
        elif kind == "hash":
            parts.extend(f"{field}\t{value}" for field, value in cluster.redis.hgetall(key).items())
        elif kind == "set":
            parts.extend(sorted(cluster.redis.smembers(key)))
    return "\n".join(parts)


def in_seat(player: Player, table: str, seat: int) -> None:
    """Wait until the player has the table's state, and it says they sit in ``seat``."""
    player.wait(
        lambda m: m["type"] in ("event", "snapshot") and m["table"] == table and m["state"]["you"] == seat,
        what=f"the state of table {table} in seat {seat}",
    )


def test_four_players_on_two_nodes_are_matched_into_one_table_where_most_are(cluster: Cluster) -> None:
    nodes = cluster.start(2)
    players = [Player(nodes[0], "排队甲")] + [Player(nodes[1], f"排队{n}") for n in "乙丙丁"]
    for player in players:
        assert player.request("quick_play", games=1)["type"] == "ack"
    where = {p.account_id: p.wait(queue_message("seated"), what="a seat from quick play") for p in players}
    tables = {m["table"] for m in where.values()}
    assert len(tables) == 1, where
    table = tables.pop()
    assert sorted(m["seat"] for m in where.values()) == [0, 1, 2, 3]
    assert cluster.owner(table) == "n1", "three of the four are connected to n1: the table is made there"
    for player in players:
        in_seat(player, table, where[player.account_id]["seat"])
    state = players[0].states[table]
    assert state["settings"]["rated"] is True
    assert {s["player"]["id"] for s in state["seats"]} == {p.account_id for p in players}
    # playing at n1's table, the player of n0 may not wait for another game (n1 tells where people sit)
    first = players[0]
    cluster.wait(
        lambda: '"playing"' in (cluster.redis.hget(f"{cluster.prefix}:seats:n1", first.account_id) or ""),
        "n1 to say where its players sit",
    )
    in_game = redis_text(cluster)  # every key of the cluster, mid-game
    again = first.request("quick_play")
    assert again["type"] == "error" and again["code"] == "already_seated", again
    drive(players, table, game_over(players[0], table))
    for player in players:
        player.wait_event("game_over", game_no=1)
        gapless(player, table)
    # nothing of a hand was in Redis mid-game (R11, R12): only what the nodes show anyway
    from niugui import Game

    game_id = players[0].states[table]["game_id"]
    game = Game.from_record(players[0].server.get(f"/api/games/{game_id}/record"))
    cards = {str(c) for seat in range(4) for c in game.dealt(seat)}
    assert '"players"' in in_game and table in in_game  # the audit read where people sit
    assert not [c for c in cards if f'"{c}"' in in_game], "a card of a hand was in Redis"
    assert not any(word in in_game for word in ('"hand"', '"view"', '"cards"'))
    # nobody waits any more, on either node
    assert not cluster.redis.hlen(f"{cluster.prefix}:qp:tickets")
    # 再来一局: the four ask, through their own nodes, and sit together again at a new table
    for player in players:
        drive(players, table, game_over(player, table))
    for player in players:
        player.ok("rematch", table=table)
    again = {
        p.account_id: p.wait(lambda m: queue_message("seated")(m) and m["table"] != table) for p in players
    }
    new_tables = {m["table"] for m in again.values()}
    assert len(new_tables) == 1, again
    new = new_tables.pop()
    for player in players:
        in_seat(player, new, again[player.account_id]["seat"])
    for player in players:
        player.close()


def test_bots_fill_the_seats_after_the_wait_on_a_cluster(cluster: Cluster) -> None:
    nodes = cluster.start(2, "--community", "bots_after=3")
    alone = Player(nodes[1], "独行")
    alone.ok("quick_play")
    waiting = alone.wait(queue_message("waiting"))
    assert waiting["waiting"] == 1 and waiting["bots_in"] is not None
    early = alone.request("queue_bots")
    assert early["type"] == "error" and early["code"] == "bad_state"  # before the wait is over
    cluster.wait(lambda: alone.request("queue_bots")["type"] == "ack", "bots to be allowed after 3 s")
    seated = alone.wait(queue_message("seated"))
    in_seat(alone, seated["table"], seated["seat"])
    seats = alone.states[seated["table"]]["seats"]
    assert sum(1 for s in seats if s["player"] and s["player"]["id"] != alone.account_id) == 3
    assert cluster.owner(seated["table"]) == "n1"
    stranger = Player(nodes[0], "路人")  # the queue is empty: nobody else was taken
    assert stranger.request("queue_bots")["code"] == "bad_state"
    for p in (alone, stranger):
        p.close()
