"""``niugui play``: you against three bots in the terminal, game after game (R8, R36).

Everything shown comes from ``game.view(your_seat)`` (see :mod:`niugui.cli.terminal_view`); the bots
get their own seat's view through :func:`niugui.bots.choose_safely`. A wrong entry is answered with
the rule it breaks and asked again. Ctrl-C or ``q`` in a game asks before escaping (R35, -9); at
every question Ctrl-C, Ctrl-D and closed input answer no. End of input at the move prompt (Ctrl-D,
or input that was closed) escapes nothing: the game in progress is saved and the program ends;
``niugui play --resume`` continues it. Keys typed before a question is shown are thrown away.
Every game is saved as a record (RECORD.md) that ``niugui replay`` reads.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from ..bots import Bot, choose_safely, load_bot
from ..cards import CARDS, Card, NotACard, parse_cards, read_cards
from ..combos import FIVE_KINDS, classify
from ..game import SEATS, Game, IllegalMove, SeatView
from ..record import Meta, RecordError, RecordPlayer, meta_of_record, new_meta, record_of_game
from ..series import Series, flip_value
from . import terminal_view as tv
from .i18n import LANGS, kind_name, rule_reason, tr
from .text import one_line, record_text

try:
    import termios
except ImportError:  # not a POSIX terminal: nothing to discard
    termios = None  # type: ignore[assignment]

Reader = Callable[[Text], str]
"""Shows a prompt and returns the line typed; raises ``EOFError`` or ``KeyboardInterrupt``."""

PASS_WORDS = {"p", "pass", "过", "过门", "不出", "不要"}
HINT_WORDS = {"h", "hint", "?", "？", "提示"}
MORE_WORDS = {"more", "m", "h+", "all", "全部", "更多"}
QUIT_WORDS = {"q", "quit", "exit", "退出"}
YES_WORDS = {"y", "yes", "是", "好", "要"}
NO_WORDS = {"n", "no", "否", "不", "q", "quit"}


def default_save_dir() -> Path:
    """Where records go unless ``--save`` says otherwise: ``$XDG_DATA_HOME/niugui/games``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "niugui" / "games"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play against three bots in the terminal",
        description="河池牛鬼: you against three bots, game after game, with running totals (R36).",
    )
    parser.add_argument("--bots", default="expert", metavar="SPEC",
                        help="the bots: one spec for all three, or three comma-separated "
                             "(random, basic, expert, search or package.module:Class; default expert)")
    parser.add_argument("--seed", type=int, default=None,
                        help="make the deals, the card flip and the bots reproducible")
    parser.add_argument("--lang", choices=LANGS, default="zh", help="zh (default) or en")
    parser.add_argument("--seat", type=int, choices=range(SEATS), default=0,
                        help="your seat, 0..3 (default 0)")
    parser.add_argument("--save", type=Path, default=None, metavar="DIR",
                        help=f"where game records are written (default {default_save_dir()})")
    parser.add_argument("--delay", type=float, default=0.6, metavar="SECONDS",
                        help="pause after each bot's action so you can follow (default 0.6)")
    parser.add_argument("--resume", nargs="?", const="", default=None, metavar="RECORD",
                        help="continue a game that was left when input ended (default: the latest in the "
                             "--save directory), with its bots, seat, seed and running totals")
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"niugui play: {one_line(message)}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    save_dir: Path = args.save or default_save_dir()
    try:
        save_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return _fail(f"--save: cannot use {str(save_dir)!r} for records: {error.strerror}")
    resumed: ResumePoint | None = None
    if args.resume is not None:
        try:
            resumed = load_unfinished(Path(args.resume) if args.resume else None, save_dir)
        except ValueError as error:
            return _fail(f"--resume: {error}")
        human, seed, chosen = resumed.human, resumed.seed, resumed.bots
    else:
        human, seed = args.seat, args.seed
        specs = [s.strip() for s in args.bots.split(",")]
        if len(specs) not in (1, SEATS - 1) or not all(specs):
            return _fail(f"--bots: give one bot or three, comma-separated, not {args.bots!r}")
        if len(specs) == 1:
            specs *= SEATS - 1
        chosen = dict(zip([s for s in range(SEATS) if s != human], specs, strict=True))
    if args.delay < 0:
        return _fail("--delay: must be 0 or more seconds")
    bots: dict[int, Bot] = {}
    try:
        for seat, spec in chosen.items():
            bots[seat] = load_bot(spec, seed=_derived_seed(seed, "bot", seat))
    except ValueError as error:
        return _fail(f"--bots: {error}")
    console = Console(highlight=False)
    interrupts = Interrupts()

    def read(prompt: Text) -> str:
        discard_typeahead()
        # The prompt is printed while a Ctrl-C is only kept: cutting rich's print short would leave
        # its output buffered for good. Ctrl-C acts at once only while input() waits.
        console.print(prompt, end="")
        sys.stdout.flush()
        with interrupts.waiting():
            return read_line()

    session = Session(
        bots=bots,
        specs=chosen,
        human=human,
        lang=args.lang,
        seed=seed,
        save_dir=save_dir,
        console=console,
        read=read,
        delay=args.delay,
        interrupts=interrupts,
    )
    with session.interrupts.installed():
        return session.run(resumed)


