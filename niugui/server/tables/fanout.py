"""Fan-out: who receives a table's events, the frame each of them gets, and the replay buffer.

Each recipient's frame carries the engine's view for that recipient's seat (``view(None)`` for a
spectator) and never anything built from another seat's hand (R11, R12). Every part of a frame is
serialized once by its protocol model: the event once, the table state once, each seat's view once,
however many connections share it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol

from niugui.game import SeatView

from .. import protocol
from ..protocol import (
    SeatState,
    StateJson,
    TableSummary,
    event_for,
    event_frame,
    event_head,
    snapshot_frame,
    view_json,
)
from ..store import EVENT_CREATOR
from ..visibility import TableFacts, may_know_code
from .state import TableModel


class Client(Protocol):
    """A connection as a table sees it."""

    account_id: str
    nickname: str
    address: str
    """The address key it counts against ('' when exempt or unknown; a connection on another node of
    a cluster: the key its own node saw): quick play and ratings compare it (:mod:`niugui.server.people`)."""

    def send(self, message: str) -> None:
        """Queue a frame (JSON text) for this connection."""


class TableFrame(str):
    """A table's ``event`` or ``snapshot`` frame (its JSON text) that says, beside the text, which
    table and ``seq`` it is: a cluster node relays it to another node's connection with these,
    and nobody reads them back out of the text. Made by :func:`table_frame`.
    """

    table: str
    seq: int
    snapshot: bool = False


def table_frame(text: str, table: str, seq: int, snapshot: bool = False) -> TableFrame:
    """``text`` as a :class:`TableFrame`; a function rather than a ``__new__``, which costs more per
    frame (docs/benchmarks.md, "A typed cluster bus and a transport switch").

    >>> frame = table_frame('{"type":"snapshot"}', "t1", 7, snapshot=True)
    >>> frame == '{"type":"snapshot"}', frame.table, frame.seq, frame.snapshot
    (True, 't1', 7, True)
    """
    frame = TableFrame(text)
    frame.table = table
    frame.seq = seq
    if snapshot:
        frame.snapshot = True
    return frame


def is_bot_account(client: object) -> bool:
    """Whether a connection (a :class:`Client`, or an account row) is a bot account's: its seat is
    labelled ``bot_account``, it can be invited, and quick play leaves it out unless a table's
    settings allow bot accounts."""
    return getattr(client, "bot", False) is True


Sent = tuple[int, float, str]
"""An event as it went out, kept for reconnects: ``(seq, time, its JSON)``, serialized once.

