"""HTTP in front of the routes: security headers on every response, ``Cache-Control: no-store`` on
every answer of the API (issue 33, finding 12: tokens, private records and answers that depend on who
asks must not stay in a shared or browser cache), a rate limit per address and per session token (429
with ``Retry-After``), and a cap on request bodies (413). A pure ASGI middleware,
so it costs a dict lookup and a bucket per request and nothing per WebSocket frame.

The page's own files (served from memory) are counted in a bucket of their own, with a larger burst:
a first visit fetches some forty of them, and an API limit that a page load can exhaust would leave
friends who open the page together behind one address with a page that never starts.

>>> is_page_file({"method": "GET", "path": "/v/0123abcd/js/app.js"})
True
>>> is_page_file({"method": "GET", "path": "/"})
True
>>> is_page_file({"method": "GET", "path": "/api/tables"}), is_page_file({"method": "POST", "path": "/"})
(False, False)
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .config import Limits
from .limits import Exempt, KeyedBuckets, address_key
from .metrics import Metrics

MAX_BODY = 256 * 1024
"""Largest request body read at all (routes cap their own below it: a record to replay at 64 KiB)."""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
"""No inline script or style, nothing from elsewhere, never inside a frame (no click-jacking a seated
player into 离开)."""

HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]


API_PREFIXES = ("/api/", "/healthz", "/metrics", "/ws")

NO_STORE = (b"cache-control", b"no-store")
"""On every API answer that does not say otherwise: none is the same for everyone for long, and many
carry a token or what only their asker may see."""


def is_page_file(scope: Scope) -> bool:
    """Is this request for one of the page's own files (anything read outside the API)?"""
    return scope.get("method") in ("GET", "HEAD") and not str(scope.get("path", "")).startswith(API_PREFIXES)


def bearer_key(scope: Scope) -> str | None:
    """A key for the request's session token (its hash, never the token), if it sends one."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return hashlib.sha256(value[7:].strip()).hexdigest()
    return None


class Guard:
    def __init__(self, app: ASGIApp, limits: Limits, exempt: Exempt, metrics: Metrics) -> None:
        self.app = app
        self.exempt = exempt
        self.metrics = metrics
        self.by_address = KeyedBuckets(limits.http_rate, limits.http_burst)
        self.page_by_address = KeyedBuckets(limits.page_rate, limits.page_burst)
        self.by_token = KeyedBuckets(limits.http_account_rate, limits.http_account_burst)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        host = client[0] if client else None
        per_address = self.page_by_address if is_page_file(scope) else self.by_address
        buckets = [] if host in self.exempt else [per_address.get(address_key(host))]
        token = bearer_key(scope)
        if token is not None:
            buckets.append(self.by_token.get(token))
        if not all(b.can_take() for b in buckets):
            self.metrics.limited.labels("http").inc()
            wait = max(b.retry_after() for b in buckets)
            await _reply(
                send,
                429,
                "too_many_requests",
                "too many requests; slow down",
                [(b"retry-after", b"%d" % math.ceil(wait))],
            )
            return
        for b in buckets:
            b.take()
        length = dict(scope.get("headers", ())).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            await _reply(send, 413, "too_large", f"request bodies are limited to {MAX_BODY} bytes")
            return

        api = not is_page_file(scope)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), *HEADERS]
                if api and not any(name.lower() == b"cache-control" for name, _ in headers):
                    headers.append(NO_STORE)
                message["headers"] = headers
            await send(message)

        await self.app(scope, _capped(receive), send_with_headers)


def _capped(receive: Receive) -> Receive:
    """``receive`` that stops a body without Content-Length at :data:`MAX_BODY` bytes."""
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                raise BodyTooLarge
        return message

    return wrapped


class BodyTooLarge(Exception):
    """A chunked body over :data:`MAX_BODY` (answered 413 by the app's handler)."""


async def _reply(
    send: Send, status: int, code: str, detail: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps({"detail": {"code": code, "message": detail}}).encode()  # protocol.HttpError
    headers: list[Any] = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(body)),
        *HEADERS,
        NO_STORE,
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
