"""Which bot plays a seat (a bot's own level, or ``expert`` for a human seat in 托管), and asking it
off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from niugui.bots import Action, Bot, View, choose_safely, fallback_action, load_bot
from niugui.cards import Card

AUTOPLAY_LEVEL = "expert"
"""The bot that plays a human seat's turns in 托管 (a timeout itself plays :func:`least_action`)."""
KEEP = frozenset({"S3", "S2"})
"""The cards a timeout never leads when it can help it: they would reveal the seat's side (R10, R11)."""

Answered = Callable[[Action | BaseException], None]


def load_policy(level: str) -> Bot | None:
    """A bot for ``level``, falling back to ``expert`` then ``basic`` while those are not built."""
    for spec in (level, "expert", "basic"):
        try:
            return load_bot(spec)
        except ValueError:
            continue
    return None


def decide(bot: Bot | None, view: View, budget: float) -> Action:
    """The bot's answer; a failing, illegal or late one is replaced by a safe legal action."""
    return fallback_action(view) if bot is None else choose_safely(bot, view, budget)


def least_action(view: View) -> Action:
    """What a turn timeout plays for a seat: the least it can, so that nobody loses by surprise.
    Pass when passing is allowed (R27); otherwise the weakest single that is not ♠3/♠2 (R5), or the
    weakest single, or — when no single is legal (the first play must contain ♦4, R26) — the first
    (weakest) legal play.

    >>> least_action({"can_pass": True, "legal_plays": [["D4"]]}) is None
    True
    >>> least_action({"can_pass": False, "legal_plays": [["S2"], ["S3"], ["C9"], ["H7", "D7"]]})
    ['C9']
    >>> least_action({"can_pass": False, "legal_plays": [["S3"], ["S2"], ["S2", "H2"]]})
    ['S2']
    """
    if view.get("can_pass"):
        return None
    plays: list[list[str]] = view["legal_plays"]
    singles = [p[0] for p in plays if len(p) == 1]
    if not singles:
        return list(plays[0])
    spare = [c for c in singles if c not in KEEP] or singles
    return [min(spare, key=lambda code: int(Card.parse(code)))]


class BotRunner(Protocol):
    def ask(self, bot: Bot | None, view: View, budget: float, answered: Answered) -> None:
        """Have ``bot`` choose for ``view``; call ``answered`` (on the event loop) with its action."""


class ExecutorBots:
    """Bots think in the event loop's default thread pool, never on the loop itself."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def ask(self, bot: Bot | None, view: View, budget: float, answered: Answered) -> None:
        task = self.loop.run_in_executor(None, decide, bot, view, budget)

        def done(future: asyncio.Future[Action]) -> None:
            error = future.exception()
            answered(error if error is not None else future.result())

        task.add_done_callback(done)


class Bots:
    """The bots of one table, each loaded when first needed: one per bot seat, one for 托管."""

    def __init__(self) -> None:
        self._loaded: dict[tuple[int, str], Bot | None] = {}

    def for_seat(self, seat: int, level: str | None) -> Bot | None:
        """The bot of a bot seat (``level``), or 托管's (``level`` None: a human seat)."""
        key = (-1, AUTOPLAY_LEVEL) if level is None else (seat, level)
        if key not in self._loaded:
            self._loaded[key] = load_policy(key[1])
        return self._loaded[key]
