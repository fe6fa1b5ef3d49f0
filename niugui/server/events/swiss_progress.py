"""A Swiss event's progress (pure, no server imports): who registered, each round's tables (the
people seated, the table that plays them, its games), and the event's phase; kept as JSON.

>>> p = SwissProgress(SwissSettings(rounds=1, games=1))
>>> [p.register(n, n.upper()) for n in "abcde"]
[True, True, True, True, True]
>>> [plan.seats for plan in p.begin_round(present={"a", "b", "c"})]
[('a', 'b', 'c', None), ('d', 'e', None, None)]
>>> p.absent_now(), p.phase
(['d', 'e'], 'running')
>>> p.attach(0, "t1"); p.game_over("t1", finish=(0, 2), scores=(2, -2, 2, -2)); p.table_done("t1")
False
>>> p.mark_done(1)  # an absentee's table with only bots in it: not played
True
>>> p.phase, [s.account_id for s in p.standings()][:2]
('finished', ['a', 'c'])
>>> SwissProgress.from_json(p.to_json()).to_json() == p.to_json()
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .swiss_standings import (
    PLACE_POINTS,
    GameResult,
    SwissRound,
    SwissStanding,
    SwissTable,
    next_round,
    standings,
)

Phase = Literal["registering", "running", "finished"]


@dataclass(frozen=True)
class SwissSettings:
    """R rounds of G games; place points (上游, 二游, 三游, 下游, R30); the level of the bots that fill
    tables and play for absentees (托管)."""

    rounds: int = 3
    games: int = 1
    place_points: tuple[int, ...] = PLACE_POINTS
    bot_level: str = "expert"


@dataclass(frozen=True)
class TablePlan:
    """A table of the round: its seats in the table's order — present people, then absentees (a bot
    plays for them, 托管), then bots (``None``); ``table_id`` once opened; ``done`` when over."""

    seats: tuple[str | None, ...]
    table_id: str | None = None
    done: bool = False


@dataclass
class SwissProgress:
    settings: SwissSettings
    entrants: list[str] = field(default_factory=list)
    nicknames: dict[str, str] = field(default_factory=dict)
    rounds: list[SwissRound] = field(default_factory=list)
    plans: list[list[TablePlan]] = field(default_factory=list)
    phase: Phase = "registering"

    def register(self, account_id: str, nickname: str) -> bool:
        """Enter the event before its start; False when already entered."""
        if self.phase != "registering":
            raise ValueError("registration is closed")
        if account_id in self.nicknames:
            return False
        self.entrants.append(account_id)
        self.nicknames[account_id] = nickname
        return True

    def standings(self) -> list[SwissStanding]:
        return standings(self.entrants, self.rounds, self.settings.place_points)

    def begin_round(self, present: set[str]) -> list[TablePlan]:
        """Pair the next round (the entrants not dropped, by standing); those not ``present`` now are
        absent for the round (托管). Starts the event if it was registering."""
        self.phase = "running"
        tables = next_round(self.entrants, self.rounds, self.settings.place_points)
        seated = {p for t in tables for p in t if p is not None}
        absent = frozenset(seated - present)
        plans = [
            TablePlan(
                (*(p for p in t if p is not None and p not in absent), *(p for p in t if p in absent))
                + (None,) * t.count(None)
            )
            for t in tables
        ]
        self.rounds.append(SwissRound(tuple(SwissTable(p.seats) for p in plans), absent))
        self.plans.append(plans)
        if not plans:
            self.phase = "finished"
        return plans

    def absent_now(self) -> list[str]:
        return sorted(self.rounds[-1].absent) if self.rounds else []

    def attach(self, index: int, table_id: str) -> None:
        """The current round's table ``index`` is played at ``table_id``."""
        self.plans[-1][index] = replace(self.plans[-1][index], table_id=table_id)

    def where(self, account_id: str) -> str | None:
        """The table of the current round where ``account_id`` is seated (not when it is over)."""
        for plan in self.plans[-1] if self.plans else ():
            if account_id in plan.seats and not plan.done:
                return plan.table_id
        return None

    def game_over(self, table_id: str, finish: Sequence[int], scores: Sequence[int]) -> None:
        """A game of the current round's table ``table_id`` ended (its result, R30–R35)."""
        index = self._index(table_id)
        rnd = self.rounds[-1]
        earlier = [(g.finish, g.scores) for g in rnd.tables[index].games]
        self.set_games(index, [*earlier, (finish, scores)])

    def table_done(self, table_id: str) -> bool:
        """The table ``table_id`` is over; True when it was the round's last (the round is over)."""
        return self.mark_done(self._index(table_id))

    def set_games(self, index: int, games: Sequence[tuple[Sequence[int], Sequence[int]]]) -> None:
        """The games (finish, scores) of the current round's table ``index``, as its stored events
        say (a restarted server reads them back)."""
        rnd = self.rounds[-1]
        table = replace(rnd.tables[index], games=tuple(GameResult(tuple(f), tuple(s)) for f, s in games))
        self.rounds[-1] = replace(rnd, tables=(*rnd.tables[:index], table, *rnd.tables[index + 1 :]))

    def mark_done(self, index: int) -> bool:
        """The current round's table ``index`` is over (or is not played: nobody present at it); True
        when it was the round's last."""
        plans = self.plans[-1]
        plans[index] = replace(plans[index], done=True)
        over = all(p.done for p in plans)
        if over and len(self.rounds) >= self.settings.rounds:
            self.phase = "finished"
        return over

    def table_index(self, table_id: str) -> int | None:
        """The index of ``table_id`` among the current round's tables (None: not one of them)."""
        for index, plan in enumerate(self.plans[-1] if self.plans else ()):
            if plan.table_id == table_id:
                return index
        return None

    def _index(self, table_id: str) -> int:
        index = self.table_index(table_id)
        if index is None:
            raise KeyError(table_id)
        return index

    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "entrants": [[p, self.nicknames[p]] for p in self.entrants],
            "rounds": [
                {
                    "absent": sorted(rnd.absent),
                    "tables": [
                        {
                            "seats": list(plan.seats),
                            "table_id": plan.table_id,
                            "done": plan.done,
                            "games": [{"finish": list(g.finish), "scores": list(g.scores)} for g in t.games],
                        }
                        for plan, t in zip(plans, rnd.tables, strict=True)
                    ],
                }
                for rnd, plans in zip(self.rounds, self.plans, strict=True)
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], settings: SwissSettings | None = None) -> SwissProgress:
        progress = cls(settings or SwissSettings(), phase=data["phase"])
        for account_id, nickname in data["entrants"]:
            progress.entrants.append(account_id)
            progress.nicknames[account_id] = nickname
        for rnd in data["rounds"]:
            plans = [TablePlan(tuple(t["seats"]), t["table_id"], t["done"]) for t in rnd["tables"]]
            tables = tuple(
                SwissTable(
                    tuple(t["seats"]),
                    tuple(GameResult(tuple(g["finish"]), tuple(g["scores"])) for g in t["games"]),
                )
                for t in rnd["tables"]
            )
            progress.rounds.append(SwissRound(tables, frozenset(rnd["absent"])))
            progress.plans.append(plans)
        return progress
