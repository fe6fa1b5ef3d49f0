"""``niugui arena --bots A,B --games N --seed S [--workers K | --ray [ADDRESS]]``: duplicate matches
between two bots.

Every deal is played six times, once per seating of {A, A, B, B} (see :mod:`niugui.arena`), across
worker processes or Ray workers (:mod:`niugui.parallel`; the same games either way), with a progress
bar. It prints each bot's mean points per game with a 95%
confidence interval (over deals), win/draw/loss rates, the rate of each outcome, decision times
p50/p99 and fallbacks, and writes every game as a JSON line (RECORD.md) that ``niugui replay``
reads: ``niugui replay FILE:7`` replays the seventh game.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from .. import arena
from ..bots import load_bot
from ..parallel import BackendError
from .backend import add_arguments, backend_of, start
from .layout import pick

PROG = "niugui arena"
OUTCOME_LABELS = {
    "sweep": "完胜 sweep",
    "win": "小胜 win",
    "draw": "免炒 draw",
    "double_win": "双牛成功 double win",
    "double_draw": "双牛逃跑 double draw",
    "double_caught": "活抓双牛 double caught",
    "escape": "逃跑 escape",
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "arena",
        help="play duplicate matches between two bots and print their strength",
        description=(
            "Duplicate matches: every deal is played with each of the six seatings of two bots over "
            "the four seats, so the luck of the deal cancels out. Prints points per game with 95% "
            "confidence intervals (over deals), win/draw rates, outcome rates and decision times, "
            "and writes every game as a JSON-lines record."
        ),
    )
    parser.add_argument("--bots", required=True, metavar="A,B",
                        help="two bots: random, basic, expert, search or package.module:Class")
    parser.add_argument("--games", type=int, default=600, metavar="N",
                        help="games to play, rounded up to whole deals of 6 (default 600)")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the deals (default 1)")
    add_arguments(parser, "worker processes (default 1)")
    parser.add_argument("--budget", type=float, default=10.0, metavar="SECONDS",
                        help="hard time limit per decision; a bot over it plays the fallback (default 10; "
                        "0 = none)")
    parser.add_argument("--out", metavar="FILE",
                        help="where to write the records (default artifacts/arena/A-vs-B-seedS-Ngames.jsonl)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    specs = [s.strip() for s in args.bots.split(",")]
    if len(specs) != 2 or not all(specs):
        return _fail(f"--bots takes two bots separated by a comma, like expert,basic (got {args.bots!r})")
    if args.games < 1:
        return _fail("--games must be at least 1")
    backend = backend_of(args)
    if isinstance(backend, str):
        return _fail(backend)
    if args.budget < 0:
        return _fail("--budget must be 0 (none) or a positive number of seconds")
    for spec in specs:
        try:
            load_bot(spec)
        except ValueError as error:
            return _fail(str(error))
    try:
        start(backend)
    except BackendError as error:
        return _fail(str(error))
    out = args.out or arena.default_out(specs, args.games, args.seed)
    try:
        writer = arena.RecordWriter(out)
    except OSError as error:
        return _fail(f"cannot write {out}: {error.strerror}")
    deals = arena.deals_for(args.games)
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:  # a pipe or a file: 120 unless told
        console = Console(width=120)
    errors = Console(stderr=True)
    errors.print(
        f"{deals * len(arena.ARRANGEMENTS)} games = {_count(deals, 'deal')} × {len(arena.ARRANGEMENTS)} "
        f"seatings of {specs[0]} (A) and {specs[1]} (B); seed {args.seed}; {backend.describe()}"
    )
    errors.print(f"records: {out}", soft_wrap=True)
    started = time.perf_counter()
    progress = Progress(
        TextColumn("[bold]arena"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
        TimeElapsedColumn(), TimeRemainingColumn(), console=errors, disable=args.no_progress,
    )
    budget = args.budget or None
    try:
        with progress:
            task = progress.add_task("games", total=deals * len(arena.ARRANGEMENTS))

            def on_deal(reports: list[arena.GameReport]) -> None:
                writer.add(reports)
                progress.advance(task, len(reports))

            reports = arena.run(specs, args.games, args.seed, backend, budget, on_deal)
    finally:
        writer.close()
    elapsed = time.perf_counter() - started
    summary = arena.summarise(specs, reports)
    for part in report(summary, console.width):
        console.print(part)
    console.print(
        f"{_count(summary.games, 'game')}, {_count(summary.deals, 'deal')}, {elapsed:.1f}s. "
        "The CI is over deals: a deal's 6 seatings share its cards, so each deal is one sample. "
        "Win: the seat scored > 0; draw: 0. "
        f"Decision times (wall clock; cpu = the deciding thread's CPU time) over {summary.bots[0].decisions} "
        f"+ {summary.bots[1].decisions} decisions."
    )
    console.print(f"records: {out}  (replay game k: niugui replay {out}:k)", soft_wrap=True)
    return 0


def _count(n: int, noun: str) -> str:
    """``1 deal``, ``2 deals``."""
    return f"{n} {noun}{'s' * (n != 1)}"


def report(summary: arena.Summary, width: int) -> list[RenderableType]:
    """The run's tables, laid out to fit ``width`` columns with no number cut: both bots in one table
    when there is room, else strength and decision times apart, else one column per bot."""
    bots = pick(width, bots_table(summary), Group(strength_table(summary), times_table(summary)),
                bots_by_column(summary))
    return [bots, outcomes_table(summary)]


BOT_MEASURES = ("seat-games", "points", "win", "draw", "loss", "p50 ms", "p99 ms", "cpu p50", "cpu p99",
                "fallbacks")
"""The columns of a bot's row, after its name."""


