"""A table's state and :func:`reduce`, the one function that applies a stored event to it.

The state is rebuilt from a table's stored events by calling :func:`reduce` on each in order, live
and after a restart alike. :func:`reduce` does no I/O, reads no clock and draws no random number:
the same events give the same state (times come from the events themselves).

>>> from niugui.server.protocol import EvSeatTaken, EvTableCreated, PlayerRef, TableSettings
>>> state = TableModel("t1", creator="a1", code=None)
>>> created = EvTableCreated(kind="table_created", settings=TableSettings(), creator="a1")
>>> reduce(state, Stored(1, 100.0, created))
>>> bob = PlayerRef(id="b1", nickname="bob")
>>> reduce(state, Stored(2, 101.0, EvSeatTaken(kind="seat_taken", seat=2, player=bob)))
>>> state.seq, state.status, state.seat_of("b1"), state.seats[2].ready
(2, 'waiting', 2, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, assert_never

from niugui.game import Game
from niugui.series import Series

from ..protocol import (
    AnyEvent,
    EvAutoplay,
    EvChat,
    EvDeal,
    EvDissolveEnded,
    EvDissolveProposed,
    EvDissolveVote,
    EvEscape,
    EvFlip,
    EvGameOver,
    EvLeaving,
    EvPass,
    EvPlay,
    EvPresence,
    EvReady,
    EvSeatLeft,
    EvSeatTaken,
    EvSettings,
    EvTableCreated,
    EvTableFinished,
    FlipInfo,
    LeaveReason,
    PlayerRef,
    TableSettings,
    TableStatus,
)

SEATS = 4
CHAT_MEMORY = 2000
"""Events back that a table remembers who said each chat (more than a reconnect replays: ``replay_max``,
500 by default); an older chat in a replay is judged by who sits in its seat now."""


@dataclass(slots=True)
class SeatSlot:
    """One seat: who holds it and how they are doing."""

    player: PlayerRef | None = None
    online: bool = True
    autoplay: bool = False
    autoplay_reason: str | None = None
    ready: bool = False
    timeouts: int = 0
    """Turns in a row the timer ran out on (:data:`~niugui.server.timer.AUTOPLAY_AFTER_TIMEOUTS` put
    the seat in 托管)."""

    @property
    def human(self) -> bool:
        return self.player is not None and self.player.bot is None

    @property
    def account_id(self) -> str | None:
        return None if self.player is None else self.player.id


@dataclass(frozen=True, slots=True)
class Deal:
    """The hidden part of a game: kept in the store's ``games`` table, never in an event. ``salt``
    holds the game's fairness secret (:func:`niugui.fairness.new_secret`) until the game is over."""

    game_no: int
    first_drawer: int
    deck: tuple[str, ...]
    salt: str
    commitment: str
    meta: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Stored:
    """An event as stored: its number in the table's sequence, its time, and (for a deal) the deal."""

    seq: int
    time: float
    event: AnyEvent
    deal: Deal | None = None


@dataclass(slots=True)
class Vote:
    """A dissolve vote in progress (issue 29): the proposer's seat, when it was proposed and for how
    long, and the seats that agreed (the proposer's among them)."""

    proposer: int
    since: float
    seconds: float
    seq: int
    """The proposal's seq: names this vote (a timer armed for an earlier one is stale)."""
    agreed: set[int] = field(default_factory=set)


@dataclass(slots=True)
class TableModel:
    """The server's model of one table: everything its events determine (what a client is sent of
    it is :class:`niugui.server.protocol.TableState`)."""

    id: str
    creator: str
    code: str | None
    settings: TableSettings = field(default_factory=TableSettings)
    seq: int = 0
    time: float = 0.0
    """When the last event happened."""
    status: TableStatus = "waiting"
    seats: list[SeatSlot] = field(default_factory=lambda: [SeatSlot() for _ in range(SEATS)])
    series: Series = field(default_factory=Series)
    game: Game | None = None
    deal: Deal | None = None
    game_id: int | None = None
    game_no: int = 0
    players: list[PlayerRef | None] = field(default_factory=lambda: [None] * SEATS)
    """Who sat in each seat when the current (or last) game was dealt: the game's players."""
    flip: FlipInfo | None = None
    turn_since: float = 0.0
    """When the seat to move got its turn (its timer counts from here)."""
    between_since: float = 0.0
    """When the last game ended (the ready timeout between games counts from here)."""
    leaving: dict[int, LeaveReason] = field(default_factory=dict)
    """Seats that leave when the game in progress ends (an ``escape`` or ``leaving`` event), and why;
    a seat is dropped from it by its ``seat_left``."""
    vote: Vote | None = None
    """A dissolve vote in progress (解散, issue 29)."""
    origins: dict[str, str] = field(default_factory=dict)
    """Account → the origin it last sat down from here (:func:`niugui.server.people.origin`: an address
    key, '' unknown); for :func:`~.commands.rated_game` to count distinct people. Never sent to anyone;
    not stored (after a restart, unknown)."""
    dissolved: bool = False
    proposed: dict[int, float] = field(default_factory=dict)
    """When each seat last proposed a dissolve (one proposal per seat per vote's length)."""
    """Every seated person agreed to end the session: the table finishes when no game is in progress."""
    chat_authors: dict[int, str] = field(default_factory=dict)
    """Who said each chat of the last :data:`CHAT_MEMORY` events (seq → account id): a replay hides a
    chat from whoever blocks its author, even once the author has left the seat (issue 29)."""
    changed: int = 0
    """The seq of the last event that changed the table around the game (a play or a pass changes
    only the game and whose turn it is): the fan-out keeps the table's state serialized until then."""

    def seat_of(self, account_id: str | None) -> int | None:
        if account_id is None:
            return None
        for n, slot in enumerate(self.seats):
            if slot.player is not None and slot.player.id == account_id:
                return n
        return None

    @property
    def turn(self) -> tuple[int, int] | None:
        """Names the turn now being waited for — (game number, actions so far) — or ``None``."""
        game = self.game
        if self.status != "playing" or game is None or game.to_move is None:
            return None
        return self.game_no, len(game.action_log())

    @property
    def deadline(self) -> float | None:
        """UNIX time when the seat to move times out: a human's turn not in 托管, else ``None``."""
        game = self.game
        if self.status != "playing" or game is None or game.to_move is None:
            return None
        slot = self.seats[game.to_move]
        if not slot.human or slot.autoplay:
            return None
        return self.turn_since + self.settings.turn_seconds

    def voters(self) -> list[int]:
        """The seats whose answer a dissolve vote waits for: seated people not in 托管."""
        return [n for n, slot in enumerate(self.seats) if slot.human and not slot.autoplay]

    def human_turn(self, seat: int) -> bool:
        slot = self.seats[seat]
        return slot.human and not slot.autoplay


