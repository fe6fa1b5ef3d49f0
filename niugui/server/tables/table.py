"""The glue of one live table: request → command → store → reduce → fan-out → clock.

A table does one thing at a time. Each request (or timer, or bot answer) becomes a *job*: the
command checks it against the state and returns its steps; the writer stores them (off the event
loop); only then are they applied with :func:`reduce` and their frames sent, and the job's reply
(the ``ack``) follows its events. What the new state makes due by itself (a game's end, the next
deal) is stored and applied the same way before the job is done; then the clock re-arms. Jobs that
arrive meanwhile wait their turn, so every command sees a state that is entirely stored.

The parts never call each other or back into the glue: commands return steps, fan-out returns
frames, the clock reports what is due through the callback the glue gave it.
"""

from __future__ import annotations

import functools
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from niugui.bots import Action, fallback_action

from .. import logs
from ..config import Config
from ..metrics import Metrics
from ..people import origin
from ..protocol import (
    AckData,
    By,
    EvChat,
    EvDeal,
    EvGameOver,
    EvTableCreated,
    EvTableFinished,
    PhraseId,
    Prebuilt,
    SeatData,
    TableData,
    TableSettings,
)
from ..store import PlayerCard, Write
from ..writer import EventWriter
from . import commands, saved_state
from .bots import BotRunner, Bots, least_action
from .clock import DISSOLVE_SECONDS, Clock, Due, Timers, ready_due, turn_due, vote_due
from .commands import Dealer, Fault, Step
from .dealer import FairDealer
from .fanout import Client, FanOut, Sent, TableFrame, is_bot_account
from .state import Stored, TableModel, reduce, status_after


@dataclass(slots=True)
class Answer:
    """What a request's ``ack`` says: the table's last event when it was done, and the answer's data."""

    seq: int | None = None
    data: AckData | Prebuilt | None = None


Reply = Callable[[Answer | BaseException], None]
"""Called once per request: with its :class:`Answer`, or with the :class:`Fault` (or bug) that refused it."""


def no_reply(_: Answer | BaseException) -> None:
    pass


@dataclass(slots=True)
class Outcome:
    """What a job decided: the steps to store, the data for its ack, and what to do once applied."""

    steps: list[Step] = field(default_factory=list)
    data: AckData | None = None
    then: Callable[[], None] | None = None


Job = Callable[[], Outcome]
T = TypeVar("T")


class Reader(Protocol):
    """Runs a database read away from the event loop; ``then`` gets its result, or what it raised,
    back on the loop."""

    def __call__(self, read: Callable[[], T], then: Callable[[T | BaseException], None], /) -> None: ...


def read_inline(read: Callable[[], T], then: Callable[[T | BaseException], None], /) -> None:
    """A :class:`Reader` that reads at once, in the caller's thread (tests, tools)."""
    try:
        result = read()
    except Exception as error:
        then(error)
        return
    then(result)


@dataclass
class Services:
    """What tables share: where events are stored, the timers, where bots think, the dealer, the
    time, and where the hub's own database reads run (:class:`Reader`)."""

    writer: EventWriter
    timers: Timers
    bots: BotRunner
    older: Callable[[str, int], Iterable[Sent]]
    """A table's stored events after a seq (for reconnects that missed more than is kept)."""
    dealer: Dealer = field(default_factory=FairDealer)
    now: Callable[[], float] = time.time
    read: Reader = read_inline
    blocks: Callable[[str, str], bool] = lambda _reader, _author: False
    """Whether the account ``reader`` blocks ``author`` (whose chat it is then not sent); the hub
    answers from its directory (:meth:`niugui.server.directory.Directory.blocks`)."""


