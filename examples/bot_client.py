#!/usr/bin/env python3
"""A minimal niugui bot client that speaks only the WebSocket protocol (docs/protocol.md).

No niugui import: a template for a bot in any language. It plays weakly — the first legal play the
server's view offers (the weakest), or a pass when it has none — but it finishes every game.

    pip install websockets
    NIUGUI_TOKEN=... python examples/bot_client.py --server http://127.0.0.1:8000

The token is a bot account's (POST /api/register with "bot": true). The client takes every seat it is
invited to (``invitation`` → ``sit``) or already holds (``welcome.seats`` → ``watch``), gets ready
before each game and acts on its turns. After ``--games`` games it stops; Ctrl-C stops it too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--token", default=os.environ.get("NIUGUI_TOKEN"))
    parser.add_argument("--games", type=int, default=0, help="stop after this many games (0: never)")
    args = parser.parse_args()
    if not args.token:
        parser.error("give a bot account's token with --token or $NIUGUI_TOKEN")
    url = args.server.replace("https://", "wss://").replace("http://", "ws://").rstrip("/")
    url = url if url.endswith("/ws") else url + "/ws"
    client = Client(args.token, args.games)
    delay = 0.5
    while True:
        try:
            with connect(url, max_size=2**22) as ws:
                delay = 0.5
                if client.session(ws):
                    return 0
        except KeyboardInterrupt:
            return 0
        except (OSError, ConnectionClosed) as error:
            if isinstance(error, ConnectionClosed) and error.rcvd is not None and error.rcvd.code == 4401:
                print("the server refused the token", file=sys.stderr)
                return 1
            print(f"connection lost ({error}); reconnecting in {delay:g} s", file=sys.stderr)
        try:
            time.sleep(delay)  # back off before trying again
        except KeyboardInterrupt:
            return 0
        delay = min(10.0, delay * 2)


class Client:
    def __init__(self, token: str, games: int) -> None:
        self.token = token
        self.games_wanted = games
        self.games = 0
        self.next_id = 0
        self.acted: dict[str, object] = {}  # table -> the turn it last acted on
        self.readied: dict[str, int] = {}  # table -> games_played when it last sent ready

    def send(self, ws, kind: str, **fields: object) -> None:
        self.next_id += 1
        ws.send(json.dumps({"type": kind, "id": f"x{self.next_id}", **fields}))

    def session(self, ws) -> bool:
        """One connection; True when the client is done."""
        self.send(ws, "auth", token=self.token)
        welcome = json.loads(ws.recv())
        if welcome["type"] != "welcome":
            raise SystemExit(f"refused: {welcome.get('message')}")
        print(f"connected as {welcome['account']['nickname']}", file=sys.stderr)
        self.acted.clear()
        self.readied.clear()
        for seat in welcome["seats"]:  # tables where this account holds a seat: rejoin them
            self.send(ws, "watch", table=seat["table"])
        for text in ws:
            message = json.loads(text)
            kind = message["type"]
            if kind == "invitation":  # accept: sit where invited
                self.send(ws, "sit", table=message["table"], seat=message["seat"], code=message["code"])
            elif kind == "error":
                print(f"refused: {message['code']}: {message['message']}", file=sys.stderr)
            elif kind in ("event", "snapshot"):
                if kind == "event" and message["event"]["kind"] == "game_over" and message["state"]["you"] is not None:
                    self.games += 1
                    if self.games_wanted and self.games >= self.games_wanted:
                        return True
                self.on_table(ws, message)
        return False

    def on_table(self, ws, message: dict) -> None:
        table, state, view = message["table"], message["state"], message["view"]
        you = state["you"]
        if you is None:
            return
        if state["status"] in ("waiting", "between") and not state["seats"][you]["ready"]:
            if self.readied.get(table) != state["games_played"]:
                self.readied[table] = state["games_played"]
                self.send(ws, "ready", table=table)
            return
        if state["status"] != "playing" or view is None or view["over"] or view["to_move"] != you:
            return
        turn = (state["game_no"], tuple(view["counts"]), len(view["trick"]))
        if self.acted.get(table) == turn:
            return  # acted on this turn already (another message came before the answer)
        self.acted[table] = turn
        if view["legal_plays"]:
            self.send(ws, "play", table=table, cards=view["legal_plays"][0])
        else:
            self.send(ws, "pass", table=table)


if __name__ == "__main__":
    sys.exit(main())
