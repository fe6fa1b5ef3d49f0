"""Persistence: accounts and sessions, tables and their event log, games, and the score ledger.

SQLAlchemy Core over SQLite (the default, in the data directory) or PostgreSQL, the same code for
both. The schema is created and upgraded by the Alembic migrations in ``niugui/server/migrations``,
run by :meth:`Store.migrate` at startup. Every table event is appended here before it is broadcast.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from niugui.game import Result
from niugui.ratings import BOT_RATINGS, Rating, rate_game

from .consent import DEFAULT_INVITE_FROM, DEFAULT_INVITE_TABLES
from .protocol import AnyEvent, EvDeal, EvGameOver

metadata = sa.MetaData()
EVENT_CREATOR = "event:"
"""The creator of an event's tables is ``event:<event id>`` (issue 30, :mod:`niugui.server.events`)."""

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("nickname", sa.String(64), nullable=False),
    sa.Column("username", sa.String(64), nullable=True, unique=True),
    sa.Column("password_hash", sa.String(256), nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
    # a bot account (registered with ``bot: true``): labelled as a bot everywhere, never in quick play
    sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()),
    # a bot account's consent to invitations (issue 33, finding 6; niugui/server/consent.py): from
    # whom ("nobody", "friends", "anyone") and to at most how many unfinished tables at once
    sa.Column("invite_from", sa.String(8), nullable=False, server_default=DEFAULT_INVITE_FROM),
    sa.Column("invite_tables", sa.Integer, nullable=False, server_default=str(DEFAULT_INVITE_TABLES)),
)
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("account_id", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("created_at", sa.Float, nullable=False),
    # a session expires Limits.session_days after this (refreshed at most hourly as it is used)
    sa.Column("last_used_at", sa.Float, nullable=True),
)
tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("creator", sa.String(32), nullable=False),
    sa.Column("code", sa.String(16), nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("last_seq", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    # the fencing token of the table's owner (a cluster's lease, niugui/server/cluster); 0 for one process
    sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
)
table_events = sa.Table(
    "table_events",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("payload", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)
games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), nullable=False, index=True),
    sa.Column("game_no", sa.Integer, nullable=False),
    sa.Column("first_drawer", sa.Integer, nullable=False),
    sa.Column("deck", sa.Text, nullable=False),
    sa.Column("salt", sa.String(64), nullable=False),
    sa.Column("commitment", sa.String(64), nullable=False),
    sa.Column("meta", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("record", sa.Text, nullable=True),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float, nullable=True),
    # the table's state before this game's deal (niugui/server/tables/saved_state.py) and its seq: a table
    # is rebuilt from its latest one on; null for games stored before it existed (their table replays
    # from its first event)
    sa.Column("table_state", sa.Text, nullable=True),
    sa.Column("state_seq", sa.Integer, nullable=True),
    sa.Index("ix_games_table_id_id", "table_id", "id"),  # a table's latest game, at once
)
ledger = sa.Table(
    "ledger",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), nullable=False, index=True),
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("account_id", sa.String(32), nullable=True, index=True),
    sa.Column("nickname", sa.String(64), nullable=False),
    sa.Column("delta", sa.Integer, nullable=False),
    sa.Column("outcome", sa.String(16), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("account_id", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)
rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("account_id", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

mutes = sa.Table(  # muting stored with the account, not the device (issue 33, finding 5)
    "mutes",
    metadata,
    sa.Column("account_id", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("muted", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
)


@dataclass(frozen=True)
class RatedGame:
    """A rated game's end (a rated table, at least two human seats): its result and who sat in each
    seat — an account id for a person, a bot's level for a bot (``BOT_RATINGS``)."""

    result: Result
    accounts: tuple[str | None, ...]
    bots: tuple[str | None, ...]


@dataclass(frozen=True)
class AccountRow:
    id: str
    nickname: str
    username: str | None
    bot: bool = False
    """A bot account: its moves come from a program (``niugui bot-client`` or any client of the protocol)."""


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    kind: str
    payload: str
    """The event's JSON, as it was sent."""
    created_at: float


@dataclass(frozen=True)
class StoredTable:
    """What a table is rebuilt from (:meth:`Store.stored_tables`)."""

    creator: str
    code: str | None
    status: str
    saved: str | None
    """The table's state stored with its latest game that has one; None: it replays from its first event."""
    games: list[GameRow]
    """That game (every game when ``saved`` is None): its deal."""
    events: list[StoredEvent]
    """Every event after ``saved``'s seq, and at least the latest ``recent`` ones."""


@dataclass(frozen=True)
class GameRow:
    id: int
    table_id: str
    game_no: int
    first_drawer: int
    deck: list[str]
    salt: str
    commitment: str
    meta: dict[str, Any]
    status: str
    record: dict[str, Any] | None


class DealData(Protocol):
    """A game's hidden part, as the store keeps it in ``games``."""

    @property
    def game_no(self) -> int: ...
    @property
    def first_drawer(self) -> int: ...
    @property
    def deck(self) -> Sequence[str]: ...
    @property
    def salt(self) -> str: ...
    @property
    def commitment(self) -> str: ...
    @property
    def meta(self) -> dict[str, Any]: ...


@dataclass(slots=True)
class Write:
    """One table event to store, with its number in the table's sequence and the table's status after it."""

    table_id: str
    seq: int
    time: float
    status: str
    event: AnyEvent
    deal: DealData | None = None
    """A deal: the new game, stored in ``games`` (the event gets its id) ..."""
    table_state: tuple[int, str] | None = None
    """... with the table's state before it, when given: its seq and its stored form
    (:mod:`niugui.server.tables.saved_state`)."""
    record: dict[str, Any] | None = None
    """A game's end: its record (RECORD.md) ..."""
    entries: Sequence[LedgerEntry] = ()
    """... and its ledger entries ..."""
    rated: RatedGame | None = None
    """... and, at a rated table, the ratings it moves (in the same transaction)."""
    creator: str | None = None
    """A table's first event: the new table's creator ..."""
    code: str | None = None
    """... and join code."""
    payload: str = ""
    """Set by :meth:`Store.write`: the event's JSON as stored (and sent)."""
    game_id: int | None = None
    """Set by :meth:`Store.write` for a deal: the new game's id, which the stored event carries (the
    ``event`` handed in is never changed)."""
    fence: int = 0
    """The writer's fencing token (a cluster node's lease on the table): refused when the table's
    owner has a newer one. 0 in one process, where nobody else writes."""


@dataclass(frozen=True)
class LedgerEntry:
    seat: int
    account_id: str | None
    nickname: str
    delta: int


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{data_dir / 'niugui.sqlite3'}"


class Store:
    """All database access. Methods run synchronously; each write is one transaction."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: Engine = sa.create_engine(
            url,
            future=True,
            pool_pre_ping=not url.startswith("sqlite"),
            hide_parameters=True,  # an error's text (logged) never quotes a deck, a salt or a token
        )
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)

    def migrate(self) -> None:
        """Create or upgrade the schema to the newest migration (Alembic, kept in the package)."""
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
        with self.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def close(self) -> None:
        self.engine.dispose()

    # ---- accounts -----------------------------------------------------------------------------

    def create_account(self, account_id: str, nickname: str, token_hash: str) -> AccountRow:
        now = time.time()
        with self.engine.begin() as c:
            c.execute(accounts.insert().values(id=account_id, nickname=nickname, created_at=now))
            c.execute(
                sessions.insert().values(
                    token_hash=token_hash, account_id=account_id, created_at=now, last_used_at=now
                )
            )
        return AccountRow(account_id, nickname, None)

    def add_session(self, account_id: str, token_hash: str) -> None:
        now = time.time()
        with self.engine.begin() as c:
            c.execute(
                sessions.insert().values(
                    token_hash=token_hash, account_id=account_id, created_at=now, last_used_at=now
                )
            )

    def account_by_token_hash(self, token_hash: str, max_age: float | None = None) -> AccountRow | None:
        """The account of a session that has not expired (unused for ``max_age`` seconds); using it
        refreshes it (written at most once an hour, so a busy session costs no write per request)."""
        now = time.time()
        with self.engine.begin() as c:
            row = c.execute(
                sa.select(
                    accounts.c.id,
                    accounts.c.nickname,
                    accounts.c.username,
                    accounts.c.bot,
                    sessions.c.last_used_at,
                )
                .join(sessions, sessions.c.account_id == accounts.c.id)
                .where(sessions.c.token_hash == token_hash)
            ).first()
            if row is None:
                return None
            used = row.last_used_at or 0.0
            if max_age is not None and used < now - max_age:
                c.execute(sessions.delete().where(sessions.c.token_hash == token_hash))
                return None
        if now - used > 3600:
            try:
                with self.engine.begin() as c:
                    c.execute(
                        sessions.update().where(sessions.c.token_hash == token_hash).values(last_used_at=now)
                    )
            except sa.exc.OperationalError as error:  # a locked database: refresh it next time
                if not is_locked(error):
                    raise
        return AccountRow(row.id, row.nickname, row.username, bool(row.bot))

    def end_session(self, token_hash: str) -> str | None:
        """Revoke one session (log out); the account it belonged to, if it existed."""
        with self.engine.begin() as c:
            account = c.execute(
                sa.select(sessions.c.account_id).where(sessions.c.token_hash == token_hash)
            ).scalar()
            c.execute(sessions.delete().where(sessions.c.token_hash == token_hash))
        return None if account is None else str(account)

    def end_sessions(self, account_id: str) -> int:
        """Revoke every session of an account ("sign out everywhere"); how many there were."""
        with self.engine.begin() as c:
            return c.execute(sessions.delete().where(sessions.c.account_id == account_id)).rowcount or 0

    def purge_sessions(self, max_age: float) -> int:
        """Delete sessions unused for ``max_age`` seconds."""
        with self.engine.begin() as c:
            expired = sessions.c.last_used_at < time.time() - max_age
            return c.execute(sessions.delete().where(expired)).rowcount or 0

    def credentials(self, username: str) -> tuple[AccountRow, str] | None:
        with self.engine.begin() as c:
            row = c.execute(sa.select(accounts).where(accounts.c.username == username)).first()
        if row is None or row.password_hash is None:
            return None
        return AccountRow(row.id, row.nickname, row.username, bool(row.bot)), row.password_hash

    def set_credentials(
        self, account_id: str, username: str, password_hash: str, nickname: str | None, bot: bool = False
    ) -> bool:
        """Register an account (as a bot account with ``bot``); False when the username is taken."""
        values: dict[str, Any] = {"username": username, "password_hash": password_hash}
        if bot:
            values["bot"] = True
        if nickname:
            values["nickname"] = nickname
        try:
            with self.engine.begin() as c:
                c.execute(accounts.update().where(accounts.c.id == account_id).values(**values))
        except sa.exc.IntegrityError:
            return False
        return True

    def account(self, account_id: str) -> AccountRow | None:
        with self.engine.begin() as c:
            row = c.execute(sa.select(accounts).where(accounts.c.id == account_id)).first()
        return None if row is None else AccountRow(row.id, row.nickname, row.username, bool(row.bot))

    def bot_account_names(self) -> list[str]:
        """Every bot account's nickname and username: guests may not take them (issue 33, finding 10)."""
        with self.engine.begin() as c:
            rows = c.execute(sa.select(accounts.c.nickname, accounts.c.username).where(accounts.c.bot))
            return [name for row in rows for name in (row.nickname, row.username) if name]

    def bot_accounts(self, account_ids: Sequence[str]) -> set[str]:
        """Which of ``account_ids`` are bot accounts."""
        if not account_ids:
            return set()
        with self.engine.begin() as c:
            query = sa.select(accounts.c.id).where(accounts.c.id.in_(list(account_ids)), accounts.c.bot)
            return {row.id for row in c.execute(query)}

    # ---- tables and their events ----------------------------------------------------------------

    def write(self, writes: Sequence[Write], connection: Connection | None = None) -> None:
        """Store table events — of one table or many, in sequence per table — in one transaction.

        A table's first event creates it; a deal stores its game (the stored ``deal`` event carries
        the new game's id, also set as the write's ``game_id``); a game's end stores its record and
        ledger entries. Each write's ``payload`` is set to the event's JSON as stored; the events
        themselves are left as they were handed in. Raises if a table's events do not follow its stored ones.
        ``connection``: one the caller keeps open (the event writer's), instead of one from the pool.
        """
        if connection is None:
            with self.engine.begin() as c:
                _write(c, writes)
        else:
            with connection.begin():
                _write(connection, writes)

    def table_ids(self, include_finished: bool = False) -> list[str]:
        query = sa.select(tables.c.id).order_by(tables.c.created_at)
        if not include_finished:
            query = query.where(tables.c.status != "finished")
        with self.engine.begin() as c:
            return [row.id for row in c.execute(query)]

    def claim(self, table_id: str, fence: int) -> bool:
        """Raise a table's fencing token to ``fence`` (a cluster node took it over): from now on
        writes with an older token are refused. False if the table has a newer one (or none)."""
        with self.engine.begin() as c:
            return _claim(c, table_id, fence)

    def table_of_code(self, code: str) -> str | None:
        """The unfinished table with this join code (a cluster node asked for one it does not hold)."""
        with self.engine.begin() as c:
            found = c.execute(
                sa.select(tables.c.id).where(tables.c.code == code, tables.c.status != "finished")
            ).scalar()
        return None if found is None else str(found)

    def table_row(self, table_id: str) -> dict[str, Any] | None:
        with self.engine.begin() as c:
            row = c.execute(sa.select(tables).where(tables.c.id == table_id)).first()
        return None if row is None else dict(row._mapping)

    def events(self, table_id: str, after: int = 0) -> list[StoredEvent]:
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(table_events)
                .where(table_events.c.table_id == table_id, table_events.c.seq > after)
                .order_by(table_events.c.seq)
            ).all()
        return [StoredEvent(r.seq, r.kind, r.payload, r.created_at) for r in rows]

    def table_names(self, table_ids: Iterable[str]) -> dict[str, str]:
        """Each table's name (its creator's choice, from its latest settings event)."""
        wanted = sorted(set(table_ids))
        if not wanted:
            return {}
        kinds = ("table_created", "settings_changed")
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(table_events.c.table_id, table_events.c.payload)
                .where(table_events.c.table_id.in_(wanted), table_events.c.kind.in_(kinds))
                .order_by(table_events.c.seq)
            ).all()
        names: dict[str, str] = {}
        for row in rows:
            try:
                names[row.table_id] = str(json.loads(row.payload)["settings"].get("name") or "")
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
        return names

    def games_of(self, table_id: str) -> list[GameRow]:
        """Every game of a table (their deals rebuild the table), oldest first."""
        with self.engine.begin() as c:
            rows = c.execute(sa.select(games).where(games.c.table_id == table_id).order_by(games.c.id)).all()
        return [_game_row(row) for row in rows]

    def stored_tables(
        self, table_ids: Sequence[str], recent: int, fences: Mapping[str, int] | None = None
    ) -> dict[str, StoredTable]:
        """What each table is rebuilt from (:class:`StoredTable`), read in one transaction — a table
        never stored is absent. ``recent``: at least this many of its latest events are read (a
        reconnect is sent them). ``fences``: each table's fencing token is raised to its own first, as
        :meth:`claim` does, and a table whose token could not be raised (it has a newer one) is left
        out; the events are read after the raise, so the table's previous owner can add none. The rows
        are locked in the order of their ids, as the event writer locks them (no deadlock)."""
        ordered = sorted(set(table_ids))
        with self.engine.begin() as c:
            ids = [t for t in ordered if fences is None or _claim(c, t, fences[t])]
            rows = c.execute(sa.select(tables).where(tables.c.id.in_(ids))).all() if ids else []
            return {row.id: _stored_table(c, row, recent) for row in rows}

    def game(self, game_id: int) -> GameRow | None:
        with self.engine.begin() as c:
            row = c.execute(sa.select(games).where(games.c.id == game_id)).first()
        return None if row is None else _game_row(row)

    # ---- ledger, leaderboard, history ---------------------------------------------------------------

    def table_ledger(self, table_id: str) -> list[dict[str, Any]]:
        """A table's ledger entries; ``bot`` marks a bot's seat (a bot account's, or the server's bot)."""
        bot = sa.func.coalesce(accounts.c.bot, ledger.c.account_id.is_(None)).label("bot")
        with self.engine.begin() as c:
            rows = c.execute(
                sa.select(ledger, bot)
                .outerjoin(accounts, accounts.c.id == ledger.c.account_id)
                .where(ledger.c.table_id == table_id)
                .order_by(ledger.c.id)
            ).all()
        return [{**r._mapping, "bot": bool(r.bot)} for r in rows]

    def leaderboard(self, limit: int = 50) -> list[dict[str, Any]]:
        """Accounts by the points of their rated games (issue 15, finding 9): only games that moved a
        rating count, so games against bots alone and unrated (private) tables farm nothing here; an
        account's other games stay in its history and its table's ledger."""
        total = sa.func.sum(ledger.c.delta).label("total")
        count = sa.func.count(ledger.c.id).label("games")
        rated = sa.select(rating_history.c.game_id)  # uncorrelated: read once, not once per ledger row
        query = (
            sa.select(accounts.c.id, accounts.c.nickname, accounts.c.bot, total, count)
            .join(ledger, ledger.c.account_id == accounts.c.id)
            .where(ledger.c.game_id.in_(rated))
            .group_by(accounts.c.id, accounts.c.nickname, accounts.c.bot)
            .order_by(total.desc(), count.desc(), accounts.c.id)
            .limit(limit)
        )
        with self.engine.begin() as c:
            return [
                {
                    "id": r.id,
                    "nickname": r.nickname,
                    "total": int(r.total),
                    "games": int(r.games),
                    **({"bot": True} if r.bot else {}),  # a bot account (the key only then)
                }
                for r in c.execute(query)
            ]

    def history(self, account_id: str, limit: int = 50, viewer: str | None = None) -> list[dict[str, Any]]:
        """An account's games, newest first, as ``viewer`` may see them: games at a private table
        only when the viewer is that account or played at that table too."""
        query = (
            sa.select(
                ledger.c.game_id,
                ledger.c.table_id,
                games.c.game_no,
                ledger.c.seat,
                ledger.c.delta,
                ledger.c.outcome,
                games.c.finished_at,
            )
            .join(games, games.c.id == ledger.c.game_id)
            .where(ledger.c.account_id == account_id, _seen_by(account_id, viewer))
            .order_by(ledger.c.id.desc())
            .limit(limit)
        )
        with self.engine.begin() as c:
            return [
                {
                    "game_id": r.game_id,
                    "table": r.table_id,
                    "game_no": r.game_no,
                    "seat": r.seat,
                    "delta": r.delta,
                    "outcome": r.outcome,
                    "finished_at": r.finished_at,
                }
                for r in c.execute(query)
            ]

    # ---- ratings, profiles, fair play (docs/community.md) ------------------------------------------

    def rating(self, account_id: str) -> tuple[Rating, int] | None:
        """An account's rating and how many rated games moved it; None before its first."""
        with self.engine.begin() as c:
            row = c.execute(sa.select(ratings).where(ratings.c.account_id == account_id)).first()
        return None if row is None else (Rating(row.mu, row.sigma), int(row.games))

    def player_card(self, account_id: str, window: int) -> PlayerCard:
        """What a seat shows of its player, and what quick play's fair-play rule reads."""
        escaped = ESCAPED
        with self.engine.begin() as c:
            games_played, escapes = _played_and_escaped(c, ledger.c.account_id == account_id)
            last = (
                sa.select(sa.case((escaped, 1), else_=0).label("escaped"))
                .where(ledger.c.account_id == account_id)
                .order_by(ledger.c.id.desc())
                .limit(window)
                .subquery()
            )
            recent = c.execute(sa.select(sa.func.coalesce(sa.func.sum(last.c.escaped), 0))).scalar_one()
            row = c.execute(sa.select(ratings).where(ratings.c.account_id == account_id)).first()
        return PlayerCard(
            rating=None if row is None else Rating(row.mu, row.sigma).shown,
            escape_rate=None if not games_played else escapes / games_played,
            recent_escapes=int(recent),
            games=int(games_played),
            escapes=int(escapes),
        )

    def rating_version(self) -> int:
        """The newest rating-history id (0 before any rated game): when it is unchanged, neither
        leaderboard is (``niugui/server/boards.py``). One lookup of the primary key's index."""
        with self.engine.begin() as c:
            return int(c.execute(sa.select(sa.func.max(rating_history.c.id))).scalar() or 0)

    def rating_leaderboard(self, limit: int, min_games: int) -> list[dict[str, Any]]:
        """Accounts by shown rating (μ − 3σ), those with at least ``min_games`` rated games."""
        conservative = (ratings.c.mu - 3 * ratings.c.sigma).label("conservative")
        query = (
            sa.select(accounts.c.id, accounts.c.nickname, ratings.c.mu, ratings.c.sigma, ratings.c.games)
            .join(ratings, ratings.c.account_id == accounts.c.id)
            .where(ratings.c.games >= min_games)
            .order_by(conservative.desc(), ratings.c.games.desc(), accounts.c.id)
            .limit(limit)
        )
        with self.engine.begin() as c:
            return [
                {"id": r.id, "nickname": r.nickname, "games": int(r.games), **Rating(r.mu, r.sigma).to_dict()}
                for r in c.execute(query)
            ]

    def co_players(self, account_ids: Sequence[str], window: int) -> dict[str, list[frozenset[str]]]:
        """For each account, the other human accounts at each of its last ``window`` rated games,
        newest first (what :mod:`niugui.server.collusion` reads)."""
        if not account_ids:
            return {}
        other = ledger.alias("other")
        query = (
            sa.select(rating_history.c.id, rating_history.c.account_id, other.c.account_id.label("other"))
            .join(other, other.c.game_id == rating_history.c.game_id)
            .where(
                rating_history.c.account_id.in_(list(account_ids)),
                other.c.account_id.is_not(None),
                other.c.account_id != rating_history.c.account_id,
            )
            .order_by(rating_history.c.id.desc())
        )
        games: dict[str, dict[int, set[str]]] = {a: {} for a in account_ids}
        with self.engine.begin() as c:
            for row in c.execute(query):
                mine = games[row.account_id]
                if row.id in mine or len(mine) < window:
                    mine.setdefault(row.id, set()).add(row.other)
        return {a: [frozenset(others) for others in by_game.values()] for a, by_game in games.items()}

    def rating_history(self, account_id: str, limit: int = 500) -> list[dict[str, Any]]:
        """An account's rating after each of its last ``limit`` rated games, oldest first."""
        query = (
            sa.select(rating_history.c.mu, rating_history.c.sigma, rating_history.c.created_at)
            .where(rating_history.c.account_id == account_id)
            .order_by(rating_history.c.id.desc())
            .limit(limit)
        )
        with self.engine.begin() as c:
            rows = c.execute(query).all()
        return [{**Rating(r.mu, r.sigma).to_dict(), "at": r.created_at} for r in reversed(rows)]

    def results_of(
        self, account_id: str, viewer: str | None, limit: int = 1000
    ) -> list[tuple[int, dict[str, Any]]]:
        """(seat, result) of an account's last ``limit`` finished games that ``viewer`` may see (as
        :meth:`history`), newest first — but an event's boards (issue 30: a profile would tell a board's
        result to those who have not played it)."""
        query = (
            sa.select(ledger.c.seat, games.c.result)
            .join(games, games.c.id == ledger.c.game_id)
            .join(tables, tables.c.id == ledger.c.table_id)
            .where(
                ledger.c.account_id == account_id,
                games.c.result.is_not(None),
                tables.c.creator.not_like(EVENT_CREATOR + "%"),
            )
            .where(_seen_by(account_id, viewer))
            .order_by(ledger.c.id.desc())
            .limit(limit)
        )
        with self.engine.begin() as c:
            return [(int(r.seat), json.loads(r.result)) for r in c.execute(query)]

    def games_seen(self, account_id: str, viewer: str | None) -> tuple[int, int]:
        """(games, escapes) of an account, counting only the games ``viewer`` may see (a profile:
        issue 33, finding 11 — an outsider saw ``games: 1`` for a player whose one game was private)."""
        with self.engine.begin() as c:
            return _played_and_escaped(c, (ledger.c.account_id == account_id) & _seen_by(account_id, viewer))


ESCAPED = (ledger.c.outcome == "escape") & (ledger.c.delta < 0)
"""A ledger row of an escape that cost points (R35)."""


def _played_and_escaped(c: Connection, where: sa.ColumnElement[bool]) -> tuple[int, int]:
    """(games, escapes) among the ledger rows ``where`` selects: one count for the seat card and the
    profile."""
    query = sa.select(
        sa.func.count(ledger.c.id), sa.func.coalesce(sa.func.sum(sa.case((ESCAPED, 1), else_=0)), 0)
    ).where(where)
    played, escapes = c.execute(query).one()
    return int(played), int(escapes)


def _seen_by(account_id: str, viewer: str | None) -> sa.ColumnElement[bool]:
    """Which of ``account_id``'s ledger rows ``viewer`` may see: all for the account itself; else the
    games at public tables and at private tables the viewer played at too (issue 15, finding 12)."""
    if viewer == account_id:
        return sa.true()
    mine = ledger.alias("mine")
    private = sa.select(tables.c.id).where(tables.c.code.is_not(None))
    shared = sa.select(mine.c.table_id).where(mine.c.account_id == viewer, mine.c.account_id.is_not(None))
    return sa.or_(ledger.c.table_id.not_in(private), ledger.c.table_id.in_(shared))


@dataclass(frozen=True)
class PlayerCard:
    """A player as a seat shows them (their rating, their escape rate) and as fair play counts them."""

    rating: int | None = None
    """The shown rating, None before a first rated game."""
    escape_rate: float | None = None
    """Escapes (R35) per game played, None before a first game."""
    recent_escapes: int = 0
    """Escapes in their last ``escape_window`` games."""
    games: int = 0
    escapes: int = 0


_INSERT_EVENT = table_events.insert()
_BUMP_TABLE = (
    tables.update()
    .where(
        tables.c.id == sa.bindparam("b_id"),
        tables.c.last_seq == sa.bindparam("b_prev"),
        tables.c.fence <= sa.bindparam("b_fence"),
    )
    .values(
        last_seq=sa.bindparam("b_seq"),
        status=sa.bindparam("b_status"),
        updated_at=sa.bindparam("b_now"),
        fence=sa.bindparam("b_fence"),
    )
)
"""Appending events is the hot path (one per action at every table): these two statements run as
executemany over a batch of many tables' events, compiled once per dialect (:class:`_Hot`)."""


class _Hot:
    """The hot statements compiled for one dialect, run on the driver's cursor inside the
    transaction: SQLAlchemy's execution path cost more than the database did for them."""

    def __init__(self, dialect: sa.engine.Dialect) -> None:
        columns = ["table_id", "seq", "kind", "payload", "created_at"]
        insert = _INSERT_EVENT.compile(dialect=dialect, column_keys=columns)
        bump = _BUMP_TABLE.compile(dialect=dialect)
        self.insert, self.bump = str(insert), str(bump)
        self._insert_order = list(insert.positiontup or []) if insert.positional else None
        self._bump_order = list(bump.positiontup or []) if bump.positional else None

    def insert_params(self, row: dict[str, Any]) -> Any:
        return row if self._insert_order is None else tuple(row[k] for k in self._insert_order)

    def bump_params(self, bump: dict[str, Any]) -> Any:
        return bump if self._bump_order is None else tuple(bump[k] for k in self._bump_order)


_HOT: dict[str, _Hot] = {}


def _hot_statements(dialect: sa.engine.Dialect) -> _Hot:
    hot = _HOT.get(dialect.name)
    if hot is None:
        hot = _HOT[dialect.name] = _Hot(dialect)
    return hot


def _write(c: Connection, writes: Sequence[Write]) -> None:
    rows = []
    bumps: dict[str, dict[str, Any]] = {}
    for w in writes:
        if w.creator is not None:
            c.execute(
                tables.insert().values(
                    id=w.table_id,
                    creator=w.creator,
                    code=w.code,
                    status="waiting",
                    last_seq=0,
                    created_at=w.time,
                    updated_at=w.time,
                    fence=w.fence,
                )
            )
        event = w.event
        if w.deal is not None:
            assert isinstance(event, EvDeal), "a game is stored with its deal event"
            w.game_id = _insert_game(c, w.table_id, w.deal, w.time, w.table_state)
            event = event.model_copy(update={"game_id": w.game_id})
        if w.record is not None:
            _finish_game(c, w, w.record)
        w.payload = event.model_dump_json()
        rows.append(
            {
                "table_id": w.table_id,
                "seq": w.seq,
                "kind": w.event.kind,
                "payload": w.payload,
                "created_at": w.time,
            }
        )
        bump = bumps.get(w.table_id)
        if bump is None:
            bumps[w.table_id] = {"b_id": w.table_id, "b_prev": w.seq - 1, "b_seq": w.seq, "b_fence": w.fence}
        elif w.seq != bump["b_seq"] + 1:
            raise RuntimeError(f"table {w.table_id}: event {w.seq} does not follow {bump['b_seq']}")
        bump = bumps[w.table_id]
        bump.update(b_seq=w.seq, b_status=w.status, b_now=w.time)
    hot = _hot_statements(c.dialect)
    cursor = c.connection.cursor()
    try:
        if rows:
            cursor.executemany(hot.insert, [hot.insert_params(row) for row in rows])
        # the tables' rows locked in the order of their ids, as a takeover's claims lock them
        params = [hot.bump_params(bumps[table_id]) for table_id in sorted(bumps)]
        if c.dialect.supports_sane_multi_rowcount or len(params) == 1:
            cursor.executemany(hot.bump, params)
            updated = cursor.rowcount
        else:
            updated = 0
            for one in params:
                cursor.execute(hot.bump, one)
                updated += cursor.rowcount
    except c.dialect.loaded_dbapi.Error as error:  # as SQLAlchemy would raise it (IntegrityError, ...)
        raise sa.exc.DBAPIError.instance(None, None, error, c.dialect.loaded_dbapi.Error) from error
    finally:
        cursor.close()
    if updated != len(params):
        raise StaleWrite("a table's events do not follow its stored sequence, or its owner changed")


def _stored_table(c: Connection, row: Any, recent: int) -> StoredTable:
    """One table's part of :meth:`Store.stored_tables`: its latest game with the state saved before
    it (the ``games`` index on table and id finds it at once), or, when that game has none (dealt
    before migration 0011), every game and no state; then its events."""
    by_table = sa.select(games).where(games.c.table_id == row.id)
    latest = c.execute(by_table.order_by(games.c.id.desc()).limit(1)).first()
    saved = None if latest is None else latest.table_state
    found = [latest] if saved is not None else c.execute(by_table.order_by(games.c.id)).all()
    state_seq = int(latest.state_seq) if latest is not None and saved is not None else 0
    after = max(0, min(state_seq, row.last_seq - recent))
    events = c.execute(
        sa.select(table_events)
        .where(table_events.c.table_id == row.id, table_events.c.seq > after)
        .order_by(table_events.c.seq)
    ).all()
    return StoredTable(
        row.creator,
        row.code,
        row.status,
        saved,
        [_game_row(g) for g in found],
        [StoredEvent(e.seq, e.kind, e.payload, e.created_at) for e in events],
    )


def _claim(c: Connection, table_id: str, fence: int) -> bool:
    query = tables.update().where(tables.c.id == table_id, tables.c.fence < fence)
    return (c.execute(query.values(fence=fence)).rowcount or 0) == 1


class StaleWrite(RuntimeError):
    """Refused: the events do not follow the stored ones (non-contiguous ``seq``), or the writer's
    fencing token is older than the table's (a cluster node that lost its lease)."""


def _insert_game(
    c: Connection, table_id: str, deal: DealData, now: float, table_state: tuple[int, str] | None
) -> int:
    inserted = c.execute(
        games.insert().values(
            table_id=table_id,
            state_seq=None if table_state is None else table_state[0],
            table_state=None if table_state is None else table_state[1],
            game_no=deal.game_no,
            first_drawer=deal.first_drawer,
            deck=",".join(deal.deck),
            salt=deal.salt,
            commitment=deal.commitment,
            meta=_dump(deal.meta),
            status="playing",
            started_at=now,
        )
    ).inserted_primary_key
    assert inserted is not None
    return int(inserted[0])


def _finish_game(c: Connection, w: Write, record: dict[str, Any]) -> None:
    assert isinstance(w.event, EvGameOver), "a game's record is stored with its game_over event"
    game_id = w.event.game_id
    c.execute(
        games.update()
        .where(games.c.id == game_id)
        .values(status="over", result=_dump(record["result"]), record=_dump(record), finished_at=w.time)
    )
    if w.rated is not None:
        _rate(c, w.rated, game_id, w.time)
    if w.entries:
        outcome = record["result"]["outcome"]
        c.execute(
            ledger.insert(),
            [
                {
                    "table_id": w.table_id,
                    "game_id": game_id,
                    "seat": e.seat,
                    "account_id": e.account_id,
                    "nickname": e.nickname,
                    "delta": e.delta,
                    "outcome": outcome,
                    "created_at": w.time,
                }
                for e in w.entries
            ],
        )


def _rate(c: Connection, game: RatedGame, game_id: int, now: float) -> None:
    """Move the ratings of a rated game's people (niugui.ratings: teams from R10, ranks from R32–R34,
    an escape the worst result); bots keep their published ratings. One history row per moved rating."""
    people = [a for a in game.accounts if a is not None]
    stored = {
        r.account_id: r for r in c.execute(sa.select(ratings).where(ratings.c.account_id.in_(people))).all()
    }
    before: list[Rating] = []
    for account, bot in zip(game.accounts, game.bots, strict=True):
        row = stored.get(account) if account is not None else None
        if account is None:
            before.append(BOT_RATINGS.get(bot or "", Rating()))
        else:
            before.append(Rating() if row is None else Rating(row.mu, row.sigma))
    after = rate_game(game.result, before, [a is None for a in game.accounts])
    for account, old, new in zip(game.accounts, before, after, strict=True):
        if account is None or new is old:
            continue  # a bot, or a seat an escape of another did not move (R35)
        values = {"mu": new.mu, "sigma": new.sigma, "updated_at": now}
        if account in stored:
            c.execute(
                ratings.update()
                .where(ratings.c.account_id == account)
                .values(games=ratings.c.games + 1, **values)
            )
        else:
            c.execute(ratings.insert().values(account_id=account, games=1, **values))
        c.execute(
            rating_history.insert().values(
                account_id=account, game_id=game_id, mu=new.mu, sigma=new.sigma, created_at=now
            )
        )


def _game_row(row: Any) -> GameRow:
    return GameRow(
        row.id,
        row.table_id,
        row.game_no,
        row.first_drawer,
        row.deck.split(","),
        row.salt,
        row.commitment,
        json.loads(row.meta),
        row.status,
        None if row.record is None else json.loads(row.record),
    )


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


BUSY_TIMEOUT_MS = 1000
"""How long one SQLite statement waits for another process's write lock before it fails as locked:
short, because the event writer retries (:func:`is_locked`) and nothing on the event loop waits."""


def is_locked(error: BaseException) -> bool:
    """Did ``error`` come from a database that another connection holds locked (SQLite's "database
    is locked"/"busy")? Such a failure is transient: the same write succeeds once the lock is gone."""
    cause = getattr(error, "orig", error)
    text = str(cause).lower()
    return isinstance(error, sa.exc.OperationalError) and ("locked" in text or "busy" in text)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # a killed process loses no committed transaction
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.close()
