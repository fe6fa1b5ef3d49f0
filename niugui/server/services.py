"""The app's services in one typed container, :class:`AppServices`, put on ``app.state.services``
by the lifespan (:func:`niugui.server.app.create_app`); a route or the WebSocket endpoint asks for
it with a parameter typed :data:`AppServicesDep`. (What tables share is another thing:
:class:`niugui.server.tables.Services`.)

>>> bearer("Bearer abc"), bearer("Basic abc"), bearer(None)
('abc', None, None)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from . import auth
from .boards import Boards
from .config import Config
from .fairuse import FairUse
from .hub import Hub
from .lobby import Lobby
from .metrics import Metrics
from .store import AccountRow, Store
from .ws.connection import Clients

if TYPE_CHECKING:
    from .cluster.node import Node


@dataclass(frozen=True, slots=True)
class AppServices:
    """What the routes and the WebSocket endpoint use, made once per run of the app."""

    config: Config
    metrics: Metrics
    store: Store
    hub: Hub
    lobby: Lobby
    """The lobby's pages, shared by every asker for ``lobby_seconds``."""
    fair: FairUse
    hasher: auth.PasswordHasher
    clients: Clients
    node: Node | None
    """This process's cluster node, or None when it runs alone."""
    boards: Boards
    """The leaderboards, computed once while the ratings stay as they are (issue 33, finding 3)."""

    @property
    def session_age(self) -> float | None:
        """Seconds a session lives (None: for ever)."""
        return self.config.limits.session_days * 86400 or None

    def account_of(self, authorization: str | None) -> AccountRow | None:
        """The account of an ``Authorization: Bearer`` header's live session, if any (reads the store:
        call it off the event loop)."""
        token = bearer(authorization)
        if token is None:
            return None
        return self.store.account_by_token_hash(auth.token_hash(token), self.session_age)

    def account_id_of(self, authorization: str | None) -> str | None:
        """The id of :meth:`account_of`'s account (reads the store: call it off the event loop)."""
        account = self.account_of(authorization)
        return None if account is None else account.id


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer …`` header."""
    if not authorization or not authorization.lower().startswith("bearer "):
        return None
    return authorization[7:].strip() or None


async def services(request: HTTPConnection) -> AppServices:
    """The running app's services (a dependency: async, so it costs no trip to the thread pool)."""
    found: AppServices = request.app.state.services
    return found


AppServicesDep = Annotated[AppServices, Depends(services)]
"""A route's or the WebSocket endpoint's parameter: ``svc: AppServicesDep``."""
