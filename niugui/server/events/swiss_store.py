"""A Swiss event's entrants and progress in the database (issue 30).

``swiss_entrants``: who registered, in order (one row each, so that two people registering at once
never lose one another). ``swiss_progress``: the event's phase and its rounds as JSON
(:class:`~niugui.server.events.swiss_progress.SwissProgress`), written by the node that runs the
event after each change and read by any node that shows it. Created by the migration
``0009_swiss``; the methods run synchronously (call them off the event loop).
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from ..store import metadata
from .store import events

swiss_entrants = sa.Table(
    "swiss_entrants",
    metadata,
    sa.Column("event_id", sa.String(16), sa.ForeignKey("events.id"), primary_key=True),
    sa.Column("account_id", sa.String(32), primary_key=True),
    sa.Column("nickname", sa.String(64), nullable=False),
    sa.Column("registered_at", sa.Float, nullable=False),
)
swiss_progress = sa.Table(
    "swiss_progress",
    metadata,
    sa.Column("event_id", sa.String(16), sa.ForeignKey("events.id"), primary_key=True),
    # registering → running (claimed by the node that runs it) → finished
    sa.Column("phase", sa.String(12), nullable=False, index=True),
    sa.Column("progress", sa.Text, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)


def create_progress(c: Connection, event_id: str, now: float) -> None:
    """A new Swiss event's row (registering), in the transaction that stores the event."""
    c.execute(
        swiss_progress.insert().values(event_id=event_id, phase="registering", progress="{}", updated_at=now)
    )


class SwissStore:
    """The Swiss tables, on the store's engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def phase(self, event_id: str) -> str | None:
        with self.engine.begin() as c:
            found = c.execute(
                sa.select(swiss_progress.c.phase).where(swiss_progress.c.event_id == event_id)
            ).scalar()
        return None if found is None else str(found)

    def register(self, event_id: str, account_id: str, nickname: str, now: float) -> bool | None:
        """Enter ``account_id``: True when entered now, False when entered already, None when the
        registration is closed (the event has started)."""
        with self.engine.begin() as c:
            phase = c.execute(
                sa.select(swiss_progress.c.phase).where(swiss_progress.c.event_id == event_id)
            ).scalar()
            if phase != "registering":
                return None
            key = (swiss_entrants.c.event_id == event_id) & (swiss_entrants.c.account_id == account_id)
            if c.execute(sa.select(swiss_entrants.c.account_id).where(key)).first() is not None:
                return False
        try:
            with self.engine.begin() as c:
                c.execute(
                    swiss_entrants.insert().values(
                        event_id=event_id, account_id=account_id, nickname=nickname, registered_at=now
                    )
                )
        except sa.exc.IntegrityError:  # the same account registering twice at once: entered once
            return False
        return True

    def unregister(self, event_id: str, account_id: str) -> bool | None:
        """Take ``account_id``'s entry back: True when it was entered, False when it was not, None
        when the registration is closed (the event has started: an entrant stays one)."""
        with self.engine.begin() as c:
            phase = c.execute(
                sa.select(swiss_progress.c.phase).where(swiss_progress.c.event_id == event_id)
            ).scalar()
            if phase != "registering":
                return None
            key = (swiss_entrants.c.event_id == event_id) & (swiss_entrants.c.account_id == account_id)
            done = c.execute(swiss_entrants.delete().where(key))
        return done.rowcount == 1

    def entrants(self, event_id: str) -> list[tuple[str, str]]:
        """(account id, nickname) of every entrant, in the order they registered."""
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(swiss_entrants.c.account_id, swiss_entrants.c.nickname)
                .where(swiss_entrants.c.event_id == event_id)
                .order_by(swiss_entrants.c.registered_at, swiss_entrants.c.account_id)
            ).all()
        return [(r.account_id, r.nickname) for r in rows]

    def claim(self, event_id: str, now: float) -> bool:
        """Close the registration and take the event to run it: True for the one caller that did."""
        with self.engine.begin() as c:
            done = c.execute(
                swiss_progress.update()
                .where((swiss_progress.c.event_id == event_id) & (swiss_progress.c.phase == "registering"))
                .values(phase="running", updated_at=now)
            )
            if done.rowcount == 1:  # the event starts now (its start brought forward by its owner)
                c.execute(
                    events.update()
                    .where((events.c.id == event_id) & (events.c.starts_at > now))
                    .values(starts_at=now)
                )
        return done.rowcount == 1

    def due(self, now: float) -> list[str]:
        """The Swiss events still registering whose ``starts_at`` has come (one made without
        ``starts_at`` waits for its owner: its settings say ``auto_start`` false)."""
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(swiss_progress.c.event_id, events.c.settings)
                .join(events, events.c.id == swiss_progress.c.event_id)
                .where((swiss_progress.c.phase == "registering") & (events.c.starts_at <= now))
            ).all()
        return [r.event_id for r in rows if json.loads(r.settings).get("auto_start")]

    def save(self, event_id: str, phase: str, progress: dict[str, Any], now: float) -> None:
        with self.engine.begin() as c:
            c.execute(
                swiss_progress.update()
                .where(swiss_progress.c.event_id == event_id)
                .values(phase=phase, progress=json.dumps(progress, ensure_ascii=False), updated_at=now)
            )

    def progress(self, event_id: str) -> tuple[str, dict[str, Any]] | None:
        """The event's phase and progress (``{}`` while registering)."""
        with self.engine.begin() as c:
            row = c.execute(
                sa.select(swiss_progress.c.phase, swiss_progress.c.progress).where(
                    swiss_progress.c.event_id == event_id
                )
            ).first()
        return None if row is None else (str(row.phase), json.loads(row.progress))

    def running(self) -> list[str]:
        """Swiss events in progress (a restarted server carries them on)."""
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(swiss_progress.c.event_id).where(swiss_progress.c.phase == "running")
            ).all()
        return [r.event_id for r in rows]
