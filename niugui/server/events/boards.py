"""A duplicate board (issue 30): a deal drawn and committed when its event is made — the deck in
drawing order, the 翻牌 card that chooses the first drawer (R8) and the entrant's seat — dealt the
same at every entrant's table, with bots seeded from the board.

The board's commitment is published with the event, before anyone plays; its statement (and the
salt that makes it unguessable) is revealed to an entrant only once they finished the board, and to
everyone once the event is over. Like a game's (:mod:`niugui.fairness`, scheme 2) it is the SHA-256 of
the canonical JSON of the statement, and anyone can check it without the server:

>>> board = new_board("e1", 1)
>>> verify_board(board.commitment, statement(board)), verify_board("0" * 64, statement(board))
(True, False)
>>> dealer = BoardDealer(board)
>>> str(dealer.turn_up()) == board.flip, tuple(dealer.shuffled_deck()) == board.deck
(True, True)
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import replace
from typing import Any

from niugui import fairness
from niugui.bots import Action, Bot, View, load_bot
from niugui.cards import Card

from ..tables.bots import AUTOPLAY_LEVEL, Bots
from .store import BoardRow

SCHEME = "niugui-board/1"
"""The board commitment's scheme (docs/protocol.md, "Events")."""
_rng = secrets.SystemRandom()


def new_board(event_id: str, board: int) -> BoardRow:
    """A board drawn from the operating system's CSPRNG (as every deal of the server), committed."""
    drawn = BoardRow(
        event_id,
        board,
        seat=_rng.randrange(4),
        flip=str(fairness.turn_up()),
        deck=tuple(fairness.shuffled_deck()),
        secret=fairness.new_secret(),
        commitment="",
    )
    return replace(drawn, commitment=commitment_of(statement(drawn)))


def statement(board: BoardRow) -> dict[str, Any]:
    """What the board's commitment covers (its salt derived from the board's secret, which it does not
    reveal)."""
    return {
        "scheme": SCHEME,
        "event": board.event_id,
        "board": board.board,
        "seat": board.seat,
        "flip": board.flip,
        "deck": list(board.deck),
        "salt": fairness.salt_of(board.secret),
    }


def commitment_of(said: dict[str, Any]) -> str:
    return hashlib.sha256(fairness.canonical(said).encode()).hexdigest()


def verify_board(commitment: str, said: dict[str, Any]) -> bool:
    """Whether ``said`` (a revealed statement) is what ``commitment`` committed to."""
    return secrets.compare_digest(commitment_of(said), commitment)


def board_seed(board: BoardRow) -> int:
    """The board's bots' seed: the same for every entrant, unknown to them (from the board's secret)."""
    return int.from_bytes(hashlib.sha256(b"niugui board bots\n" + bytes.fromhex(board.secret)).digest()[:8])


class BoardDealer:
    """:class:`~niugui.server.tables.commands.Dealer` of a board's table: the board's 翻牌 and deck;
    the table's game still gets a fresh secret of its own (its own commitment and seal, as any game)."""

    def __init__(self, board: BoardRow) -> None:
        self.board = board

    def turn_up(self) -> Card:
        return Card.parse(self.board.flip)

    def shuffled_deck(self) -> list[str]:
        return list(self.board.deck)

    def new_secret(self) -> str:
        return fairness.new_secret()


class BoardBots(Bots):
    """The bots of a board's table, each seeded from the board and its seat: the same earlier plays
    give the same answers at every entrant's table (the levels a duplicate event allows answer the
    same to the same view: :data:`niugui.server.events.duplicate.LEVELS`) — also after a restart made
    new ones in the middle of the board (:class:`StepSeeded`)."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed
        self._seeded: dict[tuple[int, str], Bot | None] = {}

    def for_seat(self, seat: int, level: str | None) -> Bot | None:
        key = (seat, AUTOPLAY_LEVEL if level is None else level)
        if key not in self._seeded:
            bot = _seeded_bot(key[1], self.seed * 4 + seat)
            self._seeded[key] = None if bot is None else StepSeeded(bot, self.seed * 4 + seat)
        return self._seeded[key]


class StepSeeded(Bot):
    """``inner``, its generator seeded afresh before each decision from ``seed`` and how many actions
    the game has had: its answer depends on the view alone, not on the decisions it made before — so a
    bot made anew (a restart, a cluster node adopting the table) answers as the first one would have.

    >>> from niugui.game import Game
    >>> game = Game.deal(seed=4, first_drawer=0)
    >>> view = game.view(game.to_move)
    >>> one = StepSeeded(load_bot("random", seed=1), 7)
    >>> _ = [one.choose(view) for _ in range(3)]  # decisions before do not matter
    >>> one.choose(view) == StepSeeded(load_bot("random", seed=1), 7).choose(view)
    True
    """

    def __init__(self, inner: Bot, seed: int) -> None:
        super().__init__(seed)
        self.inner = inner

    def choose(self, view: View) -> Action:
        self.inner.rng.seed(f"{self.seed}:{len(view.get('history') or ())}")
        return self.inner.choose(view)


def _seeded_bot(level: str, seed: int) -> Bot | None:
    for spec in (level, "expert", "basic"):
        try:
            return load_bot(spec, seed=seed)
        except ValueError:
            continue
    return None
