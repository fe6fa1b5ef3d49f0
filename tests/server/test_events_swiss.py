"""Issue 30, point 4: a Swiss tournament for people over the WebSocket — registration until the
start, rounds paired at tables of four and seated as ordinary tables, one absentee played by a bot
(托管) and counted absent, live standings and a page per round, the final table; a club's Swiss
only for its members (the same 404 as for no event)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import WAIT, Player, Server, call, my_turn, ok, play_turn, registered, wait_until

from niugui.server.events.swiss_standings import PLACE_POINTS, places

FAST = ("--rate-limit", "1000")
"""Scripted people at one address play faster than the fair-use caps allow people (they are off)."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "data", *FAST).start()
    yield srv
    srv.stop()


def code_of(reply: httpx.Response) -> tuple[int, str]:
    return reply.status_code, reply.json()["detail"]["code"]


def seated_in(player: Player, round_no: int) -> dict[str, Any] | None:
    """The ``event_seated`` message ``player`` got for ``round_no`` (read so far), if any."""
    for message in player.received:
        if message["type"] == "event_seated" and message["round"] == round_no:
            return message
    return None


def finished(player: Player, table: str) -> bool:
    return any(
        m["type"] == "event" and m["table"] == table and m["event"]["kind"] == "table_finished"
        for m in player.received
    )


READY: set[tuple[str, str, int]] = set()
"""(account, table, game number) where a player has said ready (once each)."""


def take_turns(player: Player, tables: list[str]) -> bool:
    """At each of ``tables``: play on ``player``'s turn (the simplest legal play), or say ready
    between games (once a game); True if it did anything."""
    acted = False
    for table in tables:
        state = player.states.get(table)
        if my_turn(player, table):
            answer = play_turn(player, table)
            assert answer["type"] == "ack", (answer, player.tail(8))
            acted = True
        elif state is not None and state["status"] == "between":
            mine = [s for s in state["seats"] if s["player"] and s["player"]["id"] == player.account_id]
            key = (player.account_id, table, state["game_no"])
            if mine and not mine[0]["ready"] and key not in READY:
                READY.add(key)
                answer = player.request("ready", table=table)
                assert answer["type"] == "ack", (answer, player.tail(8))
                acted = True
    return acted


def tables_of(player: Player, rounds: int) -> list[str]:
    return [s["table"] for r in range(1, rounds + 1) if (s := seated_in(player, r)) is not None]


def play_rounds(
    server: Server, players: list[Player], event: str, rounds: int, pages: dict[int, Any] | None = None
) -> dict[str, Any]:
    """Every present player takes their turns at their table of each round (bots play the other
    seats) until the event's page says it is finished. ``pages``: the page as it is when every
    player has been seated for round r (r > 1), by r."""
    deadline = time.monotonic() + 6 * WAIT
    while True:
        progressed = False
        for player in players:
            progressed |= player.pump()
            player.pending.clear()
            progressed |= take_turns(player, tables_of(player, rounds))
        for r in range(2, rounds + 1):
            if pages is not None and r not in pages and all(seated_in(p, r) for p in players):
                pages[r] = ok(server, "GET", f"/api/events/{event}", players[0])
        last = [seated_in(p, rounds) for p in players]
        if all(s is not None and finished(p, s["table"]) for p, s in zip(players, last, strict=True)):
            page: dict[str, Any] = ok(server, "GET", f"/api/events/{event}", players[0])
            if page["phase"] == "finished":
                return page
        if time.monotonic() > deadline:
            tails = {p.session["account"]["nickname"]: p.tail(3) for p in players}
            raise TimeoutError(f"the Swiss did not finish; last received: {tails}")
        if not progressed:
            time.sleep(0.005)