def read_line() -> str:
    """The next line typed, without its newline. ``EOFError`` when input ends — also for a last
    line that input ended before Enter finished, so that no answer counts unless it was entered."""
    line = sys.stdin.readline()
    if not line.endswith("\n"):
        raise EOFError
    return line.rstrip("\r\n")


def discard_typeahead() -> None:
    """Throw away what was typed before a question is shown (a stray ``p`` typed while the bots
    played must not pass the next turn). Only a terminal has such input; a pipe or file is read as is."""
    if termios is None or not sys.stdin.isatty():
        return
    with suppress(termios.error, OSError):
        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


@dataclass(frozen=True)
class ResumePoint:
    """A game saved unfinished when input ended, with what is needed to play it on."""

    game: Game
    path: Path
    meta: Meta
    """Its record's meta, kept for the finished record."""
    number: int
    """The game's number in its session."""
    human: int
    bots: dict[int, str]
    """The bot spec at each other seat."""
    seed: int | None
    totals: list[int]
    """The running totals before this game (R36)."""


def load_unfinished(path: Path | None, save_dir: Path) -> ResumePoint:
    """The game to resume: ``path``, or the newest unfinished record of ``niugui play`` in
    ``save_dir``. ``ValueError`` says why there is none."""
    if path is None:
        candidates = sorted(save_dir.glob("niugui-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for candidate in candidates:
            try:
                record = json.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(record, dict) and "result" not in record and _settings(record) is not None:
                path = candidate
                break
        else:
            raise ValueError(f"no unfinished game in {save_dir}")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror}") from None
    except ValueError as error:
        raise ValueError(f"{path} is not JSON: {error}") from None
    settings = _settings(record) if isinstance(record, dict) else None
    if settings is None:
        raise ValueError(f"{path} is not a record saved by niugui play")
    try:
        game = Game.from_record(record)
    except (RecordError, IllegalMove) as error:
        raise ValueError(f"{path} does not replay: {error}") from None
    if game.over:
        raise ValueError(f"{path}: that game is over; niugui replay {path} shows it")
    meta, human, bots, seed, totals = settings
    return ResumePoint(game, path, meta, meta["game_no"], human, bots, seed, totals)


def _settings(record: dict[str, Any]) -> tuple[Meta, int, dict[int, str], int | None, list[int]] | None:
    """From a record's meta (RECORD.md, :class:`niugui.record.Meta`): the meta, your seat (the one
    with no bot), the bots, the seed and the running totals before the game — or ``None`` when it is
    not an unfinished game of ``niugui play``. The one place that reads what resuming needs."""
    try:
        meta = meta_of_record(record)
    except RecordError:
        return None
    if meta is None or meta["app"] != "niugui play":
        return None
    humans = [seat for seat, player in enumerate(meta["players"]) if player["bot"] is None]
    seed, totals = meta.get("seed"), meta.get("totals_before", [0] * SEATS)
    if len(humans) != 1 or not (seed is None or isinstance(seed, int)):
        return None
    if not (isinstance(totals, list) and len(totals) == SEATS and all(type(t) is int for t in totals)):
        return None
    bots = {seat: str(player["bot"]) for seat, player in enumerate(meta["players"]) if seat != humans[0]}
    return meta, humans[0], bots, seed, list(totals)


def _derived_seed(seed: int | None, *parts: object) -> int | None:
    """A seed for one part of the session (a bot, a flip) from the session's ``--seed``."""
    if seed is None:
        return None
    return random.Random(":".join(map(str, (seed, *parts)))).getrandbits(63)


class Interrupts:
    """Ctrl-C stops the program only while it waits (for input, or between bot moves), so an
    interrupt never lands in the middle of applying an action; otherwise it is kept for later."""

    def __init__(self) -> None:
        self.allowed = False
        self.pending = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.allowed:
            self.pending = False
            raise KeyboardInterrupt
        self.pending = True

    @contextmanager
    def installed(self) -> Iterator[None]:
        previous = signal.signal(signal.SIGINT, self._handle)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """A stretch where Ctrl-C may interrupt at once; a kept one is raised on entering it."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt
        self.allowed = True
        try:
            yield
        finally:
            self.allowed = False


class InputEnded(Exception):
    """Input ended at the move prompt; the game in progress has been saved."""


class Session:
    """A series of games at one table: you at ``human``, bots at the other seats."""

    game_class: type[Game] = Game
    """The engine class games are dealt from (tests substitute one that guards hidden state)."""

    def __init__(
        self,
        bots: dict[int, Bot],
        specs: dict[int, str],
        human: int,
        lang: str,
        seed: int | None,
        save_dir: Path,
        console: Console,
        read: Reader,
        delay: float = 0.0,
        interrupts: Interrupts | None = None,
    ) -> None:
        self.bots = bots
        self.specs = specs
        self.human = human
        self.lang = lang
        self.seed = seed
        self.save_dir = save_dir
        self.console = console
        self._read = read
        self.delay = delay
        self.series = Series()
        self.meta: Meta | None = None
        """The record ``meta`` of the game being played (RECORD.md, :class:`niugui.record.Meta`)."""
        self.interrupts = interrupts or Interrupts()
        self.saved: list[Path] = []

    # ---- the session ------------------------------------------------------------------------

    def run(self, resumed: ResumePoint | None = None) -> int:
        """Play games until you say no more, or until input ends (the game in progress is then
        saved, unfinished); ``resumed`` is such a game, played on first."""
        self.say(tr(self.lang, "title"), style="bold")
        self.say(tr(self.lang, "you_are", seat=self.human))
        number = 1
        try:
            if resumed is not None:
                number = resumed.number
                self.series.games = number - 1
                self.series.totals = list(resumed.totals)
                self.resume_game(resumed)
                number += 1
                if not self.ask_yes(tr(self.lang, "next_game"), default=True):
                    raise InputEnded
            while True:
                self.play_game(number)
                number += 1
                if not self.ask_yes(tr(self.lang, "next_game"), default=True):
                    break
        except InputEnded:
            pass
        if self.saved:
            self.say_path("saved_dir", self.save_dir)
        self.say(tr(self.lang, "bye"))
        return 0

    def at_table(self) -> str:
        """The bot at each other seat."""
        seats = [f"{self.name(seat)} {self.specs[seat]}" for seat in range(SEATS) if seat != self.human]
        return tr(self.lang, "at_table", seats=("、" if self.lang == "zh" else ", ").join(seats))

    def play_game(self, number: int) -> Game:
        """Deal, play to the end (or an escape), show the result, save the record."""
        lang = self.lang
        self.console.rule(tr(lang, "game_no", n=number))
        self.say(self.at_table())  # also when the seats table has no room for the bots' names
        first = self.series.first_drawer(lambda: self.flip_card(number))  # 翻牌 or the last 上游 (R8)
        first_drawer = first.seat
        if first.card is not None:
            shown = tv.plain(tv.card_text(first.card.code, lang))
            value = flip_value(first.card)
            self.say(tr(lang, "flip", card=shown, value=value, seat=first_drawer,
                        who=self.name(first_drawer)))
        else:
            self.say(tr(lang, "first_drawer_prev", who=self.name(first_drawer)))
        players = [
            RecordPlayer(id=None, nickname="you", bot=None)
            if s == self.human
            else RecordPlayer(id=None, nickname=f"bot {self.specs[s]}", bot=self.specs[s])
            for s in range(SEATS)
        ]
        self.meta = new_meta(
            "niugui play", number, players, first, seed=self.seed,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        deal_seed = None if self.seed is None else f"{self.seed}:{number}"
        game = self.game_class.deal(seed=deal_seed, first_drawer=first_drawer)
        view = game.view(self.human)
        leader = view["to_move"]
        assert leader is not None  # a game just dealt has a seat to move (R26)
        self.say(tr(lang, "leads_first", who=self.name(leader)))
        return self.play_out(game, number, view)

    def resume_game(self, point: ResumePoint) -> Game:
        """Take up a game saved unfinished where it stood, and play it out into the same record."""
        lang = self.lang
        self.console.rule(tr(lang, "game_no", n=point.number))
        self.say(self.at_table())
        self.meta = point.meta
        actions = len(point.game.action_log())
        self.say(tr(lang, "resumed", game=point.number, path=point.path, n=actions), soft_wrap=True)
        view = point.game.view(self.human)
        for line in tv.changes(None, view, lang)[-8:]:  # the last actions before it was left
            self.say(line)
        return self.play_out(point.game, point.number, view, point.path)

    def play_out(self, game: Game, number: int, view: SeatView, path: Path | None = None) -> Game:
        """Play ``game`` to the end (or an escape), show the result and save the record (to ``path``
        when it was resumed from there). Raises :class:`InputEnded` once the game in progress is
        saved, when input ends."""
        lang = self.lang
        while not game.over:
            try:
                self.step(game, view)
            except EOFError:  # input ended at the move prompt: keep the game, escape nothing
                self.say("")
                self.suspend(game, number, path)
            except KeyboardInterrupt:
                self.say("")
                if self.confirm_escape():
                    game.escape(self.human)
                else:
                    self.say(tr(lang, "escape_cancelled"))
            after = game.view(self.human)
            for line in tv.changes(view, after, lang):
                self.say(line)
            view = after
        assert game.result is not None
        self.series.add(game.result)
        width, height = self.console.size
        self.console.print(tv.result_panel(view, lang, self.series.totals, self.series.games,
                                           bots=self.specs, width=width, height=height))
        try:
            path = self.save(game, number, path)
        except OSError as error:
            self.say(tr(lang, "not_saved", error=error), style="bold red")
        else:
            self.say_path("saved", path)
            self.say_path("replay_hint", path, style="dim")
        return game

    def suspend(self, game: Game, number: int, path: Path | None) -> None:
        """Save the game in progress with the running totals before it, say how to continue, and
        end the session (:class:`InputEnded`)."""
        assert self.meta is not None
        meta: Meta = {**self.meta, "totals_before": list(self.series.totals)}
        try:
            path = self.save(game, number, path, meta)
        except OSError as error:
            self.say(tr(self.lang, "not_saved", error=error), style="bold red")
        else:
            self.say_path("suspended", path, style="bold yellow")
            self.say_path("resume_hint", path)
        raise InputEnded

    def step(self, game: Game, view: SeatView) -> None:
        """One action by the seat to move: a bot's choice, or what you type."""
        seat = game.to_move
        assert seat is not None
        if seat == self.human:
            self.your_turn(game, view)
            return
        action = choose_safely(self.bots[seat], game.view(seat))
        if action is None:
            game.pass_turn(seat)
        else:
            game.play(action, seat)
        if self.delay:
            with self.interrupts.waiting():
                time.sleep(self.delay)

    def your_turn(self, game: Game, view: SeatView) -> None:
        """Ask until you enter a legal action, then apply it. Ctrl-C / end of input propagate."""
        lang = self.lang
        width, height = self.console.size
        self.console.print(tv.status(view, lang, bots=self.specs, width=width))
        while True:
            line = self.read(Text(tr(lang, "prompt"), style="bold cyan")).strip()
            word = line.lower()
            if not line:
                self.say(tr(lang, "empty"), style="yellow")
            elif word in QUIT_WORDS:
                raise KeyboardInterrupt
            elif word in HINT_WORDS or word in MORE_WORDS:
                self.console.print(tv.hints(view, lang, width=width, height=height, full=word in MORE_WORDS))
            else:
                refusal = self.try_action(game, view, line)
                if refusal is None:
                    return
                self.say(tr(lang, "refused", reason=refusal), style="bold yellow")

    def try_action(self, game: Game, view: SeatView, line: str) -> str | None:
        """Apply what was typed, or say why not (the rule it breaks); ``None`` once applied."""
        lang = self.lang
        word = line.lower()
        if word in PASS_WORDS:
            if not view["can_pass"]:
                return tr(lang, "no_pass_on_lead")
            try:
                game.pass_turn(self.human)
            except IllegalMove as error:
                return rule_reason(lang, error.rule, str(error))
            return None
        if word.isdigit():
            plays: list[list[str]] = view["legal_plays"]
            number = int(word)
            if not 1 <= number <= len(plays):
                return tr(lang, "bad_number", n=number, total=len(plays))
            cards: list[Card] = parse_cards(plays[number - 1])
        else:
            try:
                cards = read_cards(line)
            except NotACard as error:
                return tr(lang, "why_R6", token=error.token)
        missing = [c for c in cards if c.code not in view["hand"]]
        if missing:
            shown = " ".join(tv.plain(tv.card_text(c.code, lang)) for c in missing)
            return tr(lang, "not_in_hand", cards=shown)
        try:
            game.play(cards, self.human)
        except IllegalMove as error:
            return self.explain(error, cards, view)
        return None

    def explain(self, error: IllegalMove, cards: list[Card], view: SeatView) -> str:
        """Why a play was refused, in the player's language, naming the rule (R1, R17, R24–R26)."""
        lang, rule = self.lang, error.rule
        shown = tv.plain(tv.cards_text([c.code for c in cards], lang))
        if rule in ("R1", "R25", "R26"):
            return tr(lang, "why_" + rule, cards=shown)
        combo, current = classify(cards), view["current"]
        if rule in ("R17", "R24") and combo is not None and current is not None:
            mine, theirs = kind_name(lang, combo.kind), kind_name(lang, current["kind"])
            if (combo.kind in FIVE_KINDS) != (current["kind"] in FIVE_KINDS):
                return tr(lang, "why_group", mine=mine, theirs=theirs)
            if combo.kind != current["kind"] and combo.kind not in FIVE_KINDS:
                return tr(lang, "why_kind", mine=mine, theirs=theirs)
            played = tv.plain(tv.play_text(current["play"], current["kind"], lang))
            return tr(lang, "why_lower", mine=mine, cards=shown, theirs=theirs, current=played, rule=rule)
        return rule_reason(lang, rule, str(error))

    # ---- helpers ------------------------------------------------------------------------------

    def read(self, prompt: Text) -> str:
        return self._read(prompt)

    def say(self, message: str | Text, style: str = "", soft_wrap: bool = False) -> None:
        """Print a line; ``soft_wrap`` leaves the wrapping to the terminal, so that a path in it can be
        copied whole."""
        self.console.print(message if isinstance(message, Text) else Text(message, style=style),
                           soft_wrap=soft_wrap)

    def say_path(self, key: str, path: Path, style: str = "") -> None:
        """A line naming a path (``key``'s words): on one line when it fits the terminal, else the
        words on one line and the path alone on the next, so that no line breaks inside a name
        before the path begins (issue 28: at 80×24 the record's path wrapped mid-name)."""
        line = tr(self.lang, key, path=path)
        if cell_len(line) <= self.console.size.width:
            self.say(line, style=style, soft_wrap=True)
            return
        self.say(tr(self.lang, key, path="").rstrip(), style=style)
        self.say(str(path), style=style, soft_wrap=True)  # whole, to copy (the terminal may wrap it)

    def name(self, seat: int) -> str:
        return tv.seat_name(self.human, seat, self.lang)

    def ask_yes(self, question: str, default: bool) -> bool:
        """A yes/no question; end of input or Ctrl-C answers no."""
        while True:
            try:
                answer = self.read(Text(question, style="bold cyan")).strip().lower()
            except (EOFError, KeyboardInterrupt):
                self.say("")
                return False
            if not answer:
                return default
            if answer in YES_WORDS:
                return True
            if answer in NO_WORDS:
                return False

    def confirm_escape(self) -> bool:
        """Ask before escaping (R35): only a yes escapes; Ctrl-C, Ctrl-D or closed input is no."""
        while True:
            try:
                prompt = Text(tr(self.lang, "confirm_escape"), style="bold magenta")
                answer = self.read(prompt).strip().lower()
            except (EOFError, KeyboardInterrupt):
                self.say("")
                return False
            if answer in YES_WORDS:
                return True
            if not answer or answer in NO_WORDS:
                return False

    def flip_card(self, number: int) -> Card:
        """The card turned up for the 翻牌 (R8): from the seed, else from a secure source."""
        if self.seed is None:
            return CARDS[secrets.randbelow(len(CARDS))]
        return CARDS[random.Random(f"{self.seed}:flip:{number}").randrange(len(CARDS))]

    def save(self, game: Game, number: int, path: Path | None = None, meta: Meta | None = None) -> Path:
        """Write the game's record (RECORD.md) with ``meta`` (default: this game's), laid out as the
        examples are, to ``path`` (the record it was resumed from) or a new file; return the path."""
        if path is None:
            self.save_dir.mkdir(parents=True, exist_ok=True)
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            path = self.save_dir / f"niugui-{stamp}-{os.getpid()}-game{number}.json"
        record = record_of_game(game, self.meta if meta is None else meta)
        path.write_text(record_text(record) + "\n", encoding="utf-8")
        if path not in self.saved:
            self.saved.append(path)
        return path
