"""Duplicate matches between two bots: every deal is played with every seating of the two.

**The duplicate scheme.** With bots A and B, each deal (``Game.deal(seed=f"{seed}/{deal}")``) is
played six times, once for each way to seat {A, A, B, B} over the four seats
(:data:`ARRANGEMENTS`). Over those six games each bot sits in each seat exactly three times, and —
whatever seats the deal makes 黑方 (R10) — holds each hand three times, so the luck of the cards
cancels out. A run of N games plays ``ceil(N / 6)`` deals.

**The statistics.** A bot's *points per game* is the mean score change of its seats (R33–R35); as
scores sum to zero, A's mean is minus B's. Its 95% confidence interval is computed over deals —
the mean of each deal's twelve seat-games is one sample — because the six games of one deal share
their cards and are not independent: ``mean ± 1.96 · sd / √deals`` (normal approximation). A
seat-game is a *win* when its score is > 0, a *draw* when it is 0, a *loss* when < 0.
Decision times are the bot's own thinking time per decision (p50, p99), both wall-clock (what a
budget limits; it grows when the machine is busy) and CPU time of the deciding thread (what the bot
itself costs; it misses work a bot hands to other processes).

**Time limits.** Each decision has a hard budget (``budget`` seconds): where POSIX timers exist the
bot is interrupted by ``SIGALRM`` when it runs out, and like a bot that raises or plays illegally it
is replaced by the safe fallback (:func:`niugui.bots.choose_checked`); every fallback is counted.

>>> ARRANGEMENTS[:2]
((0, 0, 1, 1), (0, 1, 0, 1))
>>> [[sum(1 for a in ARRANGEMENTS if a[seat] == bot) for seat in range(4)] for bot in (0, 1)]
[[3, 3, 3, 3], [3, 3, 3, 3]]
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from .bots import Bot, Decision, choose_checked, load_bot
from .cards import CARDS
from .game import SEATS, Game
from .parallel import Backend, as_backend, map_games
from .record import RecordPlayer, new_meta, record_of_game
from .series import decide_first_drawer

ARRANGEMENTS: tuple[tuple[int, ...], ...] = tuple(sorted(set(permutations((0, 0, 1, 1)))))
"""The six seatings of two bots (0 = A, 1 = B) over seats 0..3, two seats each."""
OUTCOMES = ("sweep", "win", "draw", "double_win", "double_draw", "double_caught", "escape")
Z95 = 1.959963984540054
"""The 97.5% quantile of the standard normal distribution."""


def deals_for(games: int) -> int:
    """How many deals ``games`` games need (whole deals of six games each)."""
    return max(1, math.ceil(games / len(ARRANGEMENTS)))


def deal_seed(seed: int, deal: int) -> str:
    """The seed of deal number ``deal`` of a run (for ``Game.deal``)."""
    return f"{seed}/{deal}"


def bot_seed(seed: int, deal: int, arrangement: int, seat: int) -> int:
    """A bot's own seed for one game, fixed by the run's seed so that runs are reproducible."""
    return ((seed * 1_000_003 + deal) * 8 + arrangement) * 4 + seat


def play_out(
    game: Game,
    bots: Sequence[Bot],
    budget: float | None = None,
    interrupt: bool = False,
    on_decision: Callable[[int, Decision], None] | None = None,
) -> Game:
    """Play ``game`` to its end, each seat's turn decided by ``bots[seat]`` through
    :func:`~niugui.bots.choose_checked` (a bot that raises, plays illegally or overruns ``budget`` is
    replaced by the safe fallback; ``interrupt`` as there). ``on_decision(seat, decision)`` sees each
    decision before it is applied. Returns ``game``, now over.

    >>> game = play_out(Game.deal(seed=1), [load_bot("basic", seed=s) for s in range(SEATS)])
    >>> game.over, sum(game.result.scores)
    (True, 0)
    """
    while (seat := game.to_move) is not None:
        decision = choose_checked(bots[seat], game.view(seat), budget, interrupt)
        if on_decision is not None:
            on_decision(seat, decision)
        if decision.action is None:
            game.pass_turn(seat)
        else:
            game.play(decision.action, seat)
    return game


@dataclass(slots=True)
class GameReport:
    """One arena game: who sat where, how it ended, each bot's decision times and fallbacks."""

    deal: int
    arrangement: int
    seats: tuple[int, ...]
    scores: list[int]
    outcome: str
    record: dict[str, Any]
    times: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    """Per bot, the wall-clock seconds of each decision."""
    fallbacks: list[int] = field(default_factory=lambda: [0, 0])
    cpu_times: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    """Per bot, the CPU seconds of each decision (of the deciding thread)."""


