"""The server process's garbage-collector settings.

Every connection keeps a few hundred objects the collector tracks (its coroutines, tasks, buffers):
~940,000 at 4,000 connections. CPython's default thresholds (700, 10, 10) then run a full collection
every few seconds, each walking all of them — 0.6–0.75 s during which no table moves — and its
middle generation every few hundred milliseconds (15–30 ms each). Measured with ``bench/load_bench.py``
at 1,000 tables (docs/benchmarks.md): all-four p99 900 ms with the defaults, 155–176 ms with these,
and less CPU per action (0.31 ms instead of 0.42–0.45 ms).

Young collections stay frequent and small; full collections become rare (they still run, so cyclic
garbage is still freed, later). The middle generation is collected after 100 young collections
rather than 20: each of its collections walks whatever the tables and connections keep for a second
or more (~43,000–54,000 objects at 1,000 tables, a 65–100 ms pause on this machine), however often
it runs, so running it five times less often delays five times fewer actions by it; a full
collection still comes after the same 200,000 young ones (100 × 2,000 instead of 20 × 10,000).
What the server built at startup is moved out of the collector's sight for good (``gc.freeze``):
modules, the restored tables.
"""

from __future__ import annotations

import gc

THRESHOLDS = (2000, 100, 2000)


def apply() -> None:
    """Set the thresholds and freeze what exists now (call once, after startup)."""
    gc.set_threshold(*THRESHOLDS)
    gc.collect()
    gc.freeze()
