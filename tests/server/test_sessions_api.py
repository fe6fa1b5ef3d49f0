"""Sessions over the real server (issue 29), on SQLite and PostgreSQL: a 2-game session played by
real clients to its settlement (totals equal to the ledger, summing to zero, R36), a dissolve agreed
by all after game 1, the result card (a valid PNG whose lines name every player and total), and a
stranger answered as for a table that does not exist. Nothing of a hand reaches a session's answer."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from server_harness import Player, Server, call, drive, game_over

from niugui.cards import CARDS
from niugui.server import card
from niugui.server.sessions import SessionStore
from niugui.server.store import Store, sqlite_url


def sit_two(ann: Player, bob: Player, games: int) -> str:
    table: str = ann.ok("create_table", settings={"name": "周五局", "private": True, "games": games})["data"][
        "table"
    ]["id"]
    code = ann.states[table]["code"] if table in ann.states else None
    ann.ok("sit", table=table, seat=0)
    code = ann.states[table]["code"]
    bob.ok("sit", table=table, seat=1, code=code)
    ann.ok("fill_bots", table=table)
    return table


def no_card_in(answer: Any) -> None:
    """No card code appears anywhere in the answer (neither a hand nor a play)."""
    codes = {str(c) for c in CARDS}
    text = json.dumps(answer, ensure_ascii=False)
    assert not [code for code in codes if f'"{code}"' in text]


def session_of(server: Server, table: str, player: Player) -> dict[str, Any]:
    reply = call(server, "GET", f"/api/tables/{table}/session", player)
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer


def check_against_ledger(server: Server, table: str, player: Player, session: dict[str, Any]) -> None:
    reply = call(server, "GET", f"/api/tables/{table}/ledger", player)
    totals: Counter[str] = Counter()
    for e in reply.json()["entries"]:
        totals[e["account_id"] or f"seat{e['seat']}"] += e["delta"]
    mine = {p["account_id"] or f"seat{p['seat']}": p["total"] for p in session["players"]}
    assert mine == dict(totals) and sum(mine.values()) == 0  # R36


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_a_two_game_session_settles_and_a_dissolve_ends_one(tmp_path: Path, db: str, request: Any) -> None:
    url = request.getfixturevalue("pg_schema_url") if db == "postgresql" else None
    server = Server(tmp_path / "data", "--rate-limit", "50", db=url).start()
    try:
        ann, bob, eve = Player(server, "阿丽"), Player(server, "bob"), Player(server, "eve")
        table = sit_two(ann, bob, games=2)
        ann.wait_event("deal", game_no=1)
        playing = session_of(server, table, bob)  # a game in progress adds nothing
        assert playing["games_played"] == 0 and not playing["finished"] and playing["ended_by"] is None
        no_card_in(playing)
        drive([ann, bob], table, game_over(ann, table))
        ann.ok("ready", table=table)
        bob.ok("ready", table=table)
        ann.wait_event("deal", game_no=2)
        drive([ann, bob], table, game_over(ann, table))
        ann.wait_event("table_finished")
        session = session_of(server, table, ann)
        assert session["finished"] and session["ended_by"] == "games" and session["games_played"] == 2
        assert session["games"] == 2 and session["name"] == "周五局" and session["club"] is None
        check_against_ledger(server, table, ann, session)
        first = [p for p in session["players"] if p["place"] == 1 and p["total"] > 0]
        assert session["winners"] == [p["seat"] for p in first]
        assert all(p["games"] == 2 and p["upstream"] <= p["won"] + 2 for p in session["players"])
        assert sum(p["upstream"] for p in session["players"]) <= 2

        png = call(server, "GET", f"/api/tables/{table}/session.png", bob)
        assert png.status_code == 200 and png.headers["content-type"] == "image/png"
        image = Image.open(io.BytesIO(png.content))
        image.verify()
        assert image.format == "PNG" and image.size[0] == card.WIDTH
        store = Store(url or sqlite_url(tmp_path / "data"))
        stored = SessionStore(store.engine).session(table)
        assert stored is not None and stored.as_json() == session
        lines = [(line.text, line.right) for line in card.card_lines(stored, "", f"x/#/table/{table}")]
        for p in session["players"]:
            name = p["nickname"] if p["account_id"] else f"机器人{p['seat'] + 1}"  # a server bot by its seat
            assert any(name in text and card.signed(p["total"]) == right for text, right in lines), lines
        store.close()

        # a stranger, and a table that does not exist: the same answer
        for path in (f"/api/tables/{table}/session", f"/api/tables/{table}/session.png"):
            stranger = call(server, "GET", path, eve)
            nothing = call(server, "GET", path.replace(table, "nosuchtb"))
            assert stranger.status_code == nothing.status_code == 404
            assert stranger.text.replace(table, "nosuchtb") == nothing.text and "no_table" in nothing.text
        mine = call(server, "GET", "/api/me/sessions", bob).json()["sessions"]
        assert [s["table"] for s in mine] == [table] and mine[0] == session
        assert call(server, "GET", "/api/me/sessions", eve).json() == {"sessions": []}

        # a dissolve agreed by all after game 1: the totals so far, never an escape
        second = sit_two(ann, bob, games=4)
        drive([ann, bob], second, game_over(ann, second))
        ann.ok("dissolve", table=second, agree=True)
        bob.wait_event("dissolve_proposed", seat=0)
        bob.ok("dissolve", table=second, agree=True)
        ann.wait_event("dissolve_ended", outcome="agreed")
        ann.wait_event("table_finished")
        ended = session_of(server, second, bob)
        assert ended["ended_by"] == "dissolved" and ended["games_played"] == 1 and ended["finished"]
        check_against_ledger(server, second, bob, ended)
        assert not [m for m in ann.received if m.get("event", {}).get("kind") == "escape"]
        for p in (ann, bob, eve):
            p.close()
    finally:
        server.stop()
