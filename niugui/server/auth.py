"""Guest and registered accounts: session tokens (kept only as SHA-256) and argon2 password hashes.

Hashing is slow on purpose (argon2, 64 MiB and tens of milliseconds each), so it runs on a
:class:`PasswordHasher` of its own: a few threads with a bounded queue, never the threads that
bots and 托管 think in, and a flood of logins is refused at once (:class:`Busy`) instead of queued.

>>> token = new_token()
>>> len(token) >= 40 and token_hash(token) != token
True
>>> hashed = hash_password("correct horse")
>>> verify_password(hashed, "correct horse"), verify_password(hashed, "wrong")
(True, False)
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import argon2
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = argon2.PasswordHasher()
_DUMMY = _hasher.hash(secrets.token_urlsafe(16))
"""Verified against when a username is unknown, so that answer takes as long as a wrong password."""

T = TypeVar("T")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_id() -> str:
    return secrets.token_hex(8)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(hashed: str | None, password: str) -> bool:
    """Whether ``password`` matches; with ``hashed`` None (no such user) it costs the same and fails."""
    try:
        return _hasher.verify(hashed or _DUMMY, password) and hashed is not None
    except (VerificationError, InvalidHashError):
        return False


class Busy(Exception):
    """Too many password hashes are waiting already."""


class PasswordHasher:
    """argon2 on ``workers`` threads of its own, at most ``queue`` calls waiting or running."""

    def __init__(self, workers: int, queue: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="argon2")
        self._slots = max(1, queue)
        self._busy = 0

    async def _run(self, call: Callable[[], T]) -> T:
        if self._busy >= self._slots:
            raise Busy("too many logins at once; try again in a moment")
        self._busy += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, call)
        finally:
            self._busy -= 1

    async def hash(self, password: str) -> str:
        return await self._run(lambda: hash_password(password))

    async def verify(self, hashed: str | None, password: str) -> bool:
        return await self._run(lambda: verify_password(hashed, password))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
