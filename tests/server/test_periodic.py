"""niugui/server/periodic.py: the loop behind every periodic job of a cluster node."""

from __future__ import annotations

import asyncio

import pytest

from niugui.server.periodic import every


def test_a_failed_round_is_logged_by_its_type_and_the_next_round_runs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rounds: list[int] = []

    async def work() -> None:
        rounds.append(len(rounds))
        if len(rounds) == 1:
            raise KeyError("a hand: S3 S2")  # its text may hold data: only its type is logged

    caplog.set_level("WARNING", logger="niugui.server")
    asyncio.run(asyncio.wait_for(every(0, work, "job failed", lambda: len(rounds) == 2), 5))
    assert rounds == [0, 1]
    failures = [r for r in caplog.records if r.getMessage() == "job failed"]
    assert [getattr(r, "fields", None) for r in failures] == [{"error": "KeyError"}]
    assert "S3" not in caplog.text


def test_the_loop_ends_on_stopping_even_when_the_work_swallows_its_cancellation() -> None:
    async def main() -> bool:
        inside = asyncio.Event()
        stopping = [False]

        async def swallowing() -> None:  # a library that loses the cancellation meant for the loop
            inside.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                if not stopping[0]:
                    raise

        task = asyncio.create_task(every(0, swallowing, "job failed", lambda: stopping[0]))
        entered = asyncio.create_task(inside.wait())
        await asyncio.wait({task, entered}, return_when=asyncio.FIRST_COMPLETED)  # a loop that fails ends
        assert not task.done(), task.exception()
        stopping[0] = True
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=5)  # without the check it goes round for ever
        if not done:
            stopping[0] = False  # the next cancellation gets through: the test ends either way
            task.cancel()
            await asyncio.wait({task})
        return bool(done)

    assert asyncio.run(main())
