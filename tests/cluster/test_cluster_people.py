"""Rating only among distinct people on a cluster (issue 33, finding 8; issue 32: every rule of one node
on two): a seat taken through another node is counted by the address its own node saw, carried with the
forwarded request over the (sealed) bus — as one node counts its own connections
(tests/server/test_hardening_app.py::test_finding_8_four_guests_of_one_address_at_a_rated_table_are_one_person)."""

from __future__ import annotations

from server_harness import drive, game_over

from .cluster_harness import Behind, Cluster


def test_finding_8_one_addresss_guests_through_another_node_are_one_person(cluster: Cluster) -> None:
    """Four guests of one address — the creator on n1, three through n0 — play a whole game at the
    creator's rated table on n1: one person, so nobody's rating moves. Before: a connection of another
    node had no address at the owner, so the three counted as three more people and the game was
    rated. The address is never in a frame sent."""
    nodes = cluster.start(2, "--trust-proxy", "127.0.0.1")
    host = Behind(nodes[1], "同址主", "203.0.113.7")
    table = host.ok("create_table", settings={"name": "同址桌", "rated": True})["data"]["table"]["id"]
    assert cluster.owner(table) == "n1"
    guests = [Behind(nodes[0], f"同址客{n}", "203.0.113.7") for n in range(3)]
    players = [host, *guests]
    for seat, player in enumerate(players):
        player.ok("sit", table=table, seat=seat)
    drive(players, table, game_over(host, table))
    host.wait_event("game_over", game_no=1)
    for player in players:
        profile = player.server.get(f"/api/players/{player.account_id}/profile")
        assert profile["rating"] is None, profile  # not a rated game: one person
        assert not any("203.0.113" in str(m) for m in player.received)  # never sent to anyone
    for player in players:
        player.close()
