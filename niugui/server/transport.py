"""The WebSocket transport under the app: uvicorn's sans-I/O WebSocket protocol (on ``websockets``)
with a direct path for the app's messages, offered to the app as the ASGI scope extension
:data:`DIRECT`. ``niugui serve --transport asgi`` runs uvicorn's own protocol instead
(:data:`TRANSPORTS`): the app sees no extension and uses plain ASGI.

- :meth:`Direct.write_texts` frames what a connection has waiting and writes it at once, when the
  socket is open and not paused for a slow reader (else the app sends through ASGI, which waits);
- :meth:`Direct.receive_with` hands each message to a callback as it is parsed, in order; only the
  disconnect still comes through ASGI ``receive``;
- whole, small, unfragmented client text frames are unmasked and decoded here (:func:`client_texts`)
  when ``websockets`` is between frames (:func:`between_frames`); anything else in a read, and all
  after it, goes to ``websockets``. When a read holds good messages and then a frame ``websockets``
  refuses, the good ones are handed over before the connection fails (uvicorn would drop them);
- a connection that sent anything since its keep-alive timer was set is not pinged this time
  (:meth:`DirectWebSockets.send_keepalive_ping`); a silent one is, as by uvicorn.

This relies on internals of ``uvicorn`` and ``websockets``: their versions are pinned
(requirements.lock) and bounded (pyproject.toml), and tests/server/test_transport_internals.py fails
naming each internal an upgrade changed. What each part saves: docs/benchmarks.md, "The direct
WebSocket path" and "Where the transport's, the dealer's and the fan-out's design comes from".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from types import GeneratorType
from typing import cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, State
from websockets.streams import StreamReader

from .config import Transport

try:  # websockets' own choice: its C helper, else the same in Python
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask

DIRECT = "niugui.direct"
"""The scope extension's key: its value is the connection's :class:`Direct`."""

Receiver = Callable[[str | bytes], None]
Gate = Callable[[bytes | None], bool]
"""Counts one client frame against the connection's budget before it is read — given a message's
first :data:`HEAD` bytes (``None`` for a ping or pong) — and says whether to read it: False drops it."""
HEAD = 256
Control = tuple[int, bytes]
"""A client control frame read by :func:`client_frames`: its opcode (``PING``, ``PONG``), its payload."""
PING, PONG = 0x9, 0xA

_log = logging.getLogger("uvicorn.error")


def text_frame(payload: bytes) -> bytes:
    """A server's unfragmented, unmasked text frame's header for ``payload`` (RFC 6455 §5.2).

    >>> text_frame(b"hi"), text_frame(b"x" * 200)[:4]
    (b'\\x81\\x02', b'\\x81~\\x00\\xc8')
    """
    size = len(payload)
    if size < 126:
        return bytes((0x81, size))
    if size < 1 << 16:
        return b"\x81\x7e" + size.to_bytes(2, "big")
    return b"\x81\x7f" + size.to_bytes(8, "big")


def client_texts(data: bytes, limit: int | None) -> tuple[list[str], int]:
    """The leading whole client text frames of ``data`` (:func:`client_frames` without control frames).

    >>> frame = bytes((0x81, 0x82)) + b"abcd" + bytes((ord("h") ^ 0x61, ord("i") ^ 0x62))
    >>> client_texts(frame + frame + b"\\x89", None)
    (['hi', 'hi'], 16)
    """
    frames, used = client_frames(data, limit, controls=False)
    return [f for f in frames if isinstance(f, str)], used


def client_frames(
    data: bytes, limit: int | None, controls: bool = True, gate: Gate | None = None
) -> tuple[list[str | Control], int]:
    """The leading whole client text frames of ``data`` (RFC 6455 §5.2: final, no extension bits
    — so never compressed, RFC 7692 — masked, under 64 KiB and ``limit``), unmasked and decoded,
    and with ``controls`` its pings and pongs (final, masked, at most 125 bytes: §5.5) as
    :data:`Control`; and how many bytes they took. It stops at the first frame that is anything
    else — or not valid UTF-8 — for ``websockets`` and uvicorn to read (or refuse) from there.
    Each frame is shown to ``gate`` first (a text frame's first :data:`HEAD` bytes): one it refuses
    is skipped unread.

    >>> ping = bytes((0x89, 0x81)) + b"abcd" + bytes((ord("!") ^ 0x61,))
    >>> client_frames(ping, None), client_frames(ping, None, controls=False)
    (([(9, b'!')], 7), ([], 0))
    """
    texts: list[str | Control] = []
    at, end = 0, len(data)
    while end - at >= 6 and (data[at] == 0x81 or (controls and data[at] in (0x89, 0x8A))):
        if data[at] != 0x81:
            size = data[at + 1] ^ 0x80
            if size > 125 or end - at - 6 < size:
                break
            if gate is None or gate(None):
                texts.append(
                    (data[at] & 0x0F, apply_mask(data[at + 6 : at + 6 + size], data[at + 2 : at + 6]))
                )
            at += 6 + size
            continue
        size, start = data[at + 1] ^ 0x80, at + 6
        if size == 126:
            if end - at < 8:
                break
            size, start = int.from_bytes(data[at + 2 : at + 4], "big"), at + 8
        elif size > 126:  # unmasked (size ≥ 0x80 once the mask bit is off), or a 64-bit length
            break
        if start + size > end or (limit is not None and size > limit):
            break
        if gate is not None and not gate(
            apply_mask(data[start : start + min(size, HEAD)], data[start - 4 : start])
        ):
            at = start + size
            continue
        try:
            texts.append(apply_mask(data[start : start + size], data[start - 4 : start]).decode())
        except UnicodeDecodeError:
            break
        at = start + size
    return texts, at


_FRAME_START = StreamReader.at_eof.__code__


def between_frames(conn: Protocol) -> bool:
    """Whether ``websockets``' parser waits for a frame's first byte: suspended in its reader's
    ``at_eof``, not partway through a frame. (Its buffer says nothing: the parser takes each part of
    a frame's header off it as soon as the part is there.) A parser of any other shape — another
    version of ``websockets``, or one that stopped after an error — says no, and every read goes to
    ``websockets``.
    """
    parser: object = conn.parser
    while isinstance(parser, GeneratorType) and parser.gi_yieldfrom is not None:
        parser = parser.gi_yieldfrom
    return isinstance(parser, GeneratorType) and parser.gi_code is _FRAME_START


class _Cut(Exception):
    """The gate closed the connection partway through a read."""


class Direct:
    """One connection's direct path (see the module's docstring)."""

    __slots__ = ("_protocol",)

    def __init__(self, protocol: DirectWebSockets) -> None:
        self._protocol = protocol

    def write_texts(self, texts: Sequence[str]) -> bool:
        """Frame and write ``texts`` at once (in order); False, writing nothing, when the connection
        is not open or its reader is slow (the transport paused writing)."""
        protocol = self._protocol
        conn = protocol.conn
        if (
            protocol.close_sent
            or protocol.disconnected
            or not protocol.writable.is_set()
            or conn.state is not State.OPEN
            or protocol.transport.is_closing()
        ):
            return False
        if conn.extensions:  # negotiated per-message compression: websockets frames them
            for text in texts:
                conn.send_text(text.encode())
            protocol.transport.write(b"".join(conn.data_to_send()))
            return True
        parts = []
        for text in texts:
            payload = text.encode()
            parts.append(text_frame(payload))
            parts.append(payload)
        protocol.transport.write(b"".join(parts))
        return True

    def receive_with(self, receiver: Receiver, gate: Gate | None = None) -> None:
        """From now on hand every message to ``receiver`` as it arrives (what is already queued
        first, not counted), each counted first by ``gate`` — and every ping and pong too: one it
        refuses is dropped unread (a ping gets no pong); disconnects still come through ASGI
        ``receive``."""
        self._protocol.take_messages(receiver, gate)

    def close_now(self, code: int) -> None:
        """Write a close frame and close the socket, reading nothing more (a flood): the peer's
        closing reply is not awaited, as ``websockets`` would, reading everything sent meanwhile."""
        transport = self._protocol.transport
        if not transport.is_closing():
            transport.write(bytes((0x88, 2)) + code.to_bytes(2, "big"))
            transport.close()

    def abort(self) -> None:
        """Cut the TCP connection now, without flushing (a reader too slow to keep up)."""
        self._protocol.transport.abort()


class DirectWebSockets(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, plus :class:`Direct` in each connection's scope."""

    receiver: Receiver | None = None
    gate: Gate | None = None
    heard = False
    """Whether the client sent anything since the keep-alive timer was last set."""

    async def run_asgi(self) -> None:
        extensions = cast(dict[str, object], self.scope["extensions"])  # uvicorn sets it: a dict
        extensions[DIRECT] = Direct(self)
        await super().run_asgi()

    def take_messages(self, receiver: Receiver, gate: Gate | None = None) -> None:
        self.gate = gate
        pending = []
        while not self.queue.empty():
            pending.append(self.queue.get_nowait())
        self.receiver = receiver
        for message in pending:
            if message["type"] == "websocket.receive":
                self._hand_over(message.get("text") or message.get("bytes") or b"")
            else:
                self.queue.put_nowait(message)
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        self.heard = True
        conn = self.conn
        if (
            self.receiver is None
            or conn.state is not State.OPEN  # also once closing (uvicorn's close_sent)
            or conn.current_size is not None  # a fragmented message is being read
            or not between_frames(conn)
        ):
            super().data_received(data)
            return
        try:
            gate = None if self.gate is None else self._counted
            frames, used = client_frames(data, conn.max_message_size, gate is not None, gate)
        except _Cut:  # the gate closed the connection: the rest of the read is not looked at
            return
        for frame in frames:
            if isinstance(frame, str):
                self._hand_over(frame)
            else:
                self._control(*frame)
        if used < len(data):
            super().data_received(data[used:] if used else data)

    def send_keepalive_ping(self) -> None:
        """Ping the client, as uvicorn does — unless it sent something since the timer was set: then
        only set the timer again."""
        if self.heard and not (self.close_sent or self.transport.is_closing()):
            self.ping_timer = None
            self.schedule_ping()
            return
        super().send_keepalive_ping()

    def schedule_ping(self) -> None:
        self.heard = False
        super().schedule_ping()

    def send_receive_event_to_app(self) -> None:
        if self.receiver is None:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:  # as uvicorn does: past close, messages are discarded
            return
        if self.gate is not None and not self.gate(bytes(data[:HEAD])):
            return
        if self.curr_msg_data_type == "text":
            try:
                self._hand_over(bytes(data).decode())
            except UnicodeDecodeError:  # as uvicorn does: websockets' parser does not check UTF-8
                self.conn.send_close(1007)
                self.handle_parser_exception()
            return
        self._hand_over(bytes(data))

    def _counted(self, head: bytes | None) -> bool:
        """The gate, for :func:`client_frames`: :class:`_Cut` once it closed the connection."""
        assert self.gate is not None
        if self.gate(head):
            return True
        if self.transport.is_closing():
            raise _Cut
        return False

    def _control(self, opcode: int, payload: bytes) -> None:
        """A ping or pong read here, counted already (issue 33, finding 2): answered as
        ``websockets`` and uvicorn would (a pong for a ping; a pong to the keep-alive)."""
        if self.close_sent or self.transport.is_closing():
            return
        if opcode == PING:
            self.transport.write(bytes((0x8A, len(payload))) + payload)
        else:
            super().handle_pong(Frame(Opcode.PONG, payload))  # counted already

    def handle_ping(self) -> None:
        """A ping ``websockets`` read (a read cut partway through a frame): counted too; its pong
        is already queued with whatever else ``websockets`` has to send."""
        if self.gate is not None:
            self.gate(None)
        super().handle_ping()

    def handle_pong(self, event: Frame) -> None:
        if self.gate is not None:
            self.gate(None)
        super().handle_pong(event)

    def _hand_over(self, message: str | bytes) -> None:
        assert self.receiver is not None
        try:
            self.receiver(message)
        except Exception:  # the app's bug must not break the connection's parsing
            _log.exception("the app failed on a WebSocket message")


TRANSPORTS: dict[Transport, type[WebSocketsSansIOProtocol]] = {
    "direct": DirectWebSockets,
    "asgi": WebSocketsSansIOProtocol,
}
"""uvicorn's WebSocket protocol for each ``--transport``."""
