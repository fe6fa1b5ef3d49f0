"""A club's page and rooms on a cluster (issue 32, with issue 29's clubs): asked through either node,
the page lists the club's open rooms (with their join codes, for members) and which members are
online and where, whichever node holds the room; the owner closes a room through the node that does
not hold it. Every wait is for the thing itself."""

from __future__ import annotations

import time
from typing import Any

import httpx
from server_harness import Player, Server

from .cluster_harness import Cluster


def page(node: Server, club: str, who: Player) -> dict[str, Any]:
    reply = httpx.get(
        f"{node.url}/api/clubs/{club}", headers={"Authorization": f"Bearer {who.token}"}, timeout=10
    )
    assert reply.status_code == 200, reply.text
    found: dict[str, Any] = reply.json()
    return found


def test_the_club_page_and_closing_a_room_from_either_node(cluster: Cluster) -> None:
    nodes = cluster.start(2)
    owner = Player(nodes[0], "会长")
    body = {"username": f"u{owner.account_id[:10]}", "password": "correct horse"}
    auth = {"Authorization": f"Bearer {owner.token}"}
    assert httpx.post(nodes[0].url + "/api/register", json=body, headers=auth, timeout=30).status_code == 200
    club = httpx.post(nodes[0].url + "/api/clubs", json={"name": "两地会"}, headers=auth, timeout=10).json()[
        "club"
    ]
    member = Player(nodes[1], "会员")
    joined = httpx.post(
        f"{nodes[1].url}/api/clubs/{club['id']}/join",
        json={"code": club["invite_code"]},
        headers={"Authorization": f"Bearer {member.token}"},
        timeout=10,
    )
    assert joined.status_code == 200
    answers: list[dict[str, Any]] = []

    def opened() -> bool:
        if answers:  # the room's node reads the clubs again every 2 s: a few tries
            time.sleep(0.3)
        answers.append(
            owner.request("create_table", settings={"club": club["id"], "name": "会里", "private": True})
        )
        return answers[-1]["type"] == "ack"

    cluster.wait(opened, "a room of the club to open")
    room = answers[-1]["data"]["table"]["id"]
    owner.ok("sit", table=room, seat=0)
    holder = cluster.owner(room)
    assert holder is not None
    for node in nodes:  # the page through either node: the room, its code, the owner online there

        def shown(node: Server = node) -> bool:
            got = page(node, club["id"], member)
            rooms = {r["id"]: r for r in got["rooms"]}
            who = {m["account_id"]: m for m in got["members"]}
            return (
                room in rooms
                and rooms[room]["code"] is not None
                and who[owner.account_id]["online"] is True
                and who[owner.account_id]["table"] == room
                and who[member.account_id]["online"] is True
            )

        cluster.wait(shown, f"the club page of {node.url} to show the room and who is in it")
    other = nodes[1] if holder == "n0" else nodes[0]
    closed = httpx.delete(f"{other.url}/api/clubs/{club['id']}/rooms/{room}", headers=auth, timeout=30)
    assert closed.status_code == 200 and closed.json()["closed"] is True, closed.text
    gone = httpx.delete(f"{other.url}/api/clubs/{club['id']}/rooms/{room}", headers=auth, timeout=30)
    assert gone.status_code == 404  # closed already: as for a room that never was
    for node in nodes:
        cluster.wait(lambda node=node: page(node, club["id"], owner)["rooms"] == [], "the room to be gone")
    for p in (owner, member):
        p.close()
