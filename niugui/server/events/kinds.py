"""The kinds of events (issue 30): the one registry. ``POST /api/events`` accepts the kinds listed
here; each is an :class:`~niugui.server.events.base.EventKind`.

To add a kind: a module of this package with a class following ``EventKind`` (settings, what it
stores, the view, where an entrant plays), and one line in :func:`event_kinds`; its name in the
protocol's ``EventCreate.kind``.

>>> sorted(event_kinds(Community()))
['duplicate', 'swiss']
"""

from __future__ import annotations

from ..config import Community
from .base import EventKind
from .duplicate import Duplicate
from .swiss import Swiss


def event_kinds(community: Community) -> dict[str, EventKind]:
    """Every kind of event, by name, with the server's settings."""
    kinds: list[EventKind] = [
        Duplicate(turn_seconds=community.event_turn_seconds),
        Swiss(),
    ]
    return {kind.name: kind for kind in kinds}


EVENT_KINDS = event_kinds(Community())
"""The kinds with the default settings (the server's own: ``event_kinds(config.community)``)."""
