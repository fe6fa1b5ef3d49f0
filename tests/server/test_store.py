"""The store against SQLite and a real PostgreSQL (NIUGUI_TEST_PG_URL; skipped, saying why, without one)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from niugui.server import auth
from niugui.server.store import LedgerEntry, Store, metadata


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

    store.create_table("t1", "a1", None, {"kind": "table_created", "settings": {}, "creator": "a1"})
    store.append("t1", 2, {"kind": "seat_taken", "seat": 0, "player": {"id": "a1"}}, "waiting")
    with pytest.raises(RuntimeError, match="sequence"):  # no gap and no duplicate in a table's events
        store.append("t1", 4, {"kind": "ready", "seat": 0}, "waiting")
    with pytest.raises(sa.exc.IntegrityError):
        store.append("t1", 2, {"kind": "ready", "seat": 0}, "waiting")
    deal = {"kind": "deal", "game_no": 1, "game_id": 0, "first_drawer": 0}
    game = {
        "game_no": 1,
        "first_drawer": 0,
        "deck": ["D4", "S3"],
        "salt": "00",
        "commitment": "ab",
        "meta": {"table": "t1"},
    }
    game_id, _ = store.start_game("t1", 3, deal, game)
    assert deal["game_id"] == game_id
    row = store.game(game_id)
    assert row is not None and row.deck == ["D4", "S3"] and row.record is None and row.status == "playing"
    record = {"result": {"outcome": "sweep", "scores": [2, -2, 2, -2]}, "meta": {}}
    entries = [
        LedgerEntry(s, "a1" if s == 0 else ("b1" if s == 1 else None), f"p{s}", d)
        for s, d in enumerate([2, -2, 2, -2])
    ]
    store.finish_game("t1", 4, {"kind": "game_over"}, "between", game_id, record, entries)
    assert [e.seq for e in store.events("t1")] == [1, 2, 3, 4]
    assert [e.kind for e in store.events("t1", after=2)] == ["deal", "game_over"]
    assert store.events("t1")[2].payload["game_id"] == game_id
    assert store.table_row("t1")["status"] == "between"  # type: ignore[index]
    assert store.game(game_id).record == record  # type: ignore[union-attr]
    assert [e["delta"] for e in store.table_ledger("t1")] == [2, -2, 2, -2]
    assert store.leaderboard() == [
        {"id": "a1", "nickname": "阿丽", "total": 2, "games": 1},
        {"id": "b1", "nickname": "bob", "total": -2, "games": 1},
    ]
    assert [(h["game_id"], h["delta"], h["outcome"]) for h in store.history("b1")] == [(game_id, -2, "sweep")]
    assert store.table_ids() == ["t1"]
    store.append("t1", 5, {"kind": "table_finished", "totals": [2, -2, 2, -2]}, "finished")
    assert store.table_ids() == [] and store.table_ids(include_finished=True) == ["t1"]
