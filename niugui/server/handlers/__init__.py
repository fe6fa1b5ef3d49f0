"""Every client message the server understands, with its handler: the one list (``ROUTES``).

To add a message type: its model in :mod:`niugui.server.protocol`, its handler in :mod:`.lobby` or
:mod:`.table`, and one line here (docs/architecture.md, "add a message type").
"""

from __future__ import annotations

from ..dispatch import Registry, route, table_route
from ..protocol import (
    Auth,
    Autoplay,
    Chat,
    CreateTable,
    Dissolve,
    FillBots,
    FreeSeat,
    Invite,
    Leave,
    LeaveQueue,
    ListTables,
    Pass,
    Ping,
    Play,
    PlayEvent,
    QueueBots,
    QuickPlay,
    Ready,
    Rematch,
    Sit,
    Stand,
    UpdateSettings,
    Watch,
)
from . import lobby, table

ROUTES = Registry(
    [
        table_route(Play, table.play),  # the most frequent first
        table_route(Pass, table.pass_),
        route(Ping, lobby.ping),
        route(Auth, lobby.auth),
        route(ListTables, lobby.list_tables),
        route(CreateTable, lobby.create_table, limit="tables"),
        table_route(Watch, table.watch, by_code=True, limit="guesses"),
        table_route(Sit, table.sit, by_code=True, limit="guesses"),
        table_route(Stand, table.stand),
        table_route(Leave, table.leave),
        table_route(Ready, table.ready),
        table_route(Autoplay, table.autoplay),
        table_route(FillBots, table.fill_bots),
        table_route(FreeSeat, table.free_seat),
        table_route(UpdateSettings, table.update_settings, limit="settings"),
        table_route(Chat, table.chat, limit="chat"),
        table_route(Invite, table.invite),
        route(QuickPlay, lobby.quick_play, limit="quick"),
        route(LeaveQueue, lobby.leave_queue),
        route(QueueBots, lobby.queue_bots, limit="quick"),
        table_route(Rematch, table.rematch),
        table_route(Dissolve, table.dissolve),
        route(PlayEvent, lobby.play_event),  # at most one table per board of an event: no budget
    ]
)
CLIENT_TYPES = ROUTES.types
"""Each client message type's model (derived from ``ROUTES``)."""
