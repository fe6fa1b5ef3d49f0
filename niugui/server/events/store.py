"""Events in the database (issue 30): events of every kind, a duplicate event's boards and entries.

The tables are declared on the store's :data:`~niugui.server.store.metadata` (so the migrations'
check covers them) and created by the migration ``0008_events``. Methods run synchronously (call
them off the event loop); each write is one transaction. An entry's result is not stored here: it
is the ledger's line of the entry's table and seat (the table's one game), read with the entries.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from ..store import ledger, metadata, tables

events = sa.Table(
    "events",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("name", sa.String(60), nullable=False),
    sa.Column("club", sa.String(16), nullable=True, index=True),
    sa.Column("owner", sa.String(32), nullable=False),
    # listed in GET /api/events for everyone (the daily); an account's own events are unlisted links
    sa.Column("listed", sa.Boolean, nullable=False),
    sa.Column("settings", sa.Text, nullable=False),
    sa.Column("starts_at", sa.Float, nullable=False),
    sa.Column("ends_at", sa.Float, nullable=False, index=True),
    sa.Column("created_at", sa.Float, nullable=False),
    # the daily challenge's date (server time): unique, so that several nodes make it once
    sa.Column("daily_date", sa.String(10), nullable=True, unique=True),
)
event_boards = sa.Table(
    "event_boards",
    metadata,
    sa.Column("event_id", sa.String(16), sa.ForeignKey("events.id"), primary_key=True),
    sa.Column("board", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("flip", sa.String(4), nullable=False),
    sa.Column("deck", sa.Text, nullable=False),
    sa.Column("secret", sa.String(64), nullable=False),
    sa.Column("commitment", sa.String(64), nullable=False),
)
event_entries = sa.Table(
    "event_entries",
    metadata,
    sa.Column("event_id", sa.String(16), sa.ForeignKey("events.id"), primary_key=True),
    sa.Column("account_id", sa.String(32), primary_key=True, index=True),
    sa.Column("board", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("nickname", sa.String(64), nullable=False),
    sa.Column("table_id", sa.String(32), nullable=False),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("started_at", sa.Float, nullable=False),
)


@dataclass(frozen=True)
class EventRow:
    """An event as stored (``settings``: its kind's, validated by the kind)."""

    id: str
    kind: str
    name: str
    club: str | None
    owner: str
    listed: bool
    settings: dict[str, Any]
    starts_at: float
    ends_at: float
    created_at: float
    daily_date: str | None = None

    def status(self, now: float) -> str:
        """``upcoming``, ``open`` or ``finished`` at ``now``.

        >>> row = EventRow("e", "duplicate", "n", None, "o", True, {}, 10.0, 20.0, 0.0)
        >>> [row.status(t) for t in (5.0, 10.0, 20.0)]
        ['upcoming', 'open', 'finished']
        """
        return "upcoming" if now < self.starts_at else "open" if now < self.ends_at else "finished"

    def public(self, now: float) -> dict[str, Any]:
        """The event as the API shows it."""
        return {
            "id": self.id,
            "kind": self.kind,
            "name": self.name,
            "club": self.club,
            "owner": self.owner,
            "listed": self.listed,
            "settings": self.settings,
            "starts_at": self.starts_at,
            "ends_at": self.ends_at,
            "created_at": self.created_at,
            "daily_date": self.daily_date,
            "status": self.status(now),
        }


@dataclass(frozen=True)
class BoardRow:
    """A duplicate board: a deal committed in advance (the deck in drawing order and the 翻牌 card
    that chooses the first drawer, R8) and the entrant's seat. ``secret`` stays on the server."""

    event_id: str
    board: int
    seat: int
    flip: str
    deck: tuple[str, ...]
    secret: str
    commitment: str


@dataclass(frozen=True)
class EntryRow:
    """Who played (or plays) a board, where; ``score`` and ``game_id`` once the board's game is over."""

    event_id: str
    account_id: str
    board: int
    nickname: str
    table_id: str
    seat: int
    started_at: float
    score: int | None = None
    game_id: int | None = None
    code: str | None = None
    """The entry's table's join code (a replay's key, shown only once the board is revealed)."""


Creating = Callable[[Connection, EventRow], None]
"""What a kind stores with a new event, in the same transaction (a duplicate event's boards)."""


class EventStore:
    """The events' tables, on the store's engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(self, event: EventRow, extra: Creating | None = None) -> bool:
        """Store ``event`` and what ``extra`` adds; False when its ``daily_date`` is taken already (the
        daily made by another node, or earlier)."""
        try:
            with self.engine.begin() as c:
                c.execute(events.insert().values(**_values(event)))
                if extra is not None:
                    extra(c, event)
        except sa.exc.IntegrityError:
            if event.daily_date is None:
                raise
            return False
        return True

    def event(self, event_id: str) -> EventRow | None:
        with self.engine.begin() as c:
            row = c.execute(sa.select(events).where(events.c.id == event_id)).first()
        return None if row is None else _event(row)

    def daily(self, date: str) -> EventRow | None:
        with self.engine.begin() as c:
            row = c.execute(sa.select(events).where(events.c.daily_date == date)).first()
        return None if row is None else _event(row)

    def listing(
        self, now: float, clubs: frozenset[str], owner: str | None, offset: int, limit: int, recent: float
    ) -> tuple[list[EventRow], int]:
        """Events open or ended within ``recent`` seconds that the asker may see listed: listed ones,
        those of the asker's ``clubs`` and the asker's own; soonest to end first. With their count."""
        shown: sa.ColumnElement[bool] = events.c.listed
        if clubs:
            shown = shown | events.c.club.in_(sorted(clubs))
        if owner is not None:
            shown = shown | (events.c.owner == owner)
        where = sa.and_(shown, events.c.ends_at > now - recent)
        with self.engine.begin() as c:
            total = c.execute(sa.select(sa.func.count()).select_from(events).where(where)).scalar_one()
            rows = c.execute(
                sa.select(events)
                .where(where)
                .order_by(events.c.ends_at.desc(), events.c.id)
                .offset(offset)
                .limit(limit)
            ).all()
        return [_event(r) for r in rows], int(total)

    # ---- a duplicate event's boards and entries ----------------------------------------------------

    def boards(self, event_id: str) -> list[BoardRow]:
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(event_boards)
                .where(event_boards.c.event_id == event_id)
                .order_by(event_boards.c.board)
            ).all()
        return [
            BoardRow(r.event_id, r.board, r.seat, r.flip, tuple(json.loads(r.deck)), r.secret, r.commitment)
            for r in rows
        ]

    def entries(self, event_id: str) -> list[EntryRow]:
        """Every entry of the event with its result when its game is over (the ledger's line)."""
        line = ledger.alias("line")
        query = (
            sa.select(event_entries, line.c.delta, line.c.game_id, tables.c.code)
            .select_from(
                event_entries.outerjoin(
                    line,
                    sa.and_(line.c.table_id == event_entries.c.table_id, line.c.seat == event_entries.c.seat),
                ).outerjoin(tables, tables.c.id == event_entries.c.table_id)
            )
            .where(event_entries.c.event_id == event_id)
            .order_by(event_entries.c.board, event_entries.c.started_at)
        )
        with self.engine.begin() as c:
            rows = c.execute(query).all()
        return [
            EntryRow(
                r.event_id,
                r.account_id,
                r.board,
                r.nickname,
                r.table_id,
                r.seat,
                r.started_at,
                r.delta,
                r.game_id,
                r.code,
            )
            for r in rows
        ]

    def enter(self, entry: EntryRow) -> bool:
        """Store that ``entry.account_id`` plays ``entry.board``; False when they have begun it already."""
        try:
            with self.engine.begin() as c:
                c.execute(
                    event_entries.insert().values(
                        event_id=entry.event_id,
                        account_id=entry.account_id,
                        board=entry.board,
                        nickname=entry.nickname,
                        table_id=entry.table_id,
                        seat=entry.seat,
                        started_at=entry.started_at,
                    )
                )
        except sa.exc.IntegrityError:
            return False
        return True

    def drop_table(self, table_id: str) -> None:
        """Forget the entries at ``table_id`` (its table could not be opened: the board is to play)."""
        with self.engine.begin() as c:
            c.execute(event_entries.delete().where(event_entries.c.table_id == table_id))


def insert_boards(c: Connection, boards: list[BoardRow]) -> None:
    """Store a duplicate event's boards (inside :meth:`EventStore.create`'s transaction)."""
    if boards:
        c.execute(
            event_boards.insert(),
            [
                {
                    "event_id": b.event_id,
                    "board": b.board,
                    "seat": b.seat,
                    "flip": b.flip,
                    "deck": json.dumps(list(b.deck)),
                    "secret": b.secret,
                    "commitment": b.commitment,
                }
                for b in boards
            ],
        )


def _values(event: EventRow) -> dict[str, Any]:
    return {
        "id": event.id,
        "kind": event.kind,
        "name": event.name,
        "club": event.club,
        "owner": event.owner,
        "listed": event.listed,
        "settings": json.dumps(event.settings, ensure_ascii=False, sort_keys=True),
        "starts_at": event.starts_at,
        "ends_at": event.ends_at,
        "created_at": event.created_at,
        "daily_date": event.daily_date,
    }


def _event(row: Any) -> EventRow:
    return EventRow(
        row.id,
        row.kind,
        row.name,
        row.club,
        row.owner,
        bool(row.listed),
        json.loads(row.settings),
        row.starts_at,
        row.ends_at,
        row.created_at,
        row.daily_date,
    )
