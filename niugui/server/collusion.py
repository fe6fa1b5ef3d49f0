"""Collusion flags: accounts whose results come mostly from the same few opponents (issue 15, finding 9).

One person controlling four free guest accounts at a private table can throw games to one of them
(the red team farmed 24 points in 15 games). Nothing on the server can tell four accounts of one
person from four friends who always play together; what it can see is that an account's results come
from a closed circle. An account is *flagged* when at least ``min_games`` of its recent rated games
were played and in at least ``share`` of them every other human at the table was one of its
``circle`` most frequent co-players. Flagged accounts are marked on the leaderboards (and left out of
their ranking: see ``docs/security.md``), never hidden from their own profile or history.

>>> games = [frozenset({"b", "c", "d"})] * 12            # always the same three
>>> flagged(games)
True
>>> varied = [frozenset({f"x{n}", f"y{n}"}) for n in range(12)]   # a new table every time
>>> flagged(varied)
False
>>> flagged(games[:5])                                    # too few games to say
False
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import Community
    from .store import Store


@dataclass(frozen=True)
class Rule:
    """When an account is flagged (configurable: ``Community.flag_*``, ``niugui serve --community``)."""

    min_games: int = 10
    """Rated games needed before anything is said."""
    circle: int = 3
    """How many of its most frequent co-players make the closed circle."""
    share: float = 0.8
    """The share of its games played inside the circle that flags it."""
    window: int = 50
    """Only this many of its most recent rated games count (a changed habit clears the flag)."""


def concentration(games: Sequence[frozenset[str]], circle: int = 3) -> float:
    """The share of ``games`` (each: the other human accounts at the table) in which every other
    human is one of the ``circle`` accounts met most often; 0.0 for no games. Games with no other
    human (against bots only) are not rated and must not be passed."""
    if not games:
        return 0.0
    met = Counter(account for others in games for account in others)
    ranked = sorted(met.items(), key=lambda item: (-item[1], item[0]))  # ties by name: order-free
    inner = {account for account, _ in ranked[:circle]}
    return sum(1 for others in games if others <= inner) / len(games)


def flagged(games: Sequence[frozenset[str]], rule: Rule = Rule()) -> bool:
    """Is an account whose recent rated games (newest first) are ``games`` flagged by ``rule``?"""
    recent = games[: rule.window]
    return len(recent) >= rule.min_games and concentration(recent, rule.circle) >= rule.share


def mark(store: Store, rows: list[dict[str, Any]], settings: Community) -> list[dict[str, Any]]:
    """The rating leaderboard's ``rows`` (best first) with ``flagged`` set on each: the flagged ones
    are moved after the others, keeping their order, and carry no ``rank``; the others are ranked 1, 2 …"""
    rule = Rule(settings.flag_min_games, settings.flag_circle, settings.flag_share, settings.flag_window)
    games = store.co_players([row["id"] for row in rows], rule.window)
    for row in rows:
        row["flagged"] = flagged(games.get(row["id"], []), rule)
    ranked = [row for row in rows if not row["flagged"]]
    for n, row in enumerate(ranked, start=1):
        row["rank"] = n
    return ranked + [dict(row, rank=None) for row in rows if row["flagged"]]
