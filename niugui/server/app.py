"""The ASGI app: HTTP routes under /api, the WebSocket at /ws, the web page at /. Kept thin:
accept, authenticate, rate-limit, decode, route to the hub, send.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, HTTPException, Query, WebSocket
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.websockets import WebSocketDisconnect

from . import auth, logs, replays
from .config import Config
from .hub import Hub
from .metrics import Metrics
from .protocol import (
    CLIENT_TYPES,
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    GuestRequest,
    LoginRequest,
    RegisterRequest,
)
from .runtime import Fault
from .store import AccountRow, Store

WS_HARD_LIMIT = 64 * 1024
"""Frames above this are not even read: uvicorn closes the connection (1009)."""
QUEUE_LIMIT = 5000
"""Messages waiting for a slow client before it is disconnected."""
FLOOD_CLOSE = 200
"""Rate-limited messages in a row after which the connection is closed (1008)."""


class TokenBucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst, self.tokens, self.stamp = rate, burst, burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Connection:
    """One WebSocket client: an account, an outgoing queue and its writer task."""

    def __init__(self, websocket: WebSocket, account: AccountRow, config: Config, metrics: Metrics) -> None:
        self.websocket = websocket
        self.account_id = account.id
        self.nickname = account.nickname
        self.queue: asyncio.Queue[dict[str, Any] | str | None] = asyncio.Queue()
        self.bucket = TokenBucket(config.rate_limit, config.rate_burst)
        self.metrics = metrics
        self.limited = 0
        self.closed = False

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= QUEUE_LIMIT:
            logs.warning("client too slow; disconnecting", account=self.account_id)
            self.close()
            return
        self.queue.put_nowait(message)

    def close(self) -> None:
        self.closed = True
        self.queue.put_nowait(None)

    def error(self, request_id: str | None, code: str, message: str, rule: str | None = None) -> None:
        self.metrics.errors.labels(code).inc()
        self.send({"type": "error", "id": request_id, "code": code, "rule": rule, "message": message})

    async def writer(self) -> None:
        try:
            while True:
                message = await self.queue.get()
                if message is None:
                    await self.websocket.close(code=1008)
                    return
                if not isinstance(message, str):
                    message = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
                await self.websocket.send_text(message)
        except Exception:  # the socket is gone; the reader notices and cleans up
            self.closed = True


def create_app(config: Config, opened: Store | None = None) -> FastAPI:
    """The app, on the ``opened`` store or on one it opens at startup (migrated either way)."""
    metrics = Metrics()
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        store = opened or Store(config.database_url())
        store.migrate()
        hub = Hub(store, config, metrics)
        hub.restore()
        state["store"], state["hub"] = store, hub
        logs.info("server ready", db=store.engine.dialect.name, tables=len(hub.tables))
        yield
        for table in hub.tables.values():
            table.cancel_timer()
        store.close()

    app = FastAPI(title="niugui", version=str(PROTOCOL_VERSION), lifespan=lifespan)

    def store() -> Store:
        s: Store = state["store"]
        return s

    def hub() -> Hub:
        h: Hub = state["hub"]
        return h

    def account_of(authorization: str | None) -> AccountRow | None:
        if not authorization or not authorization.lower().startswith("bearer "):
            return None
        return store().account_by_token_hash(auth.token_hash(authorization[7:].strip()))

    def session(account: AccountRow, token: str) -> dict[str, Any]:
        return {
            "token": token,
            "account": {"id": account.id, "nickname": account.nickname, "username": account.username},
        }

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/metrics")
    def prometheus() -> Response:
        return Response(metrics.render(), media_type="text/plain; version=0.0.4")

    @app.post("/api/guest")
    def guest(body: GuestRequest) -> dict[str, Any]:
        nickname = body.nickname.strip()
        if not nickname:
            raise HTTPException(422, "nickname: must not be blank")
        token = auth.new_token()
        account = store().create_account(auth.new_id(), nickname, auth.token_hash(token))
        logs.info("guest account", account=account.id)
        return session(account, token)

    @app.post("/api/register")
    async def register(body: RegisterRequest, authorization: str | None = Header(None)) -> dict[str, Any]:
        hashed = await asyncio.to_thread(auth.hash_password, body.password)
        current = account_of(authorization)
        token = auth.new_token()
        if current is None:
            current = store().create_account(
                auth.new_id(), body.nickname or body.username, auth.token_hash(token)
            )
        else:
            if current.username is not None:
                raise HTTPException(409, "this account is registered already")
            store().add_session(current.id, auth.token_hash(token))
        if not store().set_credentials(current.id, body.username, hashed, body.nickname):
            raise HTTPException(409, f"username {body.username!r} is taken")
        account = store().account(current.id)
        assert account is not None
        return session(account, token)

    @app.post("/api/login")
    async def login(body: LoginRequest) -> dict[str, Any]:
        found = store().credentials(body.username)
        ok = found is not None and await asyncio.to_thread(auth.verify_password, found[1], body.password)
        if not ok or found is None:
            raise HTTPException(401, "wrong username or password")
        token = auth.new_token()
        store().add_session(found[0].id, auth.token_hash(token))
        return session(found[0], token)

    @app.get("/api/me")
    def me(authorization: str | None = Header(None)) -> dict[str, Any]:
        account = account_of(authorization)
        if account is None:
            raise HTTPException(401, "missing or unknown token")
        return {"id": account.id, "nickname": account.nickname, "username": account.username}

    @app.get("/api/tables")
    async def lobby() -> dict[str, Any]:  # async: it reads the hub, which lives on the event loop
        return {"tables": hub().lobby()}

    @app.get("/api/tables/{table_id}/ledger")
    def table_ledger(table_id: str) -> dict[str, Any]:
        if store().table_row(table_id) is None:
            raise HTTPException(404, f"no table {table_id!r}")
        return {"entries": store().table_ledger(table_id)}

    @app.get("/api/leaderboard")
    def leaderboard(limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
        return {"players": store().leaderboard(limit)}

    @app.get("/api/players/{account_id}/games")
    def history(account_id: str, limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
        if store().account(account_id) is None:
            raise HTTPException(404, f"no player {account_id!r}")
        return {"games": store().history(account_id, limit)}

    @app.get("/api/games/{game_id}/record")
    def record(game_id: int) -> JSONResponse:
        game = store().game(game_id)
        if game is None:
            raise HTTPException(404, f"no game {game_id}")
        if game.record is None:
            raise HTTPException(404, f"game {game_id} is still in progress")
        return JSONResponse(
            game.record, headers={"Content-Disposition": f'attachment; filename="niugui-game-{game_id}.json"'}
        )

    replays.add_routes(app, store)

    @app.websocket("/ws")
    async def websocket_endpoint(websocket: WebSocket) -> None:
        token = websocket.query_params.get("token")
        account = store().account_by_token_hash(auth.token_hash(token)) if token else None
        await websocket.accept()
        if account is None:
            await websocket.send_text(
                json.dumps(
                    {
                        "type": "error",
                        "id": None,
                        "code": "forbidden",
                        "rule": None,
                        "message": "missing or unknown token",
                    }
                )
            )
            await websocket.close(code=4401)
            return
        connection = Connection(websocket, account, config, metrics)
        metrics.connections.inc()
        welcome = hub().connect(connection)
        connection.send(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "account": {"id": account.id, "nickname": account.nickname, "username": account.username},
                "seats": welcome["seats"],
            }
        )
        writer = asyncio.create_task(connection.writer())
        try:
            while not connection.closed:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                text = frame.get("text")
                if text is None:
                    data = frame.get("bytes") or b""
                    try:
                        text = data.decode()
                    except UnicodeDecodeError:
                        connection.error(None, "bad_json", "frames must be UTF-8 JSON text")
                        continue
                on_frame(connection, text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            metrics.connections.dec()
            connection.closed = True
            hub().disconnect(connection)
            writer.cancel()

    def on_frame(connection: Connection, text: str) -> None:
        if len(text) > MAX_FRAME_BYTES // 4 and len(text.encode()) > MAX_FRAME_BYTES:
            connection.error(None, "frame_too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes")
            return
        if not connection.bucket.take():
            connection.limited += 1
            connection.error(
                _request_id(text), "rate_limited", f"over {config.rate_limit:g} messages per second; dropped"
            )
            if connection.limited >= FLOOD_CLOSE:
                connection.close()
            return
        connection.limited = 0
        try:
            data = json.loads(text)
        except ValueError as error:
            connection.error(None, "bad_json", f"not valid JSON: {error}")
            return
        if not isinstance(data, dict):
            connection.error(None, "bad_json", "a message must be a JSON object with a 'type'")
            return
        request_id = data.get("id") if isinstance(data.get("id"), str) else None
        kind = data.get("type")
        model = CLIENT_TYPES.get(kind) if isinstance(kind, str) else None
        if model is None:
            connection.error(
                request_id, "unknown_type", f"unknown message type {kind!r}; see docs/protocol.md"
            )
            return
        metrics.messages.labels(kind).inc()
        try:
            message = model.model_validate(data)
        except ValidationError as error:
            connection.error(request_id, "invalid_message", _validation_text(error))
            return
        assert request_id is not None
        started = time.perf_counter()
        try:
            answer = hub().handle(connection, message)
        except Fault as fault:
            connection.error(request_id, fault.code, str(fault), fault.rule)
            return
        except Exception:
            logs.exception("request failed", type=kind, account=connection.account_id)
            connection.error(request_id, "server_error", "the server failed on this request; nothing changed")
            return
        finally:
            metrics.handle_seconds.observe(time.perf_counter() - started)
        connection.send(
            {"type": "ack", "id": request_id, "seq": answer.get("seq"), "data": answer.get("data")}
        )

    static = config.static_dir or Path(__file__).resolve().parents[1] / "web" / "static"
    if static.is_dir():
        app.mount("/", StaticFiles(directory=static, html=True), name="web")

    return app


def _request_id(text: str) -> str | None:
    """The ``id`` of a frame, if it has a readable one (to answer even a dropped request)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    request_id = data.get("id") if isinstance(data, dict) else None
    return request_id if isinstance(request_id, str) else None


def _validation_text(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "message"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)
