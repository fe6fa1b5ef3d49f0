"""A niugui bot as a client of the online server: what ``niugui bot-client`` runs.

It signs in with a bot account's token and plays through the WebSocket protocol (docs/protocol.md)
exactly as the web page does: it takes the seats it is invited to (``invitation`` → ``sit``) and the
seats its account holds already (``welcome.seats`` → ``watch``), gets ready before every game, and on
its turn hands the bot the seat's view — the server's view of that seat, nothing more (R11, R12) —
and sends the bot's answer. When the connection drops it reconnects with backoff and resumes every
table from the last event it saw (``watch`` with ``last_seq``).

Bots read a view's ``history`` and ``leads``, which the server sends in a ``snapshot`` but leaves out
of each event's view (the events carry them). So the client keeps them from the events: each play,
pass and escape is appended, and a play started a trick (R29) when the view sent with it shows a
trick of that play alone. Replayed events come without views; after a reconnect that replayed
actions of the game in progress the client asks for a snapshot instead of guessing.

>>> run = TableRun("t1", bot=None)
>>> run.on_frame({"type": "snapshot", "table": "t1", "seq": 5, "view": {"history": [], "leads": [],
...     "trick": []}, "state": {"you": 0}})
>>> run.on_frame({"type": "event", "table": "t1", "seq": 6, "event": {"kind": "play", "seat": 0,
...     "play": ["D4"], "by": "player"}, "view": {"trick": [{"seat": 0, "play": ["D4"], "kind": "single"}],
...     "current": {"seat": 0, "play": ["D4"], "kind": "single"}}, "state": {"you": 0}})
>>> run.history, run.leads, run.synced
([{'seat': 0, 'play': ['D4'], 'kind': 'single'}], [0], True)
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import signal
import sys
import time
import urllib.request
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .bots import Action, Bot, choose_safely, fallback_action
from .cards import parse_cards
from .combos import classify

CLOSE_UNAUTHORIZED = 4401
"""The server's close code for a token it does not accept (or a session ended)."""
GAME_ACTIONS = ("deal", "play", "pass", "escape")
MOVING_WAIT = 0.5
"""Seconds before a request refused ``moving`` is tried again (a failover takes 1–3 s)."""


def ws_url(server: str) -> str:
    """The WebSocket URL of a server given as ``http(s)://host:port`` or ``ws(s)://host:port/ws``.

    >>> ws_url("http://127.0.0.1:8000"), ws_url("https://niugui.example/"), ws_url("ws://h:1/ws")
    ('ws://127.0.0.1:8000/ws', 'wss://niugui.example/ws', 'ws://h:1/ws')
    """
    if "://" not in server:
        server = "http://" + server
    parts = urlsplit(server)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss"):
        raise ValueError(f"--server: expected an http(s):// or ws(s):// URL, not {server!r}")
    path = parts.path.rstrip("/") or "/ws"
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))


def http_url(ws: str) -> str:
    """The HTTP origin of the server whose WebSocket URL is ``ws``.

    >>> http_url("ws://127.0.0.1:8000/ws"), http_url("wss://niugui.example/ws")
    ('http://127.0.0.1:8000', 'https://niugui.example')
    """
    parts = urlsplit(ws)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    path = parts.path[: -len("/ws")] if parts.path.endswith("/ws") else parts.path.rstrip("/")
    return urlunsplit((scheme, parts.netloc, path, "", ""))


