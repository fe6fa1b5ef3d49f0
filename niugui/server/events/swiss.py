"""Swiss tournaments for people (issue 30): the ``swiss`` kind of event.

Registration (``POST /api/events/{id}/join``) until the start — ``starts_at``, or earlier when the
owner starts it (``POST /api/events/{id}/start``); an event made without ``starts_at`` waits for its
owner. Then R rounds of G games: each round pairs the entrants not dropped by standing at tables of
four (:mod:`.swiss_pairing`), opened as ordinary tables with the people seated
(:mod:`.swiss_rounds`); the next round begins when the last table of the round ends. Places score
(``place_points``, by default 上游 3, 二游 2, 三游 1, 下游 0, R30) with the games' points (R33–R35) as
the tie-break (:mod:`.swiss_standings`). ``play_event`` takes an entrant back to their table of the
round. ``GET /api/events/{id}`` shows the entrants, the live standings, a page per round (its tables,
their seats and games) and, once it is over, the final table.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

from ..config import Community
from ..protocol import EventCreate
from .base import EventRefused, Seating
from .store import EventRow, EventStore
from .swiss_progress import SwissProgress, SwissSettings
from .swiss_standings import PLACE_POINTS
from .swiss_store import SwissStore, create_progress

DEFAULT_ROUNDS = 3
DEFAULT_GAMES = 1


def swiss_settings(event: EventRow) -> SwissSettings:
    """The event's settings as the Swiss modules take them."""
    s = event.settings
    return SwissSettings(int(s["rounds"]), int(s["games"]), tuple(s["place_points"]), str(s["bot_level"]))


class Swiss:
    """The ``swiss`` kind (:class:`~niugui.server.events.base.EventKind`)."""

    name = "swiss"

    def settings(self, body: EventCreate, community: Community) -> dict[str, Any]:
        points = list(body.place_points or PLACE_POINTS)
        if points != sorted(points, reverse=True):
            raise EventRefused(
                422, "invalid_input", "place_points: 上游, 二游, 三游, 下游, each at most the one before"
            )
        return {
            "rounds": body.rounds or DEFAULT_ROUNDS,
            "games": body.games or DEFAULT_GAMES,
            "place_points": points,
            "bot_level": body.bot_level or "expert",
            "auto_start": body.starts_at is not None,
        }

    def created(self, c: Connection, event: EventRow) -> None:
        create_progress(c, event.id, event.created_at)

    def view(self, store: EventStore, event: EventRow, viewer: str | None, now: float) -> dict[str, Any]:
        swiss = SwissStore(store.engine)
        found = swiss.progress(event.id)
        phase, data = found if found is not None else ("registering", {})
        if phase == "registering" or not data:
            entrants = swiss.entrants(event.id)
            return {
                "phase": phase,
                "entrants": [{"account_id": a, "nickname": n} for a, n in entrants],
                "standings": [],
                "rounds": [],
                "final": None,
                "me": None if viewer is None else {"registered": any(a == viewer for a, _ in entrants)},
            }
        return shown(SwissProgress.from_json(data, swiss_settings(event)), viewer)

    def seat(self, store: EventStore, event: EventRow, account_id: str, nickname: str, now: float) -> Seating:
        found = SwissStore(store.engine).progress(event.id)
        if found is None or found[0] == "registering" or not found[1]:
            raise EventRefused(
                409, "event_closed", "the tournament has not started; join it before its start"
            )
        progress = SwissProgress.from_json(found[1], swiss_settings(event))
        if account_id not in progress.nicknames:
            raise EventRefused(409, "event_closed", "you are not an entrant of this tournament")
        table = progress.where(account_id)
        if table is None:
            raise EventRefused(409, "event_closed", "you have no table now: wait for the next round")
        return Seating(table, label=f"round {len(progress.rounds)}")


def shown(progress: SwissProgress, viewer: str | None) -> dict[str, Any]:
    """A Swiss in progress or over: standings, rounds (a page each), the final table (pure)."""
    names = progress.nicknames
    lines = [
        {
            "rank": n,
            "account_id": s.account_id,
            "nickname": names.get(s.account_id, ""),
            "score": s.score,
            "points": s.points,
            "games": s.games,
            "absences": s.absences,
            "bot_games": s.bots,
            "dropped": s.dropped,
        }
        for n, s in enumerate(progress.standings(), 1)
    ]
    rounds = []
    for number, (rnd, plans) in enumerate(zip(progress.rounds, progress.plans, strict=True), 1):
        tables = []
        for plan, table in zip(plans, rnd.tables, strict=True):
            seats = [
                {"seat": n, "bot": True, "autoplay": False, "account_id": None, "nickname": None}
                if who is None
                else {
                    "seat": n,
                    "bot": False,
                    "autoplay": who in rnd.absent,
                    "account_id": who,
                    "nickname": names.get(who, ""),
                }
                for n, who in enumerate(plan.seats)
            ]
            tables.append(
                {
                    "table": plan.table_id,
                    "done": plan.done,
                    "seats": seats,
                    "bots": plan.seats.count(None),
                    "games": [{"finish": list(g.finish), "scores": list(g.scores)} for g in table.games],
                }
            )
        rounds.append({"round": number, "absent": sorted(rnd.absent), "tables": tables})
    me = None
    if viewer is not None and viewer in names:
        line = next(line for line in lines if line["account_id"] == viewer)
        me = {"registered": True, "rank": line["rank"], "table": progress.where(viewer)}
    return {
        "phase": progress.phase,
        "entrants": [{"account_id": a, "nickname": names[a]} for a in progress.entrants],
        "standings": lines,
        "rounds": rounds,
        "final": lines if progress.phase == "finished" else None,
        "me": me,
    }
