"""A player's profile (``GET /api/players/{id}/profile``): rating and its history, games played,
上游 rate, results by mode and role, escape rate, and the recent games the asker may see."""

from __future__ import annotations

from typing import Any

from .protocol import ModeResults, Profile, ProfileGame, RatingInfo, RatingPoint
from .store import Store

RESULTS_READ = 1000
"""The profile's rates and results cover the player's last this many games."""


def role(seat: int, result: dict[str, Any]) -> str:
    """The profile's key for a seat's game: ``2v2``, or in 1v3 (R10) ``1v3 alone`` / ``1v3 three``.

    >>> role(1, {"mode": "1v3", "black": [1]}), role(0, {"mode": "1v3", "black": [1]})
    ('1v3 alone', '1v3 three')
    """
    if result.get("mode") != "1v3":
        return "2v2"
    return "1v3 alone" if seat in result.get("black", []) else "1v3 three"


def results(rows: list[tuple[int, dict[str, Any]]]) -> tuple[dict[str, ModeResults], int]:
    """Results by role, and how many games the seat finished first (上游, R32), from (seat, result)."""
    modes = {key: ModeResults() for key in ("2v2", "1v3 alone", "1v3 three")}
    upstream = 0
    for seat, result in rows:
        line = modes[role(seat, result)]
        score = result["scores"][seat]
        line.games += 1
        line.won += score > 0
        line.lost += score < 0
        line.drawn += score == 0
        line.outcomes[result["outcome"]] = line.outcomes.get(result["outcome"], 0) + 1
        upstream += bool(result["finish"]) and result["finish"][0] == seat
    return modes, upstream


def profile(store: Store, account_id: str, viewer: str | None, window: int) -> Profile | None:
    account = store.account(account_id)
    if account is None:
        return None
    rated = store.rating(account_id)
    played, escapes = store.games_seen(account_id, viewer)  # private games only for who may see them
    rows = store.results_of(account_id, viewer, RESULTS_READ)
    modes, upstream = results(rows)
    return Profile(
        id=account.id,
        nickname=account.nickname,
        registered=account.username is not None,
        rating=None if rated is None else RatingInfo(**rated[0].to_dict(), games=rated[1]),
        history=[RatingPoint(**point) for point in store.rating_history(account_id)],
        games=played,
        upstream_rate=None if not rows else upstream / len(rows),
        escapes=escapes,
        escape_rate=None if not played else escapes / played,
        modes=modes,
        recent=[ProfileGame(**game) for game in store.history(account_id, 10, viewer=viewer)],
    )
