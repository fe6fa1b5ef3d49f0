"""The event writers: table events are stored without stopping the tables, many tables' per transaction.

A table hands its events to ``submit`` and sends nothing until the writer says they are stored
(``done(None)``, called on the event loop); so every event is in the database before anyone
receives it. Both writers group-commit: what waits is stored in one transaction, and if that fails
each submission is stored alone, so one table's bad write does not fail the others.

- :class:`LoopWriter` (SQLite, the default): what a turn of the event loop submitted is stored at
  the start of the next, in one transaction on the loop's thread. A commit of SQLite in WAL mode
  with ``synchronous=NORMAL`` syncs nothing: it appends the transaction's pages to the log (about
  0.13 ms of CPU for one event, 0.24 ms for five, all of it in the store's code and SQLite's), and
  it never waits — a database locked by another connection is tried again later, by a timer, the
  tables waiting meanwhile. Handing each batch to a thread and back had cost more than that: two
  wake-ups and the interpreter's lock changing hands twice per action (docs/benchmarks.md, "The
  event writer on the loop, a lazy turn timer, and garbage collection paced by the clock").
- :class:`Writer` (PostgreSQL, a cluster): a thread, since a commit there is a network round trip.

On SQLite a :class:`Checkpointer` thread copies the write-ahead log into the database, outside the
writer's commits. :class:`InlineWriter` stores synchronously, in the caller's thread (tests, tools).
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
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from . import logs
from .store import Store, Write, is_locked

Done = Callable[[BaseException | None], None]
Batch = list[tuple[Sequence[Write], Done]]
Results = list[tuple[Done, BaseException | None]]
LOCKED_PAUSE, LOCKED_PAUSE_MAX = 0.05, 1.0
"""Seconds the writer waits before trying a locked database again (doubling up to the maximum), on
top of the store's own busy timeout."""
LOOP_LOCKED_PAUSE, LOOP_LOCKED_PAUSE_MAX = 0.002, 0.25
"""Seconds the :class:`LoopWriter` waits before trying a locked database again, doubling up to the
maximum: a checkpoint that restarts the log holds it for milliseconds, and the tables then wait at
most about as long again; a lock held for seconds (another process) costs at most four tries a
second, each of which serializes the waiting events again before its first statement is refused."""
CLOSING_PATIENCE = 10.0
"""Seconds a closing writer keeps trying a locked database before it gives the write up."""
SWITCH_INTERVAL = 0.0005
"""Seconds the interpreter lets one thread run before another waiting for the GIL gets it."""
CHECKPOINT_PERIOD = 0.5
"""Seconds between the checkpointer's looks at SQLite's write-ahead log."""
CHECKPOINT_RESTART_PAGES = 2_000
"""Pages (4 KiB) in the write-ahead log past which the checkpointer makes the writer wait until the
log is copied, so that it starts again from its beginning (:class:`Checkpointer`)."""
CHECKPOINT_BUSY_MS = 100
"""How long a restarting checkpoint waits for a reader or the writer before it gives up (the writer
waits meanwhile); the next one tries again."""


def short_switch_interval() -> None:
    """Let a thread waiting for the interpreter's lock have it after :data:`SWITCH_INTERVAL`: by
    default a busy event loop holds it for up to 5 ms before handing over (to the writer thread, and
    every table waiting on its batch) and a thread holds it as long before the loop gets it back
    (the dealer's seal keys, the bots' executor, the checkpointer)."""
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))


def own_connection(store: Store, *pragmas: str) -> Connection:
    """A connection of the store's kept by one thread, with SQLite ``pragmas`` run on it: when done,
    ``invalidate()`` it rather than ``close()``, so that the pragmas never reach the pool's users."""
    connection = store.engine.connect()
    for pragma in pragmas:
        connection.exec_driver_sql(f"PRAGMA {pragma}")
    connection.commit()
    return connection


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


class GroupWriter:
    """What both group-committing writers share: the store, the loop their ``done`` callbacks run
    on, what waits, and the counts of transactions and of writes tried again on a locked database."""

    def __init__(
        self, store: Store, loop: asyncio.AbstractEventLoop, locked_retries: Counter | None = None
    ) -> None:
        """``locked_retries``: a metric counting the writes tried again because the database was locked."""
        self.store = store
        self.loop = loop
        self._waiting: Batch = []
        self.batches = 0
        """Transactions so far (for benchmarks: events per transaction)."""
        self.locked_retries = 0
        self.locked_retries_metric = locked_retries
        short_switch_interval()

    def _store(self, batch: Batch) -> Results:
        self.batches += 1
        return store_batch(self._write, batch)

    def _write(self, writes: Sequence[Write]) -> None:
        """Store ``writes`` in one transaction."""
        raise NotImplementedError

    def _count_locked(self) -> None:
        self.locked_retries += 1
        if self.locked_retries_metric is not None:
            self.locked_retries_metric.inc()


