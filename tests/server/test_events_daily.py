"""Issue 30: the daily challenge is made once a day however many nodes ask (the database's unique
``daily_date``), from midnight to midnight server time, with the configured boards and bots; and what a
duplicate event shows a viewer — nothing of a board before they finished it, everything once the
event is over."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from niugui.server.config import Community
from niugui.server.events.boards import new_board, verify_board
from niugui.server.events.daily import daily, day_of, yesterday
from niugui.server.events.duplicate import Duplicate, shown
from niugui.server.events.store import EntryRow, EventRow, EventStore
from niugui.server.store import Store


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'events.sqlite3'}" if request.param == "sqlite" else None
    s = Store(url or request.getfixturevalue("pg_schema_url"))
    s.migrate()
    yield s
    s.close()


def test_the_daily_is_made_once_by_two_nodes(store: Store) -> None:
    community = Community(daily_boards=3, daily_bot_level="basic")
    now = day_of(1_800_000_000.0).starts_at + 3600
    node_a, node_b = EventStore(store.engine), EventStore(store.engine)  # two nodes, one database
    made = daily(node_a, Duplicate(), community, now)
    again = daily(node_b, Duplicate(), community, now + 60)
    assert again.id == made.id and made.settings == {"boards": 3, "bot_level": "basic"}
    assert (made.starts_at, made.ends_at, made.status(now)) == (
        day_of(now).starts_at,
        day_of(now).ends_at,
        "open",
    )
    assert len(node_b.boards(made.id)) == 3
    # a node that had not seen it yet and inserts its own loses, and reads the first one's
    late = EventRow(
        "other", "duplicate", "x", None, "server", True, made.settings, 0.0, 1.0, now, made.daily_date
    )
    assert node_b.create(late, Duplicate().created) is False
    assert node_b.event("other") is None and node_b.boards("other") == []
    tomorrow = daily(node_a, Duplicate(), community, made.ends_at + 1)
    assert tomorrow.id != made.id and yesterday(node_a, made.ends_at + 1) == made


def test_a_board_is_shown_only_once_finished_or_after_the_event() -> None:
    event = EventRow(
        "e1", "duplicate", "d", None, "o", True, {"boards": 2, "bot_level": "expert"}, 0.0, 100.0, 0.0
    )
    boards = [new_board("e1", 1), new_board("e1", 2)]
    entries = [
        EntryRow("e1", "ann", 1, "安", "t1", boards[0].seat, 1.0, 5, 11, "c1"),
        EntryRow("e1", "bob", 1, "鲍", "t2", boards[0].seat, 2.0, -5, 12, "c2"),
        EntryRow("e1", "bob", 2, "鲍", "t3", boards[1].seat, 3.0),  # bob plays board 2 now
    ]
    for viewer in ("cy", None, "bob"):  # cy and nobody finished nothing; bob has not finished board 2
        page = shown(event, boards, entries, viewer, now=50.0)
        hidden = page["boards"] if viewer != "bob" else page["boards"][1:]
        assert all(set(b) <= {"board", "commitment", "played", "mine"} for b in hidden), hidden
    bob = shown(event, boards, entries, "bob", now=50.0)
    assert [r["account_id"] for r in bob["boards"][0]["results"]] == ["ann", "bob"]
    assert bob["boards"][1]["mine"] == {
        "status": "playing",
        "table": "t3",
        "score": None,
        "matchpoints": None,
    }
    assert bob["me"]["playing"] == 2 and bob["me"]["next_board"] == 2
    assert [(s["account_id"], s["matchpoints"], s["percent"]) for s in bob["standings"]] == [
        ("ann", 1.0, 100.0),
        ("bob", 0.0, 0.0),
    ]
    after = shown(event, boards, entries, "cy", now=100.0)  # the event is over: everything, to anyone
    assert after["boards"][0]["results"][0]["replay"] == "/api/games/11/replay?code=c1"
    assert all(verify_board(b["commitment"], b["reveal"]) for b in after["boards"])
    assert after["boards"][1]["results"] == [] and after["me"]["boards_done"] == 0


def test_an_entry_once_per_board_and_forgotten_with_its_table(store: Store) -> None:
    events = EventStore(store.engine)
    made = daily(events, Duplicate(), Community(daily_boards=1), 1_800_000_000.0)
    entry = EntryRow(made.id, "ann", 1, "安", "t1", 2, 1.0)
    assert events.enter(entry) is True
    assert events.enter(EntryRow(made.id, "ann", 1, "安", "t2", 2, 2.0)) is False  # the same board again
    [stored] = events.entries(made.id)
    assert (stored.table_id, stored.score, stored.game_id) == ("t1", None, None)  # no game over yet
    events.drop_table("t1")  # its table could not be opened
    assert events.entries(made.id) == [] and events.enter(entry) is True
