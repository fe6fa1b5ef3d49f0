"""Every internal of ``websockets``, ``uvicorn`` and Starlette that the WebSocket transport relies on
(niugui/server/transport.py, and app.py's abort on the plain ASGI path), each checked by name: an
upgrade that changes one fails here, naming the library, its version and what changed, instead of
every connection breaking some other way. The versions tested are pinned in requirements.lock and
bounded in pyproject.toml; until transport.py follows an upgrade, ``niugui serve --transport asgi``
runs without the direct path (tests/server/test_transport_switch.py)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import starlette
import uvicorn
import websockets
from uvicorn.config import WS_PROTOCOLS, Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol
from websockets.streams import StreamReader
from websockets.utils import apply_mask as python_mask

from niugui.server.transport import DIRECT, TRANSPORTS, Direct, DirectWebSockets, between_frames, text_frame

VERSIONS = {
    "websockets": websockets.version.version,
    "uvicorn": uvicorn.__version__,
    "starlette": starlette.__version__,
}
TESTED = {"websockets": "17.4", "uvicorn": "0.55.0", "starlette": "1.10.0"}


def masked(payload: bytes, opcode: Opcode = Opcode.TEXT, fin: bool = True) -> bytes:
    return Frame(opcode, payload, fin=fin).serialize(mask=True, extensions=[])


def open_conn() -> Protocol:
    return ServerProtocol(state=State.OPEN, max_size=4096)


# ---- websockets -----------------------------------------------------------------------------------


def ws_at_eof() -> None:
    assert inspect.isgeneratorfunction(StreamReader.at_eof), "StreamReader.at_eof is no generator function"


def ws_parser() -> None:
    conn = open_conn()
    assert between_frames(conn), "an open connection's parser is not suspended in StreamReader.at_eof"
    frame = masked(b"hello")
    conn.receive_data(frame[:1])
    assert not between_frames(conn), "the parser partway through a frame looks as between frames"
    conn.receive_data(frame[1:])
    assert between_frames(conn), "after a whole frame the parser is not back in StreamReader.at_eof"
    assert [e.data for e in conn.events_received()] == [b"hello"]


def ws_state() -> None:
    assert open_conn().state is State.OPEN, "Protocol.state of an open connection is not State.OPEN"
    assert ServerProtocol().state is State.CONNECTING


def ws_current_size() -> None:
    conn = open_conn()
    assert conn.current_size is None, "Protocol.current_size is not None between messages"
    conn.receive_data(masked(b"h", fin=False))
    assert conn.current_size is not None, "Protocol.current_size is None inside a fragmented message"


def ws_max_message_size() -> None:
    assert open_conn().max_message_size == 4096, "Protocol.max_message_size is not the max_size given"


def ws_extensions() -> None:
    assert open_conn().extensions == [], "Protocol.extensions is not an empty list without negotiation"


def ws_send_text() -> None:
    conn = open_conn()
    conn.send_text("牌".encode())
    assert conn.data_to_send() == [text_frame("牌".encode()) + "牌".encode()], "send_text/data_to_send differ"


def ws_apply_mask() -> None:
    from websockets.speedups import apply_mask

    assert apply_mask(b"abcdef", b"wxyz") == python_mask(b"abcdef", b"wxyz"), "speedups.apply_mask differs"


# ---- uvicorn --------------------------------------------------------------------------------------


class FakeTransport:
    def __init__(self) -> None:
        self.written = bytearray()
        self.paused = False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return default

    def write(self, data: bytes) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return False

    def close(self) -> None: ...

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


@dataclass
class Seen:
    """A connection of a protocol class past its handshake, and what it showed before it closed."""

    protocol: WebSocketsSansIOProtocol
    scope: dict[str, Any]
    send: Any
    attributes: dict[str, object]
    queued: object
    """What a client's text message "hi" queued for the app (which was not reading)."""
    reading_paused: tuple[bool, bool]
    """The protocol's ``read_paused`` and whether it paused its transport, once "hi" was queued."""


