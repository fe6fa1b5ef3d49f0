"""The table runtime: one table's seats, games, timers and 托管, authoritative on the server.

Every change is a table *event*. An event is (1) written to the store with the next sequence
number, (2) applied to the in-memory state by :meth:`TableRuntime.reduce` (the same function that
rebuilds a table from its stored events after a restart), then (3) broadcast, each recipient's copy
carrying the engine's view for that recipient's seat (``view(None)`` for spectators) — never
anything built from another seat's hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from niugui import fairness
from niugui.bots import Bot, choose_safely, fallback_action, load_bot
from niugui.cards import cards_of, mask_of, parse_cards
from niugui.combos import classify
from niugui.game import Game, IllegalMove, SeatView
from niugui.record import PlayerRef, new_meta, record_of_game
from niugui.series import Series

from . import logs
from .config import Config
from .metrics import Metrics
from .protocol import PROTOCOL_VERSION, TableSettings
from .store import GameRow, LedgerEntry, Store

SEATS = 4


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Client(Protocol):
    """A connection as the runtime sees it."""

    account_id: str
    nickname: str

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a dict, or one already serialized as JSON text)."""


class Fault(Exception):
    """A refused request: becomes an ``error`` message with this code (and rule)."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule


@dataclass
class SeatSlot:
    player: dict[str, Any] | None = None  # {"id", "nickname", "bot"}
    online: bool = True
    autoplay: bool = False
    autoplay_reason: str | None = None
    ready: bool = False
    timeouts: int = 0
    grace: asyncio.TimerHandle | None = None
    leave_after_game: bool = False

    @property
    def human(self) -> bool:
        return self.player is not None and self.player.get("bot") is None

    @property
    def account_id(self) -> str | None:
        return None if self.player is None else self.player.get("id")


def load_policy(level: str) -> Bot | None:
    """A bot for ``level``, falling back to ``expert`` then ``basic`` while those are not built."""
    for spec in (level, "expert", "basic"):
        try:
            return load_bot(spec)
        except ValueError:
            continue
    return None


REVEALED = ("scheme", "protocol", "commitment", "salt", "statement", "seal_key", "chain", "seal")
"""The fairness proof's fields that the game_over event reveals (protocol ``Reveal``)."""


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def decide(bot: Bot | None, view: SeatView, budget: float) -> list[str] | None:
    return fallback_action(view) if bot is None else choose_safely(bot, view, budget)


