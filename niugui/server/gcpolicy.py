"""The server process's garbage collection: paced by the clock, not by CPython's allocation counts.

Every connection keeps a few hundred objects the collector tracks (its coroutines, tasks, buffers):
~940,000 at 4,000 connections. CPython starts a young collection when the objects it tracks have
grown by a threshold since the last one — but every old object that dies counts as one less, and a
busy server retires as many old objects as it makes new ones (each action's views, timers and
parsers replace the previous action's). So young collections came at random moments, each walking
whatever had been made since the last one, 2,000 to 21,000 objects: 5–33 ms pauses at 1,000 tables;
and every 100th one was a middle collection walking everything kept for a second or more, 65–100 ms
(docs/benchmarks.md, "The event writer on the loop, a lazy turn timer, and garbage collection paced
by the clock").

Here the event loop collects on a timer instead (:class:`Pacer`): the young generation every
:data:`YOUNG_EVERY` seconds (unless the server is idle), the middle one instead at every
:data:`MIDDLE_EVERY` th tick, everything every :data:`FULL_EVERY` seconds. Each object that lives
past a young collection is still walked twice (once young, once in the middle generation) however
often they run, so the total work is about the same; what changes is that it comes in small,
regular pieces — a young collection walks what the last 20 ms made, a middle one what the last
0.2 s kept. CPython's own thresholds stay as a backstop (:data:`BACKSTOP`) for a burst of
allocation within one callback. What the server built at startup is moved out of the collector's
sight for good (``gc.freeze``): modules, the restored tables.
"""

from __future__ import annotations

import asyncio
import gc

YOUNG_EVERY = 0.02
"""Seconds between young collections."""
MIDDLE_EVERY = 10
"""Young collections per middle one (a middle collection collects the young generation too)."""
FULL_EVERY = 3600.0
"""Seconds between full collections: they walk every object of every connection and table (about
0.7 s at 1,000 tables on a slow core), and only cycles among long-lived objects wait for them."""
IDLE = 100
"""Fewer new objects than this since the last collection: the young one is skipped."""
BACKSTOP = (50_000, 100, 1_000_000)
"""CPython's thresholds meanwhile: a young collection only after 50,000 more objects within 20 ms."""


class Pacer:
    """Collects on the event loop's clock; stops with the loop (or :meth:`stop`)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.collections = [0, 0, 0]
        """Collections so far by generation (for tests and benchmarks)."""
        self._ticks = 0
        self._full_at = loop.time() + FULL_EVERY
        self._handle: asyncio.TimerHandle | None = loop.call_later(YOUNG_EVERY, self._tick)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if _pacers.get(self.loop) is self:
            del _pacers[self.loop]

    def _tick(self) -> None:
        self._ticks += 1
        now = self.loop.time()
        if now >= self._full_at:
            generation = 2
            self._full_at = now + FULL_EVERY
        else:
            generation = 1 if self._ticks % MIDDLE_EVERY == 0 else 0
        if generation or gc.get_count()[0] >= IDLE:
            gc.collect(generation)
            self.collections[generation] += 1
        self._handle = self.loop.call_later(YOUNG_EVERY, self._tick)


_pacers: dict[asyncio.AbstractEventLoop, Pacer] = {}


def apply() -> Pacer | None:
    """Freeze what exists now and pace the running loop's collections, with the backstop thresholds
    (once per loop). Without a running loop it only freezes, leaves CPython's thresholds as they
    are, and returns None. Call once the server has started."""
    gc.collect()
    gc.freeze()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    for stale in [other for other in _pacers if other.is_closed()]:
        del _pacers[stale]
    pacer = _pacers.get(loop)
    if pacer is None:
        pacer = _pacers[loop] = Pacer(loop)
    gc.set_threshold(*BACKSTOP)
    return pacer
