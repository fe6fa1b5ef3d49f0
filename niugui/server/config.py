"""Server configuration: where the data lives and the knobs tests turn (timers, grace, rate limit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Config:
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = field(default_factory=lambda: Path("niugui-data"))
    db_url: str | None = None
    """SQLAlchemy URL; default: SQLite in ``data_dir``. PostgreSQL: ``postgresql+psycopg://...``."""
    grace_seconds: float = 120.0
    """How long a disconnected seat may stay away during a game before it counts as an escape (R35)."""
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
    static_dir: Path | None = None
    """The web page; default: the package's ``niugui/web/static``."""

    def database_url(self) -> str:
        if self.db_url:
            return self.db_url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{self.data_dir.resolve() / 'niugui.sqlite3'}"