def play_game(
    specs: Sequence[str], seed: int, deal: int, arrangement: int, budget: float | None = None
) -> GameReport:
    """Play one game of the run: deal ``deal`` with seating ``arrangement``."""
    seats = ARRANGEMENTS[arrangement]
    # Every game of the arena is a first game: 翻牌 designates the first drawer (R8), with a card
    # fixed by the deal's seed, so the six seatings of a deal share it.
    flips = random.Random(f"{deal_seed(seed, deal)}/flip")
    first = decide_first_drawer(None, lambda: CARDS[flips.randrange(len(CARDS))])
    game = Game.deal(seed=deal_seed(seed, deal), first_drawer=first.seat)
    bots = [load_bot(specs[seats[s]], seed=bot_seed(seed, deal, arrangement, s)) for s in range(SEATS)]
    report = GameReport(deal, arrangement, seats, [], "", {})

    def record(seat: int, decision: Decision) -> None:
        side = seats[seat]
        report.times[side].append(decision.seconds)
        report.cpu_times[side].append(decision.cpu_seconds)
        if decision.fallback is not None:
            report.fallbacks[side] += 1

    play_out(game, bots, budget, interrupt=True, on_decision=record)
    result = game.result
    assert result is not None
    meta = new_meta(
        "niugui arena",
        deal * len(ARRANGEMENTS) + arrangement + 1,
        [RecordPlayer(id=None, nickname=specs[b], bot=specs[b]) for b in seats],
        first,
        seed=deal_seed(seed, deal),
        arena={"bots": list(specs), "seed": seed, "deal": deal, "arrangement": arrangement},
    )
    report.scores = list(result.scores)
    report.outcome = result.outcome
    report.record = record_of_game(game, meta)
    return report


def play_deal(specs: Sequence[str], seed: int, deal: int, budget: float | None = None) -> list[GameReport]:
    """The six games of one deal (one job of :func:`run`)."""
    return [play_game(specs, seed, deal, a, budget) for a in range(len(ARRANGEMENTS))]


def check_specs(specs: Sequence[str]) -> None:
    """Raise ``ValueError`` unless ``specs`` names two bots that load (before a run, not after it)."""
    if len(specs) != 2:
        raise ValueError(f"the arena matches two bots, got {len(specs)}")
    for spec in specs:
        load_bot(spec)


def run(
    specs: Sequence[str],
    games: int,
    seed: int,
    workers: int | Backend = 1,
    budget: float | None = None,
    on_deal: Callable[[list[GameReport]], None] | None = None,
) -> list[GameReport]:
    """Play the whole run, one deal a job on ``workers`` (a number of processes here, or a
    :class:`~niugui.parallel.Backend`: Ray); reports come back in deal order, the same on any backend.

    ``on_deal`` is called (in the calling process) as each deal completes, in completion order.
    """
    check_specs(specs)
    jobs = [(deal, budget) for deal in range(deals_for(games))]
    deals = map_games(
        play_deal,
        jobs,
        as_backend(workers),
        common=(list(specs), seed),
        on_result=None if on_deal is None else lambda _, reports: on_deal(reports),
    )
    return [report for reports in deals for report in reports]


# ---- statistics -----------------------------------------------------------------------------


