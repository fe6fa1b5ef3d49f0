"""Where each asyncio task of a running server waits — for a server that does not stop when told.

``kill -USR2 <pid>`` logs one line per task (see :func:`listen`); a cluster node whose drain runs
past its bound logs the same lines by itself. Only code locations are written (file, line, function
and what the innermost await waits on), never a value: no hand or token can reach the log this way.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import Any

from . import logs


def awaiting(task: asyncio.Task[Any]) -> list[str]:
    """The chain of awaits of ``task``, outermost first, down to the object it waits on.

    (``Task.get_stack`` gives a suspended task's outermost frame only.)

    >>> async def inner(event: asyncio.Event) -> None:
    ...     await event.wait()
    >>> async def outer(event: asyncio.Event) -> None:
    ...     await inner(event)
    >>> async def look() -> list[str]:
    ...     task = asyncio.create_task(outer(asyncio.Event()))
    ...     await asyncio.sleep(0)
    ...     chain = awaiting(task)
    ...     task.cancel()
    ...     return chain
    >>> [step.split(" ")[-1] for step in asyncio.run(look())]
    ['outer', 'inner', 'wait', 'Future']
    """
    chain: list[str] = []
    current: Any = task.get_coro()
    while current is not None:
        frame = _frame(current)
        if frame is None:
            chain.append(f"waits on {_kind(current)}")
            break
        chain.append(f"{frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
        current = _awaited(current)
    return chain


def _first(step: Any, names: tuple[str, ...]) -> Any:
    """The first of ``step``'s attributes ``names`` that is set (``None`` if none is)."""
    for name in names:
        value = getattr(step, name, None)
        if value is not None:
            return value
    return None


def _frame(step: Any) -> Any:
    return _first(step, ("cr_frame", "gi_frame", "ag_frame"))


def _awaited(step: Any) -> Any:
    return _first(step, ("cr_await", "gi_yieldfrom", "ag_await"))


def _kind(waited: Any) -> str:
    """``Future`` for what an ``await future`` leaves (the future's iterator), else the type's name."""
    name = type(waited).__name__
    return "Future" if name in ("FutureIter", "Future") else name


def log_tasks(reason: str) -> int:
    """One warning line per task of the running loop, with where it waits; the number of tasks."""
    tasks = sorted(asyncio.all_tasks(), key=lambda task: task.get_name())
    for task in tasks:
        logs.warning("asyncio task", reason=reason, task=task.get_name(), awaits=awaiting(task))
    return len(tasks)


def listen() -> bool:
    """``SIGUSR2`` logs every task (:func:`log_tasks`); only in the main thread, where a loop can
    take a signal (a test client runs the app in another thread): whether it was installed."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGUSR2"):
        return False
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, log_tasks, "SIGUSR2")
    return True