class Table:
    def __init__(
        self,
        state: TableModel,
        services: Services,
        config: Config,
        metrics: Metrics,
        on_failure: Callable[[Table], None] | None = None,
    ) -> None:
        self.state = state
        self.services = services
        self.config = config
        self.metrics = metrics
        self.on_failure = on_failure
        self.fanout = FanOut(state.id, config.replay_limit, config.replay_max)
        self.clock = Clock(
            services.timers,
            self._due,
            bot_delay=config.bot_delay,
            grace_seconds=config.grace_seconds,
            now=services.now,
            ready_seconds=config.ready_seconds,
        )
        self.bots = Bots()
        self.dealer: Dealer = services.dealer
        """Who deals here: the server's dealer, or a duplicate board's (issue 30)."""
        self.fresh = False
        """Rebuilt after a failed write and nothing stored since (its own failure does not carry on)."""
        self.closed = False
        self._jobs: deque[tuple[Job, Reply]] = deque()
        self._busy = False
        self._pumping = False
        self._thinking: Due | None = None  # what a bot is choosing for (nothing is armed for it)

    @property
    def id(self) -> str:
        return self.state.id

    # ---- requests -----------------------------------------------------------------------------------

    def create(self, settings: TableSettings, reply: Reply) -> None:
        """Store the table's first event (the table is new: nothing is stored yet)."""
        state = self.state
        event = EvTableCreated(kind="table_created", settings=settings, creator=state.creator)
        self._submit(lambda: Outcome([Step(event)]), reply)

    def subscribe(self, client: Client, last_seq: int | None, reply: Reply = no_reply) -> None:
        """Add a recipient and bring it up to date (the events it missed, or a snapshot); a seated
        player is back in their seat (online, 托管 from the disconnect ends)."""

        def job() -> Outcome:
            state = self.state
            self.fanout.subscribers[client] = None
            seat = state.seat_of(client.account_id)
            hides = functools.partial(self.services.blocks, client.account_id)
            for frame in self.fanout.catch_up(state, seat, last_seq, self._older, hides):
                client.send(frame)
            todo = [] if seat is None else commands.came_online(state, seat)
            return Outcome(todo, SeatData(seat=seat))

        self._submit(job, reply)

    def take_subscribers(self) -> list[Client]:
        """Every subscriber, now unsubscribed (a table forgotten, or replaced by its rebuilt self)."""
        taken = list(self.fanout.subscribers)
        self.fanout.subscribers.clear()
        return taken

    def adopt_subscribers(self, clients: list[Client]) -> None:
        """Subscribe ``clients`` (those of the table this one replaces) without telling them anything."""
        for client in clients:
            self.fanout.subscribers[client] = None

    def unsubscribe(self, client: Client, reply: Reply = no_reply) -> None:
        """Remove a recipient; a seated player's last connection gone, the seat goes offline."""
        self.fanout.subscribers.pop(client, None)

        def job() -> Outcome:
            state = self.state
            seat = state.seat_of(client.account_id)
            if seat is None or any(c.account_id == client.account_id for c in self.fanout.subscribers):
                return Outcome()
            return Outcome(commands.went_offline(state, seat))

        self._submit(job, reply)

    def sit(self, client: Client, seat: int | None, reply: Reply, card: PlayerCard | None = None) -> None:
        """Take a seat; ``card``: what the other seats are shown of the player (rating, escape rate)."""

        def job() -> Outcome:
            state = self.state
            taken, todo = commands.sit(
                state, client.account_id, client.nickname, seat, card, bot_account=is_bot_account(client)
            )
            state.origins[client.account_id] = origin(client.address)  # distinct people (finding 8)
            if client not in self.fanout.subscribers:
                self.fanout.subscribers[client] = None
                client.send(self.fanout.snapshot(state, None))
            return Outcome(todo, SeatData(seat=taken))

        self._submit(job, reply)

    def seat_group(
        self,
        people: Sequence[tuple[str, str, PlayerCard | None]],
        level: str | None,
        reply: Reply,
        seats: Sequence[int] = (),
    ) -> None:
        """Quick play: seat a matched group (and bots of ``level`` in the seats left); ``seats``: the
        people's seats (an event's board, issue 30), else the first free ones."""
        self._submit(lambda: Outcome(commands.seat_group(self.state, people, level, seats)), reply)

    def stand(self, client: Client, reply: Reply) -> None:
        def job() -> Outcome:
            state = self.state
            return Outcome(commands.vacate(state, commands.seated(state, client.account_id), "left"))

        self._submit(job, reply)

    def leave(self, client: Client, reply: Reply) -> None:
        """Stand (if seated) and stop receiving the table's events."""

        def job() -> Outcome:
            seat = self.state.seat_of(client.account_id)
            todo = [] if seat is None else commands.vacate(self.state, seat, "left")
            return Outcome(todo, then=lambda: self.fanout.subscribers.pop(client, None))

        self._submit(job, reply)

    def expel(self, account_id: str, reply: Reply = no_reply) -> None:
        """The account left the club whose room this is: its seat freed (after the game in play)."""

        def job() -> Outcome:
            seat = self.state.seat_of(account_id)
            return Outcome([] if seat is None else commands.removed(self.state, seat))

        self._submit(job, reply)

    def ready(self, client: Client, reply: Reply) -> None:
        self._submit(lambda: Outcome(commands.ready(self.state, client.account_id)), reply)

    def act(self, client: Client, cards: Sequence[str] | None, reply: Reply) -> None:
        """A play (``cards``) or a pass (None) in the requester's seat."""
        self._submit(lambda: Outcome(commands.act(self.state, client.account_id, cards)), reply)

    def set_autoplay(self, client: Client, on: bool, reply: Reply) -> None:
        self._submit(lambda: Outcome(commands.set_autoplay(self.state, client.account_id, on)), reply)

    def chat(self, client: Client, phrase: PhraseId, reply: Reply) -> None:
        self._submit(lambda: Outcome(commands.chat(self.state, client.account_id, phrase)), reply)

    def dissolve(self, client: Client, agree: bool, reply: Reply) -> None:
        """Propose, agree to or refuse ending the session (解散, issue 29)."""

        def job() -> Outcome:
            now = self.services.now()
            return Outcome(commands.dissolve(self.state, client.account_id, agree, DISSOLVE_SECONDS, now))

        self._submit(job, reply)

    def fill_bots(self, client: Client, reply: Reply) -> None:
        self._submit(lambda: Outcome(commands.fill_bots(self.state, client.account_id)), reply)

    def invite(
        self,
        client: Client,
        guest_id: str,
        seat: int | None,
        notify: Callable[[int], None],
        reply: Reply,
        friend: bool = False,
    ) -> None:
        """``client`` invites the bot account (or, when ``friend``, the friend) ``guest_id``:
        ``notify(seat)`` tells the guest which seat."""

        def job() -> Outcome:
            offered = commands.invitation(self.state, client.account_id, guest_id, seat, friend)
            return Outcome(data=SeatData(seat=offered), then=lambda: notify(offered))

        self._submit(job, reply)

    def free_seat(self, client: Client, seat: int, reply: Reply) -> None:
        self._submit(lambda: Outcome(commands.free_seat(self.state, client.account_id, seat)), reply)

    def update_settings(self, client: Client, settings: TableSettings, reply: Reply) -> None:
        def job() -> Outcome:
            return Outcome(commands.update_settings(self.state, client.account_id, settings))

        self._submit(job, reply)

    def resume(self, reply: Reply = no_reply) -> None:
        """After a restart: every human is offline (托管) until they reconnect; the table goes on."""
        self._submit(lambda: Outcome(commands.resume(self.state)), reply)

    def carry_on(self, reply: Reply = no_reply) -> None:
        """Go on from a rebuilt state (a game whose end was not stored is finished now)."""
        self._submit(Outcome, reply)

    def finish(self, reply: Reply = no_reply) -> None:
        """End the table between games or before the first (an abandoned table: see expiry.py)."""

        def job() -> Outcome:
            if self.state.status not in ("waiting", "between"):
                raise Fault("bad_state", f"the table is {self.state.status}")
            totals = list(self.state.series.totals)
            return Outcome([Step(EvTableFinished(kind="table_finished", totals=totals))])

        self._submit(job, reply)

    def close(self) -> None:
        """Stop: timers off, and every waiting request refused (the table was replaced or dropped)."""
        self.closed = True
        self.clock.stop()
        while self._jobs:
            _, reply = self._jobs.popleft()
            reply(Fault("server_error", "the table was reloaded after a failure; try again"))

    # ---- reading ------------------------------------------------------------------------------------

    def summary(self, for_account: str | None = None) -> TableData:
        return TableData(table=self.fanout.summary(self.state, for_account))

    # ---- the pipeline ----------------------------------------------------------------------------------

    def _submit(self, job: Job, reply: Reply) -> None:
        if self.closed:
            reply(Fault("server_error", "the table was reloaded after a failure; try again"))
            return
        self._jobs.append((job, reply))
        self._pump()

    def _pump(self) -> None:
        if self._pumping:
            return
        self._pumping = True
        try:
            while self._jobs and not self._busy and not self.closed:
                job, reply = self._jobs.popleft()
                try:
                    outcome = job()
                except Fault as fault:
                    reply(fault)
                    continue
                except Exception as error:
                    logs.exception("a table request failed", table=self.id)
                    reply(error)
                    continue
                self._busy = True
                self._run(outcome.steps, functools.partial(self._finished, outcome, reply))
        finally:
            self._pumping = False

    def _finished(self, outcome: Outcome, reply: Reply, error: BaseException | None) -> None:
        self._busy = False
        if error is None and outcome.then is not None:
            outcome.then()
        if not self.closed:
            self.clock.sync(self.state, self._thinking)
        reply(error if error is not None else Answer(self.state.seq, outcome.data))
        self._pump()

    def _run(self, todo: list[Step], done: Callable[[BaseException | None], None]) -> None:
        """Store ``todo``, apply it, and go on with what it makes due; then ``done``."""
        state = self.state
        if not todo:
            todo = commands.follow_up(state, self.dealer, self.services.now())
            if not todo:
                done(None)
                return
        now = self.services.now()
        status, seq = state.status, state.seq
        writes = []
        for step in todo:  # a deal stores the table's state before this batch with its game
            seq += 1
            status = status_after(status, state, step.event)
            created = step.event.kind == "table_created"
            writes.append(
                Write(
                    state.id,
                    seq,
                    now,
                    status,
                    step.event,
                    deal=step.deal,
                    table_state=None
                    if step.deal is None
                    else (state.seq, saved_state.dump(state)),  # before this batch
                    record=None if step.finish is None else step.finish.record,
                    entries=() if step.finish is None else step.finish.entries,
                    rated=None if step.finish is None else step.finish.rated,
                    creator=state.creator if created else None,
                    code=state.code if created else None,
                )
            )
        self.services.writer.submit(writes, lambda error: self._stored(todo, writes, error, done))

    def _stored(
        self,
        todo: list[Step],
        writes: list[Write],
        error: BaseException | None,
        done: Callable[[BaseException | None], None],
    ) -> None:
        if self.closed:
            done(Fault("server_error", "the table was reloaded after a failure; try again"))
            return
        if error is not None:
            logs.failure(
                "store failed; reloading the table from the database", error, table=self.id, seq=writes[0].seq
            )
            if self.on_failure is not None:
                self.on_failure(self)
            done(Fault("server_error", "the server could not store this; the table was reloaded"))
            return
        self.fresh = False
        for step, write in zip(todo, writes, strict=True):
            event = step.event
            if write.game_id is not None:  # a deal: its event as stored, with the new game's id
                event = event.model_copy(update={"game_id": write.game_id})
            self._apply(Stored(write.seq, write.time, event, step.deal), write.payload)
        self._run([], done)

    def _apply(self, stored: Stored, payload: str) -> None:
        state = self.state
        reduce(state, stored)
        event = stored.event
        self.metrics.event(event.kind)
        if isinstance(event, EvDeal):
            logs.info("game started", table=state.id, game_id=event.game_id, game_no=event.game_no)
        elif isinstance(event, EvGameOver):
            self.metrics.games.labels(event.result.outcome).inc()
            logs.info("game over", table=state.id, game_id=event.game_id, outcome=event.result.outcome)
        frames = self.fanout.event_frames(state, (stored.seq, stored.time, payload))
        if isinstance(event, EvChat):
            frames = self._unblocked(state, stored, event, frames)
        for client, frame in frames:
            client.send(frame)
        self.metrics.sent.inc(len(frames))

    def _unblocked(
        self, state: TableModel, stored: Stored, event: EvChat, frames: list[tuple[Client, TableFrame]]
    ) -> list[tuple[Client, TableFrame]]:
        """Nobody reads the chat of someone they block: they get it with no phrase (the same ``seq``,
        so that no number is missing from what they receive)."""
        author = state.seats[event.seat].player
        blocks = self.services.blocks
        if author is None or author.id is None:
            return frames
        by = author.id
        blockers = [c for c, _ in frames if blocks(c.account_id, by)]
        if not blockers:
            return frames
        hidden = EvChat(kind="chat", seat=event.seat, phrase=None).model_dump_json()
        kept = [(c, f) for c, f in frames if not blocks(c.account_id, by)]
        return kept + self.fanout.frames_for(state, (stored.seq, stored.time, hidden), blockers)

    def _older(self, after: int) -> Iterable[Sent]:
        return self.services.older(self.id, after)

    # ---- what the clock says is due ---------------------------------------------------------------------

    def _due(self, due: Due) -> None:
        self._submit(lambda: self._on_due(due), no_reply)

    def _on_due(self, due: Due) -> Outcome:
        state = self.state
        if due.kind == "grace":
            slot = state.seats[due.seat]
            if slot.online or not slot.human:
                return Outcome()
            return Outcome(commands.vacate(state, due.seat, "grace"))
        if due.kind == "vote":
            if vote_due(state) != due:
                return Outcome()  # decided meanwhile
            return Outcome(commands.vote_expired(state))
        if due.kind == "ready":
            if ready_due(state, self.config.ready_seconds) != due:
                return Outcome()  # everyone got ready, or the table moved on, meanwhile
            return Outcome(commands.free_unready(state))
        if turn_due(state) != due or (self._thinking is not None and self._thinking.turn == due.turn):
            return Outcome()  # the turn moved on meanwhile, or its bot is choosing already
        seat = due.seat
        if due.kind == "timeout":
            game = state.game
            assert game is not None
            least = least_action(game.view(seat))  # the least it can, never the bot's best (issue 10)
            played = commands.bot_action(state, seat, least, "timeout")
            return Outcome([*commands.timed_out(state, seat), *played])
        by: By = "autoplay" if state.seats[seat].human else "bot"
        return Outcome(then=lambda: self._ask_bot(seat, by))

    def _ask_bot(self, seat: int, by: By) -> None:
        """Have the bot (or 托管) choose for ``seat``; its answer counts only if, when it comes, the
        table still waits for the same thing (the same turn, 托管 not switched off meanwhile)."""
        state = self.state
        expected = turn_due(state)
        if state.game is None or expected is None or expected.seat != seat:
            return
        self._thinking = expected
        slot = state.seats[seat]
        bot = self.bots.for_seat(seat, None if slot.human or slot.player is None else slot.player.bot)
        view = state.game.view(seat)

        def answered(action: Action | BaseException) -> None:
            self._submit(lambda: self._bot_answer(expected, by, action), no_reply)

        self.services.bots.ask(bot, view, self.config.bot_budget, answered)

    def _bot_answer(self, expected: Due, by: By, action: Action | BaseException) -> Outcome:
        if self._thinking == expected:
            self._thinking = None
        state = self.state
        seat = expected.seat
        if turn_due(state) != expected or state.game is None:
            return Outcome()  # stale: someone acted, 托管 changed, or the game ended meanwhile
        try:
            if isinstance(action, BaseException):
                raise action
            return Outcome(commands.bot_action(state, seat, action, by))
        except Exception:
            logs.exception("bot move failed; playing the fallback", table=self.id, seat=seat)
            return Outcome(commands.bot_action(state, seat, fallback_action(state.game.view(seat)), by))
