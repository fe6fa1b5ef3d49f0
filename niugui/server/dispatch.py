"""The registry of client messages: each message model with its handler, in one place.

Everything else is derived from it: the message types the transport accepts (``types``), the JSON
schemas of docs/protocol.md (``schema``), which requests a cluster forwards to a table's owner
(``Route.table``), and which fair-use budget a request spends (``Route.limit``). Adding a message
type is one model in :mod:`.protocol` and one route in :mod:`.handlers` (docs/architecture.md).

>>> from niugui.server.protocol import Ping
>>> registry = Registry([route(Ping, lambda desk, client, message, reply: None)])
>>> list(registry.types), registry.route_of(Ping.model_validate({"type": "ping", "id": "1"})).table
(['ping'], False)
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Generic, Literal, Protocol, TypeVar, get_args

from pydantic import Field, TypeAdapter

from .club_rooms import ClubRooms
from .creation import TableFactory
from .directory import Directory, facts_of
from .events.seating import EventSeats
from .lobby import Lobby
from .protocol import Request, TableRequest
from .quick_tables import QuickTables
from .tables import Client, Fault, Reply, Table
from .visibility import may_see

M = TypeVar("M", bound=Request)
T = TypeVar("T", bound=TableRequest)

Limit = Literal["tables", "settings", "guesses", "chat", "quick"]
"""The fair-use budget a request spends before it is handled (:mod:`niugui.server.fairuse`)."""


class Desk(Protocol):
    """What handlers use of the server (the hub): its parts, each with its own job."""

    @property
    def directory(self) -> Directory: ...
    @property
    def factory(self) -> TableFactory: ...
    @property
    def quick(self) -> QuickTables: ...
    @property
    def listing(self) -> Lobby: ...
    @property
    def clustered(self) -> bool: ...
    @property
    def club_rooms(self) -> ClubRooms: ...
    @property
    def events(self) -> EventSeats: ...


Handler = Callable[[Desk, Client, M, Reply], None]
TableHandler = Callable[[Desk, Client, Table, T, Reply], None]


@dataclass(frozen=True)
class Route(Generic[M]):
    """A client message: its model, its handler, whether it names a table (so a cluster forwards it to
    the table's node) and the fair-use budget it spends."""

    model: type[M]
    handle: Handler[M]
    table: bool = False
    limit: Limit | None = None

    @property
    def type(self) -> str:
        """The message's ``type``, from its model's ``Literal``."""
        kind: str = get_args(self.model.model_fields["type"].annotation)[0]
        return kind


def route(model: type[M], handle: Handler[M], limit: Limit | None = None) -> Route[M]:
    """A message that names no table."""
    return Route(model, handle, limit=limit)


def table_route(
    model: type[T], handle: TableHandler[T], by_code: bool = False, limit: Limit | None = None
) -> Route[T]:
    """A message about one table, found and checked before ``handle`` is called: only ``watch`` and
    ``sit`` (``by_code``) may name a private table by its join code; to anyone else a private table
    answers as if it did not exist (no oracle for codes)."""

    def at_table(desk: Desk, client: Client, message: T, reply: Reply) -> None:
        table = find_table(desk.directory, client, message.table, by_code)
        handle(desk, client, table, message, reply)

    return Route(model, at_table, table=True, limit=limit)


def find_table(directory: Directory, client: Client, ref: str, by_code: bool) -> Table:
    """The table ``ref`` names, if ``client`` may act there (:func:`niugui.server.visibility.may_see`;
    with ``by_code`` the code itself is checked by the handler)."""
    table = directory.find(ref, by_code)
    if table is None and ref in directory.quarantined:
        raise Fault("not_found", "this table could not be restored after a restart (its games are kept)")
    joined = table is not None and directory.follows(client, table.id)
    clubs = directory.clubs_of(client.account_id)
    if table is None or not (
        by_code or may_see(facts_of(table), client.account_id, joined=joined, clubs=clubs)
    ):
        raise Fault("not_found", f"no table {ref!r}, or not with that join code")
    return table


class Registry:
    """The client messages a server understands, by type."""

    def __init__(self, routes: Iterable[Route[Any]]) -> None:
        self._routes: dict[str, Route[Any]] = {}
        for each in routes:
            if each.type in self._routes:
                raise ValueError(f"two routes for {each.type!r}")
            self._routes[each.type] = each
        self._by_model = {each.model: each for each in self._routes.values()}

    @property
    def types(self) -> Mapping[str, type[Request]]:
        """Each message type's model."""
        return {kind: each.model for kind, each in self._routes.items()}

    def get(self, kind: str) -> Route[Any] | None:
        return self._routes.get(kind)

    def route_of(self, message: Request) -> Route[Any]:
        return self._by_model[type(message)]

    def dispatch(self, desk: Desk, client: Client, message: Request, reply: Reply) -> None:
        """Hand ``message`` to its handler; raises :class:`Fault` when it is refused at once."""
        self._by_model[type(message)].handle(desk, client, message, reply)

    def schema(self) -> dict[str, Any]:
        """The JSON schema of every client message (a union discriminated by ``type``)."""
        union = functools.reduce(operator.or_, (each.model for each in self._routes.values()))
        tagged: Any = Annotated[union, Field(discriminator="type")]
        adapter: TypeAdapter[Any] = TypeAdapter(tagged)
        return adapter.json_schema()

    def with_routes(self, *routes: Route[Any]) -> Registry:
        """This registry and ``routes`` (a test's new message type, say)."""
        return Registry([*self._routes.values(), *routes])
