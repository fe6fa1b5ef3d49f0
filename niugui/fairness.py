"""A fair deal anyone can verify: a CSPRNG shuffle and a SHA-256 commitment published before the deal.

``commitment = sha256(utf8(salt_hex + ":" + ",".join(deck))).hexdigest()``, where ``salt_hex`` is 32
random bytes as 64 lowercase hex digits and ``deck`` the 54 card codes in drawing order (R9).

>>> deck = [str(c) for c in CARDS]
>>> salt = "00" * 32
>>> commitment(salt, deck) == commitment(salt, deck) != commitment(salt, deck[::-1])
True
>>> check_commitment(commitment(salt, deck), salt, deck)
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from .cards import CARDS, Card

SCHEME = "sha256(salt:deck)"
_rng = secrets.SystemRandom()


def shuffled_deck() -> list[str]:
    """The 54 card codes in a uniformly random order from the operating system's CSPRNG."""
    deck = [str(card) for card in CARDS]
    _rng.shuffle(deck)
    return deck


def new_salt() -> str:
    return secrets.token_hex(32)


def commitment(salt: str, deck: Sequence[str]) -> str:
    """The SHA-256 commitment to ``deck`` under ``salt`` (see the module docstring)."""
    return hashlib.sha256(f"{salt}:{','.join(deck)}".encode()).hexdigest()


def check_commitment(expected: str, salt: str, deck: Sequence[str]) -> bool:
    return hmac.compare_digest(expected.lower(), commitment(salt, deck))


def turn_up() -> Card:
    """翻牌 (R8): a card turned up from the operating system's CSPRNG (for ``Series.first_drawer``)."""
    return CARDS[_rng.randrange(len(CARDS))]
