"""The event writer: table events are stored off the event loop, many tables' events per transaction.

A table hands its events to :meth:`Writer.submit` and sends nothing until the writer says they are
stored (``done(None)``, called on the event loop); so every event is in the database before anyone
receives it, and a slow commit delays only the tables waiting for it. The writer thread takes
everything that waits when it wakes and stores it in one transaction (group commit); if that fails,
it stores each submission alone, so one table's bad write does not fail the others.

:class:`InlineWriter` does the same synchronously, in the caller's thread (tests, tools).
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from prometheus_client import Counter
from sqlalchemy.engine import Connection

from . import logs
from .store import Store, Write, is_locked

Done = Callable[[BaseException | None], None]
LOCKED_PAUSE, LOCKED_PAUSE_MAX = 0.05, 1.0
"""Seconds the writer waits before trying a locked database again (doubling up to the maximum), on
top of the store's own busy timeout."""
CLOSING_PATIENCE = 10.0
"""Seconds a closing writer keeps trying a locked database before it gives the write up."""
SWITCH_INTERVAL = 0.0005
"""Seconds the interpreter lets one thread run before another waiting for the GIL gets it."""


class EventWriter(Protocol):
    def submit(self, writes: Sequence[Write], done: Done) -> None:
        """Store ``writes`` (in order); then call ``done`` with None, or with what failed."""

    def close(self) -> None:
        """Store what waits, then stop."""


class InlineWriter:
    """Writes at once, in the caller's thread."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def submit(self, writes: Sequence[Write], done: Done) -> None:
        try:
            self.store.write(writes)
        except Exception as error:
            done(error)
        else:
            done(None)

    def close(self) -> None:
        pass


class Writer:
    """A writer thread with group commit; ``done`` callbacks run on ``loop``."""

    def __init__(
        self, store: Store, loop: asyncio.AbstractEventLoop, locked_retries: Counter | None = None
    ) -> None:
        """``locked_retries``: a metric counting the writes tried again because the database was locked."""
        self.store = store
        self.loop = loop
        self._waiting: list[tuple[Sequence[Write], Done]] = []
        self._wake = threading.Condition()
        self._closing = False
        self._connection: Connection | None = None  # kept open: no pool checkout per transaction
        self.batches = 0
        """Transactions so far (for benchmarks: events per transaction)."""
        self.locked_retries = 0
        self.locked_retries_metric = locked_retries
        # The writer needs the GIL for a moment per batch; by default a busy event loop would hold
        # it for up to 5 ms before handing over, and every table waiting on that batch with it.
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        self._thread = threading.Thread(target=self._run, name="niugui-event-writer", daemon=True)
        self._thread.start()

    def submit(self, writes: Sequence[Write], done: Done) -> None:
        with self._wake:
            if self._closing:
                raise RuntimeError("the event writer is closed")
            self._waiting.append((writes, done))
            self._wake.notify()

    def close(self) -> None:
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._thread.join()

    def _run(self) -> None:
        try:
            self._loop()
        finally:
            if self._connection is not None:
                self._connection.close()

    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._waiting and not self._closing:
                    self._wake.wait()
                batch, self._waiting = self._waiting, []
                if not batch and self._closing:
                    return
            results = self._store(batch)
            try:
                self.loop.call_soon_threadsafe(_deliver, results)
            except RuntimeError:  # the loop is closed: nobody waits any more
                return

    def _store(self, batch: list[tuple[Sequence[Write], Done]]) -> list[tuple[Done, BaseException | None]]:
        self.batches += 1
        try:
            self._write([w for writes, _ in batch for w in writes])
            return [(done, None) for _, done in batch]
        except Exception as error:
            if len(batch) == 1:
                return [(batch[0][1], error)]
        results: list[tuple[Done, BaseException | None]] = []
        for writes, done in batch:  # one by one: only the table whose write fails is told so
            try:
                self._write(writes)
                results.append((done, None))
            except Exception as error:
                results.append((done, error))
        return results

    def _write(self, writes: Sequence[Write]) -> None:
        """Store ``writes`` in one transaction; while another process holds the database locked,
        wait and try again (the tables waiting on it wait too; nothing is refused or lost), except
        that once the writer is closing it gives up after :data:`CLOSING_PATIENCE` seconds."""
        pause, gave_up_at = LOCKED_PAUSE, None
        while True:
            try:
                self._write_once(writes)
                return
            except Exception as error:
                if not is_locked(error):
                    raise
                if self._closing:
                    gave_up_at = gave_up_at or time.monotonic() + CLOSING_PATIENCE
                    if time.monotonic() > gave_up_at:
                        raise
                self.locked_retries += 1
                if self.locked_retries_metric is not None:
                    self.locked_retries_metric.inc()
                if pause == LOCKED_PAUSE:  # once per stall
                    logs.warning("the database is locked by another connection; the writer waits")
                time.sleep(pause)
                pause = min(2 * pause, LOCKED_PAUSE_MAX)

    def _write_once(self, writes: Sequence[Write]) -> None:
        if self._connection is None:
            self._connection = self.store.engine.connect()
        try:
            self.store.write(writes, self._connection)
        except Exception:
            self._connection.close()  # it may be broken (the database restarted): a new one next time
            self._connection = None
            raise


def _deliver(results: list[tuple[Done, BaseException | None]]) -> None:
    for done, error in results:
        try:
            done(error)
        except Exception:
            logs.exception("a table failed after its events were stored")
