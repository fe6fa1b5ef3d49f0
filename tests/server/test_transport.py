"""The direct WebSocket path (niugui/server/transport.py): its frames are the ones ``websockets``
writes, the client frames it reads itself are the ones ``websockets`` would have read (and it leaves
every other frame to ``websockets``), messages arrive in order over it, and a reader that does not
read still gets its frames in order once it reads (the app falls back to ASGI, which waits for it)."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from server_harness import Player, Server
from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.utils import apply_mask

from niugui.server.transport import DirectWebSockets, client_texts, text_frame


def masked(opcode: Opcode, payload: bytes, fin: bool = True) -> bytes:
    """A client's frame as ``websockets`` writes it (masked with a fresh random key)."""
    return Frame(opcode, payload, fin=fin).serialize(mask=True, extensions=[])


@given(st.sampled_from([0, 1, 125, 126, 127, 65535, 65536, 70000]) | st.integers(0, 3000))
def test_a_text_frame_is_the_one_websockets_serializes(size: int) -> None:
    payload = "牌".encode() * (size // 3) + b"x" * (size % 3)
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame(payload) + payload == expected


texts = st.text(max_size=300) | st.text(min_size=126, max_size=70_000)


@given(st.lists(texts, max_size=5), st.sampled_from([b"", b"\x81", b"\x89\x80abcd", b"\x01\x80abcd"]))
def test_client_texts_reads_whole_text_frames_and_leaves_the_rest(messages: list[str], rest: bytes) -> None:
    frames = [masked(Opcode.TEXT, m.encode()) for m in messages]
    # from the first frame with a 64-bit length on, websockets reads
    cut = next((i for i, m in enumerate(messages) if len(m.encode()) >= 1 << 16), len(messages))
    data = b"".join(frames) + rest
    assert client_texts(data, None) == (messages[:cut], sum(map(len, frames[:cut])))


def test_client_texts_stops_at_a_cut_frame_a_large_one_and_bad_utf8() -> None:
    whole, other = masked(Opcode.TEXT, b'{"a": 1}'), masked(Opcode.TEXT, "牌牌牌".encode())
    assert client_texts(whole + other[:-1], None) == (['{"a": 1}'], len(whole))
    assert client_texts(whole + other, 8) == (['{"a": 1}'], len(whole))  # 9 bytes over a limit of 8
    assert client_texts(masked(Opcode.TEXT, b"\xff") + whole, None) == ([], 0)  # websockets refuses it
    unmasked = Frame(Opcode.TEXT, b"hi").serialize(mask=False, extensions=[])
    assert client_texts(unmasked + whole, None) == ([], 0)
    fragment = masked(Opcode.TEXT, b"h", fin=False) + masked(Opcode.CONT, b"i")
    assert client_texts(whole + fragment, None) == (['{"a": 1}'], len(whole))


def test_frames_cut_anywhere_fragmented_or_among_control_frames_are_read_in_order(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", "--rate-limit", "2000").start()
    try:
        player = Player(server, "frames")
        assert player.ws is not None
        raw: socket.socket = player.ws.socket
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def ping(n: int) -> bytes:
            return (json.dumps({"type": "ping", "id": f"p{n}"}) + " " * (n % 3) * 80).encode()

        blob = b"".join(
            [
                masked(Opcode.TEXT, ping(0)),
                masked(Opcode.TEXT, ping(1)),  # a 16-bit length
                masked(Opcode.PING, b"?"),
                masked(Opcode.TEXT, ping(2)),
                masked(Opcode.TEXT, ping(3)[:5], fin=False),  # a fragmented message
                masked(Opcode.CONT, ping(3)[5:]),
                masked(Opcode.TEXT, ping(4)),
            ]
        )
        rounds = 0
        for size in (len(blob), 1, 3, 7, 40, 111):  # sent whole, or cut into pieces of this many bytes
            for at in range(0, len(blob), size):
                raw.sendall(blob[at : at + size])
            answers = [player.wait(lambda m: m["type"] in ("ack", "error")) for _ in range(5)]
            assert [a["id"] for a in answers] == [f"p{n}" for n in range(5)], (size, answers)
            assert all(a["type"] == "ack" for a in answers), answers
            rounds += 1
        assert rounds == 6
        raw.sendall(masked(Opcode.TEXT, b"\xff\xfe"))  # not UTF-8: the connection is closed with 1007
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                player.ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
    finally:
        server.stop()


def test_messages_pipelined_on_one_connection_are_answered_in_order(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", "--rate-limit", "2000").start()
    try:
        player = Player(server, "pipeline")
        for n in range(300):  # sent at once: many arrive in one read and are handed over in order
            player.send_raw(json.dumps({"type": "ping", "id": f"p{n}"}))
        answers = [player.wait(lambda m: m["type"] in ("ack", "error")) for _ in range(300)]
        assert [a["id"] for a in answers] == [f"p{n}" for n in range(300)]
        assert all(a["type"] == "ack" for a in answers)
        player.close()
    finally:
        server.stop()


class FakeTransport:
    """What the protocol writes, kept; no socket (each ``data_received`` is one read, cut where the
    test cuts it)."""

    def __init__(self) -> None:
        self.written = bytearray()
        self.closing = False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return default

    def write(self, data: bytes) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


async def open_protocol() -> tuple[DirectWebSockets, FakeTransport, list[str | bytes]]:
    """A server connection past its handshake, its messages handed to the list returned."""

    async def app(scope: object, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass

    config = Config(app=app, ws=DirectWebSockets, lifespan="off", log_level="warning")
    config.load()
    protocol = DirectWebSockets(config, ServerState(), {})
    transport = FakeTransport()
    protocol.connection_made(transport)  # type: ignore[arg-type]
    protocol.data_received(
        b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    while b"\r\n\r\n" not in transport.written:  # the app accepts on the loop
        await asyncio.sleep(0)
    assert transport.written.startswith(b"HTTP/1.1 101")
    del transport.written[:]
    got: list[str | bytes] = []
    protocol.take_messages(got.append)
    return protocol, transport, got


def keyed(payload: bytes, key: bytes, first: int = 0x81) -> bytes:
    """A client frame masked with ``key`` (under 126 bytes)."""
    return bytes((first, 0x80 | len(payload))) + key + apply_mask(payload, key)


def test_reads_cut_at_every_byte_give_the_messages_websockets_gives() -> None:
    """Each client frame split across reads at every byte, whole frames and fragments among them:
    the messages handed over are the sent ones, in order — wherever the read path's own parsing
    stops and ``websockets``' takes over (partway through a frame), and back. The first two frames'
    tails look like whole frames of their own: read alone after the header (and key) that
    ``websockets`` has already taken, they must not be read as frames."""
    sent = ["! abcd", "hi", "{}", "牌" * 50, "x" * 130, "b", "c"]
    frames = [
        keyed(b"! abcd", b"\xa0\xa0\x00\x00"),  # its masked payload is an empty frame: 81 80 ...
        keyed(b"hi", b"\x81\x80\x00\x00"),  # its key and payload are an empty frame: 81 80 ...
    ]
    assert frames[0][6:8] == frames[1][2:4] == b"\x81\x80"
    frames += [masked(Opcode.TEXT, text.encode()) for text in sent[2:5]]
    frames.append(masked(Opcode.TEXT, b"", fin=False) + masked(Opcode.CONT, b"b"))
    frames.append(masked(Opcode.PING, b"") + masked(Opcode.TEXT, b"c"))
    stream = b"".join(frames)

    async def main() -> list[str | bytes]:
        protocol, _, got = await open_protocol()
        for cut in range(len(stream) + 1):  # one read up to the cut, one after it
            protocol.data_received(stream[:cut])
            protocol.data_received(stream[cut:])
        for size in (1, 2, 5):  # and every piece of that size a read of its own
            for at in range(0, len(stream), size):
                protocol.data_received(stream[at : at + size])
        protocol.connection_lost(None)
        return got

    assert asyncio.run(main()) == sent * (len(stream) + 1 + 3)


def test_whole_text_frames_are_read_without_websockets_parser() -> None:
    """The fast path is taken (a websockets whose parser no longer looks as ``between_frames``
    expects would be read safely, all by websockets, but slower: this says so)."""

    async def main() -> tuple[list[str | bytes], list[bytes]]:
        protocol, _, got = await open_protocol()
        parsed: list[bytes] = []
        receive_data = protocol.conn.receive_data

        def seen(data: bytes | bytearray) -> None:
            parsed.append(bytes(data))
            receive_data(data)

        protocol.conn.receive_data = seen  # type: ignore[method-assign]
        text, ping = masked(Opcode.TEXT, b"x" * 200), masked(Opcode.PING, b"")
        protocol.data_received(text + text)
        protocol.data_received(text + ping + text)
        protocol.connection_lost(None)
        return got, parsed

    got, parsed = asyncio.run(main())
    assert got == ["x" * 200] * 4
    assert len(parsed) == 1 and parsed[0].startswith(b"\x89")  # only the ping, and what followed it


def test_messages_after_the_server_closed_are_discarded() -> None:
    async def main() -> list[str | bytes]:
        protocol, _, got = await open_protocol()
        protocol.data_received(masked(Opcode.TEXT, b"before"))
        await protocol.send({"type": "websocket.close", "code": 1000})
        protocol.data_received(masked(Opcode.TEXT, b"after"))
        protocol.connection_lost(None)
        return got

    assert asyncio.run(main()) == ["before"]


def test_a_whole_message_in_the_middle_of_a_fragmented_one_fails_the_connection() -> None:
    """RFC 6455 §5.4: a fragmented message's frames are not interleaved with another message's."""

    async def main() -> tuple[list[str | bytes], bytes]:
        protocol, transport, got = await open_protocol()
        protocol.data_received(masked(Opcode.TEXT, b"h", fin=False))
        protocol.data_received(masked(Opcode.TEXT, b"i"))
        protocol.connection_lost(None)
        return got, bytes(transport.written)

    got, written = asyncio.run(main())
    assert got == []
    assert written[0] == 0x88 and written[2:4] == (1002).to_bytes(2, "big")  # close: protocol error


def test_keepalive_pings_only_a_connection_silent_since_the_last_one() -> None:
    """A client that sent something since the keep-alive timer was set is alive: no ping, the timer
    is set again. A silent one is pinged; its pong re-arms the timer; no pong closes it (1011)."""

    async def main() -> list[bytes]:
        protocol, transport, got = await open_protocol()
        assert protocol.ping_timer is not None  # set when the handshake completed
        first_timer = protocol.ping_timer
        first_timer.cancel()  # the test fires the timer itself
        steps = []
        protocol.data_received(masked(Opcode.TEXT, b"move"))
        protocol.send_keepalive_ping()  # the timer fires: the client spoke meanwhile
        steps.append(bytes(transport.written))
        assert protocol.ping_timer is not None and protocol.ping_timer is not first_timer
        assert protocol.pong_timer is None
        protocol.ping_timer.cancel()
        protocol.send_keepalive_ping()  # fires again: silent since
        steps.append(bytes(transport.written))
        assert protocol.pending_ping_payload is not None and protocol.pong_timer is not None
        protocol.data_received(masked(Opcode.PONG, protocol.pending_ping_payload))
        assert protocol.pong_timer is None and protocol.ping_timer is not None  # re-armed
        protocol.ping_timer.cancel()
        del transport.written[:]
        protocol.send_keepalive_ping()  # the pong was the last thing heard: silent since the re-arm
        assert protocol.pong_timer is not None
        protocol.pong_timer.cancel()
        protocol.keepalive_timeout()  # no pong in time
        steps.append(bytes(transport.written))
        protocol.data_received(masked(Opcode.TEXT, b"late"))  # past the close: no timer set again
        protocol.send_keepalive_ping()
        assert protocol.ping_timer is None and bytes(transport.written) == steps[-1]
        protocol.connection_lost(None)
        assert got == ["move"]
        return steps

    skipped, pinged, timed_out = asyncio.run(main())
    assert skipped == b""
    assert pinged[0] == 0x89 and pinged[1] == 4  # a ping with its 4-byte payload
    ping, close = timed_out[:6], timed_out[6:]  # pinged, then closed
    assert ping[:2] == b"\x89\x04" and close[0] == 0x88 and close[2:4] == (1011).to_bytes(2, "big")
