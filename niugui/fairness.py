"""Fairness by construction: one commitment to everything that decides the deal and the seating,
published before the first action, and a sealed hash chain over the actions (docs/protocol.md,
"Fair deal"). Standard library only, so anyone can verify a record without the server.

**Scheme 2** (``niugui-fair/2``, what the server writes). For each game the server draws a 32-byte
``secret``; from it come the ``salt`` (revealed after the game) and a one-time signing key (never
revealed). Before the first action it publishes

    commitment = hex(SHA-256(UTF-8(statement)))

where ``statement`` is the canonical JSON (keys sorted, no spaces, UTF-8) of: the scheme, the
protocol and record versions, the rule ``variant``, the ``table`` and ``game_no``, the four
``players``, ``first_drawer`` with how it was chosen (``first_drawer_by``, the 翻牌 ``flip``), the
54-card ``deck`` in drawing order (R9), the ``salt`` and ``seal_key`` (the hash of the signing key's
public half). When the game is over it reveals the salt and the statement, and seals the game:

    chain_0 = commitment;  chain_{i+1} = hex(SHA-256(UTF-8(chain_i + "\\n" + canonical(action_i))))
    seal = W-OTS signature (Winternitz, w = 16, SHA-256) of chain_n under the committed seal_key

A one-time signature whose key is fixed by the commitment cannot be made for another chain by anyone
holding the record (the signing key never leaves the server), so another first drawer, other seats,
a contradicting 翻牌, other, fewer or no actions all fail :func:`verify_record`.

**Scheme 1** (``sha256(salt:deck)``, records before scheme 2): ``commitment = SHA-256(salt + ":" +
",".join(deck))`` covers the deck only; such records verify as scheme 1 and are named so.

>>> deck = [str(c) for c in CARDS]
>>> commitment_v1("00" * 32, deck) == commitment_v1("00" * 32, deck) != commitment_v1("00" * 32, deck[::-1])
True
>>> digits(bytes(32))[:3], len(digits(bytes(32)))   # a message is 64 base-16 digits + a 3-digit checksum
([0, 0, 0], 67)
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import secrets
import string
from collections.abc import Callable, Sequence
from typing import Any

from .cards import CARDS, Card
from .game import VERSION, Game, IllegalMove, RecordError
from .record import meta_of_record
from .series import flip_first_drawer, flip_value

SCHEME = "niugui-fair/2"
SCHEME_V1 = "sha256(salt:deck)"
W = 16
"""Winternitz parameter: each chain signs one base-16 digit."""
MESSAGE_DIGITS = 64
CHECKSUM_DIGITS = 3
CHAINS = MESSAGE_DIGITS + CHECKSUM_DIGITS
_rng = secrets.SystemRandom()


class FairnessError(ValueError):
    """A record whose proof does not hold; the message says what does not match."""


# ---- drawing --------------------------------------------------------------------------------------


def shuffled_deck() -> list[str]:
    """The 54 card codes in a uniformly random order from the operating system's CSPRNG."""
    deck = [str(card) for card in CARDS]
    _rng.shuffle(deck)
    return deck


def turn_up() -> Card:
    """翻牌 (R8): a card turned up from the operating system's CSPRNG (for ``Series.first_drawer``)."""
    return CARDS[_rng.randrange(len(CARDS))]


def new_secret() -> str:
    """A game's secret: 32 random bytes as 64 hex digits. The server keeps it until the game is over."""
    return secrets.token_hex(32)


# ---- scheme 1 (older records) ---------------------------------------------------------------------


def commitment_v1(salt: str, deck: Sequence[str]) -> str:
    """Scheme 1: SHA-256 of ``salt + ":" + ",".join(deck)`` (the deck only)."""
    return hashlib.sha256(f"{salt}:{','.join(deck)}".encode()).hexdigest()


# ---- scheme 2 -------------------------------------------------------------------------------------


def canonical(value: Any) -> str:
    """The one JSON text of ``value``: keys sorted, no spaces, non-ASCII as is.

    >>> canonical({"b": [1, "牛"], "a": None})
    '{"a":null,"b":[1,"牛"]}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def salt_of(secret: str) -> str:
    """The salt revealed after the game: derived from the secret, which it does not reveal."""
    return hashlib.sha256(b"niugui-fair/2 salt\n" + bytes.fromhex(secret)).hexdigest()


def _secret_key(secret: str, chain: int) -> bytes:
    return hashlib.sha256(b"niugui-fair/2 wots\n" + bytes.fromhex(secret) + bytes([chain])).digest()


def _step(salt: bytes, chain: int, position: int, value: bytes) -> bytes:
    """One hash along a W-OTS chain, tweaked by the game's salt, the chain and the position."""
    return hashlib.sha256(salt + bytes([chain, position]) + value).digest()


def _walk(salt: bytes, chain: int, value: bytes, start: int, steps: int) -> bytes:
    for position in range(start, start + steps):
        value = _step(salt, chain, position, value)
    return value


