"""A Swiss event's rows (issue 30) on SQLite and PostgreSQL: registration until the start, one claim
that closes it (so one node runs the event), the start due only when ``starts_at`` was given."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from niugui.server.config import Community
from niugui.server.events.store import EventRow, EventStore
from niugui.server.events.swiss import Swiss
from niugui.server.events.swiss_store import SwissStore
from niugui.server.protocol import EventCreate
from niugui.server.store import Store


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 's.sqlite3'}" if request.param == "sqlite" else None
    s = Store(url or request.getfixturevalue("pg_schema_url"))
    s.migrate()
    yield s
    s.close()


def swiss(store: Store, event_id: str, starts_at: float | None, now: float = 100.0) -> EventRow:
    kind = Swiss()
    body = EventCreate.model_validate({"kind": "swiss", "name": event_id, "starts_at": starts_at})
    settings = kind.settings(body, Community())
    start = now if starts_at is None else starts_at
    event = EventRow(event_id, "swiss", event_id, None, "owner", False, settings, start, start + 86400, now)
    EventStore(store.engine).create(event, kind.created)
    return event


def test_registration_claim_and_the_start_due(store: Store) -> None:
    timed, owners = swiss(store, "timed", starts_at=200.0), swiss(store, "owners", starts_at=None)
    rows = SwissStore(store.engine)
    assert timed.settings["auto_start"] and not owners.settings["auto_start"]
    assert rows.due(150.0) == []  # neither: one starts at 200, the other when its owner says
    assert rows.due(250.0) == ["timed"]
    assert [rows.register("timed", a, a.upper(), t) for a, t in (("b", 1.0), ("a", 2.0), ("b", 3.0))] == [
        True,
        True,
        False,
    ]
    assert rows.entrants("timed") == [("b", "B"), ("a", "A")]  # in the order they registered
    assert rows.phase("timed") == "registering"
    assert rows.claim("timed", 250.0) is True
    assert rows.claim("timed", 251.0) is False  # one claim: one server runs it
    assert rows.register("timed", "c", "C", 252.0) is None  # registration closed
    assert rows.due(300.0) == [] and rows.running() == ["timed"]
    assert rows.claim("owners", 120.0) is True  # its owner started it: starts_at stays (it was now)
    assert EventStore(store.engine).event("owners") is not None
    rows.save("timed", "finished", {"phase": "finished"}, 400.0)
    assert rows.progress("timed") == ("finished", {"phase": "finished"})
    assert rows.running() == ["owners"]


def test_an_owner_starting_early_brings_the_start_forward(store: Store) -> None:
    swiss(store, "early", starts_at=500.0)
    assert SwissStore(store.engine).claim("early", 120.0)
    event = EventStore(store.engine).event("early")
    assert event is not None and event.starts_at == 120.0 and event.status(130.0) == "open"
