"""Issue 30, point 5 for Swiss tournaments: a Swiss on a cluster of two real nodes. One node runs it
(its lease in Redis); who is present is judged from every node's connections; the round's table opens
on the running node and the entrants connected to the other node are told there (``event_seated``),
follow it from their node and reach it by ``play_event``; the game is played to the final table
(R1–R36 are the engine's), and any node serves the standings."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from server_harness import Player, drive, game_over, wait_until
from test_events_swiss import call, code_of, ok, play_rounds, registered, seated_in

from .cluster_harness import Cluster, act_through_failover
from .test_cluster_failover import moves


def test_a_swiss_of_four_on_two_nodes_runs_one_round_to_its_final_table(cluster: Cluster) -> None:
    n0, n1 = cluster.start(2)
    owner = registered(n0, "东家")
    people = [owner, Player(n0, "安"), Player(n1, "波"), Player(n1, "猫")]
    event = ok(n0, "POST", "/api/events", owner, kind="swiss", name="集群瑞士", rounds=1, games=1)["event"]
    eid = event["id"]
    for person in people:  # each registers through the node it is connected to
        assert ok(person.server, "POST", f"/api/events/{eid}/join", person)["registered"] is True

    # the owner presses start on both nodes at once: one node starts it and runs it, the other refuses
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda n: call(n, "POST", f"/api/events/{eid}/start", owner), (n0, n1)))
    started = [i for i, a in enumerate(answers) if a.status_code == 200]
    assert len(started) == 1 and answers[started[0]].json() == {"started": True}, [a.text for a in answers]
    assert code_of(answers[1 - started[0]]) == (409, "event_started")
    runner = f"n{started[0]}"
    assert cluster.redis.get(f"{cluster.prefix}:swiss:{eid}") == runner, "the starting node holds the lease"
    away = people[3] if runner == "n0" else people[1]  # an entrant connected to the other node

    # everyone was connected somewhere at the start: nobody absent, all four at one table, no bots
    wait_until(people, lambda: all(seated_in(p, 1) is not None for p in people), "round 1's seating")
    seats = {p.account_id: seated_in(p, 1) for p in people}
    tables = {s["table"] for s in seats.values() if s is not None}
    assert len(tables) == 1, seats
    table = tables.pop()
    assert sorted(s["seat"] for s in seats.values() if s is not None) == [0, 1, 2, 3]
    assert cluster.owner(table) == runner, "the round's table is opened on the running node"

    # an entrant of the other node reaches the table by play_event from its own node
    back = away.request("play_event", event=eid)
    mine = seats[away.account_id]
    # (answered by the table's node: a watch's ack, with the seat)
    assert mine is not None and back["type"] == "ack" and back["data"]["seat"] == mine["seat"], back

    final = play_rounds(n0, people, eid, rounds=1)
    assert final["phase"] == "finished" and final["final"] is not None
    assert sorted(line["account_id"] for line in final["final"]) == sorted(p.account_id for p in people)
    assert all(line["games"] == 1 and line["absences"] == 0 for line in final["final"])
    (rnd,) = final["rounds"]
    assert rnd["absent"] == [] and [t["bots"] for t in rnd["tables"]] == [0]
    assert ok(n1, "GET", f"/api/events/{eid}", people[2])["standings"] == final["standings"]
    cluster.wait(lambda: cluster.redis.get(f"{cluster.prefix}:swiss:{eid}") is None, "the lease's release")


def test_the_running_node_killed_mid_round_and_another_node_finishes_the_swiss(cluster: Cluster) -> None:
    n0, n1 = cluster.start(2)
    owner = registered(n0, "东家")
    people = [owner, *(Player(n0, name) for name in ("安", "波", "猫"))]
    eid = ok(n0, "POST", "/api/events", owner, kind="swiss", name="接管", rounds=1, games=1)["event"]["id"]
    for person in people:
        ok(n0, "POST", f"/api/events/{eid}/join", person)
    # n1 runs it though nobody is connected there: presence is every node's (nobody absent)
    assert ok(n1, "POST", f"/api/events/{eid}/start", owner) == {"started": True}
    wait_until(people, lambda: all(seated_in(p, 1) is not None for p in people), "round 1's seating")
    first = seated_in(people[0], 1)
    assert first is not None
    table = first["table"]
    assert cluster.owner(table) == "n1"
    drive(people, table, lambda: moves(people[0], table) >= 4, what="four moves")

    n1.kill()  # neither its table's lease nor the event's is released: both are taken over
    cluster.wait(lambda: cluster.owner(table) == "n0", "n0 to take the table over")
    drive(people, table, game_over(people[0], table), act=act_through_failover)
    cluster.wait(lambda: cluster.redis.get(f"{cluster.prefix}:swiss:{eid}") == "n0", "n0 to run the event")
    cluster.wait(lambda: ok(n0, "GET", f"/api/events/{eid}", owner)["phase"] == "finished", "the final table")
    final = ok(n0, "GET", f"/api/events/{eid}", owner)
    assert sorted(line["account_id"] for line in final["final"]) == sorted(p.account_id for p in people)
    assert all(line["games"] == 1 and line["absences"] == 0 for line in final["final"])
    (rnd,) = final["rounds"]
    assert rnd["tables"][0]["table"] == table and rnd["tables"][0]["done"]
    assert [len(t["games"]) for t in rnd["tables"]] == [1]