def digits(message: bytes) -> list[int]:
    """The W-OTS digits of a 32-byte message: its 64 nibbles, then a checksum of 3 (so that making
    any digit larger forces another to be smaller: a signature cannot be stretched to another message)."""
    nibbles = [n for byte in message for n in (byte >> 4, byte & 15)]
    checksum = sum(W - 1 - n for n in nibbles)
    return nibbles + [(checksum >> (4 * k)) & 15 for k in (2, 1, 0)]


@functools.lru_cache(maxsize=8192)
def seal_key(secret: str) -> str:
    """The public half of the game's one-time key, hashed to one value (it goes into the statement).

    1,005 hashes; remembered for the last 8,192 secrets, as a game needs it at its deal and again
    at its end (and a server works it out ahead, in a thread of its own).
    """
    salt = bytes.fromhex(salt_of(secret))
    ends = b"".join(_walk(salt, i, _secret_key(secret, i), 0, W - 1) for i in range(CHAINS))
    return hashlib.sha256(ends).hexdigest()


def seal(secret: str, chain: str) -> str:
    """The one-time signature of ``chain`` (64 hex digits) under the game's key, as hex."""
    salt = bytes.fromhex(salt_of(secret))
    parts = [_walk(salt, i, _secret_key(secret, i), 0, d) for i, d in enumerate(digits(bytes.fromhex(chain)))]
    return b"".join(parts).hex()


def seal_holds(key: str, salt: str, chain: str, signature: str) -> bool:
    """Whether ``signature`` seals ``chain`` under the public ``key`` (checked with public data only)."""
    try:
        raw, salt_bytes, message = bytes.fromhex(signature), bytes.fromhex(salt), bytes.fromhex(chain)
    except ValueError:
        return False
    if len(raw) != 32 * CHAINS or len(message) != 32:
        return False
    ends = b"".join(
        _walk(salt_bytes, i, raw[32 * i : 32 * i + 32], d, W - 1 - d) for i, d in enumerate(digits(message))
    )
    return hmac.compare_digest(hashlib.sha256(ends).hexdigest(), key.lower())


def statement(record: dict[str, Any], protocol: int, salt: str, key: str) -> str:
    """The canonical text the commitment hashes, from a record (deck, first drawer, variant, meta).

    Everything in it decides the deal or the seating; nothing in it is decided after the deal.
    """
    meta = meta_of_record(record)
    if meta is None:
        raise FairnessError("meta: a record of scheme 2 has the meta of RECORD meta version 1")
    return canonical(
        {
            "scheme": SCHEME,
            "protocol": protocol,
            "record_version": record.get("version", VERSION),
            "variant": record.get("variant") or {},
            "table": meta.get("table"),
            "game_no": meta["game_no"],
            "players": meta["players"],
            "first_drawer": record["first_drawer"],
            "first_drawer_by": meta["first_drawer_by"],
            "flip": meta["flip"],
            "deck": record["deck"],
            "salt": salt,
            "seal_key": key,
        }
    )


def commitment_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def chain(commitment: str, actions: Sequence[dict[str, Any]]) -> str:
    """The hash chain over a game's actions, starting from its commitment (see the module docstring)."""
    head = commitment.lower()
    for action in actions:
        head = hashlib.sha256(f"{head}\n{canonical(action)}".encode()).hexdigest()
    return head


def commit(secret: str, record: dict[str, Any], protocol: int) -> dict[str, Any]:
    """The ``meta.fairness`` to publish at the deal, before any action: scheme, protocol, commitment.

    ``record`` is the game as dealt, with its meta (``record_of_game(game, meta)``).
    """
    text = statement(record, protocol, salt_of(secret), seal_key(secret))
    return {"scheme": SCHEME, "protocol": protocol, "commitment": commitment_of(text)}


def reveal(secret: str, record: dict[str, Any]) -> dict[str, Any]:
    """The ``meta.fairness`` of a finished record: the commitment published at the deal, the salt,
    the statement, the seal key, the chain over the record's actions and its seal."""
    proof = record["meta"]["fairness"]
    salt, key = salt_of(secret), seal_key(secret)
    text = statement(record, proof["protocol"], salt, key)
    if commitment_of(text) != proof["commitment"]:
        raise FairnessError("the record is not the game that was committed (its deal or seating changed)")
    head = chain(proof["commitment"], record["actions"])
    revealed = {"salt": salt, "seal_key": key, "statement": text, "chain": head, "seal": seal(secret, head)}
    return {**proof, **revealed}


# ---- verifying ------------------------------------------------------------------------------------


