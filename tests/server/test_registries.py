"""Adding a client message touches only the registry and its handler: a test adds one (``echo``) and
the server routes it, lists it and documents it, with nothing else changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest
from fastapi.testclient import TestClient
from pydantic import Field
from table_harness import FakeClient, rig

from niugui.server.app import create_app
from niugui.server.config import Config
from niugui.server.dispatch import Desk, Registry, route
from niugui.server.handlers import ROUTES
from niugui.server.protocol import ClientId, Ping, Prebuilt, Request
from niugui.server.tables import Answer, Client, Reply


class Echo(Request):
    """A new message type: answered with its text."""

    type: Literal["echo"]
    id: ClientId
    text: str = Field(max_length=20)


def echo(_desk: Desk, _client: Client, message: Echo, reply: Reply) -> None:
    reply(Answer(data=Prebuilt(json.dumps({"echo": message.text}))))


WITH_ECHO = ROUTES.with_routes(route(Echo, echo))


def test_a_new_message_is_routed_listed_and_documented(tmp_path: Path) -> None:
    r = rig(tmp_path)
    r.hub.routes = WITH_ECHO
    c = FakeClient("a", "ann")
    r.hub.connect(c)
    answers: list[Answer | BaseException] = []
    r.hub.handle(c, Echo(type="echo", id="1", text="你好"), answers.append)
    assert len(answers) == 1 and isinstance(answers[0], Answer)
    assert isinstance(answers[0].data, Prebuilt) and json.loads(answers[0].data.json) == {"echo": "你好"}
    assert WITH_ECHO.types["echo"] is Echo and "echo" not in ROUTES.types
    assert '"const": "echo"' in json.dumps(WITH_ECHO.schema())


def test_a_type_routed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="ping"):
        ROUTES.with_routes(route(Ping, lambda *_: None))


def test_every_table_message_names_a_table_and_only_those() -> None:
    for kind, model in ROUTES.types.items():
        each = ROUTES.get(kind)
        assert each is not None and each.table == ("table" in model.model_fields), kind


def test_a_registry_with_one_route() -> None:
    only = Registry([route(Ping, lambda _d, _c, _m, reply: reply(Answer()))])
    assert list(only.types) == ["ping"]


def test_a_new_message_over_the_websocket(tmp_path: Path) -> None:
    """The whole way: a client sends ``echo`` over the WebSocket of an app built with the registry."""
    app = create_app(Config(data_dir=tmp_path), routes=WITH_ECHO)
    with TestClient(app) as http:
        token = http.post("/api/guest", json={"nickname": "ann"}).json()["token"]
        with http.websocket_connect("/ws") as ws:
            ws.send_json({"type": "auth", "id": "a", "token": token})
            assert ws.receive_json()["type"] == "welcome"
            ws.send_json({"type": "echo", "id": "e1", "text": "hi"})
            assert ws.receive_json() == {"type": "ack", "id": "e1", "seq": None, "data": {"echo": "hi"}}
            ws.send_json({"type": "echo", "id": "e2", "text": "x" * 21})
            assert ws.receive_json()["code"] == "invalid_message"
