"""A WebSocket connection's outgoing queue (niugui/server/ws/connection.py): a reader too slow for
the queue's cap is cut at once — on the direct path by aborting the TCP connection, on plain ASGI by
stopping the writer even while a send waits on that reader — through public interfaces only."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

from fastapi import WebSocket

from niugui.server.config import Config, Limits
from niugui.server.metrics import Metrics
from niugui.server.store import AccountRow
from niugui.server.transport import DIRECT
from niugui.server.ws.connection import Connection


class StuckSocket:
    """A plain ASGI WebSocket whose reader never reads: the first send waits for ever."""

    def __init__(self, extensions: dict[str, Any] | None = None) -> None:
        self.scope = {"extensions": extensions or {}}
        self.sent: list[str] = []
        self.sending = asyncio.Event()
        self.closes: list[int] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        self.sending.set()
        await asyncio.Event().wait()

    async def close(self, code: int = 1000) -> None:
        self.closes.append(code)


class PausedDirect:
    """A direct path whose socket is paused for a slow reader (it writes nothing)."""

    def __init__(self) -> None:
        self.aborted = 0

    def write_texts(self, texts: Sequence[str]) -> bool:
        return False

    def abort(self) -> None:
        self.aborted += 1


def connection(socket: StuckSocket, metrics: Metrics) -> Connection:
    config = Config(limits=Limits(send_queue_bytes=100))
    return Connection(cast(WebSocket, socket), "", AccountRow("a1", "ann", None), "hash", config, metrics)


def test_a_slow_reader_on_plain_asgi_is_cut_while_a_send_waits_on_it() -> None:
    async def main() -> tuple[StuckSocket, Connection, asyncio.Task[None]]:
        socket = StuckSocket()
        conn = connection(socket, Metrics())
        writer = asyncio.create_task(conn.writer())
        conn.send("x" * 60)
        await socket.sending.wait()  # the writer waits on the reader, holding the first frame
        conn.send("y" * 60)
        conn.send("z" * 60)  # over the cap of 100 characters: dropped
        await asyncio.wait_for(asyncio.gather(writer, return_exceptions=True), 10)
        return socket, conn, writer

    socket, conn, writer = asyncio.run(main())
    assert writer.done() and conn.dropped and conn.closed
    assert socket.sent == ["x" * 60] and conn.queued == 0  # what waited was discarded
    assert conn.metrics.registry.get_sample_value("niugui_slow_clients_dropped_total") == 1


def test_a_slow_reader_on_the_direct_path_is_aborted_at_once() -> None:
    async def main() -> tuple[PausedDirect, Connection]:
        direct = PausedDirect()
        conn = connection(StuckSocket({DIRECT: direct}), Metrics())
        conn.send("x" * 60)
        conn.send("y" * 60)  # over the cap before the writer even ran
        conn.send("z")  # nothing more once dropped
        await asyncio.wait_for(conn.writer(), 10)  # returns at once: nothing to send
        return direct, conn

    direct, conn = asyncio.run(main())
    assert direct.aborted == 1 and conn.dropped and conn.queued == 0


def test_a_closed_connection_sends_what_it_queued_then_closes() -> None:
    class Reader(StuckSocket):
        async def send_text(self, text: str) -> None:
            self.sent.append(text)

    async def main() -> Reader:
        socket = Reader()
        conn = connection(socket, Metrics())
        conn.send("one")
        conn.send({"type": "two"})
        conn.close(4401)
        await asyncio.wait_for(conn.writer(), 10)
        return socket

    socket = asyncio.run(main())
    assert socket.sent == ["one", '{"type":"two"}'] and socket.closes == [4401]
