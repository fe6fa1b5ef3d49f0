"""``niugui serve`` with a latency trace of its event loop, for ``bench/load_bench.py --trace FILE``:
where the loop stalls, measured between SIGUSR1 and SIGUSR2 (the bench sends them at the start and
end of its measuring window); the trace (JSON) goes to FILE at SIGUSR2.

    .venv/bin/python bench/serve_traced.py FILE serve --port 8000 --data /tmp/d

What it records:

- **loop lag**: a callback scheduled every ``PERIOD`` seconds with ``call_later`` and how late it
  runs (a stall of the loop delays it by the stall's length): its percentiles and maximum;
- **stalls' stacks**: a watchdog thread that sees no heartbeat from the loop for ``STALL`` seconds
  takes the loop thread's Python stack (``sys._current_frames``), once per stall, and counts the
  stalls by their innermost frames of this project (or the innermost frame) — a poor man's py-spy;
- **garbage collection**: ``gc.callbacks`` timing every collection, by generation;
- **the event writer**: each transaction's duration and size, and the time from its end to the
  tables' ``done`` running on the loop (the handoff).
"""

from __future__ import annotations

import asyncio
import collections
import gc
import json
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any

from niugui.cli.main import main
from niugui.server import gcpolicy
from niugui.server import hub as hub_module
from niugui.server import writer as writer_module

PERIOD = 0.005
STALL = 0.02


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(0)


class Trace:
    def __init__(self, path: str) -> None:
        self.path = path
        self.on = False
        self.lags: list[float] = []
        self.gc: dict[int, list[float]] = collections.defaultdict(list)
        self.gc_started = (0.0, 0.0)
        self.gc_cpu: dict[int, list[float]] = collections.defaultdict(list)
        self.gc_young: list[int] = []
        self.gc_types: collections.Counter[str] = collections.Counter()
        self.gc_referents: list[dict[str, Any]] = []
        self.batches: list[tuple[float, int]] = []
        self.handoffs: list[float] = []
        self.stalls: collections.Counter[str] = collections.Counter()
        self.beat = time.perf_counter()
        self.loop_thread = 0

    def reset(self) -> None:
        self.lags.clear()
        self.gc.clear()
        self.gc_cpu.clear()
        self.gc_young.clear()
        self.gc_types.clear()
        self.gc_referents.clear()
        self.batches.clear()
        self.handoffs.clear()
        self.stalls.clear()
        self.on = True

    # ---- the loop's heartbeat ------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop_thread = threading.get_ident()
        due = time.perf_counter() + PERIOD

        def tick() -> None:
            nonlocal due
            now = time.perf_counter()
            self.beat = now
            if self.on:
                self.lags.append(now - due)
            due = now + PERIOD
            loop.call_later(PERIOD, tick)

        loop.call_later(PERIOD, tick)
        threading.Thread(target=self.watch, name="trace-watchdog", daemon=True).start()

    def watch(self) -> None:
        seen = 0.0
        while True:
            time.sleep(STALL / 2)
            beat = self.beat
            if not self.on or beat == seen or time.perf_counter() - beat < STALL:
                continue
            seen = beat  # once per stall
            frame = sys._current_frames().get(self.loop_thread)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)
            ours = [f for f in stack if "/niugui/" in f.filename]
            where = (ours or stack)[-3:]
            names = (f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}:{f.name}" for f in reversed(where))
            self.stalls[" < ".join(names)] += 1

    # ---- garbage collection ---------------------------------------------------------------------------

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            if self.on and info["generation"] >= 1:  # how many objects it walks
                young = gc.get_objects(0) + gc.get_objects(1)
                self.gc_young.append(len(young))
                self.gc_types.update(type(o).__name__ for o in young)
            elif self.on and len(self.gc_referents) < 20:  # a young collection: what it walks, sampled
                young = gc.get_objects(0)
                sizes = sorted(((len(gc.get_referents(o)), type(o).__name__) for o in young), reverse=True)
                kinds = collections.Counter(type(o).__qualname__ for o in young).most_common(8)
                self.gc_referents.append(
                    {"objects": len(young), "referents": sum(n for n, _ in sizes), "types": kinds}
                )
            self.gc_started = (time.perf_counter(), time.thread_time())
        elif self.on:
            self.gc[info["generation"]].append(time.perf_counter() - self.gc_started[0])
            self.gc_cpu[info["generation"]].append(time.thread_time() - self.gc_started[1])

    # ---- the writer ---------------------------------------------------------------------------------

    def wrap_writer(self) -> None:
        for kind in (writer_module.Writer, writer_module.LoopWriter):
            self._wrap(kind)

    def _wrap(self, kind: Any) -> None:
        store = kind._store
        trace = self

        def timed_store(self: Any, batch: list[Any]) -> Any:
            started = time.perf_counter()
            results = store(self, batch)
            ended = time.perf_counter()
            if trace.on:
                trace.batches.append((ended - started, len(batch)))
            return [(_handoff(done, ended), error) for done, error in results]

        def _handoff(done: Any, ended: float) -> Any:
            def wrapped(error: Any) -> None:
                if trace.on:
                    trace.handoffs.append(time.perf_counter() - ended)
                done(error)

            return wrapped

        kind._store = timed_store

    def dump(self) -> None:
        self.on = False

        def summary(values: list[float]) -> dict[str, float]:  # milliseconds
            if not values:
                return {"n": 0}
            ordered = sorted(values)

            def pick(q: float) -> float:
                return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)

            return {
                "n": len(values),
                "p50_ms": pick(0.5),
                "p99_ms": pick(0.99),
                "max_ms": pick(1.0),
                "total_ms": round(1000 * sum(values), 1),
            }

        result = {
            "loop_lag": summary(self.lags),
            "lags_over_20ms": sum(1 for lag in self.lags if lag > 0.02),
            "gc": {str(g): summary(v) for g, v in sorted(self.gc.items())},
            "gc_cpu": {str(g): summary(v) for g, v in sorted(self.gc_cpu.items())},
            "gc_objects_walked_gen1": sorted(self.gc_young)[-5:],
            "gc_young_types": dict(self.gc_types.most_common(12)),
            "gc0_walked_sampled": self.gc_referents,
            "writer_batch": summary([d for d, _ in self.batches]),
            "writer_batch_size_mean": round(sum(n for _, n in self.batches) / max(1, len(self.batches)), 2),
            "writer_handoff": summary(self.handoffs),
            "stalls": dict(self.stalls.most_common(15)),
        }
        with open(self.path, "w") as out:
            json.dump(result, out, indent=1)


if __name__ == "__main__":
    if os.environ.get("NIUGUI_GC"):  # an experiment: other collector thresholds than gcpolicy's
        gcpolicy.BACKSTOP = tuple(int(x) for x in os.environ["NIUGUI_GC"].split(","))  # type: ignore[assignment]
    if os.environ.get("NIUGUI_GC_PACE") == "off":  # an experiment: CPython's thresholds alone
        gcpolicy.YOUNG_EVERY = 1e9
    trace = Trace(sys.argv[1])
    gc.callbacks.append(trace.on_gc)
    trace.wrap_writer()
    restore = hub_module.Hub.restore

    def traced_restore(self: hub_module.Hub) -> None:
        restore(self)
        trace.start(asyncio.get_running_loop())

    hub_module.Hub.restore = traced_restore  # type: ignore[method-assign]
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGUSR1, lambda *_: trace.reset())
    signal.signal(signal.SIGUSR2, lambda *_: trace.dump())
    sys.exit(main(sys.argv[2:]))
