"""``niugui``: the command line. Each subcommand lives in its own module of this package.

A subcommand module has ``register(subparsers)``, which adds its parser and sets ``run`` (a function
taking the parsed arguments and returning the exit status). A user's mistake is reported as one
line on standard error with exit status 1 or 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS = ("replay", "play", "serve", "verify", "arena")
"""Subcommand modules in ``niugui.cli``, in the order ``niugui --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="niugui", description="河池牛鬼 (Hechi Niugui)")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"niugui.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
