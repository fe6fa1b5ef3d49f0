"""The ASGI app: HTTP routes under /api, the WebSocket at /ws, the web page at /. Kept thin:
accept, authenticate, rate-limit, decode, route to the hub, send.

Fair use (docs/security.md): HTTP goes through :class:`~niugui.server.guard.Guard` (headers, rate
limits, body cap); a WebSocket authenticates with its first message, counts against its account's and
address's connection caps, and has its messages rate-limited per connection, account and address;
what waits for a slow reader is capped in size (the reader is dropped past it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa
from fastapi import Body, FastAPI, Header, HTTPException, Query, Request, WebSocket
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from . import auth, collusion, expiry, logs, profiles, replays
from .config import Config
from .guard import BodyTooLarge, Guard
from .handlers import CLIENT_TYPES
from .hub import Hub
from .limits import Counter, Exempt, KeyedBuckets, TokenBucket, address_key, take_all
from .lobby import Lobby, LobbyQuery
from .metrics import Metrics
from .protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    Account,
    Auth,
    BotLevel,
    Chat,
    CreateTable,
    GuestRequest,
    HttpError,
    HttpErrorCode,
    LobbyStatus,
    LoginRequest,
    LogoutRequest,
    Message,
    RegisterRequest,
    Sit,
    UpdateSettings,
    Watch,
    ack_frame,
    error_frame,
    welcome_frame,
)
from .static import StaticSite
from .store import AccountRow, GameRow, Store, is_locked
from .tables import Answer, Fault
from .transport import DIRECT, Direct

WS_HARD_LIMIT = 64 * 1024
"""Frames above this are not even read: uvicorn closes the connection (1009)."""
FLOOD_CLOSE = 200
"""Rate-limited messages in a row after which the connection is closed (1008)."""
MAX_DEPTH = 32
"""Deepest nesting of arrays and objects in a frame (every message of the protocol needs 3)."""
CLOSE_UNAUTHORIZED = 4401
"""Close code: no valid ``auth`` first, or the session was revoked (log out)."""
CLOSE_TOO_MANY = 4429
"""Close code: the account or the address has too many connections open."""


class BadFrame(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def decode(text: str) -> Any:
    """A frame's JSON, refused (:class:`BadFrame`) when nested too deeply or holding text that is not
    Unicode (a lone surrogate escape such as ``"\\ud800"``, which no reply could carry back).

    >>> decode('{"type": "ping", "id": "1"}')
    {'type': 'ping', 'id': '1'}
    >>> decode('[' * 40 + ']' * 40)
    Traceback (most recent call last):
    niugui.server.app.BadFrame: nested deeper than 32 levels
    """
    try:
        data = json.loads(text)
    except RecursionError:
        raise BadFrame("bad_json", f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:
        raise BadFrame("bad_json", f"not valid JSON: {error}") from None
    check_strings = "\\ud" in text or "\\uD" in text
    if not check_strings and text.count("[") + text.count("{") < MAX_DEPTH:
        return data  # every array or object opens with one of these: it cannot be nested too deeply
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise BadFrame("bad_json", f"nested deeper than {MAX_DEPTH} levels")
            items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
        elif check_strings and isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise BadFrame(
                    "invalid_message", "a string is not valid Unicode (a lone surrogate)"
                ) from None
    return data


def http_error(code: HttpErrorCode, message: str) -> dict[str, Any]:
    """An HTTP error's ``detail`` (:class:`~niugui.server.protocol.HttpError`)."""
    return HttpError(code=code, message=message).model_dump()


def fail(
    status: int, code: HttpErrorCode, message: str, headers: dict[str, str] | None = None
) -> HTTPException:
    """An HTTP error the page words from its ``code``."""
    return HTTPException(status, http_error(code, message), headers=headers)


