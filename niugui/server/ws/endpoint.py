"""The WebSocket endpoint at ``/ws``: accept, authenticate with the first message, count against
the account's and the address's connection caps, then read, rate-limit and decode each message and
charge its fair-use budget and hand it to the hub, whose registry routes it. Kept thin: the game is the hub's.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, assert_never

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from .. import auth, logs
from ..dispatch import Limit, Route
from ..friends_store import Social, friends_of
from ..protocol import (
    MAX_FRAME_BYTES,
    Account,
    Auth,
    Chat,
    CreateTable,
    Request,
    UpdateSettings,
    ack_frame,
    welcome_frame,
)
from ..services import AppServices, AppServicesDep
from ..store import AccountRow, PlayerCard
from ..tables import Answer, Fault
from ..transport import DIRECT, HEAD, Direct
from .connection import CLOSE_TOO_MANY, CLOSE_UNAUTHORIZED, FLOOD_SECONDS, Connection
from .frames import BadFrame, decode, error_text, request_id_of, validation_text

router = APIRouter()


async def refuse_socket(svc: AppServices, websocket: WebSocket, code: str, message: str, close: int) -> None:
    """Send an error frame and close, before the connection is served."""
    svc.metrics.errors.labels(code).inc()
    with contextlib.suppress(Exception):
        await websocket.send_text(error_text(None, code, message))
        await websocket.close(code=close)


async def authenticate(svc: AppServices, websocket: WebSocket) -> tuple[AccountRow, str] | None:
    """Read the first frame, which must be ``auth`` with a live token; None (closed) otherwise."""
    if "token" in websocket.query_params:
        await refuse_socket(
            svc,
            websocket,
            "forbidden",
            'protocol 2: send the token in the first message, {"type": "auth", "id": …, "token": …}, '
            "never in the URL (docs/protocol.md)",
            CLOSE_UNAUTHORIZED,
        )
        return None
    seconds = svc.config.limits.auth_seconds
    try:
        frame = await asyncio.wait_for(websocket.receive(), seconds or None)
    except TimeoutError:
        await refuse_socket(
            svc, websocket, "forbidden", f"no auth message within {seconds:g} s", CLOSE_UNAUTHORIZED
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
            svc,
            websocket,
            "forbidden",
            'the first message must be {"type": "auth", "id": …, "token": …} (docs/protocol.md)',
            CLOSE_UNAUTHORIZED,
        )
        return None
    token_hash = auth.token_hash(message.token)
    account = await run_in_threadpool(svc.store.account_by_token_hash, token_hash, svc.session_age)
    if account is None:
        await refuse_socket(svc, websocket, "forbidden", "unknown or expired token", CLOSE_UNAUTHORIZED)
        return None
    return account, token_hash


@router.websocket("/ws")
async def websocket_endpoint(websocket: WebSocket, svc: AppServicesDep) -> None:
    """One client: counted against its address's cap, authenticated, counted against its account's
    cap, then served until either side closes."""
    limits, clients = svc.config.limits, svc.clients
    key = svc.fair.address(websocket.client.host if websocket.client else None)
    await websocket.accept()
    if (
        key is not None
        and limits.connections_per_address
        and (clients.per_address[key] >= limits.connections_per_address)
    ):
        svc.metrics.limited.labels("connections").inc()
        await refuse_socket(
            svc, websocket, "rate_limited", "too many connections from your address", CLOSE_TOO_MANY
        )
        return
    wait = svc.fair.flooding(key)
    if wait:  # one of its connections was just cut for flooding
        svc.metrics.limited.labels("connections").inc()
        message = f"a connection from your address flooded the server; wait {wait:.0f} s"
        await refuse_socket(svc, websocket, "rate_limited", message, CLOSE_TOO_MANY)
        return
    if key is not None:
        clients.per_address.add(key)
    try:
        found = await authenticate(svc, websocket)
        if found is None:
            return
        account, token_hash = found
        cap = limits.connections_per_account
        if cap and (
            clients.count(account.id) >= cap
            or (svc.node is not None and await svc.node.features.connections(account.id) >= cap)
        ):  # on a cluster: the account's connections on every node (issue 32)
            svc.metrics.limited.labels("connections").inc()
            message = f"this account has {limits.connections_per_account} connections open already"
            await refuse_socket(svc, websocket, "rate_limited", message, CLOSE_TOO_MANY)
            return
        connection = Connection(websocket, key or "", account, token_hash, svc.config, svc.metrics)
        await serve(svc, websocket, connection)
    finally:
        if key is not None:
            clients.per_address.remove(key)


async def serve(svc: AppServices, websocket: WebSocket, connection: Connection) -> None:
    """Welcome the client, then read and write until either task ends; the hub forgets it after."""
    # what the other seats will be shown of this player (rating, escape rate), read off the loop
    window = svc.config.community.escape_window
    # and its friends and blocks (issue 29), in the same trip
    card, social = await run_in_threadpool(player_and_social, svc, connection.account_id, window)
    svc.hub.directory.keep_card(connection.account_id, card)
    svc.clients.add(connection)
    svc.metrics.connections.inc()
    seats = svc.hub.connect(connection, connection.username if connection.bot else None)
    svc.hub.directory.keep_social(connection.account_id, social)  # its friends and blocks (issue 29)
    you = Account(
        id=connection.account_id,
        nickname=connection.nickname,
        username=connection.username,
        bot=connection.bot,
    )
    connection.send(welcome_frame(you, seats, None if svc.node is None else svc.node.node_id))
    writer = asyncio.create_task(connection.writer())
    reader = asyncio.create_task(read(svc, websocket, connection))
    try:
        await asyncio.wait({writer, reader}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (reader, writer):
            task.cancel()
        svc.metrics.connections.dec()
        connection.closed = True
        svc.clients.remove(connection)
        svc.hub.disconnect(connection)


def player_and_social(svc: AppServices, account_id: str, window: int) -> tuple[PlayerCard, Social]:
    """What a new connection's account needs read from the store (off the event loop)."""
    return svc.store.player_card(account_id, window), friends_of(svc.store).social(account_id)