def _bot_cells(bot: arena.BotSummary) -> dict[str, str]:
    return {
        "seat-games": str(bot.seat_games), "points": f"{bot.mean:+.3f} ± {bot.ci:.3f}",
        "win": f"{bot.win:.1%}", "draw": f"{bot.draw:.1%}", "loss": f"{bot.loss:.1%}",
        "p50 ms": f"{bot.p50_ms:.3f}", "p99 ms": f"{bot.p99_ms:.3f}",
        "cpu p50": f"{bot.cpu_p50_ms:.3f}", "cpu p99": f"{bot.cpu_p99_ms:.3f}",
        "fallbacks": str(bot.fallbacks),
    }


def _bots_rows(summary: arena.Summary, title: str, measures: tuple[str, ...]) -> Table:
    table = Table(title=title)
    table.add_column("bot", overflow="fold")
    for name in measures:
        table.add_column(name, justify="right", no_wrap=True)
    for label, bot in zip("AB", summary.bots, strict=True):
        cells = _bot_cells(bot)
        table.add_row(f"{label} {bot.spec}", *(cells[name] for name in measures))
    return table


POINTS_TITLE = "Points per seat per game (mean ± 95% CI over deals)"


def bots_table(summary: arena.Summary) -> Table:
    """Both bots, every measure on one row each."""
    return _bots_rows(summary, POINTS_TITLE, BOT_MEASURES)


def strength_table(summary: arena.Summary) -> Table:
    return _bots_rows(summary, POINTS_TITLE, BOT_MEASURES[:5])


def times_table(summary: arena.Summary) -> Table:
    return _bots_rows(summary, "Decision times and fallbacks", BOT_MEASURES[5:])


def bots_by_column(summary: arena.Summary) -> Table:
    """The narrow layout: one row per measure, one column per bot."""
    table = Table(title=POINTS_TITLE)
    table.add_column("", no_wrap=True)
    for label, bot in zip("AB", summary.bots, strict=True):
        table.add_column(f"{label} {bot.spec}", justify="right", no_wrap=True, overflow="fold")
    cells = [_bot_cells(bot) for bot in summary.bots]
    for name in BOT_MEASURES:
        table.add_row(name, *(c[name] for c in cells))
    return table


def outcomes_table(summary: arena.Summary) -> Table:
    """How games ended: the share of each outcome, and per bot the share of its seat-games it won or
    lost that way. The outcome's name wraps on a narrow terminal; the numbers never do."""
    table = Table(title="Outcomes: share of games; per bot, share of its seat-games won (+) or lost (−)")
    table.add_column("outcome")
    table.add_column("games", justify="right", no_wrap=True)
    for label in "AB":
        table.add_column(f"{label} +", justify="right", no_wrap=True)
        table.add_column(f"{label} −", justify="right", no_wrap=True)
    for outcome in arena.OUTCOMES:
        if outcome == "escape" and not summary.outcomes[outcome]:
            continue
        row = [OUTCOME_LABELS[outcome], f"{summary.outcomes[outcome]:.1%}"]
        for bot in summary.bots:
            row += [f"{bot.outcomes_won[outcome]:.1%}", f"{bot.outcomes_lost[outcome]:.1%}"]
        table.add_row(*row)
    return table