def mean_ci(samples: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval (normal approximation).

    >>> mean, half = mean_ci([1.0, 2.0, 3.0, 4.0])
    >>> mean, round(half, 4)
    (2.5, 1.2652)
    """
    n = len(samples)
    if n == 0:
        return math.nan, math.nan
    mean = sum(samples) / n
    if n == 1:
        return mean, math.inf
    variance = sum((x - mean) ** 2 for x in samples) / (n - 1)
    return mean, Z95 * math.sqrt(variance / n)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) by the nearest-rank method.

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50), percentile(list(range(1, 101)), 99)
    (3.0, 99)
    """
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(slots=True)
class BotSummary:
    """One bot's results over a run."""

    spec: str
    seat_games: int
    mean: float
    ci: float
    win: float
    draw: float
    loss: float
    outcomes_won: dict[str, float]
    """Per outcome: the share of this bot's seat-games that ended so with the bot scoring > 0."""
    outcomes_lost: dict[str, float]
    """Per outcome: the share of its seat-games that ended so with the bot scoring < 0."""
    decisions: int
    p50_ms: float
    p99_ms: float
    fallbacks: int
    cpu_p50_ms: float = math.nan
    cpu_p99_ms: float = math.nan


@dataclass(slots=True)
class Summary:
    """A run's results: per bot, and the share of games of each outcome."""

    games: int
    deals: int
    bots: list[BotSummary]
    outcomes: dict[str, float]


def summarise(specs: Sequence[str], reports: Sequence[GameReport]) -> Summary:
    """The statistics of a run (see the module's docstring for their definitions)."""
    deals = sorted({r.deal for r in reports})
    games = len(reports)
    outcomes = {o: sum(1 for r in reports if r.outcome == o) / max(games, 1) for o in OUTCOMES}
    bots = []
    for side, spec in enumerate(specs):
        per_deal: dict[int, list[int]] = {d: [] for d in deals}
        scores: list[int] = []
        won = dict.fromkeys(OUTCOMES, 0)
        lost = dict.fromkeys(OUTCOMES, 0)
        times: list[float] = []
        cpu: list[float] = []
        fallbacks = 0
        for r in reports:
            times += r.times[side]
            cpu += r.cpu_times[side]
            fallbacks += r.fallbacks[side]
            for seat in range(SEATS):
                if r.seats[seat] != side:
                    continue
                score = r.scores[seat]
                scores.append(score)
                per_deal[r.deal].append(score)
                if score > 0:
                    won[r.outcome] += 1
                elif score < 0:
                    lost[r.outcome] += 1
        n = max(len(scores), 1)
        mean, ci = mean_ci([sum(v) / len(v) for v in per_deal.values() if v])
        bots.append(
            BotSummary(
                spec=spec,
                seat_games=len(scores),
                mean=mean,
                ci=ci,
                win=sum(1 for s in scores if s > 0) / n,
                draw=sum(1 for s in scores if s == 0) / n,
                loss=sum(1 for s in scores if s < 0) / n,
                outcomes_won={o: won[o] / n for o in OUTCOMES},
                outcomes_lost={o: lost[o] / n for o in OUTCOMES},
                decisions=len(times),
                p50_ms=percentile(times, 50) * 1000,
                p99_ms=percentile(times, 99) * 1000,
                fallbacks=fallbacks,
                cpu_p50_ms=percentile(cpu, 50) * 1000,
                cpu_p99_ms=percentile(cpu, 99) * 1000,
            )
        )
    return Summary(games=games, deals=len(deals), bots=bots, outcomes=outcomes)


def default_out(specs: Sequence[str], games: int, seed: int) -> str:
    """Where a run's records go unless told otherwise: ``artifacts/arena/A-vs-B-seedS-Ngames.jsonl``."""
    names = ["".join(ch if ch.isalnum() else "_" for ch in spec) for spec in specs]
    return os.path.join("artifacts", "arena", f"{names[0]}-vs-{names[1]}-seed{seed}-{games}games.jsonl")


class RecordWriter:
    """Writes each game's record as one JSON line (RECORD.md), deals in order as they complete."""

    def __init__(self, path: str) -> None:
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        self._file = open(path, "w", encoding="utf-8")  # noqa: SIM115 — closed by close()
        self._pending: dict[int, list[GameReport]] = {}
        self._next = 0

    def add(self, reports: list[GameReport]) -> None:
        self._pending[reports[0].deal] = reports
        while self._next in self._pending:
            for report in self._pending.pop(self._next):
                self._file.write(json.dumps(report.record, ensure_ascii=False, separators=(",", ":")) + "\n")
            self._next += 1
        self._file.flush()

    def close(self) -> None:
        self._file.close()
