"""Accounts across the nodes of a cluster (issue 32 item 2): the per-account caps count every node's
connections and new tables; a friend connected to another node is invited there and seen online
there; ``/api/me/seats`` answers on any node. Every wait is for the thing itself."""

from __future__ import annotations

import json
import os
import secrets
from typing import Any

import httpx
from server_harness import WAIT, Player, Server
from websockets.sync.client import connect

from .cluster_harness import Cluster


def call(node: Server, method: str, path: str, who: Player, status: int = 200) -> Any:
    reply = httpx.request(
        method, node.url + path, headers={"Authorization": f"Bearer {who.token}"}, timeout=10
    )
    assert reply.status_code == status, (method, path, reply.status_code, reply.text)
    return reply.json()


def first_frame(node: Server, token: str) -> dict[str, Any]:
    """What a new connection of ``token``'s account is told first (a welcome, or why not)."""
    with connect(f"ws://127.0.0.1:{node.port}/ws", open_timeout=WAIT) as ws:
        ws.send(json.dumps({"type": "auth", "id": "auth", "token": token}))
        answer: dict[str, Any] = json.loads(ws.recv(timeout=WAIT))
        return answer


def connections(cluster: Cluster, account: str) -> int:
    return sum(int(cluster.redis.hget(f"{cluster.prefix}:online:n{n}", account) or 0) for n in range(2))


def test_the_connection_and_table_caps_count_every_node(cluster: Cluster) -> None:
    nodes = cluster.start(2, "--limit", "connections_per_account=2", "--limit", "tables_per_account_hour=2")
    here = Player(nodes[0], "两地")
    there = Player(nodes[1], "两地", session=here.session)
    cluster.wait(lambda: connections(cluster, here.account_id) == 2, "both connections to be counted")
    for node in nodes:  # a third, on either node, is refused: each node has only one of its own
        refused = first_frame(node, here.token)
        assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
    other = Player(nodes[1], "别人")  # another account is not capped by this one
    assert other.welcome["type"] == "welcome"
    # new tables: one made through each node, then the hour's two are spent on both nodes
    assert here.ok("create_table", settings={"name": "一"})
    assert there.ok("create_table", settings={"name": "二"})
    for player in (here, there):
        third = player.request("create_table", settings={"name": "三"})
        assert third["type"] == "error" and third["code"] == "rate_limited", third
    assert other.ok("create_table", settings={"name": "别人的"})
    there.close()  # a connection closed frees its place in the cap
    cluster.wait(lambda: connections(cluster, here.account_id) == 1, "the closed connection to be forgotten")
    assert first_frame(nodes[1], here.token)["type"] == "welcome"
    for p in (here, other):
        p.close()