def consent_call(ws: str, token: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """``GET /api/me/invitations`` (``body`` None) or ``PUT`` it: who may invite this bot account and
    to how many tables at once (issue 33 finding 6); the server's answer."""
    request = urllib.request.Request(
        http_url(ws) + "/api/me/invitations",
        data=None if body is None else json.dumps(body).encode(),
        method="GET" if body is None else "PUT",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        found: dict[str, Any] = json.loads(answer.read())
    return found


def put_consent(ws: str, token: str, invitable_by: str | None, max_tables: int | None) -> dict[str, Any]:
    """Change only what was given (None keeps the server's current value, read first), so that one
    flag never resets the other; the server's answer."""
    current = consent_call(ws, token)
    if invitable_by is not None:
        current["invitable_by"] = invitable_by
    if max_tables is not None:
        current["max_tables"] = max_tables
    return consent_call(ws, token, current)


def _kind(cards: list[str]) -> str:
    """A play's combination, named as the engine's history names it (R13–R25)."""
    combo = classify(parse_cards(cards))
    return "" if combo is None else combo.kind


@dataclass
class TableRun:
    """What the client knows of one table: the last event seen, the table's state, and the seat's
    view with the game's history kept from the events."""

    id: str
    bot: Bot | None
    last_seq: int | None = None
    state: dict[str, Any] | None = None
    view: dict[str, Any] | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    leads: list[int] = field(default_factory=list)
    synced: bool = False
    """Whether ``history`` and ``leads`` are the game's own (else a snapshot is needed)."""
    resyncing: bool = False
    acted: tuple[int, int] | None = None
    """The last turn an action was sent for: (game number, actions so far)."""
    ready_sent: int | None = None
    """``games_played`` when ``ready`` was last sent (once per break between games)."""

    @property
    def seat(self) -> int | None:
        you = None if self.state is None else self.state.get("you")
        return you if isinstance(you, int) else None

    def on_frame(self, message: dict[str, Any]) -> None:
        """Take a ``snapshot`` or an ``event`` of this table."""
        view = message.get("view")
        self.state = message["state"]
        if message["type"] == "snapshot":
            self.last_seq = message["seq"]
            self.view = view
            self.history = list(view.get("history") or []) if view else []
            self.leads = list(view.get("leads") or []) if view else []
            self.synced, self.resyncing = True, False
            return
        seq, event = message["seq"], message["event"]
        if self.last_seq is not None and seq != self.last_seq + 1 and not message.get("replay"):
            self.synced = False  # a gap: never expected, but never guessed over either
        self.last_seq = seq
        kind, seat = event["kind"], event.get("seat")
        if view is None:
            if kind in GAME_ACTIONS:
                self.synced = False  # a replayed action: where its trick began is not known here
            return
        self.view = view
        if kind == "deal":
            self.history, self.leads, self.synced = [], [], True
        elif kind == "play":
            self.history.append({"seat": seat, "play": event["play"], "kind": _kind(event["play"])})
            if len(view.get("trick", ())) == 1:  # a trick of this play alone: it was a free lead (R29)
                self.leads.append(len(self.history) - 1)
        elif kind == "pass":
            self.history.append({"seat": seat, "pass": True})
        elif kind == "escape":
            self.history.append({"seat": seat, "escape": True})
        if kind in GAME_ACTIONS and not self._trick_matches(view):
            self.synced = False

    def _trick_matches(self, view: dict[str, Any]) -> bool:
        """The view's trick is what the kept history says it is (a check that costs little); an
        empty trick is one that has just been won (everyone else passed)."""
        if not view.get("trick"):
            return True
        start = self.leads[-1] if self.leads else 0
        kept = [e for e in self.history[start:] if "escape" not in e]
        return [(e["seat"], e.get("play")) for e in kept] == [
            (e["seat"], e.get("play")) for e in view.get("trick", ())
        ]

    def turn(self) -> tuple[int, int] | None:
        """The turn this seat is to act on now, or None."""
        view, state, seat = self.view, self.state, self.seat
        if view is None or state is None or seat is None or state.get("status") != "playing":
            return None
        if view.get("over") or view.get("seat") != seat or view.get("to_move") != seat:
            return None
        return state["game_no"], len(self.history)

    def bot_view(self) -> dict[str, Any]:
        """The seat's view as the engine's ``game.view(seat)`` gives it, history and all."""
        assert self.view is not None
        return {**self.view, "history": list(self.history), "leads": list(self.leads)}


class BotClient:
    """One connection to the server at a time, every table its bot account plays at."""

    def __init__(
        self,
        server: str,
        token: str,
        make_bot: Callable[[], Bot],
        *,
        budget: float = 5.0,
        stop_after: int | None = None,
        say: Callable[[str], None] | None = None,
        invitable_by: str | None = None,
        max_tables: int | None = None,
    ) -> None:
        self.url = ws_url(server)
        self.token = token
        self.make_bot = make_bot
        self.budget = budget
        self.stop_after = stop_after
        self.invitable_by = invitable_by
        """Who may invite the account (its owner's consent, sent to the server on connecting) ..."""
        self.max_tables = max_tables
        """... and at most how many tables it plays at once (invitations beyond are declined here too)."""
        self.say = say or (lambda text: print(f"niugui bot-client: {text}", file=sys.stderr, flush=True))
        self.tables: dict[str, TableRun] = {}
        self.games = 0
        """Games finished in a seat of this account since the client started."""
        self.stop = asyncio.Event()
        self._ws: Any = None
        self._ids = itertools.count(1)
        self._pending: dict[str, tuple[str, str | None]] = {}
        self._thinking: set[asyncio.Task[None]] = set()

    # ---- the connection --------------------------------------------------------------------------

    async def run(self) -> int:
        """Play until stopped (exit status 0) or the token is refused (1) or not a bot's (2)."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

        attempt = 0
        while not self.stop.is_set():
            try:
                async with connect(self.url, max_size=2**22, open_timeout=30, ping_interval=10) as ws:
                    self._ws = ws
                    status = await self._session(ws)
                    attempt = 0
                    if status is not None:
                        return status
            except InvalidURI as error:
                self.say(f"bad server URL: {error}")
                return 2
            except ConnectionClosed as closed:
                if closed.rcvd is not None and closed.rcvd.code == CLOSE_UNAUTHORIZED:
                    self.say(f"the server refused the token: {closed.rcvd.reason or 'signed out'}")
                    return 1
                self.say("connection lost; reconnecting")
            except (OSError, InvalidHandshake, TimeoutError) as error:
                self.say(f"cannot reach {self.url}: {error or type(error).__name__}; retrying")
            finally:
                self._ws = None
                self._pending.clear()
            if self.stop.is_set():
                break
            delay = min(10.0, 0.5 * 2**attempt) * (0.8 + 0.4 * random.random())
            attempt += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop.wait(), delay)
        return 0

    async def _session(self, ws: Any) -> int | None:
        """One connection: sign in, rejoin the tables, then read until it closes (None) or the
        client is stopped (0); 1 or 2 when it must not go on."""
        await ws.send(json.dumps({"type": "auth", "id": "auth", "token": self.token}))
        welcome = json.loads(await ws.recv())
        if welcome.get("type") != "welcome":
            self.say(f"the server refused the token: {welcome.get('message', welcome)}")
            return 1
        account = welcome["account"]
        if not account.get("bot"):
            self.say(
                f"{account['nickname']!r} is not a bot account; register one with "
                '"bot": true (POST /api/register, docs/protocol.md) and use its token'
            )
            return 2
        self.say(f"connected as {account['nickname']} (bot account {account.get('username')})")
        if (self.invitable_by is not None or self.max_tables is not None) and not await self._consent():
            await ws.close()
            return 2  # the owner's consent was not recorded: do not play under another
        held = {ref["table"] for ref in welcome["seats"]}
        for table_id in list(self.tables):
            if table_id not in held:
                del self.tables[table_id]  # our seat there is gone (freed, or the table was dropped)
        for table_id in held:
            run = self._run(table_id)
            run.acted = run.ready_sent = None  # what was sent on the old connection may be lost
            await self._send("watch", table_id, last_seq=run.last_seq)
        reader = asyncio.create_task(self._read(ws))
        stopper = asyncio.create_task(self.stop.wait())
        try:
            await asyncio.wait({reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopper.cancel()
        if reader.done():
            reader.result()  # raises ConnectionClosed: reconnect
            return None
        reader.cancel()
        await ws.close()
        return 0

    async def _consent(self) -> bool:
        """Send the owner's consent to invitations (the server enforces it; finding 6): only the flags
        given change. False when the server did not record it."""
        try:
            given = self.invitable_by, self.max_tables
            now = await asyncio.to_thread(put_consent, self.url, self.token, *given)
        except (OSError, ValueError) as error:  # HTTPError and URLError too; a body that is not JSON
            self.say(f"could not set who may invite this account: {error}")
            return False
        self.say(f"invitations: from {now['invitable_by']}, to at most {now['max_tables']} tables at once")
        return True

    async def _read(self, ws: Any) -> None:
        async for text in ws:
            await self._on_message(json.loads(text))

    async def _send(self, kind: str, table: str | None = None, **fields: Any) -> None:
        if self._ws is None:
            return
        from websockets.exceptions import ConnectionClosed

        request_id = f"b{next(self._ids)}"
        self._pending[request_id] = (kind, table)
        message = {"type": kind, "id": request_id, **({} if table is None else {"table": table}), **fields}
        try:
            await self._ws.send(json.dumps(message))
        except ConnectionClosed:  # lost meanwhile (a bot thought through it): :meth:`run` connects
            self._pending.pop(request_id, None)  # again and the tables' turns are driven afresh

    def _run(self, table_id: str) -> TableRun:
        run = self.tables.get(table_id)
        if run is None:
            run = self.tables[table_id] = TableRun(table_id, self.make_bot())
        return run

    # ---- what the server says ------------------------------------------------------------------------

    async def _on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "invitation":
            self.say(f"invited by {message['by']} to table {message['table']}, seat {message['seat']}")
            others = self.tables.keys() - {message["table"]}
            if self.max_tables is not None and len(others) >= self.max_tables:
                self.say(f"declined: playing at {len(others)} other tables already (--max-tables)")
                return
            self._run(message["table"])
            await self._send("sit", message["table"], seat=message["seat"], code=message.get("code"))
        elif kind in ("snapshot", "event"):
            run = self.tables.get(message["table"])
            if run is None:
                return
            run.on_frame(message)
            if kind == "event":
                self._after_event(run, message)
            await self._drive(run)
        elif kind in ("ack", "error"):
            await self._on_answer(message)

    async def _on_answer(self, message: dict[str, Any]) -> None:
        kind, table_id = self._pending.pop(message.get("id") or "", (None, None))
        run = None if table_id is None else self.tables.get(table_id)
        if message["type"] == "error":
            self.say(f"{kind} refused: {message['code']}: {message['message']}")
            if run is None:
                return
            if message["code"] == "moving":  # a cluster's table between two nodes: again shortly
                self._later(self._again(run, kind))
                return
            if kind == "sit" and run.seat is None:
                del self.tables[run.id]
            elif kind in ("play", "pass") and message["code"] == "illegal_move" and run.turn() == run.acted:
                view = run.bot_view()  # the bot's answer broke a rule: play the safe action instead
                await self._act(run, fallback_action(view))  # type: ignore[arg-type]
            return
        if run is not None and kind == "watch" and not run.synced and not run.resyncing:
            run.resyncing = True  # the replay left the history unknown: ask for a snapshot
            await self._send("watch", run.id)
        elif run is not None:
            await self._drive(run)

    async def _again(self, run: TableRun, kind: str | None) -> None:
        """A request refused ``moving`` (its table's node died, or handed it over): watch again or act
        again half a second later (nothing was done; a move the dead node did store is refused as
        out of turn, and the table's frames show it)."""
        await asyncio.sleep(MOVING_WAIT)
        if kind == "watch":
            await self._send("watch", run.id)
        elif kind in ("play", "pass", "ready"):
            run.acted = run.ready_sent = None
            await self._drive(run)

    def _after_event(self, run: TableRun, message: dict[str, Any]) -> None:
        event = message["event"]  # replayed too: a game that ended while the client was away counts
        if event["kind"] == "game_over" and run.seat is not None:
            self.games += 1
            result = event["result"]
            seat = run.seat
            self.say(
                f"table {run.id} game {event['game_no']} over: {result['mode']} {result['outcome']}, "
                f"seat {seat} scored {result['scores'][seat]:+d} (total {event['totals'][seat]:+d})"
            )
        elif event["kind"] == "table_finished":
            self.say(f"table {run.id} finished")
            self.tables.pop(run.id, None)  # nothing more will happen there
        playing = any(r.state and r.state.get("status") == "playing" for r in self.tables.values())
        if self.stop_after is not None and self.games >= self.stop_after and not playing:
            self.say(f"{_games(self.games)} played; stopping")
            self.stop.set()

    # ---- acting ----------------------------------------------------------------------------------------

    async def _drive(self, run: TableRun) -> None:
        """Get ready between games, and act when it is this seat's turn."""
        state, seat = run.state, run.seat
        if state is None or seat is None:
            return
        if state["status"] in ("waiting", "between") and not state["seats"][seat]["ready"]:
            if run.ready_sent != state["games_played"]:
                run.ready_sent = state["games_played"]
                await self._send("ready", run.id)
            return
        turn = run.turn()
        if turn is None or turn == run.acted or not run.synced:
            return
        run.acted = turn
        self._later(self._think(run, turn, run.bot_view(), state.get("deadline")))

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the reading of frames (kept until it is done)."""
        task = asyncio.create_task(work)
        self._thinking.add(task)
        task.add_done_callback(self._thinking.discard)

    async def _think(self, run: TableRun, turn: tuple[int, int], view: dict[str, Any], deadline: Any) -> None:
        budget = self.budget
        if isinstance(deadline, int | float):  # leave a second for the answer to travel
            budget = max(0.1, min(budget, deadline - time.time() - 1.0))
        assert run.bot is not None
        action = await asyncio.to_thread(choose_safely, run.bot, view, budget)  # type: ignore[arg-type]
        if run.turn() == turn:  # still this turn (not played meanwhile by 托管 or a timeout)
            await self._act(run, action)

    async def _act(self, run: TableRun, action: Action) -> None:
        if action is None:
            await self._send("pass", run.id)
        else:
            await self._send("play", run.id, cards=list(action))


def _games(count: int) -> str:
    return f"{count} game" if count == 1 else f"{count} games"


def run_client(client: BotClient) -> int:
    """Run ``client`` until Ctrl-C or SIGTERM (a clean stop: the connection is closed, status 0)."""

    async def main() -> int:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not on the main thread
                loop.add_signal_handler(signum, client.stop.set)
        status = await client.run()
        if client.stop.is_set():
            client.say(f"stopped after {_games(client.games)}")
        return status

    return asyncio.run(main())
