"""The nodes' messages, over Redis pub/sub: each node listens on its own channel and on one shared by
all. What goes to one node in one moment is sent as one message, in order: frames an owner built for
that node's connections, and answers to the requests that node forwarded, keep their order.

A message is lines: ``f <connection> <frame>`` (a frame for one of the node's connections, the JSON
text the owner built) or ``j <json>`` (anything else: a request, an answer, a notice). Frames are JSON
text, which never holds a raw newline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis

from .. import logs

Frame = Callable[[str, str], None]
"""Called with (connection id, frame) for each frame that came for a connection of this node."""
Notice = Callable[[dict[str, Any]], None]
"""Called with each other message that came (decoded)."""


class Bus:
    def __init__(self, redis: Redis, prefix: str, node_id: str, on_frame: Frame, on_notice: Notice) -> None:
        self.redis = redis
        self.prefix = prefix
        self.node_id = node_id
        self.on_frame = on_frame
        self.on_notice = on_notice
        self._outbox: dict[str, list[str]] = {}
        self._flushing = False
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self.published = 0

    def channel(self, node_id: str) -> str:
        return f"{self.prefix}:to:{node_id}"

    @property
    def everyone(self) -> str:
        return f"{self.prefix}:all"

    async def start(self) -> None:
        await self._pubsub.subscribe(self.channel(self.node_id), self.everyone)
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._send())]

    async def close(self) -> None:
        await self.drain()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()

    async def drain(self) -> None:
        """Wait until everything queued has been published."""
        self._flush()
        await self._queue.join()

    # ---- sending -------------------------------------------------------------------------------------

    def frame(self, node_id: str, connection: str, frame: str) -> None:
        self._put(node_id, f"f {connection} {frame}")

    def send(self, node_id: str, message: dict[str, Any]) -> None:
        """To one node (``"*"``: to every node, this one too)."""
        self._put(node_id, "j " + json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    def _put(self, node_id: str, line: str) -> None:
        self._outbox.setdefault(node_id, []).append(line)
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        outbox, self._outbox = self._outbox, {}
        for node_id, lines in outbox.items():
            channel = self.everyone if node_id == "*" else self.channel(node_id)
            self._queue.put_nowait((channel, "\n".join(lines)))

    async def _send(self) -> None:
        while True:
            first = await self._queue.get()
            batch = [first]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, data)
                    await pipe.execute()
                self.published += len(batch)
            except Exception as error:  # Redis away: these are lost; receivers catch up by seq
                logs.warning("could not publish to the cluster", error=type(error).__name__)
            finally:
                for _ in batch:
                    self._queue.task_done()

    # ---- receiving -----------------------------------------------------------------------------------

    async def _listen(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                logs.warning("cluster subscription failed; resubscribing", error=type(error).__name__)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            data = message["data"]
            self._dispatch(data.decode() if isinstance(data, bytes) else str(data))

    def _dispatch(self, data: str) -> None:
        for line in data.split("\n"):
            try:
                if line.startswith("f "):
                    connection, _, frame = line[2:].partition(" ")
                    self.on_frame(connection, frame)
                elif line.startswith("j "):
                    self.on_notice(json.loads(line[2:]))
            except Exception:
                logs.exception("a cluster message failed")
