"""``niugui verify RECORD_FILE``: prove a server game's deal matches the commitment published before it.

The record's ``meta`` holds ``commitment`` and ``salt``; the deal is its ``deck``. The check is
``sha256(salt + ":" + ",".join(deck)) == commitment`` (docs/protocol.md, "Fair deal"), and the record
must replay under the rules. ``--commitment HEX`` also checks the commitment you saw at the deal.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..fairness import SCHEME, check_commitment
from ..game import Game, IllegalMove
from ..record import RecordError
from .text import one_line

PROG = "niugui verify"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check that a game's deal matches its published commitment",
        description="Check a server game record: its deck hashed with the revealed salt must give the "
        "SHA-256 commitment published before the first action, and the record must replay.",
    )
    parser.add_argument(
        "file", metavar="RECORD_FILE", help="a record downloaded from the server; '-' for stdin"
    )
    parser.add_argument(
        "--commitment", metavar="HEX", help="the commitment you saw when the cards were dealt"
    )
    parser.set_defaults(run=run)


def verify(record: Any, seen: str | None = None) -> str:
    """A one-line proof, or ``ValueError`` saying what does not match."""
    if not isinstance(record, dict):
        raise ValueError("the record must be a JSON object (RECORD.md)")
    meta = record.get("meta")
    if not isinstance(meta, dict):
        raise ValueError("meta: missing; only records from `niugui serve` carry a commitment")
    proof = meta.get("fairness", meta)  # before meta had one schema, the proof sat in meta itself
    if not isinstance(proof, dict):
        raise ValueError("meta.fairness: expected an object")
    commitment, salt, deck = proof.get("commitment"), proof.get("salt"), record.get("deck")
    if not isinstance(commitment, str) or not isinstance(salt, str):
        raise ValueError(
            "meta.commitment and meta.salt: missing (the salt is revealed when the game is over)"
        )
    scheme = proof.get("scheme", proof.get("commitment_scheme", SCHEME))
    if scheme != SCHEME:
        raise ValueError(f"meta.fairness.scheme: unknown scheme {scheme!r}")
    if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
        raise ValueError("deck: the record must give the deal as a deck of 54 card codes")
    try:
        Game.from_record(record)
    except (RecordError, IllegalMove) as error:
        raise ValueError(f"the record does not replay: {error}") from None
    if seen is not None and seen.strip().lower() != commitment.lower():
        raise ValueError(f"the record's commitment {commitment} is not the one you saw ({seen.strip()})")
    if not check_commitment(commitment, salt, deck):
        raise ValueError(
            f"MISMATCH: sha256(salt:deck) is not {commitment}; this deck is not the committed one"
        )
    return f"OK: sha256(salt:deck) = {commitment}; the deal matches the commitment and the record replays"


def run(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            record = json.load(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as file:
                record = json.load(file)
    except OSError as error:
        print(f"{PROG}: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"{PROG}: {args.file} is not JSON: {one_line(str(error))}", file=sys.stderr)
        return 1
    try:
        print(verify(record, args.commitment))
    except ValueError as error:
        print(f"{PROG}: {one_line(str(error))}", file=sys.stderr)
        return 1
    return 0
