"""Issue 30, point 4: a Swiss's registration is open until the start, both ways — an entrant takes
their entry back (``DELETE /api/events/{id}/join``), may enter again, and once the event has
started neither entering nor leaving is possible (``409 event_started``), the entrants unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_harness import Server
from test_events_swiss import call, code_of, ok, registered


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "data").start()
    yield srv
    srv.stop()


def test_an_entrant_leaves_and_comes_back_before_the_start_only(server: Server) -> None:
    owner, ann = registered(server, "东家"), registered(server, "阿安")
    event = ok(server, "POST", "/api/events", owner, kind="swiss", name="周六瑞士")["event"]["id"]
    path = f"/api/events/{event}/join"
    assert ok(server, "POST", path, ann) == {"registered": True, "entrants": 1}
    assert ok(server, "DELETE", path, ann) == {"registered": False, "entrants": 0}
    assert ok(server, "DELETE", path, ann) == {"registered": False, "entrants": 0}  # again: the same
    page = ok(server, "GET", f"/api/events/{event}", ann)
    assert page["entrants"] == [] and page["me"] == {"registered": False}
    assert code_of(call(server, "DELETE", path)) == (401, "unauthorized")
    assert code_of(call(server, "DELETE", "/api/events/nosuch/join", ann)) == (404, "no_event")

    ok(server, "POST", path, ann)
    ok(server, "POST", path, owner)
    assert ok(server, "POST", f"/api/events/{event}/start", owner) == {"started": True}
    assert code_of(call(server, "DELETE", path, ann)) == (409, "event_started")
    names = {e["nickname"] for e in ok(server, "GET", f"/api/events/{event}", ann)["entrants"]}
    assert names == {"阿安", "东家"}
