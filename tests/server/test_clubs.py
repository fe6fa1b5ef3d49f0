"""Issue 29, points 1, 2 and 7: clubs with real clients on SQLite and PostgreSQL — a club made, joined
by code, its rooms (members only, the club's preset, never in the public lobby), a game played in one,
the club's standings from its rooms' ledger; roles, requests, hand-over, closing a room; and a stranger
refused everywhere with the same answer as for a club that does not exist."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import Player, Server, call, drive, game_over, ok, registered


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    db = None if request.param == "sqlite" else request.getfixturevalue("pg_schema_url")
    # scripted players act as fast as the machine lets them (four at one table: more than the 20
    # messages a second a person's connection may send, on a quiet machine); the limit is not tested here
    srv = Server(tmp_path / "data", "--rate-limit", "1000", db=db).start()
    yield srv
    srv.stop()


def no_club(reply: httpx.Response, club: str) -> str:
    """The words of a 404 ``no_club``, the club's id blanked (to compare answers)."""
    assert reply.status_code == 404 and reply.json()["detail"]["code"] == "no_club", reply.text
    return reply.text.replace(club, "X")


def test_a_club_its_rooms_and_standings(server: Server) -> None:
    owner, ann, bob, cat = (
        registered(server, "东家"),
        Player(server, "安"),
        Player(server, "波"),
        Player(server, "猫"),
    )
    stranger = Player(server, "路人")
    guest_tries = call(server, "POST", "/api/clubs", ann, name="guests own none")
    assert guest_tries.status_code == 403 and guest_tries.json()["detail"]["code"] == "registered_only"
    club = ok(server, "POST", "/api/clubs", owner, name="周五牌局")["club"]
    cid, code = club["id"], club["invite_code"]
    assert club["role"] == "owner" and club["name"] == "周五牌局"

    # a stranger: the same answer as for no club, on every door
    nothing = no_club(call(server, "GET", "/api/clubs/nosuchclub", stranger), "nosuchclub")
    for method, path, body in [
        ("GET", f"/api/clubs/{cid}", {}),
        ("GET", f"/api/clubs/{cid}/leaderboard?period=all", {}),
        ("POST", f"/api/clubs/{cid}/join", {"code": code.upper() if code.upper() != code else "wrong1"}),
        ("POST", f"/api/clubs/{cid}/join", {}),  # no code: this club takes no requests
        ("DELETE", f"/api/clubs/{cid}/members/{owner.account_id}", {}),
    ]:
        assert no_club(call(server, method, path, stranger, **body), cid) == nothing, path
    assert call(server, "GET", f"/api/clubs/{cid}").status_code == 401  # nobody signed in

    for friend in (ann, bob, cat):  # guests join by the invite code
        assert ok(server, "POST", f"/api/clubs/{cid}/join", friend, code=code)["role"] == "member"
    assert [c["id"] for c in ok(server, "GET", "/api/me/clubs", ann)["clubs"]] == [cid]
    assert "invite_code" not in ok(server, "GET", "/api/me/clubs", ann)["clubs"][0]  # the owner's/admins'

    # the preset: the owner's only; every new room carries it
    assert call(server, "PATCH", f"/api/clubs/{cid}", ann, preset={"games": 2}).status_code == 403
    ok(server, "PATCH", f"/api/clubs/{cid}", owner, preset={"games": 2, "counter": False})
    created = ann.ok("create_table", settings={"name": "一号房", "club": cid, "games": 9})["data"]["table"]
    room = created["id"]
    assert created["settings"]["games"] == 2 and created["settings"]["counter"] is False
    assert created["private"] and created["settings"]["club"] == cid

    # members only: the room is nowhere for a stranger, not even with its code
    for answer in (
        stranger.request("watch", table=room),
        stranger.request("sit", table=room, code=created["code"]),
        stranger.request("watch", table=created["code"]),
        stranger.request("create_table", settings={"club": cid}),
        stranger.request("create_table", settings={"club": "nosuchclub"}),
    ):
        assert answer["type"] == "error" and answer["code"] == "not_found", answer
    assert all(t["id"] != room for t in server.get("/api/tables?limit=100")["tables"])
    page = ok(server, "GET", f"/api/clubs/{cid}", bob)
    assert [r["id"] for r in page["rooms"]] == [room] and page["rooms"][0]["code"] == created["code"]
    assert {m["nickname"]: m["online"] for m in page["members"]} == {
        "东家": True,
        "安": True,
        "波": True,
        "猫": True,
    }

    # four members play a game there
    players = [ann, bob, cat, owner]
    for seat, p in enumerate(players):
        p.ok("sit", table=room, seat=seat)
    for p in players:
        p.wait_event("deal")
    hands = {card for p in players for card in (p.views[room] or {}).get("hand", [])}
    assert len(hands) > 40  # every seat's hand, as each player sees it
    text = call(server, "GET", f"/api/clubs/{cid}", owner).text
    assert not {card for card in hands if f'"{card}"' in text}  # nothing of a hand on the club page
    page = ok(server, "GET", f"/api/clubs/{cid}", owner)
    assert {m["table"] for m in page["members"]} == {room}  # who is online, and at which room
    drive(players, room, game_over(ann, room))
    ledger = ok(server, "GET", f"/api/tables/{room}/ledger", owner)["entries"]
    assert len(ledger) == 4 and sum(e["delta"] for e in ledger) == 0  # R36
    assert (
        call(server, "GET", f"/api/tables/{room}/ledger?code={created['code']}", stranger).status_code == 404
    )

    def standings(period: str) -> dict[str, int]:
        rows = ok(server, "GET", f"/api/clubs/{cid}/leaderboard?period={period}", cat)["players"]
        return {r["account_id"]: r["total"] for r in rows}

    expected = {e["account_id"]: e["delta"] for e in ledger}
    assert standings("all") == standings("week") == standings("month") == expected
    other = ann.ok("create_table", settings={"name": "not the club's"})["data"]["table"]["id"]
    assert other not in {s["table"] for s in ok(server, "GET", f"/api/clubs/{cid}", ann)["sessions"]}
    sessions = ok(server, "GET", f"/api/clubs/{cid}", ann)["sessions"]
    assert [s["table"] for s in sessions] == [room] and sessions[0]["games"] == 1
    assert {p["account_id"]: p["total"] for p in sessions[0]["players"]} == expected
    assert call(server, "GET", f"/api/clubs/{cid}/leaderboard?period=year", cat).status_code == 422

    # roles: an admin, removing a member, handing over, closing a room
    assert (
        call(server, "POST", f"/api/clubs/{cid}/members/{bob.account_id}", ann, role="admin").status_code
        == 403
    )
    ok(server, "POST", f"/api/clubs/{cid}/members/{ann.account_id}", owner, role="admin")
    spare = bob.ok("create_table", settings={"club": cid})["data"]["table"]["id"]
    assert call(server, "DELETE", f"/api/clubs/{cid}/rooms/{spare}", cat).status_code == 403
    ok(server, "DELETE", f"/api/clubs/{cid}/rooms/{spare}", ann)
    assert spare not in [r["id"] for r in ok(server, "GET", f"/api/clubs/{cid}", ann)["rooms"]]
    ok(server, "DELETE", f"/api/clubs/{cid}/members/{cat.account_id}", ann)
    assert no_club(call(server, "GET", f"/api/clubs/{cid}", cat), cid) == nothing
    cat.wait_event("seat_left", seat=2, reason="removed")  # between games: unseated at once (issue 29)
    assert cat.request("create_table", settings={"club": cid})["code"] == "not_found"  # no new one
    assert (
        call(server, "POST", f"/api/clubs/{cid}/owner", owner, account_id=bob.account_id).status_code == 403
    )
    hand = call(server, "DELETE", f"/api/clubs/{cid}/members/{owner.account_id}", ann)
    assert hand.status_code == 403 and hand.json()["detail"]["code"] == "club_role"
    for p in (owner, ann, bob, cat, stranger):
        p.close()


