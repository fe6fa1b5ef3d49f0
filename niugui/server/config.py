"""Server configuration: where the data lives and the knobs tests turn (timers, grace, rate limit),
and the fair-use limits (docs/security.md), each settable with ``niugui serve --limit NAME=VALUE``."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .cluster.settings import ClusterSettings
from .timer import TURN_SECONDS_DEFAULT

Transport = Literal["direct", "asgi"]
"""``niugui serve --transport``: WebSockets through the direct path or through plain ASGI."""


@dataclass
class Limits:
    """What one account or one address may use. Rates are per second unless the name says otherwise;
    a bucket's burst is what may be spent at once before the rate applies. 0 disables a cap."""

    http_rate: float = 20.0
    """HTTP requests per second per address ..."""
    http_burst: float = 120.0
    """... with this burst (the API and everything else that is not the page's own files)."""
    page_rate: float = 100.0
    """Requests per second per address for the page's own files (``GET``/``HEAD`` outside ``/api/``,
    ``/healthz`` and ``/metrics``: served from memory, compressed once) ..."""
    page_burst: float = 1000.0
    """... with this burst: a first visit fetches about 40 files (the first screen, then the service
    worker's copy of every screen), and friends behind one address open the page at once."""
    http_account_rate: float = 10.0
    """HTTP requests per second per session token ..."""
    http_account_burst: float = 60.0
    account_rate: float = 40.0
    """WebSocket messages per second per account, over all its connections ..."""
    account_burst: float = 80.0
    address_rate: float = 200.0
    """WebSocket messages per second per address ..."""
    address_burst: float = 400.0
    chat_rate: float = 0.5
    """Quick-chat messages per second per connection ..."""
    chat_burst: float = 3.0
    """... with this burst (a fourth phrase at once is refused: rate_limited)."""
    chat_account_rate: float = 0.5
    """Quick-chat messages per second per account, over all its connections (a new connection does not
    bring a new allowance) ..."""
    chat_account_burst: float = 3.0
    chat_table_rate: float = 2.0
    """Quick-chat messages per second per table, over all its seats (four at the account rate) ..."""
    chat_table_burst: float = 8.0
    quick_account_rate: float = 1.0
    """Quick-play requests (``quick_play``, ``queue_bots``) per second per account ..."""
    quick_account_burst: float = 5.0
    quick_address_rate: float = 4.0
    """... and per address: each one runs the matcher (issue 33, finding 1)."""
    quick_address_burst: float = 20.0
    connections_per_account: int = 16
    """Open WebSockets per account."""
    connections_per_address: int = 256
    """Open WebSockets per address (counted from the handshake, before authentication)."""
    connection_rate: float = 20.0
    """TCP connections an address may open per second (HTTP and WebSocket alike) ..."""
    connection_burst: float = 120.0
    """... with this burst (as ``http_burst``: a new connection per request is common); one over is cut
    before it is read (issue 33, finding 12)."""
    http_connections_per_address: int = 64
    """Connections of one address in HTTP at once (a WebSocket leaves the count once upgraded)."""
    request_seconds: float = 10.0
    """A request's headers and body must arrive within this long of the connection's opening or of
    the previous response (slowloris: issue 33, finding 4)."""
    auth_seconds: float = 10.0
    """A new WebSocket must authenticate (its first message) within this time."""
    send_queue_bytes: int = 2 * 1024 * 1024
    """Characters of frames waiting for a slow reader before it is disconnected."""
    guests_per_address_hour: float = 60.0
    """New guest accounts per address per hour (the whole hour's worth may be spent at once)."""
    logins_per_address_minute: float = 20.0
    """Login and register attempts per address per minute."""
    login_failures_per_account_hour: float = 10.0
    """Failed logins per username per hour (then refused until the bucket refills)."""
    hash_workers: int = 1
    """Threads that hash passwords (argon2, 64 MiB each): never the game's threads."""
    hash_queue: int = 16
    """Password hashes waiting at most; beyond, login/register answer 503 at once."""
    tables_per_account_hour: float = 30.0
    """Tables one account may create per hour (finished ones count too)."""
    tables_per_address_hour: float = 120.0
    search_tables_per_account: int = 1
    """Unfinished tables with ``bot_level: search`` (the costly bot) one account may hold."""
    search_tables_per_address: int = 2
    code_guesses_per_minute: float = 10.0
    """Failed ``watch``/``sit`` (a wrong join code or table) per account per minute ..."""
    code_guesses_per_address_minute: float = 60.0
    """... and per address."""
    lobby_seconds: float = 1.0
    """How long one serialization of a lobby page is shared by every asker."""
    lobby_page: int = 100
    """Most tables in one lobby page."""
    finished_table_seconds: float = 600.0
    """A finished table is dropped from memory this long after its last event (its games stay)."""
    idle_table_seconds: float = 1800.0
    """A table not in play with nobody seated or watching is closed after this long."""
    session_days: float = 30.0
    """A session token expires this long after it was last used."""
    read_rate: float = 2.0
    """Expensive reads (leaderboards, profiles, a player's games) per second per address (per account
    when signed in), a budget apart from ``http_rate`` (issue 33, finding 3) ..."""
    read_burst: float = 20.0
    reads_at_once: int = 4
    """... and at most this many of them reading the database at once, from all addresses together
    (fewer than the pool's 5 steady connections, of its 15 with overflow, so a flood of them never
    starves a table's writes or a login; one more waits up to 2 s, then 503 ``busy``)."""
    board_seconds: float = 1.0
    """A leaderboard is computed again at most this often while rated games keep finishing; while none
    does, once a minute (``max_age``, for changed nicknames: ``niugui/server/boards.py``)."""
    club_members: int = 200
    """Members (and requests waiting) one club may have (issue 29: clubs) ..."""
    clubs_per_account: int = 20
    """... clubs one account may belong to, its own included ..."""
    club_rooms: int = 10
    """... and rooms of one club open at once."""

    def set(self, assignment: str) -> None:
        """Apply ``NAME=VALUE`` (``niugui serve --limit``); ValueError names what is wrong.

        >>> limits = Limits()
        >>> limits.set("connections_per_account=4"); limits.connections_per_account
        4
        """
        assign(self, assignment, "limit")


