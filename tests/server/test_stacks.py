"""Where each asyncio task waits: on ``kill -USR2``, and when a cluster node's drain runs past its
bound (niugui/server/stacks.py, Node.stop) — code locations only, never a value."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from niugui.server import stacks
from niugui.server.cluster import node as node_module
from niugui.server.cluster.node import Node

HAND = "♠3 ♠2 ♥A"


async def _holding(hand: str, event: asyncio.Event) -> None:
    await _waiting(hand, event)


async def _waiting(hand: str, event: asyncio.Event) -> None:
    await event.wait()


def _lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == "asyncio task"]


def test_sigusr2_logs_where_each_task_waits_and_no_value(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        assert stacks.listen()
        released = asyncio.Event()
        task = asyncio.create_task(_holding(HAND, released), name="holder")
        await asyncio.sleep(0)  # the task runs to its await
        os.kill(os.getpid(), signal.SIGUSR2)
        async with asyncio.timeout(10):
            while not _lines(caplog):
                await asyncio.sleep(0.01)
        released.set()
        await task

    with caplog.at_level(logging.WARNING, logger="niugui.server"):
        asyncio.run(main())
    holder = next(r for r in _lines(caplog) if r.fields["task"] == "holder")
    assert [step.split(" ")[-1] for step in holder.fields["awaits"]] == [
        "_holding",
        "_waiting",
        "wait",
        "Future",
    ]
    assert holder.fields["reason"] == "SIGUSR2"
    assert all(HAND not in str(r.fields) for r in _lines(caplog))


def test_only_the_main_thread_listens() -> None:
    answers: list[bool] = []

    async def listen() -> None:
        answers.append(stacks.listen())

    thread = threading.Thread(target=lambda: asyncio.run(listen()))
    thread.start()
    thread.join()
    assert answers == [False]


def test_a_drain_that_never_ends_is_given_up_after_its_bound_and_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(node_module, "DRAIN_SECONDS", 0.2)
    forever = asyncio.Event()

    async def drain() -> None:
        await _waiting(HAND, forever)

    node: Any = SimpleNamespace(_drain=drain, node_id="node-9")

    async def main() -> None:
        async with asyncio.timeout(10):  # without the bound, stop waits for ever
            await Node.stop(node)

    with caplog.at_level(logging.WARNING, logger="niugui.server"):
        asyncio.run(main())
    messages = [r.getMessage() for r in caplog.records]
    assert "cluster node did not drain in time" in messages
    drain_task = next(r for r in _lines(caplog) if r.fields["task"] == "cluster drain")
    assert [step.split(" ")[-1] for step in drain_task.fields["awaits"]][:2] == ["drain", "_waiting"]