@dataclass
class TableRuntime:
    id: str
    creator: str
    code: str | None
    settings: TableSettings
    store: Store
    config: Config
    metrics: Metrics
    seq: int = 0
    status: str = "waiting"
    seats: list[SeatSlot] = field(default_factory=lambda: [SeatSlot() for _ in range(SEATS)])
    series: Series = field(default_factory=Series)
    game: Game | None = None
    game_id: int | None = None
    game_no: int = 0
    game_row: GameRow | None = None
    players: list[dict[str, Any] | None] = field(default_factory=lambda: [None] * SEATS)
    flip_info: dict[str, Any] | None = None
    deadline: float | None = None
    subscribers: dict[Client, None] = field(default_factory=dict)
    recent: deque[tuple[int, float, dict[str, Any]]] = field(default_factory=deque)
    bots: dict[int, Bot | None] = field(default_factory=dict)
    autoplay_bot: Bot | None = None
    restoring: bool = False
    _timer: asyncio.TimerHandle | None = None
    _settings_cache: tuple[TableSettings, dict[str, Any]] | None = None
    _turn: int = 0  # bumps whenever the turn changes, so stale timers and bot answers are ignored
    _held: tuple[tuple[int, int], float] | None = None  # (game_no, actions so far): that turn's deadline
    on_reload: Callable[[TableRuntime], None] | None = None

    # ---- reading state ---------------------------------------------------------------------------

    def seat_of(self, account_id: str) -> int | None:
        for n, slot in enumerate(self.seats):
            if slot.account_id == account_id:
                return n
        return None

    def summary(self, for_account: str | None = None) -> dict[str, Any]:
        insider = for_account is not None and (
            for_account == self.creator or self.seat_of(for_account) is not None
        )
        return {
            "id": self.id,
            "name": self.settings.name,
            "private": self.settings.private,
            "code": self.code if insider else None,
            "status": self.status,
            "seats": [slot.player for slot in self.seats],
            "spectators": sum(1 for c in self.subscribers if self.seat_of(c.account_id) is None),
            "games_played": self.series.games,
            "settings": self.settings_dict(),
        }

    def settings_dict(self) -> dict[str, Any]:
        cached = self._settings_cache
        if cached is None or cached[0] is not self.settings:
            cached = self._settings_cache = (self.settings, self.settings.model_dump())
        return cached[1]

    def state(self, you: int | None) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.settings.name,
            "private": self.settings.private,
            "code": self.code,
            "creator": self.creator,
            "settings": self.settings_dict(),
            "status": self.status,
            "seats": [
                {"seat": n, "player": s.player, "online": s.online, "autoplay": s.autoplay, "ready": s.ready}
                for n, s in enumerate(self.seats)
            ],
            "totals": list(self.series.totals),
            "games_played": self.series.games,
            "game_no": self.game_no,
            "game_id": self.game_id,
            "deadline": self.deadline,
            "commitment": self.game_row.commitment if self.game_row else None,
            "flip": self.flip_info,
            "you": you,
        }

    def view(self, seat: int | None, history: bool = False) -> SeatView | None:
        """The engine's view for ``seat`` (None: spectator) — the only source of game data sent out."""
        if self.game is None:
            return None
        return self.game.view(seat, history=history)

    # ---- events: store, reduce, broadcast --------------------------------------------------------

    def emit(
        self,
        event: dict[str, Any],
        *,
        deal: dict[str, Any] | None = None,
        finish: tuple[dict[str, Any], list[LedgerEntry]] | None = None,
    ) -> int:
        """Store ``event`` as the next in sequence, apply it, then broadcast it."""
        seq = self.seq + 1
        status = self._status_after(event)
        try:
            if deal is not None:
                game_id, now = self.store.start_game(self.id, seq, event, deal)
                self.game_row = GameRow(
                    game_id,
                    self.id,
                    deal["game_no"],
                    deal["first_drawer"],
                    deal["deck"],
                    deal["salt"],
                    deal["commitment"],
                    deal["meta"],
                    "playing",
                    None,
                )
            elif finish is not None:
                assert self.game_id is not None
                now = self.store.finish_game(self.id, seq, event, status, self.game_id, *finish)
            else:
                now = self.store.append(self.id, seq, event, status)
        except Exception:
            logs.exception("store failed; reloading the table from the database", table=self.id, seq=seq)
            if self.on_reload is not None:
                self.on_reload(self)
            raise Fault("server_error", "the server could not store this; the table was reloaded") from None
        self.reduce(seq, now, event)
        self.metrics.events.labels(event["kind"]).inc()
        self.broadcast(seq, now, event)
        return seq

    def _status_after(self, event: dict[str, Any]) -> str:
        kind = event["kind"]
        if kind == "deal":
            return "playing"
        if kind == "game_over":
            limit = self.settings.games
            return "finished" if limit is not None and self.series.games + 1 >= limit else "between"
        if kind == "table_finished":
            return "finished"
        return self.status

    def reduce(self, seq: int, now: float, event: dict[str, Any]) -> None:
        """Apply a stored event to the state (live, and when rebuilding after a restart)."""
        status = self._status_after(event)
        self.seq = seq
        self.recent.append((seq, now, event))
        while len(self.recent) > self.config.replay_limit:
            self.recent.popleft()
        kind = event["kind"]
        seat: int = event.get("seat", -1)
        slot = self.seats[seat] if seat >= 0 else None
        if kind == "seat_taken":
            assert slot is not None
            self.seats[seat] = SeatSlot(player=dict(event["player"]), ready=True)
            if event["player"].get("bot"):
                self.bots[seat] = load_policy(event["player"]["bot"])
        elif kind == "seat_left":
            assert slot is not None
            if slot.grace is not None:
                slot.grace.cancel()
            self.seats[seat] = SeatSlot()
            self.bots.pop(seat, None)
        elif kind == "settings_changed":
            self.settings = TableSettings.model_validate(event["settings"])
        elif kind == "ready":
            assert slot is not None
            slot.ready = True
        elif kind == "flip":
            self.flip_info = {
                "card": event["card"],
                "value": event["value"],
                "first_drawer": event["first_drawer"],
            }
        elif kind == "deal":
            if self.game_row is None or self.game_row.id != event["game_id"]:
                self.game_row = self.store.game(event["game_id"])
            assert self.game_row is not None
            self.game = Game.from_deck(self.game_row.deck, self.game_row.first_drawer)
            self.game_id = self.game_row.id
            self.game_no = event["game_no"]
            self.players = [None if s.player is None else dict(s.player) for s in self.seats]
            if event["first_drawer_by"] != "flip":
                self.flip_info = None
            for s in self.seats:
                s.ready = False
                s.timeouts = 0
        elif kind == "play":
            assert self.game is not None
            self.game.play(event["cards"], seat=seat)
        elif kind == "pass":
            assert self.game is not None
            self.game.pass_turn(seat=seat)
        elif kind == "escape":
            assert self.game is not None
            self.game.escape(seat)
        elif kind == "autoplay":
            assert slot is not None
            slot.autoplay = event["on"]
            slot.autoplay_reason = event["reason"] if event["on"] else None
            if not event["on"]:
                slot.timeouts = 0
        elif kind == "presence":
            assert slot is not None
            slot.online = event["online"]
        elif kind == "game_over":
            assert self.game is not None and self.game.result is not None
            self.series.add(self.game.result)
            for s in self.seats:
                s.ready = not s.human
            self.deadline = None
        self.status = status

    def broadcast(self, seq: int, now: float, event: dict[str, Any]) -> None:
        """Send the event to every subscriber, with that subscriber's own view and table state.

        Serialized once per seat (not per connection): the shared head, then each seat's view.
        """
        head = (
            f'{{"type":"event","table":{_json(self.id)},"seq":{seq},"time":{now!r},"replay":false,'
            f'"event":{_json(event)},"view":'
        )
        state = self.state(None)
        del state["you"]
        shared_state = _json(state)[:-1]  # the state differs between seats only in "you", added last
        frames: dict[int | None, str] = {}
        for client in list(self.subscribers):
            seat = self.seat_of(client.account_id)
            frame = frames.get(seat)
            if frame is None:
                you = "null" if seat is None else str(seat)
                frame = frames[seat] = (
                    f'{head}{_json(self.view(seat))},"state":{shared_state},"you":{you}}}}}'
                )
            client.send(frame)
        self.metrics.sent.inc(len(self.subscribers))

    # ---- subscribers, presence, reconnect ------------------------------------------------------------

    def subscribe(self, client: Client, last_seq: int | None) -> None:
        """Add a subscriber and bring it up to date: replay what it missed, or a snapshot."""
        self.subscribers[client] = None
        seat = self.seat_of(client.account_id)
        oldest = self.recent[0][0] if self.recent else self.seq + 1
        missed: list[tuple[int, float, dict[str, Any]]] = []
        if last_seq is not None and 0 <= self.seq - last_seq <= self.config.replay_max:
            if last_seq + 1 >= oldest:
                missed = [item for item in self.recent if item[0] > last_seq]
            else:  # older than what is kept in memory: read it back from the store
                missed = [(e.seq, e.created_at, e.payload) for e in self.store.events(self.id, last_seq)]
        if last_seq is not None and last_seq >= self.seq:
            pass
        elif missed:
            for i, (seq, now, event) in enumerate(missed):
                last = i == len(missed) - 1
                client.send(
                    {
                        "type": "event",
                        "table": self.id,
                        "seq": seq,
                        "time": now,
                        "replay": True,
                        "event": event,
                        "view": self.view(seat) if last else None,
                        "state": self.state(seat),
                    }
                )
        else:
            client.send(
                {
                    "type": "snapshot",
                    "table": self.id,
                    "seq": self.seq,
                    "view": self.view(seat, history=True),
                    "state": self.state(seat),
                }
            )
        if seat is not None:
            self.seat_online(seat)

    def unsubscribe(self, client: Client) -> None:
        self.subscribers.pop(client, None)
        seat = self.seat_of(client.account_id)
        if seat is not None and not any(c.account_id == client.account_id for c in self.subscribers):
            self.seat_offline(seat)

    def seat_online(self, seat: int) -> None:
        slot = self.seats[seat]
        if slot.grace is not None:
            slot.grace.cancel()
            slot.grace = None
        if not slot.online:
            self.emit({"kind": "presence", "seat": seat, "online": True})
        if slot.autoplay and slot.autoplay_reason == "offline":
            self.emit({"kind": "autoplay", "seat": seat, "on": False, "reason": "back"})
            self._rearm_if_to_move(seat)

    def seat_offline(self, seat: int) -> None:
        """A seated player's last connection dropped: 托管 at once, escape only after the grace period."""
        slot = self.seats[seat]
        if slot.online:
            self.emit({"kind": "presence", "seat": seat, "online": False})
        if self.status == "playing" and not slot.autoplay:
            self.emit({"kind": "autoplay", "seat": seat, "on": True, "reason": "offline"})
            self._rearm_if_to_move(seat)
        self.start_grace(seat)

    def start_grace(self, seat: int) -> None:
        slot = self.seats[seat]
        if slot.grace is not None:
            slot.grace.cancel()
        loop = asyncio.get_running_loop()
        slot.grace = loop.call_later(self.config.grace_seconds, self._grace_expired, seat)

    def _grace_expired(self, seat: int) -> None:
        slot = self.seats[seat]
        slot.grace = None
        if slot.online or not slot.human:
            return
        with contextlib.suppress(Fault):
            self.vacate(seat, "grace")

    # ---- seats -----------------------------------------------------------------------------------

    def sit(self, client: Client, seat: int | None) -> int:
        if self.status == "finished":
            raise Fault("bad_state", "this table has finished its games")
        if self.seat_of(client.account_id) is not None:
            raise Fault("already_seated", "you already hold a seat at this table (one seat per player)")
        if self.status == "playing":
            raise Fault("bad_state", "a game is in progress; watch until it ends")
        if seat is None:
            free = [n for n, s in enumerate(self.seats) if s.player is None]
            if not free:
                raise Fault("table_full", "no free seat at this table")
            seat = free[0]
        elif self.seats[seat].player is not None:
            raise Fault("seat_taken", f"seat {seat} is taken")
        if client not in self.subscribers:
            self.subscribe(client, None)
        self.emit(
            {
                "kind": "seat_taken",
                "seat": seat,
                "player": {"id": client.account_id, "nickname": client.nickname, "bot": None},
            }
        )
        self.maybe_start()
        return seat

    def vacate(self, seat: int, reason: str) -> None:
        """Free a seat; during a game, while it holds cards, that is an escape (R35)."""
        game = self.game
        if self.status == "playing" and game is not None and not game.over and game.count(seat) > 0:
            self._turn += 1
            self.emit({"kind": "escape", "seat": seat, "reason": reason})
            self.after_action()
            if self.seats[seat].player is None:
                return  # the game's end freed it already
        if self.status == "playing":
            self.seats[seat].leave_after_game = True  # gone out already: leaves when the game ends
            return
        self.emit({"kind": "seat_left", "seat": seat, "reason": reason})

    def stand(self, client: Client) -> None:
        seat = self.seat_of(client.account_id)
        if seat is None:
            raise Fault("forbidden", "you hold no seat at this table")
        self.vacate(seat, "left")

    def fill_bots(self, client: Client) -> None:
        if client.account_id != self.creator:
            raise Fault("forbidden", "only the table's creator can fill seats with bots")
        if self.status in ("playing", "finished"):
            raise Fault("bad_state", f"the table is {self.status}")
        level = self.settings.bot_level
        for n, slot in enumerate(self.seats):
            if slot.player is None:
                self.emit(
                    {
                        "kind": "seat_taken",
                        "seat": n,
                        "player": {"id": None, "nickname": f"{level} bot {n}", "bot": level},
                    }
                )
        self.maybe_start()

    def update_settings(self, client: Client, settings: TableSettings) -> None:
        if client.account_id != self.creator:
            raise Fault("forbidden", "only the table's creator can change its settings")
        if self.status in ("playing", "finished"):
            raise Fault("bad_state", f"settings cannot change while the table is {self.status}")
        if settings.private != self.settings.private:
            raise Fault("bad_state", "a table is public or private from its creation; create a new table")
        self.emit({"kind": "settings_changed", "settings": settings.model_dump()})

    def ready(self, client: Client) -> None:
        seat = self.seat_of(client.account_id)
        if seat is None:
            raise Fault("forbidden", "you hold no seat at this table")
        if self.status == "playing":
            raise Fault("bad_state", "a game is in progress")
        if not self.seats[seat].ready:
            self.emit({"kind": "ready", "seat": seat})
        self.maybe_start()

    # ---- games ---------------------------------------------------------------------------------

    def maybe_start(self) -> None:
        if self.status not in ("waiting", "between"):
            return
        if not all(s.player is not None and s.ready for s in self.seats):
            return
        if not any(s.human for s in self.seats):
            return  # bots alone do not play
        first = self.series.first_drawer(fairness.turn_up)  # 翻牌 or the last 上游 (R8)
        first_drawer, by = first.seat, first.by
        if first.flip is not None:
            self.emit({"kind": "flip", "card": first.flip["card"], "value": first.flip["value"],
                       "first_drawer": first_drawer})
        deck = fairness.shuffled_deck()
        secret = fairness.new_secret()  # kept in the game row's "salt" column until the game is over
        game_no = self.game_no + 1
        seated = [s.player for s in self.seats if s.player is not None]
        players = [PlayerRef(id=p["id"], nickname=p["nickname"], bot=p["bot"]) for p in seated]
        meta = new_meta("niugui serve", game_no, players, first, table=self.id, started_at=_now_iso())
        dealt = Game.from_deck(deck, first_drawer)
        # The commitment covers the deck, the first drawer and how it was chosen, the seats, the
        # variant and the protocol version; it is published in the deal event, before any action.
        meta["fairness"] = fairness.commit(secret, record_of_game(dealt, meta), PROTOCOL_VERSION)
        commitment = meta["fairness"]["commitment"]
        deal = {
            "game_no": game_no,
            "first_drawer": first_drawer,
            "deck": deck,
            "salt": secret,
            "commitment": commitment,
            "meta": meta,
        }
        event = {
            "kind": "deal",
            "game_no": game_no,
            "game_id": 0,
            "first_drawer": first_drawer,
            "first_drawer_by": by,
            "commitment": commitment,
        }
        leader = dealt.to_move
        assert leader is not None
        self.deadline = time.time() + self.settings.turn_seconds if self._human_turn(leader) else None
        self.emit(event, deal=deal)
        logs.info("game started", table=self.id, game_id=self.game_id, game_no=game_no)
        self.arm_turn()

    def act(self, client: Client, cards: list[str] | None) -> None:
        """A player's play (``cards``) or pass (None) in their own seat."""
        seat = self.seat_of(client.account_id)
        if seat is None:
            raise Fault("forbidden", "you hold no seat at this table; you cannot act for another seat")
        game = self.game
        if self.status != "playing" or game is None or game.over:
            raise Fault("bad_state", "no game is in progress at this table")
        event = self._checked_action(game, seat, cards, "player")
        slot = self.seats[seat]
        if slot.autoplay:
            self.emit({"kind": "autoplay", "seat": seat, "on": False, "reason": "player"})
        slot.timeouts = 0
        self._play_event(event)

    def set_autoplay(self, client: Client, on: bool) -> None:
        seat = self.seat_of(client.account_id)
        if seat is None:
            raise Fault("forbidden", "you hold no seat at this table")
        slot = self.seats[seat]
        if slot.autoplay != on:
            self.emit({"kind": "autoplay", "seat": seat, "on": on, "reason": "player"})
            self._rearm_if_to_move(seat)

    def _checked_action(self, game: Game, seat: int, cards: list[str] | None, by: str) -> dict[str, Any]:
        """Validate an action with the engine on a copy; the event to store (canonical codes)."""
        probe = game.copy()
        try:
            if cards is None:
                probe.pass_turn(seat=seat)
                return {"kind": "pass", "seat": seat, "by": by}
            try:
                parsed = parse_cards(cards)
            except ValueError as error:
                raise IllegalMove(f"{error} (R6)", "R6") from None
            probe.play(parsed, seat=seat)
        except IllegalMove as error:
            raise Fault("illegal_move", str(error), error.rule) from None
        combo = classify(parsed)
        assert combo is not None
        return {
            "kind": "play",
            "seat": seat,
            "cards": [str(c) for c in cards_of(mask_of(parsed))],
            "combo": combo.kind,
            "by": by,
        }

    def _play_event(self, event: dict[str, Any]) -> None:
        self._turn += 1
        self._set_deadline_after(event)
        self.emit(event)
        self.after_action()

    def _set_deadline_after(self, event: dict[str, Any]) -> None:
        """Compute the next deadline before the event is broadcast (it travels in ``state``)."""
        probe = self.game.copy() if self.game is not None else None
        if probe is None:
            return
        if event["kind"] == "play":
            probe.play(event["cards"], seat=event["seat"])
        else:
            probe.pass_turn(seat=event["seat"])
        nxt = probe.to_move
        self.deadline = (
            None if nxt is None or not self._human_turn(nxt) else time.time() + self.settings.turn_seconds
        )

    def _human_turn(self, seat: int) -> bool:
        slot = self.seats[seat]
        return slot.human and not slot.autoplay

    def after_action(self) -> None:
        game = self.game
        if game is None:
            return
        if game.over:
            self.finish_game()
        else:
            self.arm_turn()

    def finish_game(self) -> None:
        game = self.game
        assert game is not None and game.result is not None and self.game_row is not None
        self.cancel_timer()
        self.deadline = None
        result = game.result
        meta = dict(self.game_row.meta)
        meta["finished_at"] = _now_iso()
        record = record_of_game(game, meta)
        proof = meta.get("fairness")
        if isinstance(proof, dict) and proof.get("scheme") == fairness.SCHEME:
            # revealed now it is over: the salt, the statement, the chain over the actions and its seal
            record["meta"]["fairness"] = proof = fairness.reveal(self.game_row.salt, record)
        else:  # a game dealt before scheme 2 (its meta has the proof at the top): reveal its salt
            record["meta"]["salt"] = self.game_row.salt
            proof = {"scheme": fairness.SCHEME_V1, "commitment": self.game_row.commitment,
                     "salt": self.game_row.salt}
        entries = [
            LedgerEntry(
                seat,
                None if p is None else p.get("id"),
                "" if p is None else str(p.get("nickname")),
                result.scores[seat],
            )
            for seat, p in enumerate(self.players)
        ]
        totals = self.series.totals_with(result)
        reveal = {**{k: v for k, v in proof.items() if k in REVEALED}, "deck": list(self.game_row.deck)}
        event = {
            "kind": "game_over",
            "game_no": self.game_no,
            "game_id": self.game_row.id,
            "result": result.to_dict(),
            "totals": totals,
            "reveal": reveal,
        }
        self.emit(event, finish=(record, entries))
        self.metrics.games.labels(result.outcome).inc()
        logs.info("game over", table=self.id, game_id=self.game_row.id, outcome=result.outcome)
        for n, slot in enumerate(self.seats):
            if slot.player is not None and (
                slot.leave_after_game or (slot.human and not slot.online and slot.grace is None)
            ):
                self.emit(
                    {"kind": "seat_left", "seat": n, "reason": "left" if slot.leave_after_game else "grace"}
                )
        if self.status == "finished":
            self.emit({"kind": "table_finished", "totals": list(self.series.totals)})
        else:
            self.maybe_start()

    # ---- turns, timers, bots ---------------------------------------------------------------------

    def cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _rearm_if_to_move(self, seat: int) -> None:
        """After ``seat``'s 托管 changed: re-arm only if it is to move (another seat's timer or bot move
        is left alone, so toggling 托管 cannot hold up the table)."""
        if self.game is not None and self.game.to_move == seat:
            self.arm_turn()

    def arm_turn(self) -> None:
        """Arm the turn timer for a human, or schedule the bot (or 托管) move."""
        self.cancel_timer()
        game = self.game
        if self.restoring or game is None or game.over or self.status != "playing":
            return
        seat = game.to_move
        assert seat is not None
        self._turn += 1
        turn = self._turn
        loop = asyncio.get_running_loop()
        if self._human_turn(seat):
            key = (self.game_no, len(game.actions()))
            if self._held is not None and self._held[0] == key:
                self.deadline = self._held[1]  # the same turn again (托管 off): no fresh time (no stalling)
            elif self.deadline is None or self.deadline < time.time():
                self.deadline = time.time() + self.settings.turn_seconds
            self._held = (key, self.deadline)
            self._timer = loop.call_at(
                loop.time() + max(0.0, self.deadline - time.time()), self._timeout, turn
            )
        else:
            self.deadline = None
            self._timer = loop.call_later(self.config.bot_delay, self._bot_turn, turn, "bot")

    def _timeout(self, turn: int) -> None:
        if turn != self._turn or self.game is None or self.game.to_move is None:
            return
        seat = self.game.to_move
        slot = self.seats[seat]
        slot.timeouts += 1
        if slot.timeouts >= 2 and not slot.autoplay:
            self.emit({"kind": "autoplay", "seat": seat, "on": True, "reason": "timeout"})
        self._bot_turn(self._turn, "timeout")

    def _bot_turn(self, turn: int, by: str) -> None:
        """Ask the bot (in a worker thread) and apply its move if the turn has not moved on."""
        if turn != self._turn or self.game is None or self.game.to_move is None:
            return
        seat = self.game.to_move
        slot = self.seats[seat]
        bot = self.bots.get(seat) if not slot.human else None
        if slot.human:
            if self.autoplay_bot is None:
                self.autoplay_bot = load_policy("expert")
            bot = self.autoplay_bot
            by = by if by == "timeout" else "autoplay"
        view = self.game.view(seat)
        task = asyncio.get_running_loop().run_in_executor(None, decide, bot, view, self.config.bot_budget)
        task.add_done_callback(lambda done: self._bot_answer(turn, seat, by, done))

    def _bot_answer(self, turn: int, seat: int, by: str, done: asyncio.Future[list[str] | None]) -> None:
        if turn != self._turn or self.game is None or self.game.to_move != seat:
            return
        try:
            action = done.result()
            event = self._checked_action(self.game, seat, action, by)
        except Exception:
            logs.exception("bot move failed; playing the fallback", table=self.id, seat=seat)
            event = self._checked_action(self.game, seat, fallback_action(self.game.view(seat)), by)
        with contextlib.suppress(Fault):
            self._play_event(event)

    # ---- after a restart -------------------------------------------------------------------------------

    def resume(self) -> None:
        """After rebuilding from the store: every human is offline (托管) until they reconnect."""
        self.restoring = False
        for n, slot in enumerate(self.seats):
            if slot.human:
                slot.grace = None
                self.seat_offline(n)
        if self.status == "playing":
            self.deadline = None
            self.carry_on()
        elif self.status in ("waiting", "between"):
            self.maybe_start()

    def carry_on(self) -> None:
        """Go on from a rebuilt state: finish a game whose last action was stored but not its end
        (a crash or failed write in between), else arm the turn."""
        if self.status == "playing" and self.game is not None and self.game.over:
            self.finish_game()
        else:
            self.arm_turn()