def test_a_swiss_of_eight_runs_two_rounds_to_its_final_table_with_one_absentee(server: Server) -> None:
    owner = registered(server, "东家")
    people = [owner, *(Player(server, name) for name in ("安", "缺席", "波", "猫", "狗", "鸡", "鸭"))]
    absentee = people[2]
    soon = time.time() + 3600  # registration stays open until the owner starts it
    event = ok(
        server, "POST", "/api/events", owner, kind="swiss", name="周六瑞士", rounds=2, games=1, starts_at=soon
    )["event"]
    eid = event["id"]
    assert event["settings"]["place_points"] == list(PLACE_POINTS) and event["settings"]["rounds"] == 2
    for person in people:
        assert ok(server, "POST", f"/api/events/{eid}/join", person)["registered"] is True
    again = ok(server, "POST", f"/api/events/{eid}/join", people[1])
    assert again == {"registered": True, "entrants": 8}
    page = ok(server, "GET", f"/api/events/{eid}", people[1])
    assert page["phase"] == "registering" and len(page["entrants"]) == 8 and page["me"]["registered"]
    assert code_of(call(server, "POST", f"/api/events/{eid}/start", people[1])) == (403, "event_owner")
    early = people[1].request("play_event", event=eid)
    assert early["type"] == "error" and early["code"] == "bad_state", early  # not started: no table

    absentee.drop()  # not connected when round 1 begins: a bot plays the seat (托管)
    present = [p for p in people if p is not absentee]
    assert ok(server, "POST", f"/api/events/{eid}/start", owner) == {"started": True}
    assert code_of(call(server, "POST", f"/api/events/{eid}/start", owner)) == (409, "event_started")
    late = call(server, "POST", f"/api/events/{eid}/join", Player(server, "迟到"))
    assert code_of(late) == (409, "event_started")

    # in play, nobody watches another table of the event (its cards are its seats' alone)
    first, other = present[0], present[-1]
    wait_until(present, lambda: all(seated_in(p, 1) is not None for p in present), "round 1's seating")
    mine, theirs = seated_in(first, 1), seated_in(other, 1)
    assert mine is not None and theirs is not None and mine["table"] != theirs["table"]
    refused = first.request("watch", table=theirs["table"])
    assert refused["type"] == "error" and refused["code"] in ("forbidden", "not_found"), refused
    assert not any(m.get("table") == theirs["table"] for m in first.received if m["type"] != "event_seated")

    pages: dict[int, Any] = {}
    final = play_rounds(server, present, eid, rounds=2, pages=pages)

    # live standings: as round 2 begins, round 1's games are counted (the absentee's by the bot)
    live = pages[2]
    assert live["phase"] == "running" and live["final"] is None and len(live["rounds"]) == 2
    assert all(t["done"] and len(t["games"]) == 1 for t in live["rounds"][0]["tables"])
    assert sorted(s["games"] for s in live["standings"]) == [1] * 8
    assert sum(s["score"] for s in live["standings"]) == sum(
        sum(PLACE_POINTS[p] for p in places(g["finish"]))
        for t in live["rounds"][0]["tables"]
        for g in t["games"]
    )

    # each present person was seated once per round, at a table of the event's with three others
    for person in present:
        tables = [seated_in(person, r) for r in (1, 2)]
        assert all(t is not None for t in tables)
    rounds = final["rounds"]
    assert [r["round"] for r in rounds] == [1, 2]
    met: list[frozenset[str]] = []
    for rnd in rounds:
        assert rnd["absent"] == [absentee.account_id]
        assert len(rnd["tables"]) == 2 and all(t["bots"] == 0 for t in rnd["tables"])  # 8: no bot fills
        seated = [s["account_id"] for t in rnd["tables"] for s in t["seats"]]
        assert sorted(seated) == sorted(p.account_id for p in people)  # everyone once, tables of four
        for table in rnd["tables"]:
            assert table["done"] and len(table["games"]) == 1
            for s in table["seats"]:
                assert s["autoplay"] == (s["account_id"] == absentee.account_id)
            round_met = [
                frozenset(pair) for pair in combinations([s["account_id"] for s in table["seats"]], 2)
            ]
            met += round_met
    # eight at two tables twice: each first table's four split 2 + 2 at best, so 4 pairs meet again
    assert len(met) - len(set(met)) == 4

    # the standings: place points (R30) summed over the recorded games, the games' points as tie-break
    expected: dict[str, list[int]] = {p.account_id: [0, 0, 0] for p in people}
    for rnd in rounds:
        for table in rnd["tables"]:
            for game in table["games"]:
                for seat, place in enumerate(places(game["finish"])):
                    line = expected[table["seats"][seat]["account_id"]]
                    line[0] += PLACE_POINTS[place]
                    line[1] += game["scores"][seat]
                    line[2] += 1
    lines = final["final"]
    assert lines == final["standings"] and len(lines) == 8
    assert {s["account_id"]: [s["score"], s["points"], s["games"]] for s in lines} == expected
    keys = [(-s["score"], -s["points"]) for s in lines]
    assert keys == sorted(keys) and [s["rank"] for s in lines] == list(range(1, 9))
    gone = next(s for s in lines if s["account_id"] == absentee.account_id)
    assert gone["absences"] == 2 and gone["dropped"] is True  # absent twice: dropped from later rounds
    assert all(s["absences"] == 0 and not s["dropped"] for s in lines if s is not gone)

    # nothing hidden leaks: the page names tables, never their join codes or cards
    text = call(server, "GET", f"/api/events/{eid}", present[0]).text
    assert '"code"' not in text and '"hand"' not in text
    after = present[0].request("play_event", event=eid)
    assert after["type"] == "error" and after["code"] == "bad_state", after  # nothing left to play


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    db = None if request.param == "sqlite" else request.getfixturevalue("pg_schema_url")
    srv = Server(tmp_path / "data", *FAST, db=db).start()
    yield srv
    srv.stop()


