"""The event writer thread: events of many tables stored together, each table told on the event loop,
and one table's bad write failing only that table."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from server_harness import run_async

from niugui.server.protocol import EvReady, EvTableCreated, TableSettings
from niugui.server.store import Store, Write
from niugui.server.writer import Writer


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