def kinds(player: Player, table: str) -> list[tuple[str, Any, Any]]:
    """(kind, seat, reason) of every event of ``table`` the player received, in order."""
    return [
        (m["event"]["kind"], m["event"].get("seat"), m["event"].get("reason"))
        for m in player.received
        if m["type"] == "event" and m["table"] == table
    ]


def test_a_removed_member_is_unseated_from_the_club_rooms(server: Server) -> None:
    """Issue 29: a member removed (or leaving) loses their seats at the club's rooms — during a game
    they play it out and leave when it is over (no escape, R35: the club removed them); between
    games at once — and cannot sit there again."""
    owner, ann, bob = registered(server, "东家"), Player(server, "安"), Player(server, "波")
    cat = Player(server, "猫")
    club = ok(server, "POST", "/api/clubs", owner, name="周六")["club"]
    for friend in (ann, bob, cat):
        ok(server, "POST", f"/api/clubs/{club['id']}/join", friend, code=club["invite_code"])
    ok(server, "PATCH", f"/api/clubs/{club['id']}", owner, preset={"games": 3})
    room = ann.ok("create_table", settings={"club": club["id"]})["data"]["table"]["id"]
    players = [owner, ann, bob, cat]
    for seat, p in enumerate(players):
        p.ok("sit", table=room, seat=seat)
    owner.wait_event("deal")
    ok(server, "DELETE", f"/api/clubs/{club['id']}/members/{bob.account_id}", owner)
    bob.wait_event("leaving", seat=2, reason="removed")
    assert bob.views[room]["hand"]  # still holds cards: plays the game out
    drive(players, room, game_over(owner, room))
    owner.wait_event("seat_left", seat=2, reason="removed")
    assert ("escape", 2, "removed") not in kinds(owner, room)
    ledger = ok(server, "GET", f"/api/tables/{room}/ledger", owner)["entries"]
    assert sum(e["delta"] for e in ledger) == 0 and min(e["delta"] for e in ledger) > -9  # no escape

    ok(server, "DELETE", f"/api/clubs/{club['id']}/members/{cat.account_id}", cat)  # leaves by itself
    owner.wait_event("seat_left", seat=3, reason="removed")
    assert owner.states[room]["status"] == "between"
    assert [s["player"] is not None for s in owner.states[room]["seats"]] == [True, True, False, False]
    for outsider in (bob, cat):
        refused = outsider.request("sit", table=room, seat=2)
        assert refused["type"] == "error", refused
    for p in players:
        p.close()


