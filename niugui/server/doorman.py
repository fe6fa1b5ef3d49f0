"""Who may open a TCP connection to the server, and for how long it may take to ask (issue 33,
findings 4 and 12): the first thing the server does with a connection, before HTTP is read.

- **Opening rate**: each address opens at most ``connection_rate`` connections a second (burst
  ``connection_burst``); one over is cut at once (``abort``), before uvicorn reads a byte of it;
- **Half-open requests** (slowloris): at most ``http_connections_per_address`` connections of an
  address in HTTP at once (a WebSocket leaves the count when it is upgraded: the endpoint's own cap,
  ``connections_per_address``, counts those), and each request's headers and body must arrive within
  ``request_seconds`` of the connection's opening or of the previous response's end.

Exempt addresses (``--exempt``) and a trusted proxy (``--trust-proxy``: every client comes through
it) are not counted. :func:`guarded` makes uvicorn's HTTP protocol class (``httptools``, else
``h11``) call the doorman.

>>> door = Doorman(Limits(connection_rate=0, connection_burst=2, http_connections_per_address=1))
>>> door.admit("10.0.0.1"), door.admit("10.0.0.1"), door.admit("10.0.0.2")
((True, '10.0.0.1'), (False, None), (True, '10.0.0.2'))
>>> door.release("10.0.0.1"); door.admit("10.0.0.1")  # its two openings are spent
(False, None)
"""

from __future__ import annotations

import asyncio
from typing import Any

from .config import Limits
from .limits import Counter, Exempt, KeyedBuckets, address_key


class Doorman:
    """The per-address opening rate and cap on connections in HTTP (module docstring)."""

    def __init__(self, limits: Limits, exempt: Exempt | None = None) -> None:
        self.limits = limits
        self.exempt = exempt or Exempt()
        self.openings = KeyedBuckets(limits.connection_rate, limits.connection_burst)
        self.open = Counter()
        self.refused = 0
        """Connections cut at the door (rate or cap)."""
        self.late = 0
        """Connections closed because their request did not arrive in time."""

    def admit(self, host: str | None) -> tuple[bool, str | None]:
        """Whether a connection from ``host`` may open, and the key it is counted under (None when
        exempt); a connection admitted with a key must be :meth:`release`\\ d once."""
        if host is None or host in self.exempt:
            return True, None
        key = address_key(host)
        limits = self.limits
        if limits.connection_burst and not self.openings.take(key):
            self.refused += 1
            return False, None
        if limits.http_connections_per_address and self.open[key] >= limits.http_connections_per_address:
            self.refused += 1
            return False, None
        self.open.add(key)
        return True, key

    def release(self, key: str | None) -> None:
        if key is not None:
            self.open.remove(key)


def guarded(base: type[Any], doorman: Doorman) -> type[asyncio.Protocol]:
    """``base`` (uvicorn's HTTP protocol class) with ``doorman`` at its door."""

    class Guarded(base):  # type: ignore[misc]
        _door: str | None = None
        _admitted = _counted = False
        _deadline: asyncio.TimerHandle | None = None
        _asked: object = None

        def connection_made(self, transport: asyncio.Transport) -> None:
            peer = transport.get_extra_info("peername")
            admitted, self._door = doorman.admit(peer[0] if isinstance(peer, tuple) and peer else None)
            if not admitted:
                transport.abort()
                return
            self._admitted = self._counted = True
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._leave()
            if self._admitted:  # uvicorn saw it
                super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._counted:
                super().data_received(data)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._counted:
                self._arm()  # the next request on this connection has as long

        def handle_websocket_upgrade(self, *args: Any) -> None:
            super().handle_websocket_upgrade(*args)
            if self.transport.get_protocol() is not self:
                self._leave()  # a WebSocket now: the endpoint's cap counts it

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            seconds = doorman.limits.request_seconds
            if seconds:
                self._asked = self.cycle  # the request in hand when the clock started
                self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _too_slow(self) -> None:
            """No new request whole within the time: headers not all there, or a body still
            coming (a request being answered is left alone)."""
            self._deadline = None
            cycle = self.cycle
            if cycle is None or cycle is self._asked or getattr(cycle, "more_body", False):
                doorman.late += 1
                self.transport.close()

        def _leave(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            if self._counted:
                self._counted = False
                doorman.release(self._door)

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded
