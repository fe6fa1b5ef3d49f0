"""The direct WebSocket path (niugui/server/transport.py): its frames are the ones ``websockets``
writes, messages arrive in order over it, and a reader that does not read still gets its frames in
order once it reads (the app falls back to ASGI, which waits for it)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from server_harness import Player, Server
from websockets.frames import Frame, Opcode

from niugui.server.transport import text_frame


@given(st.sampled_from([0, 1, 125, 126, 127, 65535, 65536, 70000]) | st.integers(0, 3000))
def test_a_text_frame_is_the_one_websockets_serializes(size: int) -> None:
    payload = "牌".encode() * (size // 3) + b"x" * (size % 3)
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame(payload) + payload == expected


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