async def read(svc: AppServices, websocket: WebSocket, connection: Connection) -> None:
    """The read loop (with the direct path, messages are handed over as they arrive and the loop
    only sees the disconnect)."""
    direct: Direct | None = websocket.scope.get("extensions", {}).get(DIRECT)
    if direct is not None:
        direct.receive_with(
            lambda message: on_counted(svc, connection, message), lambda head: admit(svc, connection, head)
        )
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while not connection.closed:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                return
            text = frame.get("text")
            on_message(svc, connection, (frame.get("bytes") or b"") if text is None else text)


def on_message(svc: AppServices, connection: Connection, message: str | bytes) -> None:
    """A text or binary message: counted first (:func:`admit`), then read (:func:`on_counted`)."""
    if admit(svc, connection, message):
        on_counted(svc, connection, message)


def on_counted(svc: AppServices, connection: Connection, message: str | bytes) -> None:
    """A message counted already: binary ones must be UTF-8 too."""
    if connection.closed:
        return
    if isinstance(message, bytes):
        try:
            message = message.decode()
        except UnicodeDecodeError:
            connection.error(None, "bad_json", "frames must be UTF-8 JSON text")
            return
    on_frame(svc, connection, message)


def admit(svc: AppServices, connection: Connection, frame: str | bytes | None) -> bool:
    """Count one frame — a message (or, on the direct transport, its first bytes), or a ping or
    pong (``None``) — against the connection's, the account's and the address's rate, before
    anything else is done with it (issue 33, finding 2). One over the rate is dropped unread (a
    message is answered ``rate_limited`` with the ``id`` its first characters show), and
    :data:`~.connection.FLOOD_CLOSE` of them within :data:`~.connection.FLOOD_SECONDS` cut the
    connection (1008, without reading what the flood sends meanwhile)."""
    if connection.closed:
        return False
    if not svc.fair.over_rate(connection):
        return True
    svc.metrics.limited.labels("messages").inc()
    if frame is not None:
        head = frame if isinstance(frame, str) else frame[:HEAD].decode(errors="replace")
        message = f"over {svc.config.rate_limit:g} messages per second; dropped"
        connection.error(request_id_of(head), "rate_limited", message)
    if not connection.strikes.take():
        svc.fair.cut_for_flooding(connection, FLOOD_SECONDS)
        connection.cut()
    return False


