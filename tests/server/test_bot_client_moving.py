"""The reference bot client treats a refusal ``moving`` (on a cluster, its table's node died or handed
the table over) as a pause: it sends the request again shortly, beside its reading of frames; any
other refusal stays refused. And a request sent as the connection drops is lost quietly (the client
connects again and drives its tables afresh), not a traceback in its log."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosedError

from niugui import botclient
from niugui.botclient import BotClient
from niugui.bots import load_bot


class Socket:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


def refused(client: BotClient, socket: Socket, code: str) -> list[dict[str, Any]]:
    """Send ``watch`` for table t1, refuse it with ``code``; what the client sent in all."""

    async def scenario() -> None:
        client._run("t1")
        await client._send("watch", "t1")
        await client._on_answer({"type": "error", "id": socket.sent[-1]["id"], "code": code, "message": "no"})
        await asyncio.gather(*client._thinking)

    asyncio.run(scenario())
    return socket.sent


@pytest.mark.parametrize(("code", "watches"), [("moving", 2), ("not_found", 1)])
def test_a_watch_refused_moving_is_sent_again_and_no_other(
    code: str, watches: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(botclient, "MOVING_WAIT", 0.0)
    client = BotClient("http://127.0.0.1:1", "token", lambda: load_bot("basic"), say=lambda text: None)
    socket = Socket()
    client._ws = socket
    sent = refused(client, socket, code)
    assert [(m["type"], m["table"]) for m in sent] == [("watch", "t1")] * watches


class Dropped(Socket):
    async def send(self, text: str) -> None:
        raise ConnectionClosedError(None, None)


def test_a_request_sent_as_the_connection_drops_is_lost_quietly() -> None:
    client = BotClient("http://127.0.0.1:1", "token", lambda: load_bot("basic"), say=lambda text: None)
    client._ws = Dropped()
    asyncio.run(client._send("play", "t1", cards=["D3"]))  # no exception: the run loop reconnects
    assert client._pending == {}
