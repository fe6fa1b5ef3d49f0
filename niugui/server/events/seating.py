"""``play_event`` (issue 30): an entrant seated at their next table of an event, on the event loop.

The event's kind decides where, in the thread pool (it reads and writes the store: a duplicate
board's entry is stored before its table opens, so that one account never gets two tables for one
board, even from two nodes); then the table is opened here — private, created by the event (nobody
watches it, nobody changes it), the board's dealer and seeded bots in it — and the entrant subscribed
and seated, the bots in the other seats. The deal follows at once.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import logs
from ..clubs_store import ClubStore
from ..creation import TableFactory, short_id, with_data
from ..directory import Directory
from ..protocol import Watch
from ..store import EVENT_CREATOR, Store
from ..tables import Answer, Client, Fault, Reply, Services, Table, TableModel, is_bot_account
from .base import EventKind, EventRefused, Seating, creator_of, is_event_table
from .boards import BoardBots, BoardDealer, board_seed
from .store import EventStore


class EventSeats:
    """Seats entrants at their events' tables (the hub's part for ``play_event``)."""

    def __init__(
        self,
        store: Store,
        directory: Directory,
        factory: TableFactory,
        services: Services,
        kinds: dict[str, EventKind],
    ) -> None:
        self.store, self.directory, self.factory, self.services = store, directory, factory, services
        self.kinds = kinds
        self.elsewhere: Callable[[Client, Watch, Reply], None] | None = None
        """On a cluster, the hub's ``handle``: a board's table on another node is watched there."""

    def play(self, client: Client, event_id: str, reply: Reply) -> None:
        """Seat ``client`` at its next table of ``event_id`` (or back at the one it has not finished)."""
        account = client.account_id
        if is_bot_account(client):
            raise Fault("forbidden", "bot accounts do not play events")
        for held in self.directory.seats_of(account):  # one account, one game (issue 33, finding 9)
            table = self.directory.tables[held["table"]]
            if held["status"] == "playing" and table.state.creator != creator_of(event_id):
                raise Fault("already_seated", f"you are playing at table {table.id}; finish that game first")
        now = self.services.now()

        def seat() -> Seating:
            return self._seating(event_id, account, client.nickname, now)

        def seated(outcome: Seating | BaseException) -> None:
            if isinstance(outcome, EventRefused):
                reply(Fault(outcome.ws_code, outcome.message))
            elif isinstance(outcome, BaseException):
                reply(outcome)
            else:
                self._sit(client, event_id, outcome, reply)

        self.services.read(seat, seated)

    def _seating(self, event_id: str, account: str, nickname: str, now: float) -> Seating:
        """Where the entrant plays (in the thread pool): the event checked, then its kind asked."""
        events = EventStore(self.store.engine)
        event = events.event(event_id)
        if event is not None and event.club is not None:
            role = ClubStore(self.store.engine).role(event.club, account)
            if role is None or role == "pending":
                event = None  # a club's event, to a non-member: as if there were none
        if event is None or event.kind not in self.kinds:
            raise EventRefused(404, "no_event", f"no event {event_id!r}")
        status = event.status(now)
        if status != "open":
            raise EventRefused(409, "event_closed", f"the event is {status}")
        return self.kinds[event.kind].seat(events, event, account, nickname, now)

    def _sit(self, client: Client, event_id: str, seating: Seating, reply: Reply) -> None:
        new = seating.new
        if new is None:
            self._back_at(client, seating.table, reply)
            return
        account = client.account_id
        state = TableModel(
            seating.table, creator=creator_of(event_id), code=short_id(6), settings=new.settings
        )
        table = self.factory.open(state)
        table.dealer, table.bots = new.dealer, new.bots

        def created(outcome: Answer | BaseException) -> None:
            if isinstance(outcome, BaseException):  # not stored: the board stays to play
                self.services.read(lambda: EventStore(self.store.engine).drop_table(table.id), _logged)
                reply(outcome)
                return
            logs.info("event table opened", event=event_id, table=table.id, what=seating.label)
            self.directory.follow(client, table.id)
            table.subscribe(client, None)
            seated = with_data(reply, lambda: table.summary(account))
            table.seat_group([(account, client.nickname, None)], new.level, seated, seats=(new.seat,))

        table.create(new.settings, created)

    def outfit(self, table: Table) -> None:
        """A duplicate board's table rebuilt from the store (a restart, a cluster node's takeover): the
        board's dealer and seeded bots again, so the same plays still get the same answers. Reads the
        store (the loader's ``outfit``)."""
        if not is_event_table(table.state.creator):
            return
        events = EventStore(self.store.engine)
        event_id = table.state.creator.removeprefix(EVENT_CREATOR)
        entry = next((e for e in events.entries(event_id) if e.table_id == table.id), None)
        board = (
            None
            if entry is None
            else next((b for b in events.boards(event_id) if b.board == entry.board), None)
        )
        if board is not None:
            table.dealer, table.bots = BoardDealer(board), BoardBots(board_seed(board))

    def _back_at(self, client: Client, table_id: str, reply: Reply) -> None:
        """Subscribe ``client`` to its table of the event that exists (a board it has not finished)."""
        table = self.directory.tables.get(table_id)
        if table is None and self.elsewhere is not None:  # a cluster: its node serves it (watch's ack)
            self.elsewhere(client, Watch(type="watch", id="play_event", table=table_id), reply)
            return
        if table is None:
            reply(Fault("not_found", "your table of this event is not on this server"))
            return
        self.directory.follow(client, table.id)
        table.subscribe(client, None, with_data(reply, lambda: table.summary(client.account_id)))


def _logged(outcome: object) -> None:
    if isinstance(outcome, BaseException):
        logs.warning("an event's entry was not forgotten", error=repr(outcome))