def test_a_clubs_swiss_is_for_its_members_and_starts_at_its_time(any_db_server: Server) -> None:
    """A club's Swiss: a stranger gets the answer of no event at all; it starts by itself at
    ``starts_at``; one entrant plays with three bots filling the table (1 is not a multiple of 4)."""
    server = any_db_server
    owner, member, stranger = registered(server, "东家"), Player(server, "会员"), Player(server, "路人")
    club = ok(server, "POST", "/api/clubs", owner, name="周五牌局")["club"]
    ok(server, "POST", f"/api/clubs/{club['id']}/join", member, code=club["invite_code"])
    bad = call(server, "POST", "/api/events", owner, kind="swiss", name="x", place_points=[1, 2, 3, 4])
    assert code_of(bad) == (422, "invalid_input")
    starts = time.time() + 6  # time enough to register; the server looks every 2 s
    body = {"kind": "swiss", "name": "俱乐部瑞士", "club": club["id"], "starts_at": starts, "rounds": 1}
    eid = ok(server, "POST", "/api/events", owner, **body)["event"]["id"]
    assert ok(server, "POST", f"/api/events/{eid}/join", member)["entrants"] == 1
    nothing = call(server, "POST", "/api/events/nosuchevent/join", stranger)
    for method, path in (("POST", f"/api/events/{eid}/join"), ("GET", f"/api/events/{eid}")):
        refused = call(server, method, path, stranger)
        assert code_of(refused) == code_of(nothing) == (404, "no_event"), path
        assert refused.text.replace(eid, "X") == nothing.text.replace("nosuchevent", "X")
    refused_ws = stranger.request("play_event", event=eid)
    assert refused_ws["type"] == "error" and refused_ws["code"] == "not_found", refused_ws

    wait_until([member], lambda: seated_in(member, 1) is not None, "the start at starts_at", 4 * WAIT)
    assert time.time() >= starts
    late = call(server, "POST", f"/api/events/{eid}/join", owner)
    assert code_of(late) == (409, "event_started")
    final = play_rounds(server, [member], eid, rounds=1)
    (table,) = final["rounds"][0]["tables"]
    assert table["bots"] == 3 and [s["bot"] for s in table["seats"]] == [False, True, True, True]
    (line,) = final["final"]
    assert line["account_id"] == member.account_id and line["games"] == 1 and line["bot_games"] == 1


def test_a_restarted_server_carries_on_its_swiss(tmp_path: Path) -> None:
    """Two games a round; the server killed between round 1's games: on restart it reads the games
    played back from the table's stored events, watches the table again, and the rounds go on."""
    server = Server(tmp_path / "data", *FAST).start()
    try:
        owner = registered(server, "东家")
        people = [owner, Player(server, "安"), Player(server, "波"), Player(server, "猫")]
        body = {"kind": "swiss", "name": "重启", "rounds": 2, "games": 2, "starts_at": time.time() + 3600}
        eid = ok(server, "POST", "/api/events", owner, **body)["event"]["id"]
        for person in people:
            ok(server, "POST", f"/api/events/{eid}/join", person)
        ok(server, "POST", f"/api/events/{eid}/start", owner)
        wait_until(people, lambda: all(seated_in(p, 1) is not None for p in people), "round 1's seating")
        first = seated_in(owner, 1)
        assert first is not None
        table = first["table"]

        def game_one_over() -> bool:
            return all(
                any(m["type"] == "event" and m["event"]["kind"] == "game_over" for m in p.received)
                for p in people
            )

        deadline = time.monotonic() + 2 * WAIT
        while not game_one_over():
            assert time.monotonic() < deadline, "round 1's first game did not end"
            for player in people:
                player.pump()
                player.pending.clear()
                if my_turn(player, table):
                    assert play_turn(player, table)["type"] == "ack"
        server.kill()
        for player in people:
            player.ws = None

        server.start()
        for player in people:
            player.connect()
            back = player.ok("play_event", event=eid)  # back at the round's table
            assert back["data"]["table"]["id"] == table
        final = play_rounds(server, people, eid, rounds=2)
        assert [len(t["games"]) for r in final["rounds"] for t in r["tables"]] == [2, 2]
        assert all(r["absent"] == [] for r in final["rounds"])
        assert sorted(s["games"] for s in final["final"]) == [4, 4, 4, 4]
        for person in people:
            person.close()
    finally:
        server.stop()