def test_joining_by_request_and_handing_over(server: Server) -> None:
    owner, heir, asker = registered(server, "主"), registered(server, "继"), Player(server, "问")
    cid = ok(server, "POST", "/api/clubs", owner, name="申请制")["club"]["id"]
    ok(server, "PATCH", f"/api/clubs/{cid}", owner, by_request=True)
    assert ok(server, "POST", f"/api/clubs/{cid}/join", asker)["role"] == "pending"
    assert call(server, "GET", f"/api/clubs/{cid}", asker).status_code == 404  # not a member yet
    assert asker.request("create_table", settings={"club": cid})["code"] == "not_found"
    waiting = ok(server, "GET", f"/api/clubs/{cid}", owner)["members"]
    assert [(m["nickname"], m["role"]) for m in waiting] == [("主", "owner"), ("问", "pending")]
    ok(server, "POST", f"/api/clubs/{cid}/members/{asker.account_id}", owner, role="member")
    assert ok(server, "GET", f"/api/clubs/{cid}", asker)["club"]["role"] == "member"
    ok(server, "PATCH", f"/api/clubs/{cid}", owner, preset={"bots": False, "spectators": False})
    room = asker.ok("create_table", settings={"club": cid})["data"]["table"]
    assert room["settings"]["club"] == cid
    assert asker.request("fill_bots", table=room["id"])["code"] == "forbidden"  # people only
    assert owner.request("watch", table=room["id"])["code"] == "forbidden"  # no spectators ...
    assert owner.ok("sit", table=room["id"], seat=2)["data"] == {"seat": 2}  # ... a seat is fine
    assert owner.ok("watch", table=room["id"])["data"] == {"seat": 2}
    code = ok(server, "GET", f"/api/clubs/{cid}", owner)["club"]["invite_code"]
    ok(server, "POST", f"/api/clubs/{cid}/join", heir, code=code)
    assert (
        call(server, "POST", f"/api/clubs/{cid}/owner", owner, account_id=asker.account_id).status_code == 403
    )
    assert (
        ok(server, "POST", f"/api/clubs/{cid}/owner", owner, account_id=heir.account_id)["owner"]
        == heir.account_id
    )
    roles = {m["nickname"]: m["role"] for m in ok(server, "GET", f"/api/clubs/{cid}", heir)["members"]}
    assert roles == {"主": "admin", "继": "owner", "问": "member"}
    ok(server, "DELETE", f"/api/clubs/{cid}/members/{owner.account_id}", owner)  # the old owner leaves
    assert call(server, "GET", f"/api/clubs/{cid}", owner).status_code == 404
    for p in (owner, heir, asker):
        p.close()


def test_club_limits(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", "--limit", "club_members=2", "--limit", "club_rooms=1").start()
    try:
        owner, one, two = registered(srv, "主"), Player(srv, "一"), Player(srv, "二")
        club = ok(srv, "POST", "/api/clubs", owner, name="小")["club"]
        ok(srv, "POST", f"/api/clubs/{club['id']}/join", one, code=club["invite_code"])
        full = call(srv, "POST", f"/api/clubs/{club['id']}/join", two, code=club["invite_code"])
        assert full.status_code == 403 and full.json()["detail"]["code"] == "club_limit"
        one.ok("create_table", settings={"club": club["id"]})
        assert owner.request("create_table", settings={"club": club["id"]})["code"] == "forbidden"
        for p in (owner, one, two):
            p.close()
    finally:
        srv.stop()
