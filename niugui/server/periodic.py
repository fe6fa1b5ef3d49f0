"""Work done every few seconds while a server runs: the one loop of every such job of a node."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from . import logs


def never() -> bool:
    """The default ``stopping`` of :func:`every`: only a cancellation ends the loop."""
    return False


async def every(
    seconds: float, work: Callable[[], Awaitable[None]], failed: str, stopping: Callable[[], bool] = never
) -> None:
    """Wait ``seconds``, then ``await work()``, round after round until ``stopping()`` is true or the
    task is cancelled. A failure is logged as ``failed`` with the error's type only (its text may
    hold data) and tried again the next round. The check of ``stopping`` ends the loop even when a
    library swallows the cancellation meant for it (redis-py was seen to: docs/scaling.md, "Drain").

    >>> rounds = []
    >>> async def work() -> None:
    ...     rounds.append(len(rounds))
    >>> asyncio.run(every(0, work, "failed", lambda: len(rounds) == 3))
    >>> rounds
    [0, 1, 2]
    """
    while not stopping():
        await asyncio.sleep(seconds)
        try:
            await work()
        except Exception as error:
            logs.warning(failed, error=type(error).__name__)
