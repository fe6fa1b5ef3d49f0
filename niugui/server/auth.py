"""Guest and registered accounts: session tokens (kept only as SHA-256) and argon2 password hashes.

>>> token = new_token()
>>> len(token) >= 40 and token_hash(token) != token
True
>>> hashed = hash_password("correct horse")
>>> verify_password(hashed, "correct horse"), verify_password(hashed, "wrong")
(True, False)
"""

from __future__ import annotations

import hashlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_id() -> str:
    return secrets.token_hex(8)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(hashed: str, password: str) -> bool:
    try:
        return _hasher.verify(hashed, password)
    except (VerificationError, InvalidHashError):
        return False