class Writer(GroupWriter):
    """A writer thread with group commit; ``done`` callbacks run on ``loop``."""

    def __init__(
        self, store: Store, loop: asyncio.AbstractEventLoop, locked_retries: Counter | None = None
    ) -> None:
        super().__init__(store, loop, locked_retries)
        self._wake = threading.Condition()
        self._closing = False
        self._connection: Connection | None = None  # kept open: no pool checkout per transaction
        self.sqlite = store.engine.dialect.name == "sqlite"
        self._pragmas = ("wal_autocheckpoint=0",) if self.sqlite else ()
        """On SQLite its checkpointer checkpoints, outside this thread's commits."""
        self._checkpointer: Checkpointer | None = None
        if self.sqlite:
            self._checkpointer = Checkpointer(store, lambda: self.batches, CHECKPOINT_PERIOD)
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
        if self._checkpointer is not None:
            self._checkpointer.close()

    def _run(self) -> None:
        try:
            self._loop()
        finally:
            if self._connection is not None:
                self._connection.invalidate()  # not back to the pool (own_connection)

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
                self._count_locked()
                if pause == LOCKED_PAUSE:  # once per stall
                    logs.warning("the database is locked by another connection; the writer waits")
                time.sleep(pause)
                pause = min(2 * pause, LOCKED_PAUSE_MAX)

    def _write_once(self, writes: Sequence[Write]) -> None:
        try:
            if self._connection is None:
                self._connection = own_connection(self.store, *self._pragmas)
            self.store.write(writes, self._connection)
        except Exception:
            if self._connection is not None:  # it may be broken (the database restarted): a new one next time
                self._connection.invalidate()
                self._connection = None
            raise


class LoopWriter(GroupWriter):
    """Group commit on the event loop (SQLite): what one turn of the loop submitted is stored in one
    transaction at the start of the next, and its ``done`` callbacks run right after the commit.

    The loop never waits on the database: its connection does not wait for a lock
    (``busy_timeout=0``); a batch that finds the database locked — by another process, or by the
    checkpointer restarting the log — stays queued, with whatever arrives meanwhile, and is tried
    again by a timer (:data:`LOOP_LOCKED_PAUSE`, doubling up to :data:`LOOP_LOCKED_PAUSE_MAX`). Its
    connection never checkpoints (:class:`Checkpointer` does, from its own thread).
    """

    def __init__(
        self, store: Store, loop: asyncio.AbstractEventLoop, locked_retries: Counter | None = None
    ) -> None:
        super().__init__(store, loop, locked_retries)
        self._due = False  # a flush is scheduled
        self._closed = False
        self._pause = LOOP_LOCKED_PAUSE
        self._connection: Connection | None = None
        self._checkpointer = Checkpointer(store, lambda: self.batches, CHECKPOINT_PERIOD)
        self._connect()  # now, at startup: never later from a pool that others may hold empty

    def submit(self, writes: Sequence[Write], done: Done) -> None:
        if self._closed:
            raise RuntimeError("the event writer is closed")
        self._waiting.append((writes, done))
        if not self._due:
            self._due = True
            self.loop.call_soon(self._flush)

    def close(self) -> None:
        """Store what waits (waiting out a lock as the thread writer does), then stop."""
        self._closed = True
        give_up = time.monotonic() + CLOSING_PATIENCE
        while self._waiting:
            batch, self._waiting = self._waiting, []
            results = self._store(batch)
            again, told = split_locked(batch, results)
            if again and time.monotonic() < give_up:
                self._waiting = again + self._waiting
                _deliver(told)
                time.sleep(LOCKED_PAUSE)
            else:
                _deliver(results)
        self._checkpointer.close()
        if self._connection is not None:
            self._connection.invalidate()  # not back to the pool (own_connection)
            self._connection = None

    def _flush(self) -> None:
        self._due = False
        if not self._waiting:
            return
        batch, self._waiting = self._waiting, []
        again, told = split_locked(batch, self._store(batch))
        if again:  # nothing of them was stored: they wait, first in line, for the lock to go
            self._waiting = again + self._waiting
            self._locked()
        else:
            self._pause = LOOP_LOCKED_PAUSE
        _deliver(told)

    def _locked(self) -> None:
        self._count_locked()
        if self._pause == LOOP_LOCKED_PAUSE:  # once per stall
            logs.warning("the database is locked by another connection; the tables wait")
        self._due = True
        self.loop.call_later(self._pause, self._flush)
        self._pause = min(2 * self._pause, LOOP_LOCKED_PAUSE_MAX)

    def _connect(self) -> Connection:
        if self._connection is None:
            self._connection = own_connection(self.store, "wal_autocheckpoint=0", "busy_timeout=0")
        return self._connection

    def _write(self, writes: Sequence[Write]) -> None:
        try:
            self.store.write(writes, self._connect())
        except Exception as error:
            if is_broken(error) and self._connection is not None:
                self._connection.invalidate()  # a new one next time
                self._connection = None
            raise


