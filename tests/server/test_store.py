"""The store against SQLite and a real PostgreSQL (NIUGUI_TEST_PG_URL; skipped, saying why, without one)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from niugui.game import Result
from niugui.server import auth, clubs_store
from niugui.server import friends_store as _friends_tables  # noqa: F401  its tables are on the same metadata
from niugui.server import store as store_module
from niugui.server.events import store as _event_tables  # noqa: F401  its tables are on the same metadata (issue 30)
from niugui.server.events import swiss_store as _swiss_tables  # noqa: F401  its tables too (issue 30, Swiss)
from niugui.server.protocol import (
    EvDeal,
    EvGameOver,
    EvPlay,
    EvReady,
    EvSeatTaken,
    EvTableCreated,
    EvTableFinished,
    PlayerRef,
    ResultView,
    Reveal,
    TableSettings,
)
from niugui.server.store import LedgerEntry, RatedGame, Store, Write, metadata, table_events, tables
from niugui.server.tables import Deal


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        s = Store(f"sqlite:///{tmp_path / 'store.sqlite3'}")
        yield s
        s.close()
        return
    s = Store(request.getfixturevalue("pg_schema_url"))
    yield s
    s.close()


def test_migrations_create_exactly_the_schema_the_code_uses(store: Store) -> None:
    assert clubs_store.clubs.metadata is metadata  # the clubs' tables are declared there too (issue 29)
    store.migrate()
    store.migrate()  # a second start migrates nothing and fails nothing
    with store.engine.connect() as c:
        assert compare_metadata(MigrationContext.configure(c), metadata) == []


def test_accounts_tables_events_games_and_ledger(store: Store) -> None:
    store.migrate()
    token = auth.new_token()
    alice = store.create_account("a1", "阿丽", auth.token_hash(token))
    assert store.account_by_token_hash(auth.token_hash(token)) == alice
    assert store.account_by_token_hash(auth.token_hash("forged")) is None
    assert store.set_credentials("a1", "alice", auth.hash_password("password1"), None)
    store.create_account("b1", "bob", auth.token_hash(auth.new_token()))
    assert not store.set_credentials("b1", "alice", "x", None)  # the username is taken
    found = store.credentials("alice")
    assert found is not None and auth.verify_password(found[1], "password1")

    def write(seq: int, event: Any, status: str = "waiting", **extra: Any) -> Write:
        w = Write("t1", seq, 1000.0 + seq, status, event, **extra)
        store.write([w])
        return w

    settings = TableSettings()
    write(1, EvTableCreated(kind="table_created", settings=settings, creator="a1"), creator="a1")
    player = PlayerRef(id="a1", nickname="阿丽")
    write(2, EvSeatTaken(kind="seat_taken", seat=0, player=player))
    with pytest.raises(RuntimeError, match="sequence"):  # no gap and no duplicate in a table's events
        write(4, EvReady(kind="ready", seat=0))
    with pytest.raises(sa.exc.IntegrityError):
        write(2, EvReady(kind="ready", seat=0))
    deal = EvDeal(kind="deal", game_no=1, game_id=0, first_drawer=0, first_drawer_by="flip", commitment="ab")
    game = Deal(1, 0, ("D4", "S3"), "00", "ab", {"table": "t1"})
    game_id = write(3, deal, "playing", deal=game).game_id
    assert game_id is not None and game_id > 0
    row = store.game(game_id)
    assert row is not None and row.deck == ["D4", "S3"] and row.record is None and row.status == "playing"
    result = ResultView(mode="2v2", outcome="sweep", finish=[0, 2], scores=[2, -2, 2, -2], black=[0, 2])
    record = {"result": result.model_dump(), "meta": {}}
    entries = [
        LedgerEntry(s, "a1" if s == 0 else ("b1" if s == 1 else None), f"p{s}", d)
        for s, d in enumerate([2, -2, 2, -2])
    ]
    reveal = Reveal(scheme="sha256(salt:deck)", commitment="ab", salt="00", deck=["D4", "S3"])
    over = EvGameOver(
        kind="game_over", game_no=1, game_id=game_id, result=result, totals=[2, -2, 2, -2], reveal=reveal
    )
    rated = RatedGame(  # a rated game: only those count on the leaderboard (issue 15, finding 9)
        Result("2v2", "sweep", [0, 2], [2, -2, 2, -2], [0, 2]),
        ("a1", "b1", None, None),
        (None, None, "expert", "expert"),
    )
    stored = write(4, over, "between", record=record, entries=entries, rated=rated)
    assert [e.seq for e in store.events("t1")] == [1, 2, 3, 4]
    assert [e.kind for e in store.events("t1", after=2)] == ["deal", "game_over"]
    assert json.loads(store.events("t1")[2].payload)["game_id"] == game_id
    assert store.events("t1")[3].payload == stored.payload == over.model_dump_json()  # stored as sent
    assert store.table_row("t1")["status"] == "between"  # type: ignore[index]
    assert store.game(game_id).record == record  # type: ignore[union-attr]
    assert [g.id for g in store.games_of("t1")] == [game_id]
    assert [e["delta"] for e in store.table_ledger("t1")] == [2, -2, 2, -2]
    assert store.leaderboard() == [
        {"id": "a1", "nickname": "阿丽", "total": 2, "games": 1},
        {"id": "b1", "nickname": "bob", "total": -2, "games": 1},
    ]
    assert [(h["game_id"], h["delta"], h["outcome"]) for h in store.history("b1")] == [(game_id, -2, "sweep")]
    assert store.table_ids() == ["t1"]
    write(5, EvTableFinished(kind="table_finished", totals=[2, -2, 2, -2]), "finished")
    assert store.table_ids() == [] and store.table_ids(include_finished=True) == ["t1"]


def test_the_store_never_changes_the_events_it_is_handed(store: Store) -> None:
    """Issue 27: a deal's stored event carries the new game's id, the event handed in stays as it was
    (the write's ``game_id`` and ``payload`` say what was stored)."""
    store.migrate()
    settings = TableSettings()
    events = [
        EvTableCreated(kind="table_created", settings=settings, creator="a1"),
        EvSeatTaken(kind="seat_taken", seat=0, player=PlayerRef(id="a1", nickname="阿丽")),
        EvDeal(kind="deal", game_no=1, game_id=0, first_drawer=0, first_drawer_by="flip", commitment="ab"),
    ]
    before = [event.model_dump_json() for event in events]
    writes = [
        Write("t1", 1, 1001.0, "waiting", events[0], creator="a1"),
        Write("t1", 2, 1002.0, "waiting", events[1]),
        Write("t1", 3, 1003.0, "playing", events[2], deal=Deal(1, 0, ("D4", "S3"), "00", "ab", {})),
    ]
    store.write(writes)
    assert [event.model_dump_json() for event in events] == before
    game_id = writes[2].game_id
    assert game_id is not None and game_id > 0 and [w.game_id for w in writes[:2]] == [None, None]
    assert writes[2].payload == store.events("t1")[2].payload
    assert json.loads(writes[2].payload)["game_id"] == game_id


def test_one_transaction_stores_many_tables_events_or_none(store: Store) -> None:
    """Group commit: events of several tables in one write; a write that breaks one table's
    sequence stores nothing at all (the writer then retries each table alone)."""
    store.migrate()
    created = [
        Write(
            t,
            1,
            1.0,
            "waiting",
            EvTableCreated(kind="table_created", settings=TableSettings(), creator="a"),
            creator="a",
        )
        for t in ("t1", "t2")
    ]
    store.write(created)
    ready = [Write(t, 2, 2.0, "waiting", EvReady(kind="ready", seat=0)) for t in ("t1", "t2")]
    ready += [Write("t1", 3, 2.0, "waiting", EvReady(kind="ready", seat=1))]
    store.write(ready)
    assert [e.seq for e in store.events("t1")] == [1, 2, 3] and [e.seq for e in store.events("t2")] == [1, 2]
    broken = [
        Write("t2", 3, 3.0, "waiting", EvReady(kind="ready", seat=2)),
        Write("t1", 9, 3.0, "waiting", EvReady(kind="ready", seat=2)),  # t1 is at 3: 9 does not follow
    ]
    with pytest.raises(RuntimeError, match="sequence"):
        store.write(broken)
    assert [e.seq for e in store.events("t2")] == [1, 2]


def test_migration_0002_renames_stored_play_events(store: Store) -> None:
    """Protocol 2 names a play's cards ``play``: events stored by protocol 1 are rewritten on upgrade
    (so a restarted server rebuilds and sends them with the new names) and back on downgrade."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(store_module.__file__).with_name("migrations")))

    def migrate(to: str, down: bool = False) -> None:
        with store.engine.begin() as connection:
            config.attributes["connection"] = connection
            (command.downgrade if down else command.upgrade)(config, to)

    migrate("0001")
    old = {"kind": "play", "seat": 2, "cards": ["D4", "C4"], "combo": "pair", "by": "player"}
    with store.engine.begin() as c:
        c.execute(
            tables.insert().values(
                id="t1", creator="a", status="playing", last_seq=2, created_at=0.0, updated_at=0.0
            )
        )
        c.execute(
            table_events.insert(),
            [
                {
                    "table_id": "t1",
                    "seq": 1,
                    "kind": "ready",
                    "payload": '{"kind":"ready","seat":0}',
                    "created_at": 0.0,
                },
                {"table_id": "t1", "seq": 2, "kind": "play", "payload": json.dumps(old), "created_at": 0.0},
            ],
        )
    migrate("head")
    stored = [e.payload for e in store.events("t1")]
    assert stored[0] == '{"kind":"ready","seat":0}'
    assert EvPlay.model_validate_json(stored[1]) == EvPlay(
        kind="play", seat=2, play=["D4", "C4"], by="player"
    )
    migrate("0001", down=True)
    assert json.loads(store.events("t1")[1].payload) == old


def test_a_failed_write_never_quotes_a_deck_or_a_salt_in_its_error(store: Store) -> None:
    """Hidden information: a store error is logged with its text (``logs.failure``); SQLAlchemy's
    text quotes the statement's parameters unless told not to — a game's deck and fairness secret."""
    store.migrate()
    deal = EvDeal(kind="deal", game_no=1, game_id=0, first_drawer=0, first_drawer_by="flip", commitment="ab")
    secret = Deal(1, 0, ("D4", "S3", "HQ"), "f00dfacef00dface", "ab", {})
    with pytest.raises(sa.exc.DBAPIError) as failed:  # a deal for a table never created
        store.write([Write("nowhere", 1, 1.0, "playing", deal, deal=secret)])
    text = str(failed.value)
    assert "f00dfacef00dface" not in text and "D4,S3,HQ" not in text and "parameters hidden" in text