def _dump(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _error(request_id: str | None, code: str, message: str, rule: str | None = None) -> str:
    return error_frame(request_id, code, message, rule)  # type: ignore[arg-type]  # codes: protocol.ErrorCode


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
        self.account_id = account.id
        self.nickname = account.nickname
        self.username = account.username
        self.bot = account.bot
        """A bot account's connection (see :func:`niugui.server.tables.is_bot_account`)."""
        self.token_hash = token_hash
        self.bucket = TokenBucket(config.rate_limit, config.rate_burst)
        self.chat_bucket = TokenBucket(config.limits.chat_rate, config.limits.chat_burst)
        self.metrics = metrics
        self.limited = 0
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

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        text = message if isinstance(message, str) else _dump(message)
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

    def drop(self) -> None:
        """Cut the connection now, discarding what is queued (a reader too slow to keep up)."""
        self.closed = self.dropped = True
        self._frames.clear()
        self.queued = 0
        self._wake.set()

    def error(self, request_id: str | None, code: str, message: str, rule: str | None = None) -> None:
        self.metrics.errors.labels(code).inc()
        self.send(_error(request_id, code, message, rule))

    async def writer(self) -> None:
        """Send the queue in order; returns when the connection is closed, dropped or gone."""
        try:
            while True:
                if self.dropped:
                    self._abort()
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

    def _abort(self) -> None:
        """Close the TCP connection at once, without flushing."""
        if self._direct is not None:
            self._direct.abort()
            return
        protocol = getattr(getattr(self.websocket, "_send", None), "__self__", None)
        transport = getattr(protocol, "transport", None)
        if transport is not None:
            transport.abort()


class Clients:
    """Open connections per account and per address (the caps), and every connection of an account
    (to close them when its sessions are revoked)."""

    def __init__(self) -> None:
        self.by_account: dict[str, set[Connection]] = {}
        self.per_address = Counter()

    def count(self, account_id: str) -> int:
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


def create_app(config: Config, opened: Store | None = None) -> FastAPI:
    """The app, on the ``opened`` store or on one it opens at startup (migrated either way)."""
    metrics = Metrics()
    limits = config.limits
    exempt = Exempt.parse(config.exempt)
    state: dict[str, Any] = {}
    hasher = auth.PasswordHasher(limits.hash_workers, limits.hash_queue)
    clients = Clients()
    session_age = limits.session_days * 86400 or None
    per_hour = 1 / 3600

    # buckets the transport checks (per account and per address)
    ws_account = KeyedBuckets(limits.account_rate, limits.account_burst)
    ws_address = KeyedBuckets(limits.address_rate, limits.address_burst)
    guests = KeyedBuckets(limits.guests_per_address_hour * per_hour, limits.guests_per_address_hour)
    logins = KeyedBuckets(limits.logins_per_address_minute / 60, limits.logins_per_address_minute)
    failures = KeyedBuckets(
        limits.login_failures_per_account_hour * per_hour, limits.login_failures_per_account_hour
    )
    made_by_account = KeyedBuckets(limits.tables_per_account_hour * per_hour, limits.tables_per_account_hour)
    made_by_address = KeyedBuckets(limits.tables_per_address_hour * per_hour, limits.tables_per_address_hour)
    guesses = KeyedBuckets(limits.code_guesses_per_minute / 60, limits.code_guesses_per_minute)
    address_guesses = KeyedBuckets(
        limits.code_guesses_per_address_minute / 60, limits.code_guesses_per_address_minute
    )
    table_address: dict[str, str] = {}  # table id -> the address that created it (this process)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        store = opened or Store(config.database_url())
        store.migrate()
        hub = Hub(store, config, metrics)
        node = None
        if config.cluster is None:
            hub.restore()
        else:  # a cluster node adopts the tables nobody holds (niugui/server/cluster)
            from .cluster.node import Node

            node = state["node"] = Node(hub, config.cluster)
            await node.start()
        state["store"], state["hub"] = store, hub
        state["lobby"] = hub.listing
        sweeper = asyncio.create_task(expiry.run(hub, limits))
        logs.info("server ready", db=store.engine.dialect.name, tables=len(hub.tables))
        yield
        sweeper.cancel()
        if node is None:
            hub.close()
        else:
            await node.stop()
        hasher.close()
        store.close()

    app = FastAPI(title="niugui", version=str(PROTOCOL_VERSION), lifespan=lifespan)
    app.add_middleware(Guard, limits=limits, exempt=exempt, metrics=metrics)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, error: RequestValidationError) -> Response:
        """422 naming each bad field — without echoing the input (a password, or text that is not
        Unicode and could not even be sent back)."""
        limits = ("min_length", "max_length", "ge", "le")  # for the page's words; never the input
        detail = [
            {
                "type": e.get("type"),
                "loc": list(e.get("loc", ())),
                "msg": e.get("msg"),
                "ctx": {k: v for k, v in (e.get("ctx") or {}).items() if k in limits},
            }
            for e in error.errors()
        ]
        body = json.dumps({"detail": detail}, ensure_ascii=True, default=str)
        return Response(body, status_code=422, media_type="application/json")

    @app.exception_handler(RecursionError)
    async def too_deep(_request: Request, _error: RecursionError) -> JSONResponse:
        detail = http_error("too_deep", "the body is nested too deeply")
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(sa.exc.OperationalError)
    async def database_unavailable(_request: Request, error: sa.exc.OperationalError) -> JSONResponse:
        """A database locked by another process, or out of reach: 503, try again (never a 500)."""
        logs.warning("an HTTP request found the database unavailable", locked=is_locked(error))
        return JSONResponse(
            {"detail": http_error("busy", "the server's database is busy; try again in a moment")},
            status_code=503,
            headers={"Retry-After": "2"},
        )

    @app.exception_handler(BodyTooLarge)
    async def too_large(_request: Request, _error: BodyTooLarge) -> JSONResponse:
        return JSONResponse({"detail": http_error("too_large", "the body is too large")}, status_code=413)

    def store() -> Store:
        s: Store = state["store"]
        return s

    def hub() -> Hub:
        h: Hub = state["hub"]
        return h

    def lobby() -> Lobby:
        lob: Lobby = state["lobby"]
        return lob

    def limited_address(host: str | None) -> str | None:
        """The address key to count ``host`` by, or None when it is exempt."""
        return None if host in exempt else address_key(host)

    def refuse(status: int, code: HttpErrorCode, detail: str, retry_after: float) -> HTTPException:
        metrics.limited.labels("http").inc()
        return fail(status, code, detail, {"Retry-After": str(max(1, math.ceil(retry_after)))})

    def bearer(authorization: str | None) -> str | None:
        if not authorization or not authorization.lower().startswith("bearer "):
            return None
        return authorization[7:].strip() or None

    def account_of(authorization: str | None) -> AccountRow | None:
        token = bearer(authorization)
        return None if token is None else store().account_by_token_hash(auth.token_hash(token), session_age)

    def account_json(account: AccountRow) -> dict[str, Any]:
        data: dict[str, Any] = {"id": account.id, "nickname": account.nickname, "username": account.username}
        if account.bot:
            data["bot"] = True
        return data

    def session(account: AccountRow, token: str) -> dict[str, Any]:
        return {"token": token, "account": account_json(account)}

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:  # async: it reads the hub, which lives on the event loop
        """``ok``, or ``degraded`` with the ids of tables kept out of play (their events do not replay):
        the server still serves every other table, so it answers 200 either way."""
        quarantined = sorted(hub().quarantined)
        if "node" in state:  # a cluster node: can it reach Redis and the database?
            report: dict[str, Any] = await state["node"].health()
            report["status"] = "degraded" if quarantined else "ok"
            if quarantined:
                report["quarantined"] = quarantined
            if "down" in (report["redis"], report["db"]):
                report["status"] = "down"
                return JSONResponse(report, status_code=503)  # type: ignore[return-value]
            return report
        if quarantined:
            return {"status": "degraded", "quarantined": quarantined}
        return {"status": "ok"}

    @app.get("/metrics")
    def prometheus() -> Response:
        return Response(metrics.render(), media_type="text/plain; version=0.0.4")

    @app.post("/api/guest")
    async def guest(body: GuestRequest, request: Request) -> dict[str, Any]:
        nickname = body.nickname.strip()
        if not nickname:
            raise fail(422, "blank_nickname", "nickname: must not be blank")
        key = limited_address(request.client.host if request.client else None)
        if key is not None and not guests.take(key):
            raise refuse(
                429, "too_many_guests", "too many new guest accounts from your address; try later", 3600
            )
        token = auth.new_token()
        account = await run_in_threadpool(
            store().create_account, auth.new_id(), nickname, auth.token_hash(token)
        )
        logs.info("guest account", account=account.id)
        return session(account, token)

    def login_allowed(request: Request) -> None:
        key = limited_address(request.client.host if request.client else None)
        if key is not None and not logins.take(key):
            raise refuse(
                429, "too_many_logins", "too many login attempts from your address; wait a minute", 60
            )

    @app.post("/api/register")
    async def register(
        body: RegisterRequest, request: Request, authorization: str | None = Header(None)
    ) -> dict[str, Any]:
        login_allowed(request)
        current = await run_in_threadpool(account_of, authorization)
        if body.bot and current is not None:  # a guest's games were played by a person
            message = "a bot account is a new account: register it without a session token"
            raise fail(409, "bot_needs_new_account", message)
        try:
            hashed = await hasher.hash(body.password)
        except auth.Busy as busy:
            raise refuse(503, "busy", str(busy), 2) from None
        token = auth.new_token()
        if current is None:
            current = await run_in_threadpool(
                store().create_account, auth.new_id(), body.nickname or body.username, auth.token_hash(token)
            )
        else:
            if current.username is not None:
                raise fail(409, "registered_already", "this account is registered already")
            await run_in_threadpool(store().add_session, current.id, auth.token_hash(token))
        if not await run_in_threadpool(
            store().set_credentials, current.id, body.username, hashed, body.nickname, body.bot
        ):
            raise fail(409, "username_taken", f"username {body.username!r} is taken")
        account = await run_in_threadpool(store().account, current.id)
        assert account is not None
        return session(account, token)

    @app.post("/api/login")
    async def login(body: LoginRequest, request: Request) -> dict[str, Any]:
        login_allowed(request)
        tries = failures.get(body.username.lower())
        if not tries.can_take():
            raise refuse(
                429,
                "too_many_failures",
                "too many failed logins for this username; try again later",
                tries.retry_after(),
            )
        found = await run_in_threadpool(store().credentials, body.username)
        try:  # an unknown username costs a hash too, so the answer's time does not tell it apart
            ok = await hasher.verify(None if found is None else found[1], body.password)
        except auth.Busy as busy:
            raise refuse(503, "busy", str(busy), 2) from None
        if not ok or found is None:
            tries.take()
            raise fail(401, "wrong_password", "wrong username or password")
        token = auth.new_token()
        await run_in_threadpool(store().add_session, found[0].id, auth.token_hash(token))
        return session(found[0], token)

    @app.post("/api/logout")
    async def logout(
        body: LogoutRequest | None = Body(None),  # noqa: B008 - how FastAPI declares an optional body
        authorization: str | None = Header(None),
    ) -> dict[str, Any]:
        """End this session (the token stops working at once, its connections close), or with
        ``everywhere`` every session of the account ("sign out everywhere")."""
        token = bearer(authorization)
        account = None if token is None else await run_in_threadpool(account_of, authorization)
        if token is None or account is None:
            raise fail(401, "unauthorized", "missing, unknown or expired token")
        if body is not None and body.everywhere:
            ended = await run_in_threadpool(store().end_sessions, account.id)
            clients.revoke(account.id, None)
        else:
            await run_in_threadpool(store().end_session, auth.token_hash(token))
            ended = 1
            clients.revoke(account.id, auth.token_hash(token))
        return {"sessions_ended": ended}

    @app.get("/api/me")
    def me(authorization: str | None = Header(None)) -> dict[str, Any]:
        account = account_of(authorization)
        if account is None:
            raise fail(401, "unauthorized", "missing, unknown or expired token")
        return account_json(account)

    @app.get("/api/me/seats")
    async def my_seats(authorization: str | None = Header(None)) -> dict[str, Any]:
        """The tables where you hold a seat now (as ``welcome.seats``, with each table's name and
        status), so that the lobby offers a way back to every one of them."""
        account = await run_in_threadpool(account_of, authorization)
        if account is None:
            raise fail(401, "unauthorized", "missing, unknown or expired token")
        return {"seats": hub().seats_of(account.id)}

    @app.get("/api/tables")
    async def tables(
        offset: int = Query(0, ge=0, le=1_000_000),
        limit: int = Query(50, ge=1, le=100),
        status: LobbyStatus | None = None,
        free_seats: int | None = Query(None, ge=0, le=4),
        bot_level: BotLevel | None = None,
    ) -> Response:
        """The lobby, a page at a time (as ``list_tables``); shared by every asker for a second."""
        page = lobby().page(LobbyQuery(offset, limit, status, free_seats, bot_level))
        return Response(page, media_type="application/json")

    def insider(row: dict[str, Any], viewer: AccountRow | None, code: str | None, players: set[str]) -> bool:
        """May ``viewer`` (or the holder of ``code``) see a table's private data?"""
        if row["code"] is None:
            return True
        if code is not None and code == row["code"]:
            return True
        if viewer is None:
            return False
        if viewer.id == row["creator"] or viewer.id in players:
            return True
        table = hub().tables.get(row["id"])
        return table is not None and table.state.seat_of(viewer.id) is not None

    @app.get("/api/tables/{table_id}/ledger")
    def table_ledger(
        table_id: str = PathParam(max_length=32),
        code: str | None = Query(None, max_length=16),
        authorization: str | None = Header(None),
    ) -> dict[str, Any]:
        """A table's ledger; a private table's only for its creator, players and holders of its code."""
        row = store().table_row(table_id)
        entries = [] if row is None else store().table_ledger(table_id)
        players = {e["account_id"] for e in entries if e["account_id"]}
        if row is None or not insider(row, account_of(authorization), code, players):
            raise fail(404, "no_table", f"no table {table_id!r}")
        return {"entries": entries}

    @app.get("/api/leaderboard")
    def leaderboard(
        limit: int = Query(50, ge=1, le=500), by: Literal["points", "rating"] = "points"
    ) -> dict[str, Any]:
        """Players by the points of their rated games, or by rating (at least ``rated_min_games`` rated
        games); on both, accounts whose rated games come from a closed circle are flagged and unranked."""
        if by == "rating":
            least = config.community.rated_min_games
            players = collusion.mark(store(), store().rating_leaderboard(limit, least), config.community)
            return {"by": by, "min_games": least, "players": players}
        return {"by": by, "players": collusion.mark(store(), store().leaderboard(limit), config.community)}

    @app.get("/api/players/{account_id}/profile")
    def player_profile(
        account_id: str = PathParam(max_length=32), authorization: str | None = Header(None)
    ) -> Response:
        """A player's profile (``Profile``); recent games at private tables only for their players."""
        viewer = account_of(authorization)
        found = profiles.profile(
            store(), account_id, None if viewer is None else viewer.id, config.community.escape_window
        )
        if found is None:
            raise fail(404, "no_player", f"no player {account_id!r}")
        return Response(found.model_dump_json(), media_type="application/json")

    @app.get("/api/players/{account_id}/games")
    def history(
        account_id: str = PathParam(max_length=32),
        limit: int = Query(50, ge=1, le=500),
        authorization: str | None = Header(None),
    ) -> dict[str, Any]:
        """A player's games; games at private tables only for those who played at that table."""
        player = store().account(account_id)
        if player is None:
            raise fail(404, "no_player", f"no player {account_id!r}")
        viewer = account_of(authorization)
        games = store().history(account_id, limit, viewer=None if viewer is None else viewer.id)
        names = store().table_names(g["table"] for g in games)
        for g in games:
            g["table_name"] = names.get(g["table"], "")
        return {"games": games, **({"bot": True} if player.bot else {})}  # a bot account's games

    def may_see(game: GameRow, authorization: str | None, code: str | None) -> bool:
        """A stored game: anyone's at a public table; a private table's only for its insiders."""
        row = store().table_row(game.table_id)
        players = {p["id"] for p in game.meta.get("players", []) if isinstance(p, dict) and p.get("id")}
        return row is not None and insider(row, account_of(authorization), code, players)

    @app.get("/api/games/{game_id}/record")
    def record(
        game_id: int,
        code: str | None = Query(None, max_length=16),
        authorization: str | None = Header(None),
    ) -> JSONResponse:
        """A finished game's record; of a private table only for its players and holders of the code."""
        game = store().game(game_id) if game_id in replays.GAME_IDS else None  # beyond: no game
        if game is None or not may_see(game, authorization, code):
            raise fail(404, "no_game", f"no game {game_id}")
        if game.record is None:
            raise fail(404, "game_in_progress", f"game {game_id} is still in progress")
        return JSONResponse(
            game.record, headers={"Content-Disposition": f'attachment; filename="niugui-game-{game_id}.json"'}
        )

    replays.add_routes(app, store, may_see)

    # ---- the WebSocket -----------------------------------------------------------------------------

    async def refuse_socket(websocket: WebSocket, code: str, message: str, close: int) -> None:
        metrics.errors.labels(code).inc()
        with contextlib.suppress(Exception):
            await websocket.send_text(_error(None, code, message))
            await websocket.close(code=close)

    async def authenticate(websocket: WebSocket) -> tuple[AccountRow, str] | None:
        """Read the first frame, which must be ``auth`` with a live token; None (closed) otherwise."""
        if "token" in websocket.query_params:
            await refuse_socket(
                websocket,
                "forbidden",
                'protocol 2: send the token in the first message, {"type": "auth", "id": …, "token": …}, '
                "never in the URL (docs/protocol.md)",
                CLOSE_UNAUTHORIZED,
            )
            return None
        try:
            frame = await asyncio.wait_for(websocket.receive(), limits.auth_seconds or None)
        except TimeoutError:
            await refuse_socket(
                websocket,
                "forbidden",
                f"no auth message within {limits.auth_seconds:g} s",
                CLOSE_UNAUTHORIZED,
            )
            return None
        if frame["type"] == "websocket.disconnect":
            return None
        text = frame.get("text")
        if text is None:
            text = (frame.get("bytes") or b"").decode(errors="replace")
        try:
            message = Auth.model_validate(decode(text) if len(text) <= MAX_FRAME_BYTES else None)
        except (BadFrame, ValidationError):
            await refuse_socket(
                websocket,
                "forbidden",
                'the first message must be {"type": "auth", "id": …, "token": …} (docs/protocol.md)',
                CLOSE_UNAUTHORIZED,
            )
            return None
        token_hash = auth.token_hash(message.token)
        account = await run_in_threadpool(store().account_by_token_hash, token_hash, session_age)
        if account is None:
            await refuse_socket(websocket, "forbidden", "unknown or expired token", CLOSE_UNAUTHORIZED)
            return None
        return account, token_hash

    @app.websocket("/ws")
    async def websocket_endpoint(websocket: WebSocket) -> None:
        client = websocket.client
        key = limited_address(client.host if client else None)
        await websocket.accept()
        if (
            key is not None
            and limits.connections_per_address
            and (clients.per_address[key] >= limits.connections_per_address)
        ):
            metrics.limited.labels("connections").inc()
            await refuse_socket(
                websocket, "rate_limited", "too many connections from your address", CLOSE_TOO_MANY
            )
            return
        if key is not None:
            clients.per_address.add(key)
        try:
            found = await authenticate(websocket)
            if found is None:
                return
            account, token_hash = found
            if limits.connections_per_account and clients.count(account.id) >= limits.connections_per_account:
                metrics.limited.labels("connections").inc()
                await refuse_socket(
                    websocket,
                    "rate_limited",
                    f"this account has {limits.connections_per_account} connections open already",
                    CLOSE_TOO_MANY,
                )
                return
            await serve(websocket, Connection(websocket, key or "", account, token_hash, config, metrics))
        finally:
            if key is not None:
                clients.per_address.remove(key)

    async def serve(websocket: WebSocket, connection: Connection) -> None:
        # what the other seats will be shown of this player (rating, escape rate), read off the loop
        window = config.community.escape_window
        card = await run_in_threadpool(store().player_card, connection.account_id, window)
        hub().directory.keep_card(connection.account_id, card)
        clients.add(connection)
        metrics.connections.inc()
        seats = hub().connect(connection, connection.username if connection.bot else None)
        you = Account(
            id=connection.account_id,
            nickname=connection.nickname,
            username=connection.username,
            bot=connection.bot,
        )
        connection.send(welcome_frame(you, seats))
        writer = asyncio.create_task(connection.writer())
        reader = asyncio.create_task(read(websocket, connection))
        try:
            await asyncio.wait({writer, reader}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (reader, writer):
                task.cancel()
            metrics.connections.dec()
            connection.closed = True
            clients.remove(connection)
            hub().disconnect(connection)

    async def read(websocket: WebSocket, connection: Connection) -> None:
        direct: Direct | None = websocket.scope.get("extensions", {}).get(DIRECT)
        if direct is not None:  # messages are handed over as they arrive; the loop sees the disconnect
            direct.receive_with(lambda message: on_message(connection, message))
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while not connection.closed:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    return
                text = frame.get("text")
                on_message(connection, (frame.get("bytes") or b"") if text is None else text)

    def on_message(connection: Connection, message: str | bytes) -> None:
        if connection.closed:
            return
        if isinstance(message, bytes):
            try:
                message = message.decode()
            except UnicodeDecodeError:
                connection.error(None, "bad_json", "frames must be UTF-8 JSON text")
                return
        on_frame(connection, message)

    def over_rate(connection: Connection) -> bool:
        """Take a token from the connection's, the account's and the address's buckets, or none."""
        buckets = [connection.bucket, ws_account.get(connection.account_id)]
        if connection.address:
            buckets.append(ws_address.get(connection.address))
        return not take_all(buckets)

    def on_frame(connection: Connection, text: str) -> None:
        if len(text) > MAX_FRAME_BYTES // 4 and len(text.encode()) > MAX_FRAME_BYTES:
            connection.error(None, "frame_too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes")
            return
        if over_rate(connection):
            connection.limited += 1
            metrics.limited.labels("messages").inc()
            connection.error(
                _request_id(text), "rate_limited", f"over {config.rate_limit:g} messages per second; dropped"
            )
            if connection.limited >= FLOOD_CLOSE:
                connection.close()
            return
        connection.limited = 0
        try:
            data = decode(text)
        except BadFrame as bad:
            connection.error(None, bad.code, str(bad))
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
        metrics.received(str(kind))
        try:
            message = model.model_validate(data)
        except ValidationError as error:
            connection.error(request_id, "invalid_message", _validation_text(error))
            return
        assert request_id is not None
        started = time.perf_counter()
        try:
            handled = transport_answer(connection, request_id, message)
        except Fault as fault:
            connection.error(request_id, fault.code, str(fault), fault.rule)
            return
        if handled is not None:
            connection.send(handled)
            return

        def answered(answer: Answer | BaseException) -> None:
            metrics.handle_seconds.observe(time.perf_counter() - started)
            if isinstance(answer, Fault):
                after_fault(connection, message, answer)
                connection.error(request_id, answer.code, str(answer), answer.rule)
            elif isinstance(answer, BaseException):
                logs.failure("request failed", answer, type=kind, account=connection.account_id)
                connection.error(request_id, "server_error", "the server failed on this request")
            else:
                after_success(connection, message, answer)
                connection.send(ack_frame(request_id, answer.seq, answer.data))

        try:
            hub().handle(connection, message, answered)
        except Exception as error:
            answered(error)

    # ---- what the transport answers or checks itself (fair use), around the hub ---------------------

    def transport_answer(connection: Connection, request_id: str, message: Message) -> str | None:
        """The reply to a request the transport answers itself, or None to route it to the hub.
        Raises :class:`Fault` for a request over a fair-use cap."""
        if isinstance(message, CreateTable):
            if message.settings.bot_level == "search":
                check_search_cap(connection, None)
            # Taken now, not when the table exists: requests in flight at once must not all pass.
            if not take_all(table_buckets(connection)):
                metrics.limited.labels("tables").inc()
                raise Fault(
                    "rate_limited",
                    f"at most {limits.tables_per_account_hour:g} new tables per hour; use one you have",
                )
        elif isinstance(message, Chat) and not connection.chat_bucket.take():
            metrics.limited.labels("chat").inc()
            raise Fault("rate_limited", "too much quick chat; wait a moment")
        elif isinstance(message, UpdateSettings) and message.settings.bot_level == "search":
            check_search_cap(connection, message.table)
        elif isinstance(message, Watch | Sit) and not take_all(guess_buckets(connection)):
            # taken as if it were wrong, given back when it was right (so guesses in flight count)
            metrics.limited.labels("guesses").inc()
            raise Fault("rate_limited", "too many wrong table ids or join codes; wait a minute")
        return None

    def check_search_cap(connection: Connection, changing: str | None) -> None:
        """At most ``search_tables_per_account`` (and per address) unfinished tables of search bots."""
        mine = by_address = 0
        for table_id, creator, level in hub().open_tables():
            if level != "search" or table_id == changing:
                continue
            mine += creator == connection.account_id
            by_address += bool(connection.address) and table_address.get(table_id) == connection.address
        if (limits.search_tables_per_account and mine >= limits.search_tables_per_account) or (
            limits.search_tables_per_address and by_address >= limits.search_tables_per_address
        ):
            metrics.limited.labels("search_tables").inc()
            raise Fault(
                "forbidden",
                f"search bots think hard: at most {limits.search_tables_per_account} tables of them "
                "at a time; choose another bot_level or finish one",
            )

    def table_buckets(connection: Connection) -> list[TokenBucket]:
        mine = [made_by_account.get(connection.account_id)]
        if connection.address:
            mine.append(made_by_address.get(connection.address))
        return mine

    def guess_buckets(connection: Connection) -> list[TokenBucket]:
        mine = [guesses.get(connection.account_id)]
        if connection.address:
            mine.append(address_guesses.get(connection.address))
        return mine

    def after_success(connection: Connection, message: Message, answer: Answer) -> None:
        if isinstance(message, Watch | Sit):
            for b in guess_buckets(connection):
                b.give_back()
        if isinstance(message, CreateTable) and connection.address:
            table_id = getattr(getattr(answer.data, "table", None), "id", None)
            if isinstance(table_id, str):
                table_address[table_id] = connection.address

    def after_fault(connection: Connection, message: Message, fault: Fault) -> None:
        if isinstance(message, Watch | Sit) and fault.code != "not_found":  # refused, but not a guess
            for b in guess_buckets(connection):
                b.give_back()
        if isinstance(message, CreateTable):  # no table was made
            for b in table_buckets(connection):
                b.give_back()

    static = config.static_dir or Path(__file__).resolve().parents[1] / "web" / "static"
    if static.is_dir():
        app.mount("/", StaticSite.from_dir(static), name="web")

    return app


def _request_id(text: str) -> str | None:
    """The ``id`` of a frame, if it has a readable one (to answer even a dropped request)."""
    try:
        data = decode(text)
    except BadFrame:
        return None
    request_id = data.get("id") if isinstance(data, dict) else None
    return request_id if isinstance(request_id, str) else None


def _validation_text(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "message"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)