def is_broken(error: BaseException) -> bool:
    """Did ``error`` come from a connection that is no good any more (rather than from a refused
    write — a stale sequence, a constraint — or a lock, which leave it as it was)?"""
    if not isinstance(error, DBAPIError) or is_locked(error):
        return False
    return error.connection_invalidated or isinstance(error, OperationalError | InterfaceError)


def store_batch(write: Callable[[Sequence[Write]], None], batch: Batch) -> Results:
    """Store every submission of ``batch`` with ``write`` in one transaction; if that fails, each
    alone, so that only a submission whose own write fails is told so (a locked database fails them
    all, at once: it is nobody's fault, and nothing was stored)."""
    try:
        write([w for writes, _ in batch for w in writes])
        return [(done, None) for _, done in batch]
    except Exception as error:
        if len(batch) == 1 or is_locked(error):
            return [(done, error) for _, done in batch]
    results: Results = []
    for writes, done in batch:
        try:
            write(writes)
            results.append((done, None))
        except Exception as error:
            results.append((done, error))
    return results


def split_locked(batch: Batch, results: Results) -> tuple[Batch, Results]:
    """The submissions refused because the database was locked (nothing of them was stored: to be
    tried again), and the other submissions' results."""
    again: Batch = []
    told: Results = []
    for submission, result in zip(batch, results, strict=True):
        if result[1] is not None and is_locked(result[1]):
            again.append(submission)
        else:
            told.append(result)
    return again, told


class Checkpointer:
    """Copies SQLite's write-ahead log into the database file, from a thread of its own.

    By default SQLite does it inside the commit that takes the log past 1,000 pages: that commit
    then also copies the pages and syncs the database file to disk, and every table waiting on the
    writer waits for it too (at 1,000 tables, all-four p99 125–161 ms with it, 60–96 ms without:
    docs/benchmarks.md, "Checkpoints, garbage and seal keys"). The writer's connection turns it off;
    this thread looks every :data:`CHECKPOINT_PERIOD` seconds and, when the writer has committed
    since, checkpoints ``PASSIVE`` — as much as it can without waiting for the writer or any
    reader. A busy writer seldom lets such a checkpoint reach the end of the log (which then grows):
    past :data:`CHECKPOINT_RESTART_PAGES` it checkpoints ``RESTART``, which makes the writer wait
    (at most :data:`CHECKPOINT_BUSY_MS`) until the log is copied, and the next commit starts it again.
    """

    def __init__(self, store: Store, commits: Callable[[], int], period: float = CHECKPOINT_PERIOD) -> None:
        """``commits``: the writer's transactions so far (a checkpoint is due when it has changed)."""
        self.store = store
        self.commits = commits
        self.period = period
        self.checkpoints = 0
        """Checkpoints so far (for tests and benchmarks)."""
        self.restarts = 0
        """Of them, those that made the log start again (``RESTART``, not blocked)."""
        self._seen = commits()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="niugui-checkpointer", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        connection: Connection | None = None
        while not self._stop.wait(self.period):
            commits = self.commits()
            if commits == self._seen:
                continue
            try:
                if connection is None:
                    connection = own_connection(self.store, f"busy_timeout={CHECKPOINT_BUSY_MS}")
                self.checkpoint(connection)
                self._seen = commits
            except Exception:  # the writer goes on; the next look tries again, on a new connection
                logs.exception("a checkpoint of the database failed")
                if connection is not None:
                    connection.invalidate()
                    connection = None
        if connection is not None:
            connection.invalidate()

    def checkpoint(self, connection: Connection) -> tuple[int, int]:
        """One checkpoint on ``connection``: the log's pages and how many of them are now in the
        database file (the passive checkpoint's; a restart follows when the log is overgrown)."""
        _busy, pages, copied = connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
        if pages > CHECKPOINT_RESTART_PAGES:
            busy = connection.exec_driver_sql("PRAGMA wal_checkpoint(RESTART)").one()[0]
            self.restarts += not busy
        connection.commit()
        self.checkpoints += 1
        return pages, copied


def _deliver(results: Results) -> None:
    for done, error in results:
        try:
            done(error)
        except Exception:
            logs.exception("a table failed after its events were stored")
