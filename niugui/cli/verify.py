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

from ..game import Game, IllegalMove
from ..record import RecordError
from ..server.fairness import SCHEME, check_commitment
from .text import one_line

PROG = "niugui verify"
ONLY_SERVER_GAMES = (
    "only games dealt by `niugui serve` carry a commitment (published before the first action)"
)


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
        raise ValueError(f"meta: missing: {ONLY_SERVER_GAMES}")
    commitment, salt, deck = meta.get("commitment"), meta.get("salt"), record.get("deck")
    if not isinstance(commitment, str):
        app = meta.get("app")
        dealt_by = ""
        if isinstance(app, str):
            dealt_by = f"this game comes from {one_line(app)}, which deals on your own machine; "
        raise ValueError(f"meta.commitment: missing: {dealt_by}{ONLY_SERVER_GAMES}")
    if not isinstance(salt, str):
        raise ValueError(
            "meta.salt: missing; the server reveals the salt once the game is over: "
            "download the record again after the end"
        )
    if meta.get("commitment_scheme", SCHEME) != SCHEME:
        raise ValueError(f"meta.commitment_scheme: unknown scheme {meta.get('commitment_scheme')!r}")
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
