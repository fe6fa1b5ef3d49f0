"""Clubs on a cluster (issue 29): a club's members and preset changed through one node are known to
every node within moments, so a member joined through node 1 opens a room through node 0, members on
either node sit there, and a stranger is refused on both."""

from __future__ import annotations

import time

import httpx
from server_harness import Player

from .cluster_harness import Cluster


def test_a_club_room_across_two_nodes(cluster: Cluster) -> None:
    nodes = cluster.start(2)
    owner = Player(nodes[0], "东家")
    body = {"username": f"u{owner.account_id[:10]}", "password": "correct horse"}
    auth = {"Authorization": f"Bearer {owner.token}"}
    assert httpx.post(nodes[0].url + "/api/register", json=body, headers=auth, timeout=30).status_code == 200
    made = httpx.post(nodes[0].url + "/api/clubs", json={"name": "两台"}, headers=auth, timeout=10)
    club = made.json()["club"]
    friend, stranger = Player(nodes[0], "朋友"), Player(nodes[1], "路人")
    joined = httpx.post(  # through the other node
        f"{nodes[1].url}/api/clubs/{club['id']}/join",
        json={"code": club["invite_code"]},
        headers={"Authorization": f"Bearer {friend.token}"},
        timeout=10,
    )
    assert joined.json()["role"] == "member"
    answers: list[dict[str, object]] = []

    def opened() -> bool:
        if answers:  # node 0 reads the clubs again every 2 s: a few tries, not a table budget's worth
            time.sleep(0.3)
        answers.append(friend.request("create_table", settings={"club": club["id"]}))
        return answers[-1]["type"] == "ack"

    cluster.wait(opened, "node 0 to learn that the friend joined the club through node 1")
    ack = answers[-1]
    assert isinstance(ack["data"], dict)
    room = ack["data"]["table"]["id"]
    member_elsewhere = Player(nodes[1], "东家", session=owner.session)  # the owner, on node 1
    assert member_elsewhere.ok("sit", table=room, seat=1)["data"]["seat"] == 1
    assert friend.ok("sit", table=room, seat=0)["data"]["seat"] == 0
    # a stranger opens no room of the club through either node (a node creates every table through the
    # create_table handler, which checks the club; issue 29)
    for node in nodes:
        visitor = stranger if node is nodes[1] else Player(node, "路人2")
        refused = visitor.request("create_table", settings={"club": club["id"]})
        assert refused["type"] == "error" and refused["code"] == "not_found", refused
        refused = visitor.request("watch", table=room)
        assert refused["type"] == "error" and refused["code"] == "not_found", refused
        assert room not in {t["id"] for t in node.get("/api/tables")["tables"]}
        visitor.close()
    # the friend removed through the node that does not own the room: the owner's node unseats them
    # when it reads the clubs again (issue 29; the room is between games: at once)
    other = nodes[1] if cluster.owner(room) == "n0" else nodes[0]
    removed = httpx.delete(
        f"{other.url}/api/clubs/{club['id']}/members/{friend.account_id}", headers=auth, timeout=10
    )
    assert removed.status_code == 200, removed.text
    member_elsewhere.wait_event("seat_left", seat=0, reason="removed")
    for p in (owner, friend, member_elsewhere):
        p.close()
