"""The event writers (the thread's, and the loop's group commit): events of many tables stored
together, each table told on the event loop, one table's bad write failing only that table, and a
locked database waited out without stopping the loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa
from server_harness import run_async
from sqlalchemy.engine import Connection

from niugui.server import writer as writer_module
from niugui.server.protocol import EvReady, EvTableCreated, TableSettings
from niugui.server.store import Store, Write
from niugui.server.writer import Checkpointer, LoopWriter, Writer, store_batch


def created(table: str) -> Write:
    event = EvTableCreated(kind="table_created", settings=TableSettings(), creator="a")
    return Write(table, 1, 1.0, "waiting", event, creator="a")


def ready(table: str, seq: int) -> Write:
    return Write(table, seq, 2.0, "waiting", EvReady(kind="ready", seat=0))


def test_many_tables_one_writer_each_told_on_the_loop(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'w.sqlite3'}")
    store.migrate()

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        writer = Writer(store, loop)
        told: dict[str, BaseException | None] = {}
        threads: set[int] = set()
        done = asyncio.Event()
        names = [f"t{n}" for n in range(30)]

        def answer(table: str) -> object:
            def call(error: BaseException | None) -> None:
                told[table] = error
                threads.add(threading.get_ident())
                if len(told) == len(names) + 1:
                    done.set()

            return call

        real, first, go = store.write, threading.Event(), threading.Event()

        def held(writes: object, connection: object = None) -> None:
            if not first.is_set():  # the first transaction waits until everything else is queued
                first.set()
                assert go.wait(30)
            real(writes, connection)  # type: ignore[arg-type]

        store.write = held  # type: ignore[method-assign]
        writer.submit([created(names[0]), ready(names[0], 2)], answer(names[0]))  # type: ignore[arg-type]
        assert await loop.run_in_executor(None, first.wait, 30)
        for name in names[1:]:
            writer.submit([created(name), ready(name, 2)], answer(name))  # type: ignore[arg-type]
        writer.submit([ready("t0", 9)], answer("bad"))  # t0 will be at 2: 9 does not follow
        go.set()
        await asyncio.wait_for(done.wait(), 30)
        writer.close()
        assert threads == {threading.get_ident()}, "callbacks run on the event loop's thread"
        assert isinstance(told.pop("bad"), RuntimeError)
        assert told == dict.fromkeys(names)
        assert all([e.seq for e in store.events(name)] == [1, 2] for name in names)
        assert writer.batches == 2, "all that waited went in one transaction (then one by one)"

    run_async(scenario())


def without_autocheckpoint(store: Store, tables: int, prefix: str = "w") -> None:
    """``tables`` transactions on a connection that never checkpoints by itself (as the writer's)."""
    with store.engine.connect() as c:
        c.exec_driver_sql("PRAGMA wal_autocheckpoint=0")
        c.commit()
        for n in range(tables):
            store.write([created(f"{prefix}{n}")], c)


def new_store(tmp_path: Path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'c.sqlite3'}")
    store.migrate()
    return store


def test_the_checkpointer_copies_the_log_into_the_database(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    checkpointer = Checkpointer(store, lambda: 0, period=3600)  # its own thread never looks here
    try:
        without_autocheckpoint(store, 40)
        with store.engine.connect() as c:
            pages, copied = checkpointer.checkpoint(c)
        assert pages > 40 and copied == pages, "every page of the log is in the database file"
        assert (checkpointer.checkpoints, checkpointer.restarts) == (1, 0)
    finally:
        checkpointer.close()


def test_an_overgrown_log_is_restarted_once_no_reader_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = new_store(tmp_path)
    monkeypatch.setattr(writer_module, "CHECKPOINT_RESTART_PAGES", 10)
    checkpointer = Checkpointer(store, lambda: 0, period=3600)
    reader = sqlite3.connect(tmp_path / "c.sqlite3")
    try:
        without_autocheckpoint(store, 40)
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM tables").fetchone() == (40,)  # it reads the log
        with store.engine.connect() as c:
            c.exec_driver_sql("PRAGMA busy_timeout=50")
            checkpointer.checkpoint(c)
            assert checkpointer.restarts == 0, "a reader of the log blocks the restart"
            reader.rollback()
            checkpointer.checkpoint(c)
            assert checkpointer.restarts == 1
        without_autocheckpoint(store, 1, "again")
        with store.engine.connect() as c:
            pages, _ = checkpointer.checkpoint(c)
        assert pages < 10, "the next transaction wrote the log from its beginning"
    finally:
        reader.close()
        checkpointer.close()


@pytest.mark.parametrize("kind", [Writer, LoopWriter])
def test_the_writer_leaves_checkpoints_to_its_checkpointer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: type[Writer | LoopWriter]
) -> None:
    """The writer's commits do not checkpoint (SQLite's default, inside the commit that fills the
    log); its checkpointer, another thread, copies the log into the database once it has committed."""
    store = new_store(tmp_path)
    monkeypatch.setattr(writer_module, "CHECKPOINT_PERIOD", 0.01)
    autocheckpoint: list[int] = []
    real_write = store.write

    def write(writes: object, connection: Connection | None = None) -> None:
        real_write(writes, connection)  # type: ignore[arg-type]
        assert connection is not None
        autocheckpoint.append(connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one())
        connection.commit()

    store.write = write  # type: ignore[method-assign]
    results: list[tuple[int, int, int]] = []  # (the writer's commits by then, pages, pages copied)
    real_checkpoint = Checkpointer.checkpoint

    def checkpoint(self: Checkpointer, connection: Connection) -> tuple[int, int]:
        commits = self.commits()
        pages, copied = real_checkpoint(self, connection)
        results.append((commits, pages, copied))
        return pages, copied

    monkeypatch.setattr(Checkpointer, "checkpoint", checkpoint)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        writer = kind(store, loop)
        for n in range(30):
            done = asyncio.Event()
            writer.submit([created(f"x{n}")], lambda _error, done=done: done.set())  # type: ignore[misc]
            await asyncio.wait_for(done.wait(), 30)
        assert writer.batches == 30
        for _ in range(3000):  # until it has looked since the last commit
            if results and results[-1][0] == 30:
                break
            await asyncio.sleep(0.01)
        writer.close()

    run_async(scenario())
    commits, pages, copied = results[-1]
    assert commits == 30 and copied == pages > 0, results
    assert set(autocheckpoint) == {0}, "the writer's own connection never checkpoints"


def test_the_loop_writer_stores_a_turns_submissions_in_one_transaction(tmp_path: Path) -> None:
    """What one turn of the loop submits is stored together, at the start of the next turn; every
    ``done`` runs on the loop after the commit; one table's bad write fails that table alone."""
    store = new_store(tmp_path)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        writer = LoopWriter(store, loop)
        told: dict[str, BaseException | None] = {}
        stored_when_told: dict[str, list[int]] = {}
        done = asyncio.Event()
        names = [f"t{n}" for n in range(30)]

        def answer(table: str) -> object:
            def call(error: BaseException | None) -> None:
                assert threading.get_ident() == loop_thread
                told[table] = error
                stored_when_told[table] = [e.seq for e in store.events(table)]
                if len(told) == len(names) + 1:
                    done.set()

            return call

        loop_thread = threading.get_ident()
        for name in names:
            writer.submit([created(name), ready(name, 2)], answer(name))  # type: ignore[arg-type]
        writer.submit([ready("t0", 9)], answer("bad"))  # t0 will be at 2: 9 does not follow
        assert told == {} and writer.batches == 0, "nothing is stored or told within the same turn"
        await asyncio.wait_for(done.wait(), 30)
        writer.close()
        assert isinstance(told.pop("bad"), RuntimeError)
        assert told == dict.fromkeys(names)
        assert all(stored_when_told[name] == [1, 2] for name in names), "stored before being told"
        assert writer.batches == 1, "all of the turn in one batch (one transaction, then one by one)"

    run_async(scenario())


def test_the_loop_writer_waits_out_a_locked_database_without_stopping_the_loop(tmp_path: Path) -> None:
    """Another connection holding the database locked: the events wait (nothing told, nothing lost)
    while the loop goes on; once the lock is gone they are stored and told, in order."""
    store = new_store(tmp_path)
    locker = sqlite3.connect(tmp_path / "c.sqlite3", isolation_level=None, check_same_thread=False)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        writer = LoopWriter(store, loop)
        told: list[tuple[str, BaseException | None]] = []
        both = asyncio.Event()

        def answer(name: str) -> object:
            def call(error: BaseException | None) -> None:
                told.append((name, error))
                if len(told) == 2:
                    both.set()

            return call

        connection = writer._connect()
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one() == 0, "it never waits"
        connection.commit()
        locker.execute("BEGIN IMMEDIATE")  # holds the write lock
        writer.submit([created("a")], answer("a"))  # type: ignore[arg-type]
        for _ in range(10_000):  # the loop runs: the writer keeps trying, by its timer (bounded)
            if writer.locked_retries >= 3:
                break
            await asyncio.sleep(0.001)
        assert writer.locked_retries >= 3
        writer.submit([created("b")], answer("b"))  # type: ignore[arg-type]
        assert told == [] and store.events("a") == []
        locker.execute("ROLLBACK")
        await asyncio.wait_for(both.wait(), 30)
        writer.close()
        assert told == [("a", None), ("b", None)]
        assert [e.seq for e in store.events("a")] == [1] and [e.seq for e in store.events("b")] == [1]

    try:
        run_async(scenario())
    finally:
        locker.close()


def test_a_closing_loop_writer_stores_what_waits(tmp_path: Path) -> None:
    store = new_store(tmp_path)

    async def scenario() -> list[BaseException | None]:
        writer = LoopWriter(store, asyncio.get_running_loop())
        told: list[BaseException | None] = []
        for n in range(5):
            writer.submit([created(f"c{n}")], told.append)
        writer.close()  # before the loop's next turn
        return told

    assert run_async(scenario()) == [None] * 5
    assert all([e.seq for e in store.events(f"c{n}")] == [1] for n in range(5))


def test_a_locked_database_fails_a_batch_at_once_not_one_submission_at_a_time() -> None:
    """A lock is no submission's fault: the batch is refused with one try, not one per table."""
    tries: list[int] = []
    locked = sa.exc.OperationalError("INSERT", {}, sqlite3.OperationalError("database is locked"))

    def write(writes: object) -> None:
        tries.append(len(writes))  # type: ignore[arg-type]
        raise locked

    batch = [([created(f"l{n}")], lambda _error: None) for n in range(5)]
    results = store_batch(write, batch)  # type: ignore[arg-type]
    assert tries == [5] and [error for _, error in results] == [locked] * 5