def verify_record(record: Any, seen: str | None = None) -> str:
    """Check a finished server record's proof; a one-line verdict, or :class:`FairnessError`.

    ``seen`` is the commitment you saw at the deal (it then must be the record's).
    """
    if not isinstance(record, dict):
        raise FairnessError("the record must be a JSON object (RECORD.md)")
    meta = record.get("meta")
    if not isinstance(meta, dict):
        raise FairnessError("meta: missing; only records from `niugui serve` carry a commitment")
    proof = meta.get("fairness", meta)  # scheme 1 records kept the proof in meta itself
    if not isinstance(proof, dict):
        raise FairnessError("meta.fairness: expected an object")
    scheme = proof.get("scheme", proof.get("commitment_scheme", SCHEME_V1 if "salt" in proof else None))
    commitment = proof.get("commitment")
    if not isinstance(commitment, str):
        raise FairnessError("meta.fairness.commitment: missing")
    _check_hex(commitment, "commitment")
    if seen is not None and seen.strip().lower() != commitment.lower():
        raise FairnessError(f"the record's commitment {commitment} is not the one you saw ({seen.strip()})")
    deck = record.get("deck")
    if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
        raise FairnessError("deck: the record must give the deal as a deck of 54 card codes")
    try:
        game = Game.from_record(record)
    except (RecordError, IllegalMove) as error:
        raise FairnessError(f"the record does not replay: {error}") from None
    if scheme == SCHEME_V1:
        return _verify_v1(proof, commitment, deck)
    if scheme != SCHEME:
        raise FairnessError(f"meta.fairness.scheme: unknown scheme {scheme!r}")
    return _verify_v2(record, proof, commitment, game)


def _hashed(function: Callable[..., str], *args: Any) -> str:
    """``function(*args)``, a hash of text from the record: JSON can spell a lone surrogate there
    (``"\\ud800"``), which has no UTF-8 to hash."""
    try:
        return function(*args)
    except UnicodeEncodeError:
        raise FairnessError("the record holds text that is not Unicode (a lone surrogate, \\ud800)") from None


def _check_hex(value: object, field: str) -> None:
    """A hash in a proof is 64 hex digits (any case); anything else is refused before it is compared."""
    if not isinstance(value, str) or len(value) != 64 or not all(c in string.hexdigits for c in value):
        shown = value[:70] if isinstance(value, str) else value
        raise FairnessError(f"meta.fairness.{field}: expected 64 hex digits, got {shown!r}")


def _verify_v1(proof: dict[str, Any], commitment: str, deck: list[str]) -> str:
    salt = proof.get("salt")
    if not isinstance(salt, str):
        raise FairnessError("meta.salt: missing (the salt is revealed when the game is over)")
    if not hmac.compare_digest(commitment.lower(), _hashed(commitment_v1, salt, deck)):
        raise FairnessError(
            f"MISMATCH: sha256(salt:deck) is not {commitment}; this deck is not the committed one"
        )
    return (
        f"OK (scheme 1, an older record): sha256(salt:deck) = {commitment}; the deck matches its commitment, "
        "but scheme 1 covers neither the first drawer, the seats nor the actions"
    )


def _verify_v2(record: dict[str, Any], proof: dict[str, Any], commitment: str, game: Game) -> str:
    fields = {k: proof.get(k) for k in ("salt", "seal_key", "chain", "seal")}
    missing = [k for k, v in fields.items() if not isinstance(v, str)]
    if missing or not isinstance(proof.get("protocol"), int):
        what = ", ".join(missing) or "protocol"
        raise FairnessError(f"meta.fairness: missing {what} (revealed when the game is over)")
    _check_hex(fields["seal_key"], "seal_key")
    _check_hex(fields["chain"], "chain")
    try:
        meta = meta_of_record(record)
    except RecordError as error:
        raise FairnessError(str(error)) from None
    if meta is None:
        raise FairnessError("meta.version: missing; a scheme-2 record has the meta of RECORD meta version 1")
    flip = meta["flip"]
    if flip is not None:
        try:
            card = Card.parse(str(flip["card"]))
        except ValueError:
            raise FairnessError(f"meta.flip.card: not a card: {flip['card']!r} (R6)") from None
        if flip_value(card) != flip["value"] or flip_first_drawer(card) != flip["first_drawer"]:
            raise FairnessError(f"meta.flip: {flip!r} does not count to its own first drawer (R8)")
        if flip["first_drawer"] != record["first_drawer"]:
            reached, said = flip["first_drawer"], record["first_drawer"]
            raise FairnessError(f"meta.flip reaches seat {reached} but first_drawer is {said} (R8)")
    text = statement(record, proof["protocol"], fields["salt"], fields["seal_key"])  # type: ignore[arg-type]
    if not hmac.compare_digest(_hashed(commitment_of, text), commitment.lower()):
        raise FairnessError(
            f"MISMATCH: the deal and seating of this record (deck, first drawer, 翻牌, players, variant, "
            f"protocol) do not hash to the commitment {commitment}"
        )
    if "statement" in proof and proof["statement"] != text:
        raise FairnessError("meta.fairness.statement: is not what the record's deal and seating say")
    if not game.over:
        raise FairnessError("actions: the record stops before the game is over; a sealed record is whole")
    actions = game.to_record()["actions"]  # canonical: the engine's card order
    head = chain(commitment, actions)
    if head != str(fields["chain"]).lower():
        raise FairnessError("MISMATCH: the hash chain over the actions is not the one the record carries")
    if not seal_holds(fields["seal_key"], fields["salt"], head, fields["seal"]):  # type: ignore[arg-type]
        raise FairnessError("MISMATCH: the seal over the actions does not hold (other or changed actions)")
    return (
        f"OK (scheme 2): the deal, first drawer and seats hash to the commitment {commitment}, "
        f"and the {len(actions)} actions are the sealed ones"
    )
