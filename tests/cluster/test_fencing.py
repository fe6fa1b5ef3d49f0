"""The store's fencing (SQLite and PostgreSQL): an event append is refused when the writer's token is
older than the table's (a node that lost its lease), or when its seq does not follow the stored one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from niugui.server.protocol import EvReady, EvTableCreated, TableSettings
from niugui.server.store import StaleWrite, Store, Write


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'fence.sqlite3'}" if request.param == "sqlite" else None
    s = Store(url or request.getfixturevalue("pg_schema"))
    s.migrate()
    yield s
    s.close()


def ready(seq: int, fence: int) -> Write:
    return Write("t1", seq, float(seq), "waiting", EvReady(kind="ready", seat=0), fence=fence)


def test_a_stale_token_or_a_gap_is_refused_and_nothing_changes(store: Store) -> None:
    created = EvTableCreated(kind="table_created", settings=TableSettings(), creator="a1")
    store.write([Write("t1", 1, 1.0, "waiting", created, creator="a1", fence=1)])
    store.write([ready(2, 1)])
    assert store.claim("t1", 2)  # another node took the table over with a newer lease
    assert not store.claim("t1", 2) and not store.claim("t1", 1)  # a token is never taken twice
    with pytest.raises(StaleWrite):
        store.write([ready(3, 1)])  # the old owner, late
    with pytest.raises(StaleWrite):
        store.write([ready(4, 2)])  # the new owner, but seq 3 is missing
    assert [e.seq for e in store.events("t1")] == [1, 2]
    store.write([ready(3, 2)])
    assert [e.seq for e in store.events("t1")] == [1, 2, 3]
    with pytest.raises(StaleWrite):
        store.write([ready(4, 1)])
    assert store.table_row("t1")["fence"] == 2  # type: ignore[index]


def test_a_takeover_claims_and_reads_its_tables_in_one_transaction(store: Store) -> None:
    """``stored_tables`` with fences (a survivor's batch): each table's token raised before its events
    are read; a table held with a newer token left out; the old owner's late write refused."""
    for table in ("t1", "t2"):
        created = EvTableCreated(kind="table_created", settings=TableSettings(), creator="a1")
        store.write([Write(table, 1, 1.0, "waiting", created, creator="a1", fence=1)])
    assert store.claim("t2", 5)  # another node holds t2 with a newer token
    read = store.stored_tables(["t1", "t2"], recent=8, fences={"t1": 2, "t2": 3})
    assert list(read) == ["t1"] and [e.seq for e in read["t1"].events] == [1] and read["t1"].saved is None
    assert store.table_row("t1")["fence"] == 2 and store.table_row("t2")["fence"] == 5  # type: ignore[index]
    with pytest.raises(StaleWrite):
        store.write([ready(2, 1)])  # the dead owner, late
