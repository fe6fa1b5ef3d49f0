"""Clubs in the database (issue 29): clubs, their members and roles, and the tables created in them.

The tables are declared on the store's :data:`~niugui.server.store.metadata` (so the migrations'
check covers them) and created by the migration ``0007_clubs``. Methods run synchronously (call them
off the event loop); each write is one transaction. A member's ``role`` is ``owner``, ``admin``,
``member`` or ``pending`` (a request to join that the owner or an admin has not approved yet).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Literal, get_args

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .store import accounts, ledger, metadata

Role = Literal["owner", "admin", "member", "pending"]
ROLES: tuple[Role, ...] = get_args(Role)
"""Every role, highest first (a roster's order)."""
MANAGERS: tuple[Role, ...] = ("owner", "admin")
"""The roles that manage a club: they approve requests, remove members, close rooms, see the invite code."""

clubs = sa.Table(
    "clubs",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("description", sa.String(200), nullable=False),
    sa.Column("owner", sa.String(32), nullable=False),
    sa.Column("invite_code", sa.String(16), nullable=False),
    sa.Column("by_request", sa.Boolean, nullable=False),
    sa.Column("preset", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)
club_members = sa.Table(
    "club_members",
    metadata,
    sa.Column("club_id", sa.String(16), sa.ForeignKey("clubs.id"), primary_key=True),
    sa.Column("account_id", sa.String(32), primary_key=True, index=True),
    sa.Column("role", sa.String(8), nullable=False),
    sa.Column("joined_at", sa.Float, nullable=False),
)
club_tables = sa.Table(
    "club_tables",
    metadata,
    sa.Column("table_id", sa.String(32), primary_key=True),
    sa.Column("club_id", sa.String(16), sa.ForeignKey("clubs.id"), nullable=False, index=True),
    sa.Column("created_at", sa.Float, nullable=False),
)


@dataclass(frozen=True)
class ClubRow:
    """A club as stored (``preset``: the rule settings its rooms carry)."""

    id: str
    name: str
    description: str
    owner: str
    invite_code: str
    by_request: bool
    preset: dict[str, Any]
    created_at: float

    def public(self, with_code: bool) -> dict[str, Any]:
        """The club as the API shows it; the invite code only to its owner and admins (``with_code``)."""
        shown = {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "owner": self.owner,
            "by_request": self.by_request,
            "preset": self.preset,
            "created_at": self.created_at,
        }
        return {**shown, "invite_code": self.invite_code} if with_code else shown


class ClubStore:
    """The clubs' tables, on the store's engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ---- clubs -----------------------------------------------------------------------------------

    def create(self, club_id: str, owner: str, name: str, description: str, code: str) -> ClubRow:
        """A new club, its owner its first member."""
        now = time.time()
        row = ClubRow(club_id, name, description, owner, code, False, {}, now)
        with self.engine.begin() as c:
            c.execute(
                clubs.insert().values(
                    id=club_id,
                    name=name,
                    description=description,
                    owner=owner,
                    invite_code=code,
                    by_request=False,
                    preset="{}",
                    created_at=now,
                )
            )
            c.execute(
                club_members.insert().values(club_id=club_id, account_id=owner, role="owner", joined_at=now)
            )
        return row

    def club(self, club_id: str) -> ClubRow | None:
        with self.engine.begin() as c:
            row = c.execute(sa.select(clubs).where(clubs.c.id == club_id)).first()
        return None if row is None else _club(row)

    def update(self, club_id: str, **fields: Any) -> None:
        """Change a club's ``name``, ``description``, ``by_request`` or ``preset`` (a dict)."""
        if "preset" in fields:
            fields["preset"] = json.dumps(fields["preset"], separators=(",", ":"))
        with self.engine.begin() as c:
            c.execute(clubs.update().where(clubs.c.id == club_id).values(**fields))

    def every_club(self) -> list[tuple[ClubRow, dict[str, Role]]]:
        """Every club with its members' roles (the server's roster at its start)."""
        with self.engine.begin() as c:
            rows = [_club(r) for r in c.execute(sa.select(clubs)).all()]
            roles: dict[str, dict[str, Role]] = {r.id: {} for r in rows}
            for m in c.execute(sa.select(club_members)).all():
                roles.setdefault(m.club_id, {})[m.account_id] = m.role
        return [(r, roles[r.id]) for r in rows]

    # ---- members ---------------------------------------------------------------------------------

    def role(self, club_id: str, account_id: str) -> Role | None:
        with self.engine.begin() as c:
            role: Role | None = c.execute(
                sa.select(club_members.c.role).where(
                    (club_members.c.club_id == club_id) & (club_members.c.account_id == account_id)
                )
            ).scalar()
        return role

    def members(self, club_id: str) -> list[dict[str, Any]]:
        """The members (and requests waiting), owner first, each with nickname and role."""
        order = sa.case({r: n for n, r in enumerate(ROLES)}, value=club_members.c.role)
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(club_members, accounts.c.nickname, accounts.c.username, accounts.c.bot)
                .join(accounts, accounts.c.id == club_members.c.account_id)
                .where(club_members.c.club_id == club_id)
                .order_by(order, club_members.c.joined_at)
            ).all()
        return [
            {
                "account_id": r.account_id,
                "nickname": r.nickname,
                "role": r.role,
                "guest": r.username is None,
                "bot": bool(r.bot),
                "joined_at": r.joined_at,
            }
            for r in rows
        ]

    def count_members(self, club_id: str) -> int:
        with self.engine.begin() as c:
            found: int = c.execute(
                sa.select(sa.func.count()).select_from(club_members).where(club_members.c.club_id == club_id)
            ).scalar_one()
        return found

    def clubs_of(self, account_id: str) -> list[dict[str, Any]]:
        """The clubs an account belongs to (or asked to join: role ``pending``), with its role."""
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(clubs, club_members.c.role)
                .join(club_members, club_members.c.club_id == clubs.c.id)
                .where(club_members.c.account_id == account_id)
                .order_by(clubs.c.created_at)
            ).all()
        return [{**_club(r).public(r.role in MANAGERS), "role": r.role} for r in rows]

    def set_role(self, club_id: str, account_id: str, role: Role) -> None:
        """Add the account with ``role``, or change its role."""
        with self.engine.begin() as c:
            done = c.execute(
                club_members.update()
                .where((club_members.c.club_id == club_id) & (club_members.c.account_id == account_id))
                .values(role=role)
            )
            if done.rowcount == 0:
                c.execute(
                    club_members.insert().values(
                        club_id=club_id, account_id=account_id, role=role, joined_at=time.time()
                    )
                )

    def remove(self, club_id: str, account_id: str) -> bool:
        with self.engine.begin() as c:
            done = c.execute(
                club_members.delete().where(
                    (club_members.c.club_id == club_id) & (club_members.c.account_id == account_id)
                )
            )
        return bool(done.rowcount)

    def hand_over(self, club_id: str, old: str, new: str) -> None:
        """``new`` becomes the owner, ``old`` an admin (one transaction)."""
        with self.engine.begin() as c:
            where = club_members.c.club_id == club_id
            c.execute(
                club_members.update().where(where & (club_members.c.account_id == old)).values(role="admin")
            )
            c.execute(
                club_members.update().where(where & (club_members.c.account_id == new)).values(role="owner")
            )
            c.execute(clubs.update().where(clubs.c.id == club_id).values(owner=new))

    # ---- rooms, sessions and standings -----------------------------------------------------------

    def add_room(self, table_id: str, club_id: str) -> None:
        with self.engine.begin() as c:
            c.execute(club_tables.insert().values(table_id=table_id, club_id=club_id, created_at=time.time()))

    def club_of_table(self, table_id: str) -> str | None:
        with self.engine.begin() as c:
            club: str | None = c.execute(
                sa.select(club_tables.c.club_id).where(club_tables.c.table_id == table_id)
            ).scalar()
        return club

    def room_facts(self, table_id: str, account_id: str | None) -> tuple[str | None, frozenset[str]]:
        """For the visibility rule of a stored table: the club whose room it is (None: no club's), and
        that club if ``account_id`` is a member of it (else no club)."""
        club = self.club_of_table(table_id)
        if club is None or account_id is None or self.role(club, account_id) in (None, "pending"):
            return club, frozenset()
        return club, frozenset({club})

    def sessions(self, club_id: str, limit: int = 20) -> list[dict[str, Any]]:
        """The club's tables where at least one game was scored, newest first: id, games scored, last
        game's time and each player's total (``players``: nickname, account, total)."""
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(
                    ledger.c.table_id,
                    sa.func.count(sa.distinct(ledger.c.game_id)).label("games"),
                    sa.func.max(ledger.c.created_at).label("last"),
                )
                .join(club_tables, club_tables.c.table_id == ledger.c.table_id)
                .where(club_tables.c.club_id == club_id)
                .group_by(ledger.c.table_id)
                .order_by(sa.desc("last"))
                .limit(limit)
            ).all()
            ids = [r.table_id for r in rows]
            totals: dict[str, dict[int, dict[str, Any]]] = {t: {} for t in ids}
            for e in c.execute(
                sa.select(
                    ledger.c.table_id, ledger.c.seat, ledger.c.account_id, ledger.c.nickname, ledger.c.delta
                )
                .where(ledger.c.table_id.in_(ids))
                .order_by(ledger.c.id)
            ).all():
                seat = totals[e.table_id].setdefault(
                    e.seat, {"seat": e.seat, "account_id": e.account_id, "nickname": e.nickname, "total": 0}
                )
                seat.update(account_id=e.account_id, nickname=e.nickname)
                seat["total"] += e.delta
        return [
            {
                "table": r.table_id,
                "games": r.games,
                "last_game_at": r.last,
                "players": [totals[r.table_id][s] for s in sorted(totals[r.table_id])],
            }
            for r in rows
        ]

    def standings(self, club_id: str, since: float | None, limit: int = 100) -> list[dict[str, Any]]:
        """Players by their total points in the club's rooms (games scored since ``since``; None: all
        time): account, nickname, total and games. Seats of the server's bots are not ranked."""
        total = sa.func.sum(ledger.c.delta).label("total")
        query = (
            sa.select(ledger.c.account_id, accounts.c.nickname, total, sa.func.count().label("games"))
            .join(club_tables, club_tables.c.table_id == ledger.c.table_id)
            .join(accounts, accounts.c.id == ledger.c.account_id)
            .where(club_tables.c.club_id == club_id)
            .group_by(ledger.c.account_id, accounts.c.nickname)
            .order_by(sa.desc("total"), ledger.c.account_id)
            .limit(limit)
        )
        if since is not None:
            query = query.where(ledger.c.created_at >= since)
        with self.engine.begin() as c:
            rows = c.execute(query).all()
        return [
            {"account_id": r.account_id, "nickname": r.nickname, "total": int(r.total), "games": r.games}
            for r in rows
        ]


def _club(row: Any) -> ClubRow:
    return ClubRow(
        row.id,
        row.name,
        row.description,
        row.owner,
        row.invite_code,
        bool(row.by_request),
        json.loads(row.preset),
        row.created_at,
    )