def on_frame(svc: AppServices, connection: Connection, text: str) -> None:
    """One counted frame: size checked, decoded, validated, then answered (:func:`dispatch`)."""
    if len(text) > MAX_FRAME_BYTES // 4 and len(text.encode()) > MAX_FRAME_BYTES:
        connection.error(None, "frame_too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes")
        return
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
    route = svc.hub.routes.get(kind) if isinstance(kind, str) else None
    if route is None:
        connection.error(request_id, "unknown_type", f"unknown message type {kind!r}; see docs/protocol.md")
        return
    svc.metrics.received(str(kind))
    try:
        message = route.model.model_validate(data)
    except ValidationError as error:
        connection.error(request_id, "invalid_message", validation_text(error))
        return
    assert request_id is not None
    dispatch(svc, connection, request_id, route, message)


def dispatch(
    svc: AppServices, connection: Connection, request_id: str, route: Route[Any], message: Request
) -> None:
    """Charge the request's fair-use budget, hand it to the hub, and answer when it is done."""
    started = time.perf_counter()
    try:
        charge(svc, connection, route.limit, message)
    except Fault as fault:
        connection.error(request_id, fault.code, str(fault), fault.rule)
        return

    def answered(answer: Answer | BaseException) -> None:
        svc.metrics.handle_seconds.observe(time.perf_counter() - started)
        if isinstance(answer, Fault):
            settle(svc, connection, route.limit, answer, message)
            connection.error(request_id, answer.code, str(answer), answer.rule)
        elif isinstance(answer, BaseException):
            logs.failure("request failed", answer, type=route.type, account=connection.account_id)
            connection.error(request_id, "server_error", "the server failed on this request")
        else:
            settle(svc, connection, route.limit, answer, message)
            connection.send(ack_frame(request_id, answer.seq, answer.data))

    try:
        svc.hub.handle(connection, message, answered)
    except Exception as error:
        answered(error)


# ---- fair use around the hub: each route's budget (dispatch.Limit) ---------------------------------


def charge(svc: AppServices, connection: Connection, limit: Limit | None, message: Request) -> None:
    """Take the request's budget before it is handled; raises :class:`Fault` when it is spent."""
    match limit:
        case None:
            return
        case "tables":
            assert isinstance(message, CreateTable)
            if message.settings.bot_level == "search":
                svc.fair.check_search_cap(connection, None, svc.hub.open_tables())
            svc.fair.charge_table(connection)  # now, not once made: requests in flight all count
        case "settings":
            assert isinstance(message, UpdateSettings)
            if message.settings.bot_level == "search":
                svc.fair.check_search_cap(connection, message.table, svc.hub.open_tables())
        case "chat":
            assert isinstance(message, Chat)
            svc.fair.charge_chat(connection, message.table)
        case "guesses":  # taken as if it were wrong, given back when it was right
            svc.fair.charge_guess(connection)
        case "quick":
            svc.fair.charge_quick(connection)
        case _:
            assert_never(limit)


def settle(
    svc: AppServices, connection: Connection, limit: Limit | None, answer: Answer | Fault, message: Request
) -> None:
    """After the hub answered: a right guess (or one refused for another reason) is given back; a
    table made is noted, a table or quick-play request refused is not counted; a chat not relayed
    costs neither its account nor its table."""
    if limit == "guesses" and (isinstance(answer, Answer) or answer.code != "not_found"):
        svc.fair.refund_guess(connection)
    elif limit == "chat" and isinstance(answer, Fault) and answer.code != "rate_limited":
        assert isinstance(message, Chat)
        svc.fair.refund_chat(connection, message.table)
    elif limit == "tables" and isinstance(answer, Fault):
        svc.fair.refund_table(connection)
    elif limit == "quick" and isinstance(answer, Fault):  # refused before the matcher ran
        svc.fair.refund_quick(connection)
    elif limit == "tables" and isinstance(answer, Answer):
        table_id = getattr(getattr(answer.data, "table", None), "id", None)
        if isinstance(table_id, str):
            svc.fair.table_made(connection, table_id)
