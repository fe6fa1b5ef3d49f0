"""Table affinity by seat reservation (issue 32): a node that answers a ``watch`` or ``sit`` for a table
another node owns names that node (``data.node``); a client that connects to it and rejoins gets the
table's frames with nothing relayed between nodes; the hint follows the table to its new owner after a
failover; one process and a node's own tables give none. The hidden-information audit (R11, R12) runs
over every frame each player received, before and after its move."""

from __future__ import annotations

from pathlib import Path

from server_harness import Player, Server, drive, game_over
from test_server_games import assert_no_leak

from niugui import Game

from .cluster_harness import Cluster, gapless, retrying

RELAYED = "niugui_cluster_frames_relayed_total"
FORWARDED = "niugui_cluster_forwarded_total"
REMOTE = "niugui_cluster_remote_clients"


def total(nodes: list[Server], name: str) -> float:
    return sum(Cluster.metric(n, name) for n in nodes)


def move(player: Player, node: Server, table: str) -> Player:
    """What the page does with a hint: connect to the owner as the same account, rejoin the table from
    the last seq it got (the owner answers without a hint), then close the old connection (the seat
    never goes offline: the account stays subscribed throughout)."""
    moved = Player(node, "", session=player.session)
    moved.last_seq, moved.views, moved.states = dict(player.last_seq), dict(player.views), dict(player.states)
    ack = moved.ok("watch", table=table, last_seq=player.last_seq[table])
    assert ack["data"] == {"seat": player.states[table]["you"]}, ack  # served by the owner: no hint
    player.close()
    return moved


def test_a_seat_at_another_nodes_table_names_the_owner_and_nothing_is_relayed_after_the_move(
    cluster: Cluster,
) -> None:
    nodes = cluster.start(3)
    n0, n1, n2 = nodes
    maker = Player(n1, "p0")
    table = maker.ok("create_table", settings={"name": "affinity", "turn_seconds": 30})["data"]["table"]["id"]
    assert cluster.owner(table) == "n1"  # the least loaded: a tie, so the node asked
    assert maker.welcome["node"] == "n1"
    assert maker.ok("sit", table=table, seat=0)["data"] == {"seat": 0}  # its own node's table: no hint
    away = [Player(n0, "p1"), Player(n2, "p2"), Player(n0, "p3")]
    for seat, player in enumerate(away, start=1):
        assert player.ok("sit", table=table, seat=seat)["data"] == {"seat": seat, "node": "n1"}
    assert [p.welcome["node"] for p in away] == ["n0", "n2", "n0"]
    cluster.wait(lambda: total(nodes, RELAYED) > 0, "frames relayed to the seats on n0 and n2")
    assert Cluster.metric(n1, REMOTE) == 3  # n1 serves three connections of other nodes

    moved = [move(p, n1, table) for p in away]
    cluster.wait(lambda: Cluster.metric(n1, REMOTE) == 0, "n1 to let the old connections go")
    relayed, forwarded = total(nodes, RELAYED), total(nodes, FORWARDED)
    players = [maker, *moved]  # the fourth to sit down began the game
    drive(players, table, game_over(maker, table))
    for player in players:
        player.wait_event("game_over", game_no=1)
        gapless(player, table)
    assert total(nodes, RELAYED) == relayed  # every frame built and sent by the owner itself
    assert total(nodes, FORWARDED) == forwarded
    offline = [m for m in maker.received if m["type"] == "event" and m["event"]["kind"] == "presence"]
    assert not [m for m in offline if not m["event"]["online"]]  # no seat went offline as it moved

    game_id = maker.states[table]["game_id"]
    game = Game.from_record(n1.get(f"/api/games/{game_id}/record"))
    dealt = {game_id: [[str(c) for c in game.dealt(s)] for s in range(4)]}
    assert assert_no_leak(maker.received, 0, dealt) > 50
    for seat, (before, after) in enumerate(zip(away, moved, strict=True), start=1):
        assert assert_no_leak(before.received + after.received, seat, dealt) > 50

    # failover: the owner killed; a player back on n0 or n2 is told the table's new owner (or none when
    # that node owns it now), so the page may move once more
    n1.kill()
    cluster.wait(lambda: cluster.owner(table) in ("n0", "n2"), "a survivor to take the table over")
    owner = cluster.owner(table)
    for node, name, player in ((n0, "n0", moved[0]), (n2, "n2", moved[1])):
        back = Player(node, "", session=player.session)
        ack = retrying(back, "watch", table=table, last_seq=player.last_seq[table])
        assert ack["type"] == "ack", ack
        assert ack["data"].get("node", name) == owner, (name, owner, ack)
        back.close()
    maker.close()


def test_one_process_names_no_node(tmp_path: Path) -> None:
    """Without a cluster neither the welcome nor a seat's answer has a ``node`` key."""
    server = Server(tmp_path / "solo").start()
    try:
        player = Player(server, "solo")
        assert "node" not in player.welcome
        table = player.ok("create_table", settings={"name": "solo"})["data"]["table"]["id"]
        assert player.ok("sit", table=table, seat=0)["data"] == {"seat": 0}
        other = Player(server, "other")
        assert other.ok("watch", table=table)["data"] == {"seat": None}
        player.close()
        other.close()
    finally:
        server.stop()
