"""In-process tables for tests: a hub on a real store, with time, timers, bots and deals under the
test's control (no event loop, no sockets, nothing random)."""

from __future__ import annotations

import heapq
import itertools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niugui.bots import Action, Bot, View, fallback_action
from niugui.cards import CARDS, Card
from niugui.server.config import Config
from niugui.server.hub import Hub, stored_events
from niugui.server.metrics import Metrics
from niugui.server.protocol import SERVER_ADAPTER, TableSettings
from niugui.server.store import Store
from niugui.server.tables import Answer, Due, Fault, Services, Table
from niugui.server.tables.bots import Answered
from niugui.server.writer import InlineWriter

START = 1_800_000_000.0


class ManualClock:
    """Time and timers that move only when the test says so (:meth:`advance`). Its timers run on
    :meth:`time` (monotonic, as an event loop's); :meth:`now` is the UNIX time, which
    :meth:`step_wall` can step as a system clock's adjustment does."""

    def __init__(self, start: float = START) -> None:
        self._at = start
        self._wall = 0.0  # how far the UNIX time was stepped
        self._timers: list[tuple[float, int, _Handle]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._at + self._wall

    def time(self) -> float:
        return self._at

    def step_wall(self, seconds: float) -> None:
        """Step the UNIX time (not the timers' clock) by ``seconds``, back when negative."""
        self._wall += seconds

    def call_later(self, delay: float, callback: Callable[[Due], None], due: Due, /) -> _Handle:
        handle = _Handle(callback, due)
        heapq.heappush(self._timers, (self._at + delay, next(self._order), handle))
        return handle

    def next_at(self) -> float | None:
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return self._timers[0][0] if self._timers else None

    def advance(self, seconds: float) -> int:
        """Let ``seconds`` pass, firing every timer due meanwhile (in order); how many fired."""
        until = self._at + seconds
        fired = 0
        while (at := self.next_at()) is not None and at <= until:
            _, _, handle = heapq.heappop(self._timers)
            self._at = max(self._at, at)
            handle.fire()
            fired += 1
        self._at = until
        return fired


@dataclass
class _Handle:
    callback: Callable[[Due], None]
    due: Due
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True

    def fire(self) -> None:
        if not self.cancelled:
            self.cancelled = True
            self.callback(self.due)


class InstantBots:
    """Every bot answers at once with the safe action (pass if allowed, else the weakest play):
    deterministic, whatever bot the table picked."""

    def __init__(self) -> None:
        self.asked = 0

    def ask(self, bot: Bot | None, view: View, budget: float, answered: Answered) -> None:
        self.asked += 1
        action: Action = fallback_action(view)
        answered(action)


class SeededDealer:
    """Deals from a seeded generator (the server's dealer uses the operating system's CSPRNG)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def turn_up(self) -> Card:
        return CARDS[self.rng.randrange(len(CARDS))]

    def shuffled_deck(self) -> list[str]:
        deck = [str(card) for card in CARDS]
        self.rng.shuffle(deck)
        return deck

    def new_secret(self) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(64))


@dataclass(eq=False)
class FakeClient:
    """A connection that keeps every frame it is sent (each checked against the protocol's schema)."""

    account_id: str
    nickname: str
    frames: list[str] = field(default_factory=list)
    address: str = ""
    """Its address key ('' unknown: each such client counts as its own person)."""

    def send(self, message: str) -> None:
        assert isinstance(message, str), "tables send serialized frames"
        SERVER_ADAPTER.validate_json(message)
        self.frames.append(message)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(frame) for frame in self.frames]


def client(n: int) -> FakeClient:
    return FakeClient(f"acct{n}", f"player{n}")


@dataclass
class Rig:
    hub: Hub
    store: Store
    clock: ManualClock
    bots: InstantBots
    config: Config

    def call(self, fn: Callable[..., None], *args: Any) -> Answer:
        """Call a table or hub method with a reply; the answer (a refusal is raised)."""
        answers: list[Answer | BaseException] = []
        fn(*args, answers.append)
        assert len(answers) == 1, f"{getattr(fn, '__name__', fn)} replied {len(answers)} times"
        if isinstance(answers[0], BaseException):
            raise answers[0]
        return answers[0]


def rig(tmp_path: Path, seed: int = 1, store: Store | None = None, **config: Any) -> Rig:
    settings = Config(data_dir=tmp_path, **{"bot_delay": 0.8, "grace_seconds": 120.0, **config})
    if store is None:
        store = Store(settings.database_url())
        store.migrate()
    clock = ManualClock()
    bots = InstantBots()
    services = Services(InlineWriter(store), clock, bots, stored_events(store), SeededDealer(seed), clock.now)
    return Rig(Hub(store, settings, Metrics(), services), store, clock, bots, settings)


def weakest(view: dict[str, Any]) -> list[str] | None:
    """The scripted players' choice: pass when allowed and there are many plays, else the weakest."""
    if view["can_pass"] and (not view["legal_plays"] or len(view["legal_plays"]) > 3):
        return None
    first: list[str] = view["legal_plays"][0]
    return first


def seated_table(r: Rig, humans: int = 4, **settings: Any) -> tuple[Table, list[FakeClient]]:
    """A table with ``humans`` scripted players in seats 0.. and bots in the rest; the game started."""
    clients = [client(n) for n in range(humans)]
    table = r.hub.create_table(clients[0], TableSettings(**{"turn_seconds": 60, **settings}), lambda a: None)
    for n, c in enumerate(clients):
        r.hub.directory.follow(c, table.id)
        r.call(table.sit, c, n)
    if humans < 4:
        r.call(table.fill_bots, clients[0])
    return table, clients


def play_out(r: Rig, table: Table, clients: list[FakeClient]) -> None:
    """Scripted players act on their turns and bots play theirs until the game is over."""
    while table.state.status == "playing":
        game = table.state.game
        assert game is not None and game.to_move is not None
        seat = game.to_move
        if seat < len(clients) and table.state.human_turn(seat):
            r.call(table.act, clients[seat], weakest(game.view(seat)))
        else:
            assert r.clock.advance(r.config.bot_delay) > 0, "a bot's turn armed no timer"


__all__ = [
    "FakeClient",
    "Fault",
    "ManualClock",
    "Rig",
    "client",
    "play_out",
    "rig",
    "seated_table",
    "weakest",
]
