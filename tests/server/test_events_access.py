"""Issue 30, who makes and sees events, with real clients: a registered account makes its club's
duplicate event (members only: to anyone else it answers as an event that does not exist, over HTTP
and ``play_event``) and an unlisted link event (anyone with its id plays; the list shows it to its
owner only); guests make none; a Swiss event is refused until the server has the kind; the daily
challenge is listed to everyone, and made by a fresh server without anyone asking."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from server_harness import WAIT, Player, Server, call, ok, registered

from niugui.server.events.daily import day_of


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("events") / "data", "--rate-limit", "50").start()
    yield srv
    srv.stop()


def refused(reply: httpx.Response, status: int, code: str) -> str:
    detail = reply.json()["detail"]
    said = "invalid_input" if isinstance(detail, list) else detail["code"]  # a list: pydantic's field checks
    assert reply.status_code == status and said == code, reply.text
    return str(said)


def test_club_and_link_events(server: Server) -> None:
    owner, member, stranger = registered(server, "主"), Player(server, "员"), Player(server, "客")
    club = ok(server, "POST", "/api/clubs", owner, name="周六牌社")["club"]
    ok(server, "POST", f"/api/clubs/{club['id']}/join", member, code=club["invite_code"])
    made = ok(
        server, "POST", "/api/events", owner, kind="duplicate", name="周六复式", boards=2, club=club["id"]
    )
    event = made["event"]
    assert (event["club"], event["listed"], event["status"], event["settings"]) == (
        club["id"],
        False,
        "open",
        {"boards": 2, "bot_level": "expert"},
    )
    page = ok(server, "GET", f"/api/events/{event['id']}", member)
    assert [b["board"] for b in page["boards"]] == [1, 2] and page["standings"] == []
    assert all(set(b) == {"board", "commitment", "played"} for b in page["boards"])
    # to a stranger (and to nobody signed in) the club's event is as if it did not exist
    missing = call(server, "GET", "/api/events/nosuchevent", stranger)
    assert refused(missing, 404, "no_event") == refused(
        call(server, "GET", f"/api/events/{event['id']}", stranger), 404, "no_event"
    )
    refused(call(server, "GET", f"/api/events/{event['id']}"), 404, "no_event")
    for who, what in ((stranger, event["id"]), (stranger, "nosuchevent")):
        answer = who.request("play_event", event=what)
        assert answer["type"] == "error" and answer["code"] == "not_found", answer
    listed = ok(server, "GET", "/api/events", member)["events"]
    assert event["id"] in [e["id"] for e in listed]
    assert event["id"] not in [e["id"] for e in ok(server, "GET", "/api/events", stranger)["events"]]
    seated = member.ok("play_event", event=event["id"])["data"]["table"]
    assert seated["private"] and seated["name"].endswith("· 1")
    # an unlisted link: anyone with its id sees and plays it; only its owner has it in the list
    link = ok(server, "POST", "/api/events", owner, kind="duplicate", name="链接赛", boards=1)["event"]
    assert ok(server, "GET", f"/api/events/{link['id']}", stranger)["event"]["id"] == link["id"]
    assert link["id"] in [e["id"] for e in ok(server, "GET", "/api/events", owner)["events"]]
    assert link["id"] not in [e["id"] for e in ok(server, "GET", "/api/events", stranger)["events"]]
    assert stranger.ok("play_event", event=link["id"])["data"]["table"]["private"]


def test_who_makes_an_event_and_with_what(server: Server) -> None:
    guest, owner = Player(server, "游"), registered(server, "东")
    refused(call(server, "POST", "/api/events", guest, kind="duplicate", name="x"), 403, "registered_only")
    refused(call(server, "POST", "/api/events", None, kind="duplicate", name="x"), 401, "unauthorized")
    swiss = {"kind": "swiss", "name": "x", "place_points": [0, 1, 2, 3]}  # 上游 worth least (issue 30)
    refused(call(server, "POST", "/api/events", owner, **swiss), 422, "invalid_input")
    refused(
        call(server, "POST", "/api/events", owner, kind="duplicate", name="x", bot_level="search"),
        422,
        "invalid_input",
    )
    refused(
        call(server, "POST", "/api/events", owner, kind="duplicate", name="x", boards=0), 422, "invalid_input"
    )
    refused(
        call(server, "POST", "/api/events", owner, kind="duplicate", name="x", club="noclub"), 404, "no_club"
    )
    refused(
        call(server, "POST", "/api/events", owner, kind="duplicate", name="x", ends_at=1.0),
        422,
        "invalid_input",
    )
    later = ok(
        server, "POST", "/api/events", owner, kind="duplicate", name="明天", starts_at=4e9, ends_at=4e9 + 3600
    )
    assert later["event"]["status"] == "upcoming"
    answer = owner.request("play_event", event=later["event"]["id"])
    assert answer["type"] == "error" and answer["code"] == "bad_state", answer
    everyone = ok(server, "GET", "/api/events")
    daily = ok(server, "GET", "/api/events/daily")
    assert daily["today"]["event"]["id"] in [e["id"] for e in everyone["events"]]
    assert daily["today"]["event"]["settings"] == {"boards": 8, "bot_level": "expert"}
    assert daily["today"]["me"] is None and daily["yesterday"] is None


def test_a_fresh_server_makes_the_daily_by_itself(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", "--community", "daily_boards=3").start()
    try:
        url = f"sqlite:///{tmp_path / 'data' / 'niugui.sqlite3'}"
        engine = sa.create_engine(url)
        deadline = time.monotonic() + WAIT
        rows: list[Any] = []
        while not rows:  # nobody asked for it: the server made it at its start
            assert time.monotonic() < deadline, "no daily challenge was made"
            with engine.connect() as c:
                rows = c.execute(sa.text("SELECT id, daily_date FROM events")).all()
            time.sleep(0.05)
        engine.dispose()
        [(made, date)] = rows
        assert date == day_of(time.time()).date
        assert srv.get("/api/events/daily")["today"]["event"]["id"] == made
        assert len(srv.get(f"/api/events/{made}")["boards"]) == 3
    finally:
        srv.stop()