def handshake(cls: type[WebSocketsSansIOProtocol]) -> Seen:
    async def main() -> Seen:
        accepted, release = asyncio.Event(), asyncio.Event()
        seen: dict[str, Any] = {}

        async def app(scope: Any, receive: Any, send: Any) -> None:
            seen["scope"], seen["send"] = scope, send
            await receive()
            await send({"type": "websocket.accept"})
            accepted.set()
            await release.wait()
            while (await receive())["type"] != "websocket.disconnect":
                pass

        config = Config(app=app, ws=cls, lifespan="off", log_level="warning")
        config.load()
        protocol = cls(config, ServerState(), {})
        transport = FakeTransport()
        protocol.connection_made(transport)  # type: ignore[arg-type]
        protocol.data_received(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        await accepted.wait()
        protocol.data_received(masked(b"hi"))
        queued = protocol.queue.get_nowait()
        result = Seen(
            protocol,
            seen["scope"],
            seen["send"],
            {name: getattr(protocol, name, AttributeError) for name in ATTRIBUTES},
            queued,
            (protocol.read_paused, transport.paused),
        )
        release.set()
        protocol.connection_lost(None)
        await asyncio.gather(*protocol.tasks)
        return result

    return asyncio.run(main())


METHODS = {
    "run_asgi": ["self"],
    "data_received": ["self", "data"],
    "send_keepalive_ping": ["self"],
    "schedule_ping": ["self"],
    "send_receive_event_to_app": ["self"],
    "handle_parser_exception": ["self"],
}


def uv_methods() -> None:
    for name, parameters in METHODS.items():
        method = getattr(WebSocketsSansIOProtocol, name, None)
        assert method is not None, f"WebSocketsSansIOProtocol.{name} is gone"
        got = list(inspect.signature(method).parameters)
        assert got == parameters, f"WebSocketsSansIOProtocol.{name} takes {got}, not {parameters}"


ATTRIBUTES: dict[str, Callable[[Any], bool]] = {
    "conn": lambda v: isinstance(v, ServerProtocol),
    "transport": lambda v: isinstance(v, FakeTransport),
    "queue": lambda v: isinstance(v, asyncio.Queue),
    "read_paused": lambda v: isinstance(v, bool),
    "close_sent": lambda v: v is False,
    "disconnected": lambda v: v is False,
    "writable": lambda v: isinstance(v, asyncio.Event),
    "frames": lambda v: v == [],
    "curr_msg_data_type": lambda v: v == "text",
    "ping_timer": lambda v: v is None or isinstance(v, asyncio.TimerHandle),
}


def uv_attributes() -> None:
    seen = handshake(WebSocketsSansIOProtocol)
    for name, fits in ATTRIBUTES.items():
        value = seen.attributes[name]
        assert value is not AttributeError, f"WebSocketsSansIOProtocol has no attribute {name!r}"
        assert fits(value), f"WebSocketsSansIOProtocol.{name} is {value!r}"


def uv_receive_queue() -> None:
    seen = handshake(WebSocketsSansIOProtocol)
    assert seen.queued == {"type": "websocket.receive", "text": "hi"}, (
        "a text message is not queued as ASGI's"
    )
    assert seen.reading_paused == (True, True), "a queued message no longer pauses reading"


def uv_scope_extensions() -> None:
    seen = handshake(DirectWebSockets)
    extensions = seen.scope.get("extensions")
    assert isinstance(extensions, dict), "the WebSocket scope's extensions are not a dict"
    assert isinstance(extensions.get(DIRECT), Direct), "run_asgi no longer runs with the scope set"


def uv_ws_option() -> None:
    assert WS_PROTOCOLS.get("websockets-sansio", "").endswith(":WebSocketsSansIOProtocol"), (
        "uvicorn's ws='websockets-sansio' is no longer the protocol subclassed"
    )
    assert Config(app=None, ws=DirectWebSockets).ws is DirectWebSockets, "Config(ws=a class) is refused"


CHECKS: list[tuple[str, str, Callable[[], None]]] = [
    ("websockets", "StreamReader.at_eof", ws_at_eof),
    ("websockets", "Protocol.parser", ws_parser),
    ("websockets", "Protocol.state", ws_state),
    ("websockets", "Protocol.current_size", ws_current_size),
    ("websockets", "Protocol.max_message_size", ws_max_message_size),
    ("websockets", "Protocol.extensions", ws_extensions),
    ("websockets", "Protocol.send_text", ws_send_text),
    ("websockets", "speedups.apply_mask", ws_apply_mask),
    ("uvicorn", "WebSocketsSansIOProtocol methods", uv_methods),
    ("uvicorn", "WebSocketsSansIOProtocol attributes", uv_attributes),
    ("uvicorn", "WebSocketsSansIOProtocol.queue", uv_receive_queue),
    ("uvicorn", "scope extensions", uv_scope_extensions),
    ("uvicorn", "Config.ws", uv_ws_option),
]


@pytest.mark.parametrize(
    ("library", "internal", "check"), CHECKS, ids=[f"{lib}:{what}" for lib, what, _ in CHECKS]
)
def test_an_internal_the_transport_relies_on_is_as_tested(
    library: str, internal: str, check: Callable[[], None]
) -> None:
    try:
        check()
    except Exception as error:
        pytest.fail(
            f"{library} {VERSIONS[library]}: {internal} changed ({type(error).__name__}: {error}); "
            f"niugui/server/transport.py was tested with {library} {TESTED[library]}: pin it back, or serve "
            "with `niugui serve --transport asgi` until transport.py follows the upgrade",
            pytrace=False,
        )


def test_the_versions_tested_are_the_pinned_ones() -> None:
    """When requirements.lock moves one of these on purpose, rerun this file and update TESTED."""
    assert VERSIONS == TESTED


def test_every_transport_has_a_protocol() -> None:
    from typing import get_args

    from niugui.server.config import Transport

    assert list(TRANSPORTS) == list(get_args(Transport))
    assert TRANSPORTS["asgi"] is WebSocketsSansIOProtocol
    assert issubclass(TRANSPORTS["direct"], WebSocketsSansIOProtocol)
