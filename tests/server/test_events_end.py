"""Issue 30: the reveal when a duplicate event ends. An event whose end comes a few seconds after it is
made; one entrant plays its first board. Before the end, another account is shown nothing of that
board (no seat, no statement, no results) and its replay is refused; once the event is over (waited
for by reading the event until it says so, not by a sleep), every board shows everyone its seat, the
committed statement (which verifies), every result with its matchpoints and replay — the board nobody
played too — and ``play_event`` is refused. The board's table's state names its event (a table of no event: no
key)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import WAIT, Player, Server, drive, game_over
from test_events_restart import make_event

from niugui.server.events.boards import verify_board

LEFT = 20.0
"""Seconds between the event's making and its end: a board of random bots, on a loaded machine."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "data", "--rate-limit", "50").start()
    yield srv
    srv.stop()


def shown(server: Server, event: str, who: Player | None) -> dict[str, Any]:
    headers = {} if who is None else {"Authorization": f"Bearer {who.token}"}
    reply = httpx.get(f"{server.url}/api/events/{event}", headers=headers, timeout=30)
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


def test_every_board_revealed_when_the_event_ends(server: Server) -> None:
    event = make_event(server, boards=2, bot_level="random", ends_at=time.time() + LEFT)
    ann, cy = Player(server, "安"), Player(server, "丛")
    table = ann.ok("play_event", event=event)["data"]["table"]["id"]
    drive([ann], table, game_over(ann, table))
    assert ann.states[table]["event"] == event  # the table's state names its event
    before = shown(server, event, cy)
    assert before["event"]["status"] == "open", "the board took longer than the event: raise LEFT"
    assert all(set(b) == {"board", "commitment", "played"} for b in before["boards"]), before["boards"]
    replay = shown(server, event, ann)["boards"][0]["results"][0]["replay"]
    cy_auth = {"Authorization": f"Bearer {cy.token}"}
    assert httpx.get(server.url + replay, headers=cy_auth, timeout=30).status_code == 404
    deadline = time.monotonic() + LEFT + WAIT
    while (after := shown(server, event, cy))["event"]["status"] != "finished":
        assert time.monotonic() < deadline, "the event did not end"
        time.sleep(0.2)  # between two reads of the event (what is waited for is its status)
    for board in after["boards"]:  # to someone who played none of them
        assert verify_board(board["commitment"], board["reveal"])
        assert board["seat"] == board["reveal"]["seat"]
    first, second = after["boards"]
    assert [r["account_id"] for r in first["results"]] == [ann.account_id]
    assert first["results"][0]["matchpoints"] == 0 and second["results"] == []
    assert shown(server, event, None)["boards"][0]["results"] == first["results"]  # anonymous readers too
    assert httpx.get(server.url + replay, headers=cy_auth, timeout=30).status_code == 200
    refused = cy.request("play_event", event=event)
    assert refused["type"] == "error", refused
    other = cy.ok("create_table", settings={})["data"]["table"]["id"]
    cy.wait(lambda m: m.get("table") == other and "state" in m, what="the new table's state")
    assert "event" not in cy.states[other]  # a table of no event: no key
    for p in (ann, cy):
        p.close()
