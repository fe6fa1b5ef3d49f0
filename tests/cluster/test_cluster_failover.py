"""Failover: the owner of a table dies (kill -9) or is paused past its lease (split brain); the game
finishes on the other nodes, every seat's stream gapless, the ledger exact, no seq sent twice with two
different events, and the paused owner's late writes refused by its stale fencing token."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable

from server_harness import Player, Server, drive, game_over, wait_until

from .cluster_harness import Cluster, act_through_failover, events_by_seq, gapless, retrying
from .test_cluster_games import ledger_matches, seat_four


def moves(player: Player, table: str) -> int:
    return sum(1 for m in player.received if m["type"] == "event" and m["event"]["kind"] in ("play", "pass"))


def reconnect(player: Player, node: Server, table: str) -> None:
    """A client of a dead node connects to another and resumes from the last seq it saw."""
    player.server = node
    player.ws = None
    player.connect()
    answer = retrying(player, "watch", table=table, last_seq=player.last_seq[table])
    assert answer["type"] == "ack", answer


def test_the_owner_killed_mid_game_and_the_game_finishes_on_the_survivors(cluster: Cluster) -> None:
    nodes = cluster.start(3)
    players, table = seat_four(nodes)
    owner_id = cluster.owner(table)
    assert owner_id is not None
    owner = cluster.node(owner_id)
    survivors = [n for n in nodes if n is not owner]
    drive(players, table, lambda: moves(players[0], table) >= 6, what="six moves")
    owner.kill()
    for player in players:
        if player.server is owner:
            reconnect(player, survivors[0], table)
    cluster.wait(lambda: cluster.owner(table) not in (None, owner_id), "another node to take the table over")
    drive(players, table, game_over(players[0], table), act=act_through_failover)
    for player in players:
        player.wait_event("game_over", game_no=1)
        gapless(player, table)
    events_by_seq(players, table)
    ledger_matches(survivors[0], table, players)
    assert sum(Cluster.metric(n, "niugui_cluster_takeovers_total") for n in survivors) >= 1
    for player in players:
        player.close()


def test_split_brain_the_paused_owner_cannot_write_after_losing_its_lease(cluster: Cluster) -> None:
    nodes = cluster.start(3)
    players, table = seat_four(nodes)
    owner_id = cluster.owner(table)
    assert owner_id is not None
    old = cluster.node(owner_id)
    assert old.process is not None
    drive(players, table, lambda: moves(players[0], table) >= 4, what="four moves")
    old.process.send_signal(signal.SIGSTOP)
    try:
        cluster.wait(
            lambda: cluster.owner(table) not in (None, owner_id), "another node to take the table over"
        )
        new_id = cluster.owner(table)
        assert new_id is not None
        others = [p for p in players if p.server is not old]
        before = max(p.last_seq.get(table, 0) for p in others)
        # the game goes on without the paused node (its players' seats are in 托管 meanwhile)
        drive(
            others,
            table,
            lambda: max(p.last_seq.get(table, 0) for p in others) >= before + 4,
            what="four more events at the new owner",
            act=act_through_failover,
        )
        # a request the paused owner will find waiting when it wakes up
        stale = next(p for p in players if p.server is old)
        stale.send_raw(json.dumps({"type": "ready", "id": "late", "table": table}))
    finally:
        old.process.send_signal(signal.SIGCONT)
    cluster.wait(
        lambda: Cluster.metric(old, "niugui_cluster_leases_lost_total") >= 1,
        "the old owner to notice it lost the lease",
    )
    cluster.wait(lambda: Cluster.metric(old, "niugui_cluster_tables_owned") == 0, "the old owner to drop it")
    assert cluster.owner(table) == new_id
    drive(players, table, game_over(players[0], table), act=act_through_failover)
    for player in players:
        player.wait_event("game_over", game_no=1)
        gapless(player, table)
    events_by_seq(players, table)  # never two different events with one seq, to anyone
    ledger_matches(nodes[0], table, players)
    for player in players:
        player.close()


def test_a_private_tables_spectator_follows_it_to_its_new_owner(cluster: Cluster) -> None:
    """A spectator who watches a private table with its join code, on a node that survives, keeps
    receiving its events after the owner is killed: its node subscribes it again, code included."""
    nodes = cluster.start(3)
    host = Player(nodes[0], "host")
    ack = host.ok("create_table", settings={"name": "private", "private": True, "turn_seconds": 30})
    table, code = ack["data"]["table"]["id"], ack["data"]["table"]["code"]
    owner_id = cluster.owner(table)
    assert owner_id is not None
    owner = cluster.node(owner_id)
    survivor = next(n for n in nodes if n is not owner)
    watcher = Player(survivor, "观众")
    assert watcher.request("watch", table=table)["type"] == "error"  # no code: no table
    watcher.ok("watch", table=table, code=code)
    host.ok("sit", table=table, seat=0)
    host.ok("fill_bots", table=table)
    drive([host], table, lambda: moves(host, table) >= 4, what="four moves")
    owner.kill()
    if host.server is owner:
        reconnect(host, survivor, table)
    cluster.wait(lambda: cluster.owner(table) not in (None, owner_id), "another node to take the table over")
    drive([host, watcher], table, game_over(host, table), act=act_through_failover)
    watcher.wait_event("game_over", game_no=1)
    gapless(watcher, table)
    events_by_seq([host, watcher], table)
    host.close()
    watcher.close()


def test_a_killed_owners_tables_answer_on_a_survivor_within_seconds(cluster: Cluster) -> None:
    """kill -9 of an owner: its tables (and only its: the survivors read its set of tables, not every
    open table) answer a request on another node within a few seconds — the survivors see it silent
    after ``dead_seconds`` and take its tables over before their leases run out. Measured tightly by
    bench/failover_bench.py; loosely here (a loaded machine)."""
    nodes = cluster.start(3)
    maker = Player(nodes[0], "maker")
    tables = [maker.ok("create_table", settings={"name": f"t{n}"})["data"]["table"]["id"] for n in range(6)]
    owners = {t: cluster.owner(t) for t in tables}
    assert set(owners.values()) == {"n0", "n1", "n2"}, owners
    owner_id = "n1"
    victim = cluster.node(owner_id)
    dead = [t for t in tables if owners[t] == owner_id]
    assert cluster.redis.smembers(f"{cluster.prefix}:tables:{owner_id}") == set(dead)
    survivor = nodes[2]
    watcher = Player(survivor, "watcher")
    for table in dead:
        watcher.ok("watch", table=table)
    victim.kill()
    killed = time.monotonic()
    for table in dead:
        assert retrying(watcher, "watch", table=table)["type"] == "ack"
    elapsed = time.monotonic() - killed
    assert elapsed < 10, f"the tables answered {elapsed:.1f} s after the kill"
    for table in tables:  # the survivors' own tables stayed where they were
        assert cluster.owner(table) == (owners[table] if table not in dead else cluster.owner(table))
        assert cluster.owner(table) not in (None, owner_id)
    cluster.wait(
        lambda: not cluster.redis.exists(f"{cluster.prefix}:tables:{owner_id}"), "the dead node's set emptied"
    )
    assert sum(Cluster.metric(n, "niugui_cluster_takeovers_total") for n in cluster.alive()) == len(dead)
    maker.close()
    watcher.close()


def every(seconds: float, check: Callable[[], bool]) -> Callable[[], bool]:
    """``check``, asked at most once every ``seconds`` (False in between)."""
    last = [0.0]

    def limited() -> bool:
        if time.monotonic() - last[0] < seconds:
            return False
        last[0] = time.monotonic()
        return check()

    return limited


def all_back(cluster: Cluster) -> bool:
    alive = cluster.alive()
    return len(alive) == 3 and all(Cluster.health(n).get("nodes") == 3 for n in alive)


def test_a_rolling_restart_of_three_nodes_during_play_loses_nothing(cluster: Cluster) -> None:
    """Each node in turn drained (SIGTERM) and started again under its name while a game goes on:
    its tables go to the others at once, its players reconnect elsewhere and resume from their last
    seq, and the game finishes with every seat's stream gapless and the ledger exact (R33, R36)."""
    nodes = cluster.start(3)
    players, table = seat_four(nodes)
    for node in list(nodes):
        before = moves(players[0], table)
        drive(
            players,
            table,
            lambda b=before: moves(players[0], table) >= b + 3,
            what="three more moves",
            act=act_through_failover,
        )
        node.stop()
        refuge = next(n for n in cluster.alive() if n is not node)
        for player in players:
            if player.server is node:
                reconnect(player, refuge, table)
        cluster.wait(lambda n=node: cluster.owner(table) not in (None, f"n{nodes.index(n)}"), "a new owner")
        # the players read on while the node starts (a client that stops reading stops answering pings)
        starting = threading.Thread(target=node.start)
        starting.start()
        back = every(0.2, lambda t=starting: not t.is_alive() and all_back(cluster))
        wait_until(players, back, "the node back")
        starting.join()
    drive(players, table, game_over(players[0], table), act=act_through_failover)
    for player in players:
        player.wait_event("game_over", game_no=1)
        gapless(player, table)
    events_by_seq(players, table)
    ledger_matches(nodes[0], table, players)
    for player in players:
        player.close()
