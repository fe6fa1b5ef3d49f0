"""The lobby: public tables, paged and filtered, each page serialized once and shared by every asker
for ``seconds`` (so a thousand clients asking for the lobby cost one serialization, not a thousand).

>>> rows = [{"id": f"t{n}", "status": "waiting", "seats": [None] * 4,
...          "settings": {"bot_level": "expert"}} for n in range(5)]
>>> lobby = Lobby(lambda: rows, seconds=60, page_max=2)
>>> page = json.loads(lobby.page(LobbyQuery(limit=10, offset=1)))
>>> [t["id"] for t in page["tables"]], page["total"], page["limit"]
(['t1', 't2'], 5, 2)
>>> lobby.page(LobbyQuery(limit=10, offset=1)) is lobby.page(LobbyQuery(limit=10, offset=1))
True
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_PAGES = 512
"""Distinct pages kept per interval; beyond, the oldest interval's pages are dropped early."""


@dataclass(frozen=True)
class LobbyQuery:
    """Which tables: a page (``offset``, ``limit``) of those matching every filter given."""

    offset: int = 0
    limit: int = 50
    status: str | None = None
    free_seats: int | None = None
    """At least this many empty seats."""
    bot_level: str | None = None

    def matches(self, table: dict[str, Any]) -> bool:
        if self.status is not None and table["status"] != self.status:
            return False
        if self.free_seats is not None and sum(s is None for s in table["seats"]) < self.free_seats:
            return False
        return self.bot_level is None or table["settings"]["bot_level"] == self.bot_level


class Lobby:
    """``source()`` gives the public tables' summaries; pages of it are cached for ``seconds``."""

    def __init__(self, source: Callable[[], list[dict[str, Any]]], seconds: float, page_max: int) -> None:
        self.source, self.seconds, self.page_max = source, seconds, max(1, page_max)
        self._stamp = float("-inf")
        self._tables: list[dict[str, Any]] = []
        self._pages: dict[LobbyQuery, str] = {}
        self.builds = 0
        """How many times the table list was read from the hub (tests and metrics)."""

    def page(self, query: LobbyQuery) -> str:
        """The JSON text of ``{"tables": [...], "total", "offset", "limit"}`` for ``query``."""
        now = time.monotonic()
        if now - self._stamp >= self.seconds or len(self._pages) >= MAX_PAGES:
            self._tables = self.source()
            self._pages = {}
            self._stamp = now
            self.builds += 1
        query = LobbyQuery(
            max(0, query.offset),
            min(max(1, query.limit), self.page_max),
            query.status,
            query.free_seats,
            query.bot_level,
        )
        text = self._pages.get(query)
        if text is None:
            chosen = [t for t in self._tables if query.matches(t)]
            page = chosen[query.offset : query.offset + query.limit]
            text = self._pages[query] = json.dumps(
                {"tables": page, "total": len(chosen), "offset": query.offset, "limit": query.limit},
                ensure_ascii=False,
                separators=(",", ":"),
            )
        return text
