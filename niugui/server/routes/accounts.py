"""Accounts and sessions: a guest account, registration, login, logout (one session or all), and
who you are (``/api/me``). A session is a bearer token; the store keeps only its hash."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Header, Request
from starlette.concurrency import run_in_threadpool

from .. import auth, logs, nicknames
from ..http_errors import fail, refuse
from ..protocol import GuestRequest, LoginRequest, LogoutRequest, RegisterRequest
from ..services import AppServicesDep, bearer
from ..store import AccountRow

router = APIRouter()


def account_json(account: AccountRow) -> dict[str, Any]:
    """An account as ``/api/me`` shows it (``bot`` only for a bot account)."""
    data: dict[str, Any] = {"id": account.id, "nickname": account.nickname, "username": account.username}
    if account.bot:
        data["bot"] = True
    return data


def session(account: AccountRow, token: str) -> dict[str, Any]:
    """A new session's answer: its token and its account."""
    return {"token": token, "account": account_json(account)}


async def checked(svc: AppServicesDep, nickname: str) -> str:
    """``nickname`` normalised, or a 422 saying why it is refused (blank, hidden characters, a bot's
    or the system's name: :mod:`..nicknames`)."""
    bots = await run_in_threadpool(svc.store.bot_account_names)
    try:
        return nicknames.clean(nickname, map(nicknames.skeleton, bots))
    except nicknames.NicknameRefused as refused:
        raise fail(422, refused.code, refused.message) from None


def host(request: Request) -> str | None:
    """The client's address, as the fair-use limits count it."""
    return request.client.host if request.client else None


@router.post("/api/guest")
async def guest(body: GuestRequest, request: Request, svc: AppServicesDep) -> dict[str, Any]:
    """A new guest account and its session."""
    nickname = await checked(svc, body.nickname)
    svc.fair.charge_guest(host(request))
    token = auth.new_token()
    account = await run_in_threadpool(
        svc.store.create_account, auth.new_id(), nickname, auth.token_hash(token)
    )
    logs.info("guest account", account=account.id)
    return session(account, token)


@router.post("/api/register")
async def register(
    body: RegisterRequest, request: Request, svc: AppServicesDep, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """A username and password for a new account, or for the signed-in guest's own."""
    svc.fair.charge_login(host(request))
    store = svc.store
    nickname = None if body.nickname is None else await checked(svc, body.nickname)
    current = await run_in_threadpool(svc.account_of, authorization)
    if body.bot and current is not None:  # a guest's games were played by a person
        message = "a bot account is a new account: register it without a session token"
        raise fail(409, "bot_needs_new_account", message)
    try:
        hashed = await svc.hasher.hash(body.password)
    except auth.Busy as busy:
        raise refuse(svc.metrics, 503, "busy", str(busy), 2) from None
    token = auth.new_token()
    if current is None:
        name = nickname or await checked(svc, body.username)  # a new account is called by its username
        current = await run_in_threadpool(store.create_account, auth.new_id(), name, auth.token_hash(token))
    else:
        if current.username is not None:
            raise fail(409, "registered_already", "this account is registered already")
        await run_in_threadpool(store.add_session, current.id, auth.token_hash(token))
    if not await run_in_threadpool(
        store.set_credentials, current.id, body.username, hashed, nickname, body.bot
    ):
        raise fail(409, "username_taken", f"username {body.username!r} is taken")
    account = await run_in_threadpool(store.account, current.id)
    assert account is not None
    return session(account, token)


@router.post("/api/login")
async def login(body: LoginRequest, request: Request, svc: AppServicesDep) -> dict[str, Any]:
    """A new session for a username and password."""
    svc.fair.charge_login(host(request))
    svc.fair.check_failures(body.username)
    found = await run_in_threadpool(svc.store.credentials, body.username)
    try:  # an unknown username costs a hash too, so the answer's time does not tell it apart
        ok = await svc.hasher.verify(None if found is None else found[1], body.password)
    except auth.Busy as busy:
        raise refuse(svc.metrics, 503, "busy", str(busy), 2) from None
    if not ok or found is None:
        svc.fair.count_failure(body.username)
        raise fail(401, "wrong_password", "wrong username or password")
    token = auth.new_token()
    await run_in_threadpool(svc.store.add_session, found[0].id, auth.token_hash(token))
    return session(found[0], token)


@router.post("/api/logout")
async def logout(
    svc: AppServicesDep,
    body: LogoutRequest | None = Body(None),  # noqa: B008 - how FastAPI declares an optional body
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """End this session (the token stops working at once, its connections close), or with
    ``everywhere`` every session of the account ("sign out everywhere")."""
    token = bearer(authorization)
    account = None if token is None else await run_in_threadpool(svc.account_of, authorization)
    if token is None or account is None:
        raise fail(401, "unauthorized", "missing, unknown or expired token")
    if body is not None and body.everywhere:
        ended = await run_in_threadpool(svc.store.end_sessions, account.id)
        svc.clients.revoke(account.id, None)
    else:
        await run_in_threadpool(svc.store.end_session, auth.token_hash(token))
        ended = 1
        svc.clients.revoke(account.id, auth.token_hash(token))
    return {"sessions_ended": ended}


@router.get("/api/me")
def me(svc: AppServicesDep, authorization: str | None = Header(None)) -> dict[str, Any]:
    """The signed-in account."""
    account = svc.account_of(authorization)
    if account is None:
        raise fail(401, "unauthorized", "missing, unknown or expired token")
    return account_json(account)
