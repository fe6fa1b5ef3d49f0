"""快速开始 on a cluster (issue 32): one queue for every node, the table made where most of its players
are connected, people of different nodes seated together and playing a whole game (R1–R36 are the
engine's), and bots after the wait as on one node. Every wait is for the message itself."""

from __future__ import annotations

from typing import Any

from server_harness import Player, drive, game_over

from .cluster_harness import Behind, Cluster, gapless


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
    assert again["type"] == "error" and again["code"] == "seated_elsewhere", again
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


def first_queue_message(player: Player) -> dict[str, Any]:
    """The first ``queue`` message after joining: waiting, or seated (the join's match ran first)."""
    return player.wait(lambda m: m["type"] == "queue" and m["status"] in ("waiting", "seated"))


def test_finding_8_one_addresss_guests_on_two_nodes_are_not_seated_together(cluster: Cluster) -> None:
    """Two guests of one address, one on each node, and two people: nobody is seated (as on one node,
    tests/server/test_hardening_app.py::test_finding_8_rating_only_among_distinct_people); a fifth
    person makes the four with the first of them, and the other keeps waiting. Before: the shared
    queue forgot the addresses and seated the two guests of one address together at once."""
    nodes = cluster.start(2, "--trust-proxy", "127.0.0.1")
    same = [Behind(nodes[0], "同址甲", "203.0.113.7"), Behind(nodes[1], "同址乙", "203.0.113.7")]
    others = [Behind(nodes[0], "路人丙", "198.51.100.1"), Behind(nodes[1], "路人丁", "192.0.2.5")]
    for player in [*same, *others]:
        player.ok("quick_play")
    last = first_queue_message(others[-1])
    assert last["status"] == "waiting" and last["waiting"] == 4, last
    late = Behind(nodes[0], "路人戊", "198.51.100.9")
    late.ok("quick_play")
    four = [same[0], *others, late]
    where = {p.account_id: p.wait(queue_message("seated"), what="a seat from quick play") for p in four}
    tables = {m["table"] for m in where.values()}
    assert len(tables) == 1, where
    table = tables.pop()
    in_seat(late, table, where[late.account_id]["seat"])
    seated = {s["player"]["id"] for s in late.states[table]["seats"]}
    assert seated == {p.account_id for p in four}
    assert sorted(cluster.redis.hkeys(f"{cluster.prefix}:qp:tickets")) == [same[1].account_id]
    assert not any(m["type"] == "queue" and m["status"] == "seated" for m in same[1].received)
    for player in [*same, *others, late]:
        player.close()


def test_finding_9_queue_bots_across_nodes_takes_only_a_stranger_who_agreed(cluster: Cluster) -> None:
    """A player's ``queue_bots`` through n0 with two strangers waiting through n1: the one who agreed
    (``bots: true``, the page's box) sits with them and two bots, the other keeps waiting. Before:
    the shared queue forgot the consent, and the asker sat alone with three bots."""
    nodes = cluster.start(2, "--community", "bots_after=0")
    asker = Player(nodes[0], "要填座")
    refused, agreed = Player(nodes[1], "不同意"), Player(nodes[1], "同意")
    refused.ok("quick_play")
    agreed.ok("quick_play", bots=True)
    asker.ok("quick_play")
    asker.ok("queue_bots")
    seated = asker.wait(queue_message("seated"), what="a seat with bots")
    table = seated["table"]
    in_seat(asker, table, seated["seat"])
    people = {s["player"]["id"] for s in asker.states[table]["seats"] if s["player"]["bot"] is None}
    assert people == {asker.account_id, agreed.account_id}
    in_seat(agreed, table, agreed.wait(queue_message("seated"))["seat"])
    assert sorted(cluster.redis.hkeys(f"{cluster.prefix}:qp:tickets")) == [refused.account_id]
    for player in (asker, refused, agreed):
        player.close()


def test_waiting_and_seats_are_seen_across_nodes(cluster: Cluster) -> None:
    """One account, one game, across nodes (issue 33, finding 9): waiting in quick play through n0,
    a ``sit`` at n1's table is refused; out of the queue it is taken; then seated at n1's waiting
    table, ``quick_play`` through n0 is refused. Before: n1 read only its own matcher, and n0 refused
    only a seat at a game in play."""
    nodes = cluster.start(2)
    ann, bob = Player(nodes[0], "等候甲"), Player(nodes[1], "等候乙")
    table = bob.ok("create_table", settings={"name": "乙的桌"})["data"]["table"]["id"]
    assert cluster.owner(table) == "n1"
    ann.ok("quick_play")
    bob.ok("quick_play")
    bob.wait(lambda m: queue_message("waiting")(m) and m["waiting"] == 2)  # n1 has read ann's ticket
    refused = ann.request("sit", table=table, seat=0)
    assert refused["type"] == "error" and refused["code"] == "seated_elsewhere", refused
    ann.ok("leave_queue")
    bob.wait(lambda m: queue_message("waiting")(m) and m["waiting"] == 1)  # n1 knows ann left
    ann.ok("sit", table=table, seat=0)
    cluster.wait(
        lambda: table in (cluster.redis.hget(f"{cluster.prefix}:seats:n1", ann.account_id) or ""),
        "n1 to say where its players sit",
    )
    again = ann.request("quick_play")
    assert again["type"] == "error" and again["code"] == "seated_elsewhere", again
    assert cluster.redis.hkeys(f"{cluster.prefix}:qp:tickets") == [bob.account_id]
    for player in (ann, bob):
        player.close()
