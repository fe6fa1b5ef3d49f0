"""Friends and blocks in the database (issue 29, point 6): friend requests, friendships, blocks and
the people one played with lately. Tables on the store's ``metadata`` (created by the migration
``0007_friends``); every method runs synchronously — call it off the event loop.

A friendship is two requests: ``friend_requests`` holds (asker, asked); when both directions are
there, the two are friends. Blocking someone removes both directions and hides their requests,
invitations and chat from the blocker.

>>> store = Store("sqlite://"); store.migrate()
>>> for name in ("ann", "bob"):
...     _ = store.create_account(name, name.title(), "hash-" + name)
>>> friends = Friends(store.engine)
>>> friends.ask("ann", "bob"), friends.ask("bob", "ann")
('requested', 'friends')
>>> friends.social("ann").friends, friends.social("ann").blocks
(frozenset({'bob'}), frozenset())
>>> friends.block("bob", "ann"); friends.social("ann").friends
frozenset()
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .consent import DEFAULT_INVITE_FROM, DEFAULT_INVITE_TABLES, InviteFrom
from .store import Store, accounts, games, ledger, metadata, mutes

friend_requests = sa.Table(
    "friend_requests",
    metadata,
    sa.Column("asker", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("asked", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True, index=True),
    sa.Column("created_at", sa.Float, nullable=False),
)
blocks = sa.Table(
    "blocks",
    metadata,
    sa.Column("blocker", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("blocked", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
)

Standing = Literal["requested", "friends"]

MAX_MUTES = 200
"""Accounts one account may mute at once (issue 33, finding 5: muting is stored with the account)."""
RECENT = 20
"""How many people one played with lately ``GET /api/me/recent`` lists."""


@dataclass(frozen=True)
class Social:
    """What the server keeps in memory of a connected account: its friends and whom it blocks."""

    friends: frozenset[str] = field(default_factory=frozenset)
    blocks: frozenset[str] = field(default_factory=frozenset)
    invite_from: InviteFrom = DEFAULT_INVITE_FROM
    """A bot account's consent: who may invite it (issue 33, finding 6) ..."""
    invite_tables: int = DEFAULT_INVITE_TABLES
    """... and to at most how many unfinished tables at once (its seats held there count)."""