def assign(knobs: Limits | Community, assignment: str, what: str) -> None:
    """Set one numeric field of ``knobs`` from ``NAME=VALUE``; ValueError names what is wrong."""
    name, sep, value = assignment.partition("=")
    fields = {f.name: f for f in dataclasses.fields(knobs)}
    if not sep or name not in fields:
        raise ValueError(f"not a {what}: {assignment!r}; the {what}s are {', '.join(fields)}")
    kind = int if fields[name].type in (int, "int") else float
    try:
        number = kind(value)
    except ValueError:
        wanted = "an integer" if kind is int else "a number"
        raise ValueError(f"{name} needs {wanted}, not {value!r}") from None
    if number < 0:
        raise ValueError(f"{name} must not be negative")
    setattr(knobs, name, number)


@dataclass
class Community:
    """Quick play, ratings and fair play (docs/community.md), each settable with
    ``niugui serve --community NAME=VALUE``."""

    bots_after: float = 30.0
    """Seconds a quick-play player waits before they may fill the empty seats with bots."""
    quick_games: int = 1
    """Games at a quick-play table when nobody asked for a number."""
    quick_turn_seconds: int = int(TURN_SECONDS_DEFAULT)
    """The turn timer at a quick-play table when nobody asked for one."""
    rated_min_games: int = 5
    """Rated games a player needs to be listed on the leaderboard by rating."""
    escape_window: int = 20
    """Fair play: escapes (R35) count over a player's last this many games ..."""
    escape_free: int = 1
    """... the first this many cost nothing (a lost connection happens to everyone) ..."""
    escape_delay: float = 60.0
    """... each one beyond adds this many seconds of waiting in quick play ..."""
    escape_max_delay: float = 600.0
    """... up to this many."""
    flag_min_games: int = 10
    """Collusion (niugui/server/collusion.py): rated games before an account can be flagged ..."""
    flag_circle: int = 3
    """... how many of its most frequent co-players make its closed circle ..."""
    flag_share: float = 0.8
    """... the share of its games inside that circle that flags it ..."""
    flag_window: int = 50
    """... counted over its last this many rated games."""
    daily_boards: int = 8
    """Events (issue 30): boards of the daily challenge (每日复式), made at midnight server time ..."""
    daily_bot_level: str = "expert"
    """... and its bots' level."""
    event_turn_seconds: int = 120
    """The turn timer at an event's tables (a duplicate board is played at one's own pace)."""

    def set(self, assignment: str) -> None:
        """Apply ``NAME=VALUE`` (``niugui serve --community``).

        >>> community = Community()
        >>> community.set("bots_after=5"); community.bots_after
        5.0
        """
        assign(self, assignment, "community setting")


@dataclass
class Config:
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = field(default_factory=lambda: Path("niugui-data"))
    db_url: str | None = None
    """SQLAlchemy URL; default: SQLite in ``data_dir``. PostgreSQL: ``postgresql+psycopg://...``."""
    grace_seconds: float = 120.0
    """How long a disconnected seat may stay away during a game before it counts as an escape (R35)."""
    ready_seconds: float = 60.0
    """Between games, how long a seated player has to send ``ready`` before the seat is freed for
    someone else (0: wait for ever)."""
    bot_delay: float = 0.8
    """Seconds a bot (or 托管) waits before it plays, so people can follow the game."""
    rate_limit: float = 20.0
    """Messages per second per connection (token bucket) ..."""
    rate_burst: float = 40.0
    """... with this burst."""
    replay_limit: int = 64
    """Events kept in memory per table for reconnect replay (older ones are read from the store)."""
    replay_max: int = 500
    """A reconnect that missed more events than this gets a snapshot instead of a replay."""
    bot_budget: float = 2.0
    """Seconds a bot may think before its move is replaced by a safe fallback."""
    log_level: str = "info"
    limits: Limits = field(default_factory=Limits)
    community: Community = field(default_factory=Community)
    exempt: tuple[str, ...] = ()
    """Networks (CIDR) that per-address limits do not apply to, e.g. a load generator's 127.0.0.1."""
    cluster: ClusterSettings | None = None
    """A node of a cluster (``--redis``); None: one process holds every table."""
    transport: Transport = "direct"
    """WebSockets served with the direct path (niugui/server/transport.py; faster, on internals of
    uvicorn and websockets) or through plain ASGI (``niugui serve --transport asgi``)."""
    static_dir: Path | None = None
    """The web page; default: the package's ``niugui/web/static``."""

    def database_url(self) -> str:
        if self.db_url:
            return self.db_url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{self.data_dir.resolve() / 'niugui.sqlite3'}"
