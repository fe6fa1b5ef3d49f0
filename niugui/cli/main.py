"""``niugui``: the command line. Each subcommand lives in its own module of this package.

A subcommand module has ``register(subparsers)``, which adds its parser and sets ``run`` (a function
taking the parsed arguments and returning the exit status). A user's mistake is reported as one
line on standard error with exit status 1 or 2 — never a traceback; a wrong or extra argument shows
the usage of the subcommand it was given to. ``niugui`` alone prints the help.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .. import __version__

COMMANDS = ("replay", "play", "serve", "verify", "arena", "bot_client", "learn")
"""Subcommand modules in ``niugui.cli``, in the order ``niugui --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="niugui",
        description="河池牛鬼 (Hechi Niugui), a four-player climbing card game.",
        epilog="Run niugui COMMAND --help for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"niugui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"niugui.cli.{name}").register(subparsers)
    for command in subparsers.choices.values():
        command.set_defaults(command_parser=command)  # whose usage its errors show
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command is None:
        if extra:
            parser.error(f"unknown command or argument: {' '.join(extra)}")
        parser.print_help()
        return 0
    if extra:  # argparse would report them with the top-level usage
        args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
