"""Issue 15, findings 2 and 3: no token in any log line; a WebSocket authenticates by its first
message; connections are capped per account and per address (and new players still get in)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import httpx
import pytest
from server_harness import Player, Server
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("connections") / "data",
        "--log-level",
        "debug",  # the most uvicorn says: still no token
        "--limit",
        "connections_per_account=3",
        "--limit",
        "connections_per_address=12",
        "--limit",
        "auth_seconds=1",
    ).start()
    yield srv
    srv.stop()


def raw(server: Server, path: str = "/ws") -> ClientConnection:
    return connect(f"ws://127.0.0.1:{server.port}{path}", open_timeout=10)


def closed_with(ws: ClientConnection) -> tuple[str, int | None]:
    """The error the server sent, and the close code that followed."""
    first = json.loads(ws.recv(timeout=10))
    with pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=10)
    return str(first.get("code")), closed.value.rcvd.code if closed.value.rcvd else None


def test_no_token_reaches_the_log(server: Server) -> None:
    alice = Player(server, "logged")
    assert alice.request("ping")["type"] == "ack"
    with raw(server, f"/ws?token={alice.token}") as ws:  # the old way is refused, and not logged
        code, close = closed_with(ws)
        assert (code, close) == ("forbidden", 4401)
    alice.close()
    log = server.log.read_text()
    assert "WebSocket /ws" in log, "uvicorn logs each WebSocket it accepts at this level"
    assert alice.token not in log
    assert "token=…" in log  # the URL was logged, with its token redacted


def test_the_first_message_must_authenticate(server: Server) -> None:
    with raw(server) as ws:
        ws.send(json.dumps({"type": "ping", "id": "p"}))
        assert closed_with(ws) == ("forbidden", 4401)
    with raw(server) as ws:  # says nothing: closed after auth_seconds
        assert closed_with(ws) == ("forbidden", 4401)
    alice = Player(server, "twice")
    assert alice.request("auth", token=alice.token)["code"] == "bad_state"
    alice.close()


def test_connections_per_account_are_capped(server: Server) -> None:
    alice = Player(server, "many")
    more = [Player(server, "many", session=alice.session) for _ in range(2)]
    with raw(server) as ws:
        ws.send(json.dumps({"type": "auth", "id": "a", "token": alice.token}))
        assert closed_with(ws) == ("rate_limited", 4429)
    more[0].close()
    more[0] = Player(server, "many", session=alice.session)  # a closed one frees its place
    assert more[0].request("ping")["type"] == "ack"
    for p in (alice, *more):
        p.close()


def test_connections_per_address_are_capped_and_new_players_still_get_in(server: Server) -> None:
    stack = contextlib.ExitStack()
    for _ in range(12):  # not even authenticated: they count from the handshake
        stack.enter_context(raw(server))
    with stack:
        with raw(server) as ws:
            assert closed_with(ws) == ("rate_limited", 4429)
        assert httpx.get(server.url + "/healthz").json() == {"status": "ok"}
        guest = httpx.post(server.url + "/api/guest", json={"nickname": "newcomer"})
        assert guest.status_code == 200
    newcomer = Player(server, "newcomer", session=guest.json())  # the sockets are gone: room again
    assert newcomer.request("ping")["type"] == "ack"
    newcomer.close()


def test_logout_revokes_the_token_and_closes_its_connections(server: Server) -> None:
    alice = Player(server, "leaving")
    other = httpx.post(
        server.url + "/api/register",
        json={"username": "leaver", "password": "pass-word-1"},
        headers={"Authorization": f"Bearer {alice.token}"},
    ).json()
    second = Player(server, "leaving", session=other)  # the same account, another session
    headers = {"Authorization": f"Bearer {alice.token}"}
    assert httpx.post(server.url + "/api/logout", headers=headers).json() == {"sessions_ended": 1}
    assert httpx.get(server.url + "/api/me", headers=headers).status_code == 401
    with pytest.raises(ConnectionClosed):
        for _ in range(10):
            alice.recv(5)
    alice.ws = None
    assert second.request("ping")["type"] == "ack"  # only that session ended
    with raw(server) as ws:
        ws.send(json.dumps({"type": "auth", "id": "a", "token": alice.token}))
        assert closed_with(ws) == ("forbidden", 4401)
    everywhere = httpx.post(
        server.url + "/api/logout",
        json={"everywhere": True},
        headers={"Authorization": f"Bearer {second.token}"},
    )
    assert everywhere.json()["sessions_ended"] >= 1
    login = httpx.post(server.url + "/api/login", json={"username": "leaver", "password": "pass-word-1"})
    assert login.status_code == 200  # the password still works; only sessions ended
    with pytest.raises(ConnectionClosed):
        for _ in range(10):
            second.recv(5)
    second.ws = None
