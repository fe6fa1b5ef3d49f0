"""Sessions and their settlement (结算, issue 29): a table's run of ``games`` N, read back from what
the store keeps already — the table's ledger (every finished game's points per seat), its games'
results (who went out first, 上游) and its events (its settings, a dissolve agreed).

So a session's totals are the ledger's, by construction, and sum to zero (R36); a game in progress
adds nothing (its ledger rows are written with its end), so no hand ever reaches a settlement.

>>> rows = [Row(1, 0, "a1", "阿丽", 9, False, 0), Row(1, 1, "b2", "bob", -3, False, 0),
...         Row(1, 2, None, "bot 2", -3, True, 0), Row(1, 3, None, "bot 3", -3, True, 0)]
>>> [(p.nickname, p.total, p.place, p.won, p.upstream, p.best) for p in settle(rows)]
[('阿丽', 9, 1, 1, 1, 9), ('bob', -3, 2, 0, 0, -3), ('bot 2', -3, 2, 0, 0, -3), ('bot 3', -3, 2, 0, 0, -3)]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .store import accounts, games, ledger, table_events, tables

EndedBy = Literal["games", "dissolved"]

RECENT = 20
"""How many sessions an account's list shows (newest first)."""


@dataclass(frozen=True, slots=True)
class Row:
    """One seat of one finished game, as the ledger keeps it, and that game's 上游 seat."""

    game_id: int
    seat: int
    account_id: str | None
    nickname: str
    delta: int
    bot: bool
    upstream: int | None
    """The seat that went out first (上游), or None when nobody did (an escape ended the game)."""


@dataclass(slots=True)
class SessionPlayer:
    """One player's line of the settlement."""

    account_id: str | None
    nickname: str
    seat: int
    bot: bool
    total: int = 0
    games: int = 0
    won: int = 0
    """Games with a positive score."""
    upstream: int = 0
    """Games where they went out first (上游)."""
    best: int | None = None
    """Their best single game's score."""
    place: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "account_id": self.account_id,
            "nickname": self.nickname,
            "seat": self.seat,
            "bot": self.bot,
            "total": self.total,
            "games": self.games,
            "won": self.won,
            "upstream": self.upstream,
            "best": self.best,
            "place": self.place,
        }


def settle(rows: Sequence[Row]) -> list[SessionPlayer]:
    """The settlement of a session's ledger rows: one line per player (an account, or a bot by its
    seat), by place (1 = the evening's winner; equal totals share a place), then seat."""
    players: dict[tuple[str, str], SessionPlayer] = {}
    for r in rows:
        key = ("account", r.account_id) if r.account_id is not None else ("seat", f"{r.seat}:{r.nickname}")
        p = players.setdefault(key, SessionPlayer(r.account_id, r.nickname, r.seat, r.bot))
        p.seat, p.nickname = r.seat, r.nickname
        p.total += r.delta
        p.games += 1
        p.won += r.delta > 0
        p.upstream += r.upstream == r.seat
        p.best = r.delta if p.best is None else max(p.best, r.delta)
    ordered = sorted(players.values(), key=lambda p: (-p.total, p.seat))
    for p in ordered:
        p.place = 1 + sum(1 for q in ordered if q.total > p.total)
    return ordered


@dataclass(slots=True)
class TableSession:
    """A table's session as ``GET /api/tables/{id}/session`` answers it."""

    table: str
    name: str
    club: str | None
    games: int | None
    games_played: int
    finished: bool
    ended_by: EndedBy | None
    created_at: float
    ended_at: float | None
    players: list[SessionPlayer] = field(default_factory=list)

    @property
    def winners(self) -> list[SessionPlayer]:
        """The evening's winner(s): first place with a positive total (nobody when all broke even)."""
        return [p for p in self.players if p.place == 1 and p.total > 0]

    def as_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "name": self.name,
            "club": self.club,
            "games": self.games,
            "games_played": self.games_played,
            "finished": self.finished,
            "ended_by": self.ended_by,
            "created_at": self.created_at,
            "ended_at": self.ended_at,
            "winners": [p.seat for p in self.winners],
            "players": [p.as_json() for p in self.players],
        }


class SessionStore:
    """Reads sessions from the store's tables (``Store.engine``); it writes nothing."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def session(self, table_id: str) -> TableSession | None:
        """A table's session, or None when there is no such table."""
        with self.engine.begin() as c:
            row = c.execute(sa.select(tables).where(tables.c.id == table_id)).first()
            if row is None:
                return None
            settings: dict[str, Any] = {}
            dissolved = False
            marks = ("table_created", "settings_changed", "dissolve_ended")
            for kind, payload in c.execute(
                sa.select(table_events.c.kind, table_events.c.payload)
                .where(table_events.c.table_id == table_id, table_events.c.kind.in_(marks))
                .order_by(table_events.c.seq)
            ):
                event = json.loads(payload)
                if kind == "dissolve_ended":
                    dissolved = dissolved or event.get("outcome") == "agreed"
                else:
                    settings = event.get("settings") or {}
            bot = sa.func.coalesce(accounts.c.bot, ledger.c.account_id.is_(None)).label("bot")
            found = c.execute(
                sa.select(ledger.c.game_id, ledger.c.seat, ledger.c.account_id, ledger.c.nickname)
                .add_columns(ledger.c.delta, bot, games.c.result, games.c.finished_at)
                .join(games, games.c.id == ledger.c.game_id)
                .outerjoin(accounts, accounts.c.id == ledger.c.account_id)
                .where(ledger.c.table_id == table_id)
                .order_by(ledger.c.id)
            ).all()
        rows = [
            Row(r.game_id, r.seat, r.account_id, r.nickname, r.delta, bool(r.bot), _upstream(r.result))
            for r in found
        ]
        played = len({r.game_id for r in rows})
        limit = settings.get("games")
        finished = row.status == "finished"
        ended_by: EndedBy | None = None
        if finished and dissolved:
            ended_by = "dissolved"
        elif finished and isinstance(limit, int) and played >= limit:
            ended_by = "games"
        club = settings.get("club")
        return TableSession(
            table=table_id,
            name=str(settings.get("name") or ""),
            club=club if isinstance(club, str) else None,  # a club room's (settings.club, issue 29)
            games=limit if isinstance(limit, int) else None,
            games_played=played,
            finished=finished,
            ended_by=ended_by,
            created_at=row.created_at,
            ended_at=row.updated_at if finished else None,
            players=settle(rows),
        )

    def tables_of(self, account_id: str, limit: int = RECENT) -> list[str]:
        """The tables where the account played a game, the most recent first."""
        last = sa.func.max(ledger.c.id).label("last")
        with self.engine.begin() as c:
            found = c.execute(
                sa.select(ledger.c.table_id, last)
                .where(ledger.c.account_id == account_id)
                .group_by(ledger.c.table_id)
                .order_by(last.desc())
                .limit(limit)
            ).all()
        return [r.table_id for r in found]


def _upstream(result: str | None) -> int | None:
    if result is None:
        return None
    finish = json.loads(result).get("finish") or []
    return int(finish[0]) if finish else None
