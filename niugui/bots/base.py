"""The bot interface: a bot is handed a seat's view (``game.view(seat)``) and returns an action.

A bot never sees the ``Game``: it gets exactly what a human in its seat sees, so it cannot cheat.
An action is a list of card codes to play, or ``None`` to pass. Callers apply a bot's answer only
through :func:`choose_safely` / :func:`choose_checked`, which replace an answer that raised, is
illegal or came too late with :func:`fallback_action` (and, with ``interrupt=True``, stop a bot at
its budget with a timer), so no bot can stall or break a game.

>>> from niugui import Game
>>> class Weakest(Bot):
...     name = "weakest"
...     def choose(self, view):
...         return view["legal_plays"][0]
>>> game = Game.deal(seed=1, first_drawer=0)
>>> action = choose_safely(Weakest(), game.view(game.to_move))
>>> action
['D4']
"""

from __future__ import annotations

import importlib
import logging
import random
import signal
import threading
import time
from abc import ABC, abstractmethod
from types import FrameType
from typing import Any, ClassVar, NamedTuple
from urllib.parse import parse_qsl

from ..game import SeatView
from .levels import LEVELS

Action = list[str] | None
"""Card codes to play, or ``None`` to pass."""
View = SeatView
"""What ``Game.view(seat)`` returns."""

log = logging.getLogger("niugui.bots")

BUILTIN: dict[str, str] = {level.name: level.path for level in LEVELS}
"""The built-in bots by short name; any other bot is named by an import path ``package.module:Name``."""


class Bot(ABC):
    """A player that sees only its seat's view. Deterministic for a given seed."""

    name: ClassVar[str] = "bot"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.options = options

    @abstractmethod
    def choose(self, view: View) -> Action:
        """The action for the seat whose view this is; called only on that seat's turn."""


def load_bot(spec: str, seed: int | None = None, **options: Any) -> Bot:
    """A bot by short name (``expert``) or import path (``package.module:Name``), optionally with
    options after a ``?`` (``search?budget=0.1&prior=learned``: numbers become numbers), so that a
    spec string alone — the arena's ``--bots`` — can name a configured bot.

    Raises ``ValueError`` with a clear message when the name does not lead to a bot class.
    """
    spec, _, query = spec.partition("?")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise ValueError(f"bot {spec!r}: options after '?' must be key=value&key=value, "
                         f"not {query!r}") from None
    for key, value in pairs:
        options.setdefault(key, _number(value))
    path = BUILTIN.get(spec, spec)
    module_name, _, class_name = path.partition(":")
    if not class_name:
        known = ", ".join(BUILTIN)
        raise ValueError(f"unknown bot {spec!r}: use one of {known}, or package.module:ClassName")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot load bot {spec!r}: {error}") from None
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise ValueError(f"{spec!r} is not a niugui.bots.Bot subclass")
    bot: Bot = cls(seed=seed, **options)
    return bot


def _number(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def fallback_action(view: View) -> Action:
    """The safe action when a bot fails: pass if allowed, else the first (weakest) legal play."""
    if view.get("can_pass"):
        return None
    return list(view["legal_plays"][0])


def is_legal(view: View, action: Action) -> bool:
    """Whether ``action`` is one the view allows (the same cards as a legal play, in any order)."""
    if action is None:
        return bool(view.get("can_pass"))
    if not isinstance(action, list):
        return False
    wanted = sorted(map(str, action))
    return any(sorted(play) == wanted for play in view["legal_plays"])


class BudgetExceeded(BaseException):
    """Raised inside a bot whose hard time budget ran out (a ``BaseException``, so that a bot's own
    ``except Exception`` cannot swallow it)."""


def _raise_budget(signum: int, frame: FrameType | None) -> None:
    raise BudgetExceeded


def can_interrupt() -> bool:
    """Whether a hard budget can be enforced here: POSIX interval timers, on the main thread."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _call_with_deadline(bot: Bot, view: View, seconds: float) -> Action:
    """``bot.choose(view)``, interrupted by ``SIGALRM`` after ``seconds`` (raises BudgetExceeded)."""
    previous = signal.signal(signal.SIGALRM, _raise_budget)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return bot.choose(view)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)


class Decision(NamedTuple):
    """What :func:`choose_checked` decided: the action to apply, why the bot's own answer was replaced
    (``"raised"``, ``"illegal"``, ``"overrun"``; ``None`` when it was not) and the bot's thinking time:
    wall-clock seconds (what a budget limits) and CPU seconds of this thread (what the bot itself
    cost, whatever else the machine was doing)."""

    action: Action
    fallback: str | None
    seconds: float
    cpu_seconds: float = 0.0


def choose_checked(bot: Bot, view: View, budget: float | None = None, interrupt: bool = False) -> Decision:
    """The action to apply for ``bot``, with why the bot's own answer was replaced and its time.
 With ``interrupt`` (and a budget)
    a bot still thinking when the budget runs out is stopped by a ``SIGALRM`` timer — so even a bot
    stuck in a loop cannot stall the game — where :func:`can_interrupt` allows it (POSIX, main
    thread); elsewhere an overrun is only detected once the bot returns.
    """
    # What is legal is read before the bot runs, so a bot that edits its view cannot change it.
    allowed: View = {**view, "legal_plays": [list(p) for p in view["legal_plays"]]}
    started = time.perf_counter()
    cpu_started = time.thread_time()

    def decided(action: Action, fallback: str | None) -> Decision:
        return Decision(action, fallback, time.perf_counter() - started, time.thread_time() - cpu_started)

    try:
        if interrupt and budget is not None and budget > 0 and can_interrupt():
            action = _call_with_deadline(bot, view, budget)
        else:
            action = bot.choose(view)
    except BudgetExceeded:
        log.warning("bot %s was stopped at its %.3fs budget; playing the fallback action", bot.name, budget)
        return decided(fallback_action(allowed), "overrun")
    except Exception:
        log.exception("bot %s raised; playing the fallback action", bot.name)
        return decided(fallback_action(allowed), "raised")
    decision = decided(action, None)
    if not is_legal(allowed, action):
        # The action is not logged: its cards come from a hand no log may show (R12).
        log.warning("bot %s chose an illegal action; playing the fallback action", bot.name)
        return decision._replace(action=fallback_action(allowed), fallback="illegal")
    if budget is not None and decision.seconds > budget:
        log.warning(
            "bot %s took %.3fs, over its %.3fs budget; playing the fallback action",
            bot.name, decision.seconds, budget,
        )
        return decision._replace(action=fallback_action(allowed), fallback="overrun")
    return decision


def choose_safely(bot: Bot, view: View, budget: float | None = None, interrupt: bool = False) -> Action:
    """Ask ``bot`` for an action; a bot that raises, answers illegally or overruns ``budget``
    seconds is logged and replaced by :func:`fallback_action`, so a game never stalls on a bot.
    With ``interrupt`` the budget is enforced by a timer (see :func:`choose_checked`).
    """
    return choose_checked(bot, view, budget, interrupt).action
