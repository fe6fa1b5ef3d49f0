"""Friends (issue 29, point 6) on a real server, SQLite and PostgreSQL: a request and its acceptance,
the friends list with who is online and where (a private table only as far as the asker may see
it), an invitation from a friend (and none from a stranger), blocking (no friendship, no
invitation, no chat relayed), the people one played with lately — and nothing of a hand in any of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import Player, Server, drive, expect, game_over, ok

WORDS_OF_A_HAND = ("hand", "cards", "view", "deck")


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    db = None if request.param == "sqlite" else request.getfixturevalue("pg_schema_url")
    srv = Server(tmp_path / "data", "--rate-limit", "50", db=db).start()
    yield srv
    srv.stop()


def friends_of(server: Server, who: Player) -> dict[str, Any]:
    found: dict[str, Any] = ok(server, "GET", "/api/me/friends", who)
    assert not any(word in json.dumps(found) for word in WORDS_OF_A_HAND)  # nothing of a hand
    return found


def ids(people: list[dict[str, Any]]) -> list[str]:
    return [p["account_id"] for p in people]


def test_friends_presence_invitations_blocks_and_recent_players(server: Server) -> None:
    ann, bob, cal = (Player(server, name) for name in ("阿安", "阿博", "阿凯"))

    # a request, then its acceptance (the same route both ways)
    assert ok(server, "POST", f"/api/friends/{bob.account_id}", ann) == {"status": "requested"}
    assert ids(friends_of(server, bob)["incoming"]) == [ann.account_id]
    assert ids(friends_of(server, ann)["outgoing"]) == [bob.account_id]
    assert ok(server, "POST", f"/api/friends/{ann.account_id}", bob) == {"status": "friends"}
    mine = friends_of(server, ann)
    assert mine["friends"] == [
        {"account_id": bob.account_id, "nickname": "阿博", "online": True, "where": None}
    ]
    assert mine["incoming"] == mine["outgoing"] == mine["blocked"] == []

    # bad asks: nobody signed in, yourself, nobody at all (as for any missing player)
    expect(server, "GET", "/api/me/friends", None, 401)
    assert (
        expect(server, "POST", f"/api/friends/{ann.account_id}", ann, 422)["detail"]["code"] == "not_yourself"
    )
    assert expect(server, "POST", "/api/friends/nobody", ann, 404)["detail"]["code"] == "no_player"
    assert expect(server, "POST", "/api/blocks/nobody", ann, 404)["detail"]["code"] == "no_player"

    # ann at a private table: her friend bob sees that she is at one, not which (he may not see it)
    table = ann.ok("create_table", settings={"name": "牛鬼之夜", "private": True})["data"]["table"]["id"]
    ann.ok("sit", table=table, seat=0)
    assert friends_of(server, bob)["friends"][0]["where"] == {"private": True}

    # a stranger to the private table finds none; ann may invite only a friend, with the join code
    assert cal.request("invite", table=table, friend=bob.account_id)["code"] == "not_found"
    assert ann.request("invite", table=table, friend=cal.account_id)["code"] == "not_friends"
    assert ann.ok("invite", table=table, friend=bob.account_id)["data"] == {"seat": 1}
    invitation = bob.wait(lambda m: m["type"] == "invitation", what="ann's invitation")
    assert invitation["by"] == "阿安" and invitation["by_id"] == ann.account_id and invitation["seat"] == 1
    assert bob.ok("sit", table=table, seat=1, code=invitation["code"])["data"] == {"seat": 1}
    where = friends_of(server, bob)["friends"][0]["where"]  # now he sits there too: he may see it
    assert where == {"table": table, "seat": 0, "name": "牛鬼之夜", "status": "waiting", "private": True}
    assert ann.request("invite", table=table, friend=bob.account_id)["code"] == "already_seated"

    # bob blocks cal: cal's chat at the table reaches bob with no phrase (no seq missing), ann in full
    assert cal.ok("sit", table=table, seat=2, code=invitation["code"])["data"] == {"seat": 2}
    assert ok(server, "POST", f"/api/blocks/{cal.account_id}", bob) == {"blocked": True}
    assert ids(friends_of(server, bob)["blocked"]) == [cal.account_id]
    cal.ok("chat", table=table, phrase="hurry")
    assert ann.wait_event("chat", seat=2)["event"]["phrase"] == "hurry"
    assert bob.wait_event("chat", seat=2)["event"] == {"kind": "chat", "seat": 2, "phrase": None}
    assert cal.wait_event("chat", seat=2)["event"]["phrase"] == "hurry"

    # blocked: cal's friend request is answered as any other and never shown to bob
    assert ok(server, "POST", f"/api/friends/{bob.account_id}", cal) == {"status": "requested"}
    assert friends_of(server, bob)["incoming"] == []
    # a friendship ends with a block: ann and cal become friends, ann blocks cal, cal cannot invite her
    ok(server, "POST", f"/api/friends/{cal.account_id}", ann)
    assert ok(server, "POST", f"/api/friends/{ann.account_id}", cal) == {"status": "friends"}
    ok(server, "POST", f"/api/blocks/{cal.account_id}", ann)
    assert ids(friends_of(server, ann)["friends"]) == [bob.account_id]
    assert cal.request("invite", table=table, friend=ann.account_id)["code"] == "not_friends"
    assert ok(server, "DELETE", f"/api/blocks/{cal.account_id}", bob) == {"blocked": False}
    assert friends_of(server, bob)["blocked"] == []

    # the people one played with: nobody before a game is over, then the others (bots are not people)
    ann.ok("fill_bots", table=table)
    assert ok(server, "GET", "/api/me/recent", ann) == {"players": []}
    # during the game: bob's list says where ann plays, and nothing of her hand (R11, R12)
    ann.wait(lambda m: m["type"] == "event" and m["event"]["kind"] == "deal", what="the deal")
    hand = (ann.views[table] or {})["hand"]
    assert hand
    during = friends_of(server, bob)
    assert during["friends"][0]["where"]["status"] == "playing"
    assert not any(f'"{card}"' in json.dumps(during) for card in hand)
    drive([ann, bob, cal], table, game_over(ann, table))
    recent = ok(server, "GET", "/api/me/recent", ann)["players"]
    assert sorted(ids(recent)) == sorted([bob.account_id, cal.account_id])
    assert {p["account_id"]: p["friend"] for p in recent} == {bob.account_id: True, cal.account_id: False}
    assert all(set(p) == {"account_id", "nickname", "played_at", "friend"} for p in recent)

    # an unfriended friend is no longer listed, nor invitable
    assert ok(server, "DELETE", f"/api/friends/{ann.account_id}", bob) == {"status": "none"}
    assert friends_of(server, ann)["friends"] == []
    for player in (ann, bob, cal):
        player.close()


def test_an_offline_friend_is_listed_offline_and_not_invited(shared_server: Server) -> None:
    ann = Player(shared_server, "安")
    dan = shared_server.guest("丹")  # an account that never connected
    dan_id, dan_auth = dan["account"]["id"], {"Authorization": f"Bearer {dan['token']}"}
    ok(shared_server, "POST", f"/api/friends/{dan_id}", ann)
    reply = httpx.post(f"{shared_server.url}/api/friends/{ann.account_id}", headers=dan_auth, timeout=10)
    assert reply.json() == {"status": "friends"}
    assert friends_of(shared_server, ann)["friends"] == [
        {"account_id": dan_id, "nickname": "丹", "online": False, "where": None}
    ]
    table = ann.ok("create_table", settings={"name": "t"})["data"]["table"]["id"]
    assert ann.request("invite", table=table, friend=dan_id)["code"] == "friend_offline"
    assert ann.request("invite", table=table)["code"] == "invalid_message"  # name a bot or a friend
    both = ann.request("invite", table=table, friend=dan_id, username="robo")
    assert both["code"] == "invalid_message"
    ann.close()


def test_a_replayed_chat_is_masked_for_whoever_blocks_its_author(shared_server: Server) -> None:
    """Issue 29: a chat read again on reconnect (the events missed, ``replay: true``) reaches someone
    who blocks its author without its phrase, as it did live — even when the author has left the seat
    and someone else sits there now; others read it in full."""
    server = shared_server
    ann, bob, cal, dan = (Player(server, name) for name in ("阿安", "阿博", "阿凯", "阿丹"))
    table = ann.ok("create_table", settings={"name": "重连"})["data"]["table"]["id"]
    ann.ok("sit", table=table, seat=0)
    bob.ok("sit", table=table, seat=1)
    cal.ok("sit", table=table, seat=2)
    ok(server, "POST", f"/api/blocks/{cal.account_id}", bob)
    bob.wait_event("seat_taken", seat=2)
    seen = bob.last_seq[table]
    bob.close()  # bob away: he will read what he missed when he is back
    cal.ok("chat", table=table, phrase="hurry")
    said = ann.wait_event("chat", seat=2)
    assert said["event"]["phrase"] == "hurry"
    cal.ok("stand", table=table)  # the author leaves; someone bob does not block takes the seat
    dan.ok("sit", table=table, seat=2)
    ann.wait_event("seat_taken", seat=2)

    back = Player(server, "阿博", session=bob.session)
    back.ok("watch", table=table, last_seq=seen)
    replayed = back.wait(lambda m: m.get("seq") == said["seq"], what="the chat replayed")
    assert replayed["replay"] is True
    assert replayed["event"] == {"kind": "chat", "seat": 2, "phrase": None}
    other = Player(server, "阿安", session=ann.session)  # the control: ann blocks nobody
    other.ok("watch", table=table, last_seq=seen)
    again = other.wait(lambda m: m.get("seq") == said["seq"], what="the chat replayed to ann")
    assert again["replay"] is True and again["event"]["phrase"] == "hurry"
    for player in (ann, cal, dan, back, other):
        player.close()
