"""Which bot plays a seat (a bot's own level, or ``expert`` for a human seat in 托管), and asking it
off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from niugui.bots import Action, Bot, View, choose_safely, fallback_action, load_bot

AUTOPLAY_LEVEL = "expert"
"""The bot that plays a human seat's turns in 托管 and on timeout."""

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
