"""The server's garbage collection paced by the event loop's clock (niugui/server/gcpolicy.py)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable

import pytest
from server_harness import run_async

from niugui.server import gcpolicy


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def thresholds() -> object:
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)
    gc.unfreeze()


def test_the_pacer_collects_young_then_middle_generations_by_the_clock(
    monkeypatch: pytest.MonkeyPatch, thresholds: object
) -> None:
    """Cyclic garbage goes within a tick although CPython's own thresholds would wait for 50,000
    more objects; every third collection (here) is a middle one."""
    monkeypatch.setattr(gcpolicy, "YOUNG_EVERY", 0.001)
    monkeypatch.setattr(gcpolicy, "MIDDLE_EVERY", 3)
    seen: list[int] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    async def scenario() -> gcpolicy.Pacer:
        pacer = gcpolicy.apply()
        assert pacer is not None and gcpolicy.apply() is pacer, "one pacer per loop"
        assert gc.get_threshold() == gcpolicy.BACKSTOP
        garbage = weakref.ref(Cycle())
        made: list[object] = []
        gc.callbacks.append(on_gc)
        try:
            for _ in range(10_000):  # until the pacer has collected it (bounded)
                if garbage() is None and pacer.collections[1] >= 2 and pacer.collections[0] >= 2:
                    break
                made.append([[] for _ in range(gcpolicy.IDLE)])  # not idle: young ones are due
                await asyncio.sleep(0.001)
        finally:
            gc.callbacks.remove(on_gc)
            pacer.stop()
        assert garbage() is None, "the cycle was collected by the pacer"
        return pacer

    pacer = run_async(scenario())
    young, middle, full = pacer.collections
    assert middle >= 2 and young >= 2 and full == 0
    assert set(seen) == {0, 1}


def pace(until: Callable[[gcpolicy.Pacer], bool], ticks: int) -> gcpolicy.Pacer:
    """A pacer run on a loop of its own until ``until(pacer)``, for at most ``ticks`` milliseconds."""

    async def scenario() -> gcpolicy.Pacer:
        pacer = gcpolicy.Pacer(asyncio.get_running_loop())
        gc.collect(0)
        for _ in range(ticks):
            if until(pacer):
                break
            await asyncio.sleep(0.001)
        pacer.stop()
        return pacer

    return run_async(scenario())


def test_an_idle_server_skips_its_young_collections(
    monkeypatch: pytest.MonkeyPatch, thresholds: object
) -> None:
    monkeypatch.setattr(gcpolicy, "YOUNG_EVERY", 0.001)
    monkeypatch.setattr(gcpolicy, "MIDDLE_EVERY", 1_000_000)
    assert pace(lambda _: False, 50).collections == [0, 0, 0], "fifty ticks' time, making nothing"


def test_a_full_collection_comes_after_full_every_seconds(
    monkeypatch: pytest.MonkeyPatch, thresholds: object
) -> None:
    monkeypatch.setattr(gcpolicy, "YOUNG_EVERY", 0.001)
    monkeypatch.setattr(gcpolicy, "FULL_EVERY", 0.01)
    assert pace(lambda pacer: pacer.collections[2] >= 2, 10_000).collections[2] >= 2


def test_without_a_running_loop_nothing_is_paced_and_the_thresholds_stay(thresholds: object) -> None:
    before = gc.get_threshold()
    assert gcpolicy.apply() is None
    assert gc.get_threshold() == before


def test_a_stopped_pacer_is_replaced_by_the_next_apply(thresholds: object) -> None:
    async def scenario() -> None:
        first = gcpolicy.apply()
        assert first is not None
        first.stop()
        second = gcpolicy.apply()
        assert second is not None and second is not first
        second.stop()

    run_async(scenario())
