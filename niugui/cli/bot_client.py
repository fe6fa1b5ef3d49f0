"""``niugui bot-client``: run a niugui bot on an online server, as a bot account over the protocol."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..server.consent import INVITE_FROM, MAX_INVITE_TABLES

PROG = "niugui bot-client"
TOKEN_ENV = "NIUGUI_TOKEN"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bot-client",
        help="play on an online server as a bot account",
        description=(
            "Connect to a niugui server with a bot account's token and play with a niugui bot: take "
            "every seat the account is invited to (or holds already), get ready before each game, play "
            "every turn, reconnect by itself. A bot account is registered with POST /api/register "
            '{"username", "password", "bot": true} (docs/protocol.md, "Bot accounts"). Ctrl-C stops it '
            "(the seats are kept: 托管 plays them until the client is back or the grace period ends)."
        ),
    )
    parser.add_argument("--bot", default="expert", metavar="BOT",
                        help="random, basic, expert, search or package.module:Class (default expert)")
    parser.add_argument("--server", required=True, metavar="URL",
                        help="the server, e.g. http://127.0.0.1:8000 (or its ws:// URL)")
    parser.add_argument("--token", metavar="TOKEN",
                        help=f"the bot account's session token (default: ${TOKEN_ENV}, which keeps it out "
                        "of the process list)")
    parser.add_argument("--budget", type=float, default=5.0, metavar="SECONDS",
                        help="time per decision, less when the turn timer is shorter (default 5)")
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="the bot's seed")
    parser.add_argument("--stop-after", type=int, default=None, metavar="N",
                        help="stop once N games are played (and none is in progress)")
    parser.add_argument("--invitable-by", choices=INVITE_FROM, default=None,
                        help="who may invite this bot account to a table (sent to the server, which "
                        "enforces it; default: leave the account's setting, at first anyone)")
    parser.add_argument("--max-tables", type=int, default=None, metavar="N",
                        help="play at most N tables at once: the server refuses more invitations "
                        "(default: leave the account's setting, at first 4)")
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from ..botclient import BotClient, run_client, ws_url
    from ..bots import Bot, load_bot

    token = args.token or os.environ.get(TOKEN_ENV)
    if not token:
        return _fail(f"give the bot account's token with --token or ${TOKEN_ENV}")
    if args.budget <= 0:
        return _fail("--budget must be a positive number of seconds")
    if args.stop_after is not None and args.stop_after < 1:
        return _fail("--stop-after must be at least 1")
    if args.max_tables is not None and not 0 <= args.max_tables <= MAX_INVITE_TABLES:
        return _fail(f"--max-tables must be between 0 and {MAX_INVITE_TABLES}")
    try:
        ws_url(args.server)
        load_bot(args.bot)
    except ValueError as error:
        return _fail(str(error))

    def make_bot() -> Bot:
        return load_bot(args.bot, seed=args.seed)

    return run_client(
        BotClient(
            args.server,
            token,
            make_bot,
            budget=args.budget,
            stop_after=args.stop_after,
            invitable_by=args.invitable_by,
            max_tables=args.max_tables,
        )
    )