def status_after(status: TableStatus, state: TableModel, event: AnyEvent) -> TableStatus:
    """The table's status once ``event`` is applied (``status``: the status before it)."""
    if isinstance(event, EvDeal):
        return "playing"
    if isinstance(event, EvGameOver):
        limit = state.settings.games
        done = state.dissolved or (limit is not None and state.series.games + 1 >= limit)
        return "finished" if done else "between"
    if isinstance(event, EvTableFinished):
        return "finished"
    return status


def reduce(state: TableModel, stored: Stored) -> None:
    """Apply one stored event to ``state`` (in place). Events are applied in sequence order, once each.

    Deterministic: no I/O, no clock, no randomness; a ``deal`` brings its hidden part in ``stored.deal``.
    """
    event = stored.event
    state.status = status_after(state.status, state, event)
    state.seq = stored.seq
    state.time = stored.time
    if not isinstance(event, EvPlay | EvPass | EvChat):
        state.changed = stored.seq
    match event:
        case EvPlay(seat=seat):
            assert state.game is not None
            state.game.play(event.play, seat=seat)
            _acted(state, seat, event.by, stored.time)
        case EvPass(seat=seat):
            assert state.game is not None
            state.game.pass_turn(seat=seat)
            _acted(state, seat, event.by, stored.time)
        case EvPresence(seat=seat):
            state.seats[seat].online = event.online
        case EvAutoplay(seat=seat):
            slot = state.seats[seat]
            slot.autoplay = event.on
            slot.autoplay_reason = event.reason if event.on else None
            if not event.on:
                slot.timeouts = 0
                game = state.game
                if (
                    game is not None
                    and game.to_move == seat
                    and state.turn_since + state.settings.turn_seconds < stored.time
                ):
                    state.turn_since = stored.time  # taken back after its time ran out: a fresh timer
        case EvSeatTaken(seat=seat):
            state.seats[seat] = SeatSlot(player=event.player, ready=True)
        case EvSeatLeft(seat=seat):
            state.seats[seat] = SeatSlot()
            state.leaving.pop(seat, None)
        case EvLeaving(seat=seat):
            state.leaving[seat] = event.reason
        case EvReady(seat=seat):
            state.seats[seat].ready = True
        case EvFlip():
            state.flip = FlipInfo(card=event.card, value=event.value, first_drawer=event.first_drawer)
        case EvDeal():
            deal = stored.deal
            assert deal is not None, "a deal event is stored with its deal"
            state.deal = deal
            state.game = Game.from_deck(deal.deck, deal.first_drawer)
            state.game_id = event.game_id
            state.game_no = event.game_no
            state.players = [slot.player for slot in state.seats]
            if event.first_drawer_by != "flip":
                state.flip = None
            for slot in state.seats:
                slot.ready = False
                slot.timeouts = 0
            state.turn_since = stored.time
        case EvEscape(seat=seat):
            assert state.game is not None
            state.game.escape(seat)
            state.leaving[seat] = event.reason
        case EvGameOver():
            assert state.game is not None and state.game.result is not None
            state.series.add(state.game.result)
            state.between_since = stored.time
            for slot in state.seats:
                slot.ready = not slot.human
        case EvSettings():
            state.settings = event.settings
        case EvTableCreated():
            state.settings = event.settings
            state.creator = event.creator
        case EvDissolveProposed(seat=seat):
            state.vote = Vote(seat, stored.time, event.seconds, stored.seq, {seat})
            state.proposed[seat] = stored.time
        case EvDissolveVote(seat=seat):
            if state.vote is not None and event.agree:
                state.vote.agreed.add(seat)
        case EvDissolveEnded():
            state.vote = None
            state.dissolved = state.dissolved or event.outcome == "agreed"
        case EvTableFinished():
            state.vote = None  # a vote still open ends with the table
        case EvChat(seat=seat):
            _said(state, seat, stored.seq)
        case _:
            assert_never(event)


def _said(state: TableModel, seat: int, seq: int) -> None:
    """Remember who said the chat ``seq`` (forgetting those older than :data:`CHAT_MEMORY` events)."""
    author = state.seats[seat].player
    if author is not None and author.id is not None:
        state.chat_authors[seq] = author.id
    authors = state.chat_authors
    while authors and next(iter(authors)) <= seq - CHAT_MEMORY:
        del authors[next(iter(authors))]


def _acted(state: TableModel, seat: int, by: str, time: float) -> None:
    slot = state.seats[seat]
    if by == "timeout":
        slot.timeouts += 1
    elif by == "player":
        slot.timeouts = 0
    state.turn_since = time
