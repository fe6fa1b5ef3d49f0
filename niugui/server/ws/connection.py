"""One authenticated WebSocket client (:class:`Connection`) and the open connections per account and
per address (:class:`Clients`).

What waits for a slow reader is capped in size: past ``send_queue_bytes`` the reader is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections import deque
from typing import Any

from fastapi import WebSocket

from .. import logs
from ..config import Config
from ..limits import Counter, TokenBucket
from ..metrics import Metrics
from ..store import AccountRow
from ..transport import DIRECT, Direct
from .frames import dump, error_text

CLOSE_UNAUTHORIZED = 4401
"""Close code: no valid ``auth`` first, or the session was revoked (log out)."""
CLOSE_TOO_MANY = 4429
"""Close code: the account or the address has too many connections open."""
FLOOD_CLOSE = 200
"""Refused frames (over the rate) that close the connection (1008) ..."""
FLOOD_SECONDS = 10.0
"""... when they come within this long: a refusal is forgiven every ``FLOOD_SECONDS / FLOOD_CLOSE``
seconds, so a client that only sometimes goes over the rate is never closed, and a flood is, however
many of its frames the rate lets through in between (issue 33, finding 2: "in a row" never happened)."""


class Connection:
    """One authenticated WebSocket client: an account, an outgoing queue capped in size, its writer."""

    def __init__(
        self,
        websocket: WebSocket,
        address: str,
        account: AccountRow,
        token_hash: str,
        config: Config,
        metrics: Metrics,
    ) -> None:
        self.websocket = websocket
        self.address = address
        """The address key the connection counts against ("" when exempt)."""
        self.account_id = account.id
        self.nickname = account.nickname
        self.username = account.username
        self.bot = account.bot
        """A bot account's connection (see :func:`niugui.server.tables.is_bot_account`)."""
        self.token_hash = token_hash
        self.bucket = TokenBucket(config.rate_limit, config.rate_burst)
        self.chat_bucket = TokenBucket(config.limits.chat_rate, config.limits.chat_burst)
        self.metrics = metrics
        self.strikes = TokenBucket(FLOOD_CLOSE / FLOOD_SECONDS, FLOOD_CLOSE)
        """Refused frames the connection may still send before it is closed (:data:`FLOOD_CLOSE`)."""
        self.closed = False
        self.dropped = False
        self.queued = 0
        """Characters waiting in the queue."""
        self._cap = config.limits.send_queue_bytes or math.inf
        self._frames: deque[str] = deque()
        self._wake = asyncio.Event()
        self._close_code = 1008
        self._direct: Direct | None = websocket.scope.get("extensions", {}).get(DIRECT)
        self._loop = asyncio.get_running_loop()
        self._flush_due = False
        self._sending = False  # the writer task holds a frame it has not sent yet
        self._writer: asyncio.Task[None] | None = None

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a frame (a reader too slow for the queue's cap is dropped instead)."""
        if self.closed:
            return
        text = message if isinstance(message, str) else dump(message)
        if self.queued + len(text) > self._cap:
            self.metrics.slow_dropped.inc()
            logs.warning("client too slow; disconnecting", account=self.account_id, queued=self.queued)
            self.drop()
            return
        self._frames.append(text)
        self.queued += len(text)
        if self._direct is None:
            self._wake.set()
        elif not self._flush_due:  # what one turn of the event loop queues goes out in one write
            self._flush_due = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        """Write what waits straight to the socket, or leave it to :meth:`writer`, which waits for a
        slow reader (the socket paused) and sends in order what it holds."""
        self._flush_due = False
        if not self._frames or self.dropped:
            return
        if not self._sending and self._direct is not None and self._direct.write_texts(self._frames):
            self._frames.clear()
            self.queued = 0
        else:
            self._wake.set()

    def close(self, code: int = 1008) -> None:
        """Close after what is queued has been sent."""
        if not self.closed:
            self.closed, self._close_code = True, code
            self._wake.set()

    def cut(self, code: int = 1008) -> None:
        """Close at once, reading no more (a flood): what is queued and a close frame are written
        and the socket closed, without waiting for the peer's closing reply (the direct path);
        plain ASGI can only :meth:`close`."""
        if self._direct is None:
            self.close(code)
            return
        if self.dropped:
            return
        if self._frames and not self._sending:
            self._direct.write_texts(self._frames)
        self.closed = self.dropped = True
        self._frames.clear()
        self.queued = 0
        self._direct.close_now(code)
        self._wake.set()

    def drop(self) -> None:
        """Cut the connection now, discarding what is queued (a reader too slow to keep up). The
        direct path aborts the TCP connection at once; plain ASGI has no abort, so the writer stops,
        even partway through a send the reader holds up, and the server closes the socket when the
        endpoint returns."""
        if self.dropped:
            return
        self.closed = self.dropped = True
        self._frames.clear()
        self.queued = 0
        if self._direct is not None:
            self._direct.abort()
        elif self._sending and self._writer is not None:
            self._writer.cancel()
        self._wake.set()

    def error(self, request_id: str | None, code: str, message: str, rule: str | None = None) -> None:
        """Send an ``error`` frame, counted by its code."""
        self.metrics.errors.labels(code).inc()
        self.send(error_text(request_id, code, message, rule))

    async def writer(self) -> None:
        """Send the queue in order; returns when the connection is closed, dropped or gone."""
        self._writer = asyncio.current_task()
        try:
            while True:
                if self.dropped:
                    return
                if not self._frames:
                    if self.closed:
                        with contextlib.suppress(Exception):
                            await asyncio.wait_for(self.websocket.close(code=self._close_code), 2)
                        return
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                text = self._frames.popleft()
                self.queued -= len(text)
                self._sending = True
                try:
                    await self.websocket.send_text(text)
                except UnicodeEncodeError:  # pragma: no cover - inputs are checked; never kill a connection
                    logs.warning("a frame could not be encoded; skipped", account=self.account_id)
                finally:
                    self._sending = False
        except Exception:  # the socket is gone
            self.closed = True


class Clients:
    """Open connections per account and per address (the caps), and every connection of an account
    (to close them when its sessions are revoked)."""

    def __init__(self) -> None:
        self.by_account: dict[str, set[Connection]] = {}
        self.per_address = Counter()

    def count(self, account_id: str) -> int:
        """How many connections ``account_id`` has open."""
        return len(self.by_account.get(account_id, ()))

    def add(self, connection: Connection) -> None:
        self.by_account.setdefault(connection.account_id, set()).add(connection)

    def remove(self, connection: Connection) -> None:
        mine = self.by_account.get(connection.account_id)
        if mine is not None:
            mine.discard(connection)
            if not mine:
                del self.by_account[connection.account_id]

    def revoke(self, account_id: str, token_hash: str | None) -> None:
        """Close the account's connections (only those of ``token_hash`` when it is given)."""
        for connection in list(self.by_account.get(account_id, ())):
            if token_hash is None or connection.token_hash == token_hash:
                connection.error(None, "forbidden", "signed out")
                connection.close(CLOSE_UNAUTHORIZED)
