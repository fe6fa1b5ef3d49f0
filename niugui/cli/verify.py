"""``niugui verify RECORD_FILE``: prove a server game is the one committed before its first action.

The record's ``meta.fairness`` holds the proof (docs/protocol.md, "Fair deal"; :mod:`niugui.fairness`
checks it, with no server): its deal, first drawer and seats must hash to the commitment, its
actions must be the sealed ones, and the record must replay under the rules. ``--commitment HEX``
also checks the commitment you saw at the deal. Older records (scheme 1) are checked as such.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..fairness import verify_record
from .text import one_line

PROG = "niugui verify"
ONLY_SERVER_GAMES = (
    "only games dealt by `niugui serve` carry a commitment (published before the first action)"
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check that a game's deal matches its published commitment",
        description="Check a server game record: its deal and seating must hash to the SHA-256 "
        "commitment published before the first action, its actions must be the sealed ones, and the "
        "record must replay (docs/protocol.md, Fair deal).",
    )
    parser.add_argument(
        "file", metavar="RECORD_FILE", help="a record downloaded from the server; '-' for stdin"
    )
    parser.add_argument(
        "--commitment", metavar="HEX", help="the commitment you saw when the cards were dealt"
    )
    parser.set_defaults(run=run)


def verify(record: Any, seen: str | None = None) -> str:
    """A one-line proof, or ``ValueError`` saying what does not match (see ``verify_record``). A record
    that carries no proof at all is told which games have one."""
    if isinstance(record, dict):
        meta = record.get("meta")
        if not isinstance(meta, dict):
            raise ValueError(f"meta: missing: {ONLY_SERVER_GAMES}")
        if "fairness" not in meta and "commitment" not in meta:
            app = meta.get("app")
            dealt_by = ""
            if isinstance(app, str) and app != "niugui serve":
                dealt_by = f"this game comes from {one_line(app)}, which deals on your own machine; "
            raise ValueError(f"meta.fairness: missing: {dealt_by}{ONLY_SERVER_GAMES}")
    return verify_record(record, seen)


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
    except RecursionError:
        print(f"{PROG}: {args.file} is not JSON this can read: it is nested too deeply", file=sys.stderr)
        return 1
    try:
        print(verify(record, args.commitment))
    except ValueError as error:
        print(f"{PROG}: {one_line(str(error))}", file=sys.stderr)
        return 1
    return 0
