"""Table expiry (niugui/server/expiry.py) alone, without a server: the sweep's rule on fake tables."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa

from niugui.server import auth
from niugui.server.config import Limits
from niugui.server.expiry import Sessions, purge_sessions, run, sweep
from niugui.server.store import Store, sessions

DAY = 86400.0


class FakeTables:
    def __init__(self, rows: list[tuple[str, str, float, int]], store: Sessions | None = None) -> None:
        self.rows = rows
        self.store = store
        self.closed: list[str] = []
        self.forgotten: list[str] = []

    def activity(self) -> Iterator[tuple[str, str, float, int]]:
        yield from self.rows

    def close_abandoned(self, table_id: str) -> None:
        self.closed.append(table_id)

    def forget(self, table_id: str) -> None:
        self.forgotten.append(table_id)


def test_a_table_whose_first_event_is_not_stored_yet_is_never_idle() -> None:
    """A table is registered before its first event is stored (its time is still 0): a sweep in that
    window must not take it for one idle since 1970 and close it under its creator."""
    limits = Limits()
    now = 1_000_000.0
    tables = FakeTables([
        ("new", "waiting", 0.0, 0),
        ("idle", "waiting", now - limits.idle_table_seconds - 1, 0),
        ("watched", "waiting", now - limits.idle_table_seconds - 1, 1),
        ("done", "finished", now - limits.finished_table_seconds - 1, 0),
        ("fresh", "waiting", now - 1, 0),
    ])
    assert sweep(tables, limits, now) == (1, 1)
    assert tables.closed == ["idle"] and tables.forgotten == ["done"]


def store_with_sessions(tmp_path: Path) -> tuple[Store, str, str]:
    """A store with a fresh session and one last used 31 days ago: (store, fresh token, old token)."""
    store = Store(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    store.migrate()
    fresh, old = auth.new_token(), auth.new_token()
    store.create_account("a1", "阿丽", auth.token_hash(fresh))
    store.add_session("a1", auth.token_hash(old))
    with store.engine.begin() as c:
        c.execute(
            sa.update(sessions)
            .where(sessions.c.token_hash == auth.token_hash(old))
            .values(last_used_at=time.time() - 31 * DAY)
        )
    return store, fresh, old


def session_count(store: Store) -> int:
    with store.engine.connect() as c:
        return int(c.execute(sa.select(sa.func.count()).select_from(sessions)).scalar_one())


def test_expired_sessions_are_deleted_and_fresh_ones_kept(tmp_path: Path) -> None:
    """Issue 27: Store.purge_sessions was never called, so expired sessions stayed for ever."""
    store, fresh, old = store_with_sessions(tmp_path)
    assert purge_sessions(store, Limits(session_days=0)) == 0 and session_count(store) == 2  # never expire
    assert purge_sessions(store, Limits(session_days=30.0)) == 1 and session_count(store) == 1
    assert store.account_by_token_hash(auth.token_hash(fresh)) is not None
    assert store.account_by_token_hash(auth.token_hash(old)) is None
    store.close()


def test_the_expiry_task_purges_expired_sessions(tmp_path: Path) -> None:
    """The periodic task the server already runs (expiry.run) purges them, first at its first sweep."""
    store, _, _ = store_with_sessions(tmp_path)

    class Watched:
        """The store, telling the test when a purge has run."""

        def __init__(self, loop: asyncio.AbstractEventLoop, done: asyncio.Event) -> None:
            self.loop, self.done = loop, done

        def purge_sessions(self, max_age: float) -> int:
            purged = store.purge_sessions(max_age)
            self.loop.call_soon_threadsafe(self.done.set)
            return purged

    async def main() -> None:
        done = asyncio.Event()
        tables = FakeTables([], Watched(asyncio.get_running_loop(), done))
        task = asyncio.create_task(run(tables, Limits(finished_table_seconds=0.2, idle_table_seconds=0.2)))
        await asyncio.wait_for(done.wait(), timeout=30)
        task.cancel()

    asyncio.run(main())
    assert session_count(store) == 1
    store.close()
