"""再来一局 after quick play: the people of a finished quick-play table play again together.

Each person who played the table's last game may ask (``rematch``); every person of that game is
told who has asked (``rematch`` messages); once all have asked, they are seated together at a new
quick-play table — with bots again in the seats bots held — and each is told as quick play tells a
seated player (``queue``, ``seated``). Whoever would rather meet new players presses 继续匹配, which
is plain quick play. Asks live in memory; a table forgets them once its people are seated again.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .matchmaking import Preferences
from .protocol import QueueStatus, RematchStatus
from .quickplay import Person, Seated
from .store import PlayerCard
from .tables import Client, Fault, Table

OpenTable = Callable[[Sequence[Person], Preferences, bool, Seated], None]
"""Seat people at a new quick-play table (``bots``: bots in the seats left), as quick play does."""


@dataclass
class _Asks:
    people: dict[str, int]
    """Each person of the last game: account → seat."""
    nicknames: dict[str, str]
    asked: set[str] = field(default_factory=set)


class Rematches:
    """The 再来一局 asks of one server's finished quick-play tables.

    ``creator``: the creator of quick-play tables; ``tables``: the server's tables (the asks of a
    table no longer there are dropped); ``clients(account)``: its connections; ``card(account)``:
    what its seat shows (or None); ``check_free(account)``: raises a :class:`Fault` when it plays
    elsewhere now; ``queued``: the accounts in the quick-play queue; ``open_table``: as quick play
    seats a group.
    """

    def __init__(
        self,
        creator: str,
        tables: Mapping[str, Table],
        clients: Callable[[str], Iterable[Client]],
        card: Callable[[str], PlayerCard | None],
        check_free: Callable[[str], None],
        queued: Container[str],
        open_table: OpenTable,
    ) -> None:
        self.creator = creator
        self._tables = tables
        self._clients = clients
        self._card = card
        self._check_free = check_free
        self._queued = queued
        self._open_table = open_table
        self.asks: dict[str, _Asks] = {}

    def ask(self, client: Client, table: Table) -> None:
        """``client`` asks to play again with the people of ``table``'s last game; when that makes
        everyone, they are seated at a new table. Refused (:class:`Fault`) elsewhere than at a
        finished quick-play table, or to one who did not play its last game."""
        state = table.state
        if state.creator != self.creator or state.status != "finished":
            raise Fault("bad_state", "再来一局 is for a quick-play table whose games are over")
        for gone in [t for t in self.asks if t not in self._tables]:
            del self.asks[gone]
        asks = self.asks.get(table.id)
        if asks is None:
            humans = [(seat, p) for seat, p in enumerate(state.players) if p is not None and p.bot is None]
            people = {p.id: seat for seat, p in humans if p.id}
            asks = self.asks[table.id] = _Asks(people, {p.id: p.nickname for _, p in humans if p.id})
        account = client.account_id
        if account not in asks.people:
            raise Fault("forbidden", "only those who played this table's last game can ask to play again")
        self._check_free(account)
        if account in self._queued:
            raise Fault("bad_state", "you are waiting in quick play; leave the queue to play again here")
        asks.asked.add(account)
        frame = RematchStatus(
            type="rematch",
            table=table.id,
            asked=sorted(asks.people[a] for a in asks.asked),
            people=sorted(asks.people.values()),
        ).model_dump_json()
        for person in asks.people:
            self._tell(person, frame)
        if asks.asked != set(asks.people):
            return
        del self.asks[table.id]
        settings = state.settings
        preferences = Preferences(int(settings.turn_seconds), settings.games)
        order = sorted(asks.people, key=asks.people.__getitem__)  # by their old seats
        group = [(account, asks.nicknames[account], self._card(account)) for account in order]
        self._open_table(group, preferences, len(group) < len(state.seats), self._seated(preferences))

    def _seated(self, preferences: Preferences) -> Seated:
        def seated(table_id: str, seats: dict[str, int]) -> None:
            for account, seat in seats.items():
                frame = QueueStatus(
                    type="queue",
                    status="seated",
                    waiting=0,
                    waited=0.0,
                    bots_in=None,
                    delay=0.0,
                    escapes=0,
                    reason=None,
                    turn_seconds=preferences.turn_seconds,
                    games=preferences.games,
                    table=table_id,
                    seat=seat,
                ).model_dump_json()
                self._tell(account, frame)

        return seated

    def _tell(self, account: str, frame: str) -> None:
        for client in list(self._clients(account)):
            client.send(frame)