def test_a_friend_on_another_node_is_seen_and_invited_there(cluster: Cluster) -> None:
    nodes = cluster.start(2)
    ann, bob = Player(nodes[0], "阿安"), Player(nodes[1], "阿博")
    assert call(nodes[0], "POST", f"/api/friends/{bob.account_id}", ann) == {"status": "requested"}
    assert call(nodes[1], "POST", f"/api/friends/{ann.account_id}", bob) == {"status": "friends"}

    def friend_seen_by_bob() -> dict[str, Any]:
        found: dict[str, Any] = call(nodes[1], "GET", "/api/me/friends", bob)["friends"][0]
        return found

    cluster.wait(lambda: friend_seen_by_bob()["online"] is True, "bob (node 1) to see ann (node 0) online")
    table = ann.ok("create_table", settings={"name": "夜局", "private": True})["data"]["table"]["id"]
    ann.ok("sit", table=table, seat=0)
    # bob may not see ann's private table: only that she sits at one
    cluster.wait(lambda: friend_seen_by_bob()["where"] == {"private": True}, "bob to see ann seated")
    # ann's seat, asked through either node
    for node in nodes:
        cluster.wait(
            lambda node=node: (
                {s["table"] for s in call(node, "GET", "/api/me/seats", ann)["seats"]} == {table}
            ),
            f"{node.url} to know ann's seat",
        )
    assert ann.ok("invite", table=table, friend=bob.account_id)["data"] == {"seat": 1}
    invitation = bob.wait(lambda m: m["type"] == "invitation", what="ann's invitation across nodes")
    assert invitation["by_id"] == ann.account_id and invitation["seat"] == 1 and invitation["table"] == table
    assert bob.ok("sit", table=table, seat=1, code=invitation["code"])["data"]["seat"] == 1
    expected = {"table": table, "seat": 0, "name": "夜局", "status": "waiting", "private": True}
    cluster.wait(lambda: friend_seen_by_bob()["where"] == expected, "bob, seated too, to see the table")
    # a stranger is no friend, on either node; nothing of a hand in the friends list (R11)
    cal = Player(nodes[1], "阿凯")
    assert ann.request("invite", table=table, friend=cal.account_id)["code"] == "not_friends"
    assert not any(word in json.dumps(friend_seen_by_bob()) for word in ("hand", "cards", "view"))
    for p in (ann, bob, cal):
        p.close()


def test_a_bot_account_on_another_node_is_invited_there(cluster: Cluster) -> None:
    nodes = cluster.start(2)
    creator = Player(nodes[0], "开桌")
    table = creator.ok("create_table", settings={"name": "邀机器人"})["data"]["table"]["id"]
    owner = cluster.owner(table)
    elsewhere = nodes[0] if owner == "n1" else nodes[1]  # the bot connects to the node without the table
    username = (
        f"bot{os.getpid()}x{secrets.randbelow(10**6)}"  # as tests/server/test_bot_accounts.py names them
    )
    made = httpx.post(
        elsewhere.url + "/api/register",
        json={"username": username, "password": "correct horse", "bot": True},
        timeout=30,
    )
    assert made.status_code == 200, made.text
    bot = Player(elsewhere, username, session=made.json())
    assert creator.request("invite", table=table, username="nobody-here", seat=1)["code"] == "bot_offline"

    def invited() -> bool:  # its node tells the others it is connected within moments
        answer = creator.request("invite", table=table, username=username.upper(), seat=2)
        return answer["type"] == "ack"

    cluster.wait(invited, "the bot account's invitation to be accepted")
    invitation = bot.wait(lambda m: m["type"] == "invitation", what="the invitation across nodes")
    assert invitation["table"] == table and invitation["seat"] == 2 and invitation.get("by_id") is None
    assert bot.ok("sit", table=table, seat=2)["data"]["seat"] == 2
    for p in (creator, bot):
        p.close()


def test_the_chat_of_someone_blocked_stays_hidden_from_another_nodes_reader(cluster: Cluster) -> None:
    """Bob blocks cal; bob's connection is on the node that does not hold the table: cal's chat
    still reaches him with no phrase (no seq missing), ann in full, as on one node."""
    nodes = cluster.start(2)
    ann = Player(nodes[0], "阿安")
    table = ann.ok("create_table", settings={"name": "聊天"})["data"]["table"]["id"]
    away = nodes[0] if cluster.owner(table) == "n1" else nodes[1]
    bob, cal = Player(away, "阿博"), Player(nodes[0], "阿凯")
    assert call(away, "POST", f"/api/blocks/{cal.account_id}", bob) == {"blocked": True}
    for n, player in enumerate((ann, bob, cal)):
        assert player.ok("sit", table=table, seat=n)["data"]["seat"] == n
    cal.ok("chat", table=table, phrase="hurry")
    assert ann.wait_event("chat", seat=2)["event"]["phrase"] == "hurry"
    assert bob.wait_event("chat", seat=2)["event"] == {"kind": "chat", "seat": 2, "phrase": None}
    for p in (ann, bob, cal):
        p.close()
