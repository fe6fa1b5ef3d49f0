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
