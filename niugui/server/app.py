"""The ASGI app: HTTP routes under /api, the WebSocket at /ws, the web page at /. This module only
assembles; each job has its own module:

- :mod:`.routes` — one router per job (accounts, tables, community, replays, health);
- :mod:`.ws` — the WebSocket endpoint, its connections and its frames;
- :mod:`.fairuse` — the rate-limit buckets, charged before a request and settled after it;
- :mod:`.http_errors` — HTTP errors and the exception handlers;
- :mod:`.services` — the services the lifespan opens, on ``app.state.services``.

Fair use (docs/security.md): HTTP goes through :class:`~niugui.server.guard.Guard` (headers, rate
limits, body cap); a WebSocket authenticates with its first message, counts against its account's and
address's connection caps, and has its messages rate-limited per connection, account and address;
what waits for a slow reader is capped in size (the reader is dropped past it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI

from . import auth, expiry, logs, stacks
from .boards import Boards
from .config import Config
from .dispatch import Registry
from .events.daily import keep_daily
from .events.store import EventStore
from .fairuse import FairUse
from .guard import Guard
from .handlers import ROUTES
from .http_errors import HANDLERS
from .hub import Hub
from .limits import Exempt
from .metrics import Metrics
from .protocol import PROTOCOL_VERSION
from .routes import (
    accounts,
    clubs,
    community,
    consent,
    events,
    events_swiss,
    friends,
    health,
    page_config,
    replays,
    sessions,
    tables,
)
from .services import AppServices
from .static import StaticSite
from .store import Store
from .ws import endpoint
from .ws.connection import Clients

CLUBS_SECONDS = 2.0
"""How often a cluster node reads the clubs' members and presets again (another node may change them)."""

ROUTERS = (
    health.router,
    page_config.router,
    accounts.router,
    tables.router,
    community.router,
    replays.router,
    friends.router,
    consent.router,
    clubs.router,
    events.router,
    events_swiss.router,
    sessions.router,
    endpoint.router,
)
"""Every route of the app but the page, in the order they are matched."""


def create_app(config: Config, opened: Store | None = None, routes: Registry = ROUTES) -> FastAPI:
    """The app, on the ``opened`` store or on one it opens at startup (migrated either way), answering
    the client messages of ``routes``.

    >>> paths = create_app(Config()).openapi()["paths"]
    >>> [path for path in paths if path.startswith("/api/me")]  # doctest: +NORMALIZE_WHITESPACE
    ['/api/me', '/api/me/seats', '/api/me/friends', '/api/me/recent', '/api/me/mutes',
     '/api/me/mutes/{account_id}', '/api/me/invitations', '/api/me/clubs', '/api/me/sessions']
    """
    metrics = Metrics()
    exempt = Exempt.parse(config.exempt)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with running(config, opened, FairUse(config.limits, exempt, metrics), routes) as services:
            app.state.services = services
            yield

    app = FastAPI(
        title="niugui", version=str(PROTOCOL_VERSION), lifespan=lifespan, exception_handlers=HANDLERS
    )
    app.add_middleware(Guard, limits=config.limits, exempt=exempt, metrics=metrics)
    for router in ROUTERS:
        app.include_router(router)
    static = config.static_dir or Path(__file__).resolve().parents[1] / "web" / "static"
    if static.is_dir():
        app.mount("/", StaticSite.from_dir(static), name="web")
    return app


@asynccontextmanager
async def running(
    config: Config, opened: Store | None, fair: FairUse, routes: Registry
) -> AsyncIterator[AppServices]:
    """The services from startup to shutdown: the store (migrated), the hub with its tables restored
    — or, on a cluster node, adopted (niugui/server/cluster) — the lobby, the expiry sweeper and the
    password hasher."""
    limits = config.limits
    store = opened or Store(config.database_url())
    store.migrate()
    hub = Hub(store, config, fair.metrics, routes=routes)
    hub.load_clubs()
    node = None
    if config.cluster is None:
        hub.restore()
        hub.swiss.resume()  # the Swiss tournaments this server was running (issue 30)
    else:  # a cluster node adopts the tables nobody holds
        from .cluster.node import Node

        node = Node(hub, config.cluster)
        fair.cluster = node.features.caps  # messages counted across nodes (issue 32)
        await node.start()
    lobby = hub.listing
    hasher = auth.PasswordHasher(limits.hash_workers, limits.hash_queue)
    boards = Boards(store.rating_version, limits.board_seconds)
    services = AppServices(config, fair.metrics, store, hub, lobby, fair, hasher, Clients(), node, boards)
    sweeper = asyncio.create_task(expiry.run(hub, limits))
    daily = asyncio.create_task(keep_daily(EventStore(store.engine), config.community))  # issue 30
    # a cluster node learns other nodes' club changes (members, presets) within this time (issue 29)
    clubs = asyncio.create_task(hub.follow_clubs(CLUBS_SECONDS)) if node is not None else None
    # Swiss tournaments whose start has come (issue 30); on a cluster, the node that takes an event's
    # lease runs it (niugui/server/cluster/swiss.py), and the nodes take over those nobody runs
    swiss = asyncio.create_task(hub.swiss.follow())
    stacks.listen()  # kill -USR2: where each task waits (a server that does not stop when told)
    logs.info("server ready", db=store.engine.dialect.name, tables=len(hub.tables))
    try:
        yield services
    finally:
        sweeper.cancel()
        swiss.cancel()
        daily.cancel()
        if clubs is not None:
            clubs.cancel()
        if node is None:
            hub.close()
        else:
            await node.stop()
        hasher.close()
        store.close()