class Friends:
    """Friend requests, friendships and blocks, over the store's engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def ask(self, asker: str, asked: str) -> Standing:
        """``asker`` asks ``asked`` to be friends, or accepts their request: ``"friends"`` when the
        request the other way is there, else ``"requested"``. Asking someone who blocks you is
        recorded and never shown to them (the answer is the same, so a block is not revealed)."""
        with self.engine.begin() as c:
            exists = sa.select(friend_requests).where(
                friend_requests.c.asker == asker, friend_requests.c.asked == asked
            )
            if c.execute(exists).first() is None:
                c.execute(friend_requests.insert().values(asker=asker, asked=asked, created_at=time.time()))
            back = sa.select(friend_requests).where(
                friend_requests.c.asker == asked, friend_requests.c.asked == asker
            )
            return "friends" if c.execute(back).first() is not None else "requested"

    def drop(self, one: str, other: str) -> None:
        """End a friendship, withdraw a request or decline one: both directions go."""
        with self.engine.begin() as c:
            _unlink(c, one, other)

    def block(self, blocker: str, blocked: str) -> None:
        """``blocker`` blocks ``blocked`` (and they stop being friends or asking each other)."""
        with self.engine.begin() as c:
            _unlink(c, blocker, blocked)
            found = sa.select(blocks).where(blocks.c.blocker == blocker, blocks.c.blocked == blocked)
            if c.execute(found).first() is None:
                c.execute(blocks.insert().values(blocker=blocker, blocked=blocked, created_at=time.time()))

    def unblock(self, blocker: str, blocked: str) -> None:
        with self.engine.begin() as c:
            c.execute(blocks.delete().where(blocks.c.blocker == blocker, blocks.c.blocked == blocked))

    def social(self, account_id: str) -> Social:
        """The account's friends, the accounts it blocks, and its consent to invitations."""
        with self.engine.begin() as c:
            consent = c.execute(
                sa.select(accounts.c.invite_from, accounts.c.invite_tables).where(accounts.c.id == account_id)
            ).first()
            return Social(
                frozenset(_friend_ids(c, account_id)),
                frozenset(_blocked_ids(c, account_id)),
                *((consent.invite_from, int(consent.invite_tables)) if consent is not None else ()),
            )

    def mutes(self, account_id: str) -> list[str]:
        """Whose chat ``account_id`` does not want to see, on every device (finding 5), sorted."""
        with self.engine.begin() as c:
            return _muted(c, account_id)

    def mute(self, account_id: str, other: str, muted: bool) -> list[str] | None:
        """``account_id`` mutes (or unmutes) ``other``'s chat, on all its devices (finding 5): whom it
        mutes now, or None (nothing changed) when that would be more than :data:`MAX_MUTES`."""
        with self.engine.begin() as c:
            mine = mutes.c.account_id == account_id
            others = sa.select(sa.func.count()).where(mine, mutes.c.muted != other)
            if muted and c.execute(others).scalar_one() >= MAX_MUTES:
                return None
            c.execute(mutes.delete().where(mutes.c.account_id == account_id, mutes.c.muted == other))
            if muted:
                c.execute(mutes.insert().values(account_id=account_id, muted=other, created_at=time.time()))
            return _muted(c, account_id)

    def consent(self, account_id: str, invite_from: InviteFrom, tables: int) -> None:
        """A bot account's owner sets who may invite it and to how many tables at once (finding 6)."""
        with self.engine.begin() as c:
            c.execute(
                accounts.update()
                .where(accounts.c.id == account_id)
                .values(invite_from=invite_from, invite_tables=tables)
            )

    def lists(self, account_id: str) -> dict[str, list[dict[str, Any]]]:
        """The account's friends, requests to it (from accounts it does not block), its own pending
        requests and whom it blocks, each ``[{"account_id", "nickname", ...}]`` by nickname."""
        mine = friend_requests.c
        with self.engine.begin() as c:
            friends = _friend_ids(c, account_id)
            blocked = _blocked_ids(c, account_id)
            incoming = {r.asker for r in c.execute(sa.select(mine.asker).where(mine.asked == account_id))}
            outgoing = {r.asked for r in c.execute(sa.select(mine.asked).where(mine.asker == account_id))}
            people = _people(c, friends | blocked | incoming | outgoing)
        return {
            "friends": _listed(people, friends),
            "incoming": _listed(people, incoming - friends - blocked),
            "outgoing": _listed(people, outgoing - friends),
            "blocked": _listed(people, blocked),
        }

    def recent(self, account_id: str, limit: int = RECENT) -> list[dict[str, Any]]:
        """The last ``limit`` people the account finished a game with, newest first: their id,
        nickname, whether a bot account, and when that last game ended (only finished games are in
        the ledger, so nothing of a game in progress is here)."""
        me, other = ledger.alias("me"), ledger.alias("other")
        query = (
            sa.select(other.c.account_id, sa.func.max(games.c.finished_at).label("played_at"))
            .select_from(me)
            .join(other, other.c.game_id == me.c.game_id)
            .join(games, games.c.id == me.c.game_id)
            .where(
                me.c.account_id == account_id,
                other.c.account_id.is_not(None),
                other.c.account_id != account_id,
            )
            .group_by(other.c.account_id)
            .order_by(sa.desc("played_at"), other.c.account_id)
            .limit(limit)
        )
        with self.engine.begin() as c:
            rows = list(c.execute(query))
            people = _people(c, {r.account_id for r in rows})
        return [{**people[r.account_id], "played_at": r.played_at} for r in rows if r.account_id in people]


def friends_of(store: Store) -> Friends:
    """The friends' part of ``store`` (same engine)."""
    return Friends(store.engine)


def _unlink(c: sa.Connection, one: str, other: str) -> None:
    mine = friend_requests.c
    c.execute(
        friend_requests.delete().where(
            sa.or_(
                sa.and_(mine.asker == one, mine.asked == other),
                sa.and_(mine.asker == other, mine.asked == one),
            )
        )
    )


def _friend_ids(c: sa.Connection, account_id: str) -> set[str]:
    out, back = friend_requests.alias("out"), friend_requests.alias("back")
    query = (
        sa.select(out.c.asked)
        .join(back, sa.and_(back.c.asker == out.c.asked, back.c.asked == out.c.asker))
        .where(out.c.asker == account_id)
    )
    return {r.asked for r in c.execute(query)}


def _blocked_ids(c: sa.Connection, account_id: str) -> set[str]:
    return {r.blocked for r in c.execute(sa.select(blocks.c.blocked).where(blocks.c.blocker == account_id))}


def _people(c: sa.Connection, ids: set[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    query = sa.select(accounts.c.id, accounts.c.nickname, accounts.c.bot).where(accounts.c.id.in_(list(ids)))
    return {
        r.id: {"account_id": r.id, "nickname": r.nickname, **({"bot": True} if r.bot else {})}
        for r in c.execute(query)
    }


def _listed(people: dict[str, dict[str, Any]], ids: set[str]) -> list[dict[str, Any]]:
    return sorted(
        (dict(people[i]) for i in ids if i in people), key=lambda p: (p["nickname"], p["account_id"])
    )


def _muted(c: sa.Connection, account_id: str) -> list[str]:
    query = sa.select(mutes.c.muted).where(mutes.c.account_id == account_id).order_by(mutes.c.muted)
    return [r.muted for r in c.execute(query)]