A plain tuple rather than a class: the garbage collector stops tracking a tuple that holds only
numbers and text, and a busy server keeps many of these alive (docs/benchmarks.md, "Checkpoints,
garbage and seal keys").
"""


OlderEvents = Callable[[int], Iterable[Sent]]
"""Reads a table's stored events after a seq (for a reconnect that missed more than is kept)."""
Hides = Callable[[str], bool]
"""Whether the recipient blocks the account (whose chat it then reads without its phrase)."""
CHAT_HEAD = '{"kind":"chat",'
"""How a stored chat event's JSON starts (``EvChat``'s first field)."""


def masked(state: TableModel, sent: Sent, hides: Hides) -> Sent:
    """``sent`` as a recipient who blocks some accounts may read it again: a chat by one of them
    without its phrase (the same ``seq``; issue 29), anything else as it is.

    >>> from niugui.server.protocol import PlayerRef
    >>> state = TableModel("t1", creator="ann", code=None)
    >>> state.seats[1].player = PlayerRef(id="eve", nickname="Eve")
    >>> chat = (7, 0.0, '{"kind":"chat","seat":1,"phrase":"hurry"}')
    >>> masked(state, chat, lambda author: author == "eve")[2]
    '{"kind":"chat","seat":1,"phrase":null}'
    >>> masked(state, chat, lambda author: False) == chat
    True
    """
    seq, time, text = sent
    if not text.startswith(CHAT_HEAD):
        return sent
    event = protocol.EvChat.model_validate_json(text)
    author = state.chat_authors.get(seq)
    if author is None:  # older than the table remembers: whoever sits there now
        player = state.seats[event.seat].player
        author = None if player is None else player.id
    if author is None or not hides(author):
        return sent
    return seq, time, protocol.EvChat(kind="chat", seat=event.seat, phrase=None).model_dump_json()


class FanOut:
    def __init__(self, table_id: str, replay_limit: int, replay_max: int) -> None:
        self.table_id = table_id
        self.subscribers: dict[Client, None] = {}
        self.recent: deque[Sent] = deque(maxlen=replay_limit)
        self.replay_max = replay_max
        self._state: tuple[int, StateJson] | None = None  # (state.changed, its JSON) between turns

    # ---- building frames ----------------------------------------------------------------------------

    def event_frames(self, state: TableModel, sent: Sent) -> list[tuple[Client, TableFrame]]:
        """The frame of a just-applied event for every subscriber; remembered for reconnects."""
        self.recent.append(sent)
        if not self.subscribers:
            return []
        return self.frames_for(state, sent, self.subscribers)

    def frames_for(
        self, state: TableModel, sent: Sent, clients: Iterable[Client]
    ) -> list[tuple[Client, TableFrame]]:
        """The frame of a just-applied event (``sent``) for each of ``clients`` (nothing remembered)."""
        shared = self.state_json(state)
        recipients = [(client, state.seat_of(client.account_id)) for client in clients]
        seats = {seat for _, seat in recipients}
        views = {} if state.game is None else state.game.views(seats, history=False)
        head = event_head(self.table_id, *sent)
        seq = sent[0]
        frames = {
            seat: table_frame(
                event_for(head, view_json(views.get(seat)), shared.for_seat(seat)), self.table_id, seq
            )
            for seat in seats
        }
        return [(client, frames[seat]) for client, seat in recipients]

    def state_json(self, state: TableModel) -> StateJson:
        """The table state serialized; kept while only the turn (and so the deadline) changes."""
        cached = self._state
        if cached is None or cached[0] != state.changed:
            cached = self._state = (state.changed, StateJson(table_state(state)))
        return cached[1].at(state.deadline)

    def snapshot(self, state: TableModel, seat: int | None) -> TableFrame:
        """Everything ``seat`` may know of the table now (the view with its history)."""
        view = seat_view(state, seat, history=True)
        text = snapshot_frame(
            self.table_id, state.seq, view_json(view), self.state_json(state).for_seat(seat)
        )
        return table_frame(text, self.table_id, state.seq, snapshot=True)

    def catch_up(
        self,
        state: TableModel,
        seat: int | None,
        last_seq: int | None,
        older: OlderEvents,
        hides: Hides | None = None,
    ) -> list[TableFrame]:
        """What a (re)subscribing recipient needs: the events after ``last_seq`` (``replay: true``,
        the last with the current view), or a snapshot when there is no ``last_seq`` or it missed
        more than ``replay_max`` events. Chats by accounts it ``hides`` come without their phrase."""
        if last_seq is not None and last_seq >= state.seq:
            return []  # up to date
        missed: list[Sent] = []
        if last_seq is not None and state.seq - last_seq <= self.replay_max:
            oldest = self.recent[0][0] if self.recent else state.seq + 1
            if last_seq + 1 >= oldest:
                missed = [sent for sent in self.recent if sent[0] > last_seq]
            else:  # older than what is kept in memory: read back from the store
                missed = list(older(last_seq))
        if not missed:
            return [self.snapshot(state, seat)]
        if hides is not None:
            missed = [masked(state, sent, hides) for sent in missed]
        now = self.state_json(state).for_seat(seat)
        last = view_json(seat_view(state, seat))
        return [
            table_frame(
                event_frame(
                    self.table_id, seq, time, event, last if i == len(missed) - 1 else "null", now, True
                ),
                self.table_id,
                seq,
            )
            for i, (seq, time, event) in enumerate(missed)
        ]

    def summary(self, state: TableModel, for_account: str | None = None) -> TableSummary:
        """The table as the lobby lists it (the join code only for its creator and players)."""
        insider = may_know_code(table_facts(state), for_account)
        return TableSummary(
            id=state.id,
            name=state.settings.name,
            private=state.settings.private,
            code=state.code if insider else None,
            status=state.status,
            seats=[slot.player for slot in state.seats],
            spectators=sum(1 for c in self.subscribers if state.seat_of(c.account_id) is None),
            games_played=state.series.games,
            settings=state.settings,
        )


def table_facts(state: TableModel) -> TableFacts:
    """What the visibility rule needs of a table in memory (its players: those seated now)."""
    players = frozenset(slot.player.id for slot in state.seats if slot.player is not None and slot.player.id)
    return TableFacts(state.id, state.creator, state.code, players, state.settings.club)


def seat_view(state: TableModel, seat: int | None, history: bool = False) -> SeatView | None:
    """The engine's view for ``seat`` (None: a spectator) — the only source of game data sent out."""
    if state.game is None:
        return None
    return state.game.view(seat, history=history)


def table_state(state: TableModel) -> protocol.TableState:
    """The table around the game, as every recipient gets it (``you`` is added per recipient)."""
    series = state.series
    return protocol.TableState(
        id=state.id,
        name=state.settings.name,
        private=state.settings.private,
        code=state.code,
        creator=state.creator,
        settings=state.settings,
        status=state.status,
        seats=[
            SeatState(seat=n, player=s.player, online=s.online, autoplay=s.autoplay, ready=s.ready)
            for n, s in enumerate(state.seats)
        ],
        totals=list(series.totals),
        games_played=series.games,
        game_no=state.game_no,
        game_id=state.game_id,
        deadline=state.deadline,
        commitment=None if state.deal is None else state.deal.commitment,
        flip=state.flip,
        you=None,
        dissolve=dissolve_state(state),
        event=state.creator.removeprefix(EVENT_CREATOR) if state.creator.startswith(EVENT_CREATOR) else None,
    )


def dissolve_state(state: TableModel) -> protocol.DissolveState | None:
    """The dissolve vote in progress, if any (issue 29)."""
    vote = state.vote
    if vote is None:
        return None
    return protocol.DissolveState(
        proposer=vote.proposer,
        agreed=sorted(vote.agreed),
        voters=state.voters(),
        until=vote.since + vote.seconds,
    )
