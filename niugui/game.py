"""The game as a state machine: deal, turns, tricks, going out, the end and the score (R7–R35).

>>> game = Game.deal(seed=7, first_drawer=0)
>>> game.to_move                      # the holder of ♦4 leads (R26)
2
>>> game.can_pass()                   # not on a free lead (R27)
False
>>> game.play("D4")                  # returns what it played
Combo('single', [D4])
>>> game.to_move, game.can_pass()   # play goes counter-clockwise: seat 2, then 3 (R7)
(3, True)
>>> game.pass_turn()
>>> game.play("S4")
Traceback (most recent call last):
...
niugui.game.IllegalMove: S4 is not in seat 0's hand (R27: a seat plays only cards it holds)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, MutableSequence, Sequence
from typing import Any, Literal, Required, TypedDict

from .cards import BLACK_MASK, CARDS, DECK_SIZE, Card, cards_of, codes_of, mask_of, parse_cards
from .combos import FIVE, Combo, classify_mask
from .moves import Kept, follow, follow_singles, keep

SEATS = 4
FORMAT = "niugui-record"
VERSION = 1

OUTCOME_ZH = {
    "sweep": "牛鬼完胜",
    "win": "牛鬼小胜",
    "draw": "免炒",
    "double_win": "双牛成功",
    "double_draw": "双牛逃跑",
    "double_caught": "活抓双牛",
    "escape": "逃跑",
}
PLACE_ZH = ("上游", "二游", "三游", "下游")


class PlayEntry(TypedDict):
    """A play in a view's ``history``, ``trick`` or ``current``: who played which cards, of what kind."""

    seat: int
    play: list[str]
    kind: str


ActionEntry = TypedDict(
    "ActionEntry",
    {"seat": Required[int], "play": list[str], "kind": str, "pass": Literal[True], "escape": Literal[True]},
    total=False,
)
"""One action in a view's ``history`` or ``trick``: a play ``{"seat": 1, "play": ["D4"], "kind":
"single"}`` (a :class:`PlayEntry`), a pass ``{"seat": 2, "pass": true}`` (过门) or an escape
``{"seat": 0, "escape": true}`` (逃跑, R35). Exactly one of ``play``, ``pass``, ``escape`` is present."""


class ResultDict(TypedDict):
    """A finished game's result, as in a record (RECORD.md) and a view."""

    mode: str
    outcome: str
    finish: list[int]
    scores: list[int]
    black: list[int]


class _SeatViewKeys(TypedDict):
    """The keys of every view (see :class:`SeatView`)."""

    seat: int | None
    first_drawer: int
    to_move: int | None
    counts: list[int]
    marks: list[list[str]]
    finish: list[int]
    trick: list[ActionEntry]
    """This trick's plays and passes so far (R29)."""
    current: PlayEntry | None
    """The play to beat, ``None`` on a free lead (R27)."""
    over: bool


class SeatView(_SeatViewKeys, total=False):
    """What :meth:`Game.view` returns: the one shape of a seat's (or a spectator's) knowledge.

    Bots, the server, the terminal and the protocol's ``GameView`` all take this shape. The keys
    below are present only where :meth:`Game.view` says: ``history`` and ``leads`` unless
    ``history=False``; ``hand``, ``side``, ``legal_plays`` and ``can_pass`` in a seat's view; ``result``,
    ``hands`` and ``dealt`` once the game is over.
    """

    history: list[ActionEntry]
    """Every action so far."""
    leads: list[int]
    """The index in ``history`` of every play made on a free lead (each trick's first play, R29), so
    no reader re-derives where tricks begin and end."""
    hand: list[str]
    side: str
    """What the seat's own dealt hand tells it of the sides (R10, R11): ``black`` (it holds one of
    ♠3/♠2, its partner the other), ``double`` (it holds both: alone against three) or ``red`` (it
    holds neither: it plays against the black cards, its partner unknown). Seat views only."""
    legal_plays: list[list[str]]
    can_pass: bool
    result: ResultDict
    hands: list[list[str]]
    dealt: list[list[str]]


class RecordError(ValueError):
    """A record that is malformed (bad structure, types or deal); the message names the field."""


class IllegalMove(ValueError):
    """An action that breaks a rule; its message names the rule, ``.rule`` holds its id.

    ``.index`` is the 0-based index of the offending action when replaying a record, else ``None``.
    Nothing of an illegal action is ever applied.
    """

    def __init__(self, message: str, rule: str, index: int | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.index = index


class Result:
    """How a finished game ended: mode, outcome, finish order, score changes and the black side."""

    __slots__ = ("black", "finish", "mode", "outcome", "scores")

    def __init__(self, mode: str, outcome: str, finish: list[int], scores: list[int], black: list[int]):
        self.mode = mode
        self.outcome = outcome
        self.finish = finish
        self.scores = scores
        self.black = black

    @property
    def zh(self) -> str:
        return OUTCOME_ZH[self.outcome]

    def to_dict(self) -> ResultDict:
        """The record's ``result`` object (RECORD.md)."""
        return {
            "mode": self.mode,
            "outcome": self.outcome,
            "finish": list(self.finish),
            "scores": list(self.scores),
            "black": list(self.black),
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"Result({self.to_dict()!r})"


def deal_hands(deck: Sequence[int], first_drawer: int) -> list[int]:
    """Hand masks from a deck in drawing order (R9): first drawer first, then clockwise (R7).

    >>> [m.bit_count() for m in deal_hands(list(range(54)), 2)]
    [13, 14, 14, 13]
    """
    hands = [0] * SEATS
    for turn in range(SEATS):  # the cards drawn at turns turn, turn + 4, ... go to one seat
        mask = 0
        for card in deck[turn::SEATS]:
            mask |= 1 << card
        hands[(first_drawer - turn) % SEATS] = mask
    return hands


_DRAW_BITS = tuple((n + 1).bit_length() for n in range(DECK_SIZE))
_CARD_MASKS = tuple(1 << card for card in range(DECK_SIZE))


def shuffle(deck: MutableSequence[Any], rng: random.Random) -> None:
    """Shuffle ``deck`` in place exactly as ``rng.shuffle(deck)`` does (Fisher–Yates, each index drawn
    with ``getrandbits`` and rejection: the same deck for the same seed), without its per-card calls.

    >>> a, b = list(range(54)), list(range(54))
    >>> random.Random(3).shuffle(a); shuffle(b, random.Random(3)); a == b
    True
    """
    getrandbits = rng.getrandbits
    bits = _DRAW_BITS
    for i in range(len(deck) - 1, 0, -1):
        k = bits[i]
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]


def score(black: Sequence[int], finish: Sequence[int]) -> tuple[str, list[int]]:
    """The outcome and each seat's score change of a game whose side went out (R32–R34): the one
    place the game is scored (an escape is :func:`escape_scores`).

    >>> score([0, 2], [2, 0])            # 2v2: the 上游's partner second out, a sweep (R33)
    ('sweep', [2, -2, 2, -2])
    >>> score([1], [3, 0, 2])            # 1v3: the 双牛鬼 last out (R34)
    ('double_caught', [2, -6, 2, 2])
    """
    if len(black) == 1:
        double = black[0]
        if finish[0] == double:
            outcome, mine, theirs = "double_win", 9, -3
        elif double in finish:
            outcome, mine, theirs = "double_draw", 0, 0
        else:
            outcome, mine, theirs = "double_caught", -6, 2
        return outcome, [mine if s == double else theirs for s in range(SEATS)]
    winners = list(black) if finish[0] in black else [s for s in range(SEATS) if s not in black]
    partner = winners[0] if winners[1] == finish[0] else winners[1]
    place = finish.index(partner) if partner in finish else 3
    outcome, points = {1: ("sweep", 2), 2: ("win", 1), 3: ("draw", 0)}[place]
    return outcome, [points if s in winners else -points for s in range(SEATS)]


def escape_scores(seat: int) -> list[int]:
    """R35: the seat that abandons the game loses 9; nobody else scores."""
    return [-9 if s == seat else 0 for s in range(SEATS)]


def hand_sizes(first_drawer: int) -> list[int]:
    """R9: 14 cards for the first drawer and the next seat clockwise, 13 for the others."""
    return [14 if seat in (first_drawer, (first_drawer - 1) % SEATS) else 13 for seat in range(SEATS)]


class Game:
    """One game of 河池牛鬼, from the deal to its result.

    Make one with :meth:`deal`, :meth:`from_deck`, :meth:`from_hands` or :meth:`from_record`.
    """

    def __init__(self, hands: list[int], first_drawer: int, deck: list[int] | None = None) -> None:
        """Start from four hand masks (use the class methods, which check their input)."""
        self.first_drawer = first_drawer
        self._deck = deck
        self._drawn: list[int] | None = None  # the deck as card masks, when deal() shuffled those
        self._dealt = list(hands)
        self._hands = list(hands)
        self._black = [s for s, h in enumerate(hands) if h & BLACK_MASK]
        self._actions: list[tuple[int, str, int, str]] = []  # (seat, "play"|"pass"|"escape", mask, kind)
        self._last: Combo | None = None  # the play to beat, None on a free lead
        self._last_seat = -1
        self._passes_left = 0  # passes still to come before this trick ends (R29)
        self._leads = [0]  # the index of each trick's first action (R29); the game's first is a lead
        self._holding = SEATS - hands.count(0)  # seats still holding cards
        self._next: tuple[int, ...] = (1, 2, 3, 0)  # per seat, the next seat in play order holding cards
        # Per seat, its hand's plays as moves.keep made them: built at the seat's first lead (or
        # five-card follow), then only filtered as its cards leave. Never changed in place, so copies
        # share them.
        self._kept: list[Kept | None] = [None] * SEATS
        self._finish: list[int] = []
        self._result: Result | None = None
        self._to_move: int | None = [h & 1 for h in hands].index(1)  # ♦4 leads (R26)

    # ---- making games -------------------------------------------------------------------------

    @classmethod
    def deal(cls, seed: int | str | None = None, first_drawer: int | None = None) -> Game:
        """Shuffle and deal (R8, R9). Without a seed the shuffle is cryptographically secure.

        >>> Game.deal(seed=1, first_drawer=3).to_record()["deck"][:3]
        ['H4', 'HK', 'S6']
        """
        rng: random.Random = random.SystemRandom() if seed is None else random.Random(seed)
        drawn = list(_CARD_MASKS)  # the cards as masks: a seat's hand is then a sum of its cards
        shuffle(drawn, rng)
        if first_drawer is None:
            first_drawer = rng.randrange(SEATS)
        else:
            _check_seat(first_drawer, "first_drawer")
        hands = [0] * SEATS
        for turn in range(SEATS):  # R9: the cards drawn at turns turn, turn + 4, ... go to one seat
            hands[(first_drawer - turn) % SEATS] = sum(drawn[turn::SEATS])
        game = cls(hands, first_drawer)
        game._drawn = drawn
        return game

    @property
    def deck(self) -> list[int] | None:
        """The deck in drawing order (card indices), when the game was dealt from one."""
        if self._deck is None and self._drawn is not None:
            self._deck = [mask.bit_length() - 1 for mask in self._drawn]
        return self._deck

    @classmethod
    def from_deck(cls, deck: Iterable[int | str], first_drawer: int) -> Game:
        """Deal a given deck, listed in drawing order (R9)."""
        cards = parse_cards(deck)
        _check_seat(first_drawer, "first_drawer")
        if len(cards) != DECK_SIZE or mask_of(cards).bit_count() != DECK_SIZE:
            raise ValueError("deck: must list each of the 54 cards exactly once (R1)")
        return cls(deal_hands(cards, first_drawer), first_drawer, [int(c) for c in cards])

    @classmethod
    def from_hands(cls, hands: Sequence[Iterable[int | str] | int], first_drawer: int) -> Game:
        """Start from four dealt hands (cards, or masks), sized per R9 for ``first_drawer``."""
        _check_seat(first_drawer, "first_drawer")
        if len(hands) != SEATS:
            raise ValueError("hands: must be four hands, seats 0..3 (R9)")
        masks = []
        for seat, hand in enumerate(hands):
            if isinstance(hand, int):
                masks.append(hand)
                continue
            cards = parse_cards(hand)
            mask = mask_of(cards)
            if mask.bit_count() != len(cards):
                raise ValueError(f"hands[{seat}]: a card is listed twice (R1)")
            masks.append(mask)
        for seat, (mask, size) in enumerate(zip(masks, hand_sizes(first_drawer), strict=True)):
            if mask.bit_count() != size:
                raise ValueError(
                    f"hands[{seat}]: holds {mask.bit_count()} cards; seat {seat} must hold {size} "
                    f"when seat {first_drawer} draws first (R9)"
                )
        union = 0
        for mask in masks:
            if union & mask:
                raise ValueError(f"hands: {cards_of(union & mask)[0]} is dealt twice (R1)")
            union |= mask
        if union != (1 << DECK_SIZE) - 1:
            raise ValueError("hands: the four hands must be exactly the 54 cards (R1)")
        return cls(masks, first_drawer)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Game:
        """Replay a game record (RECORD.md); raise :class:`RecordError` (malformed) or
        :class:`IllegalMove` (with ``.index``). The game knows nothing of ``meta``: read it with
        :func:`niugui.record.meta_of_record`.

        >>> Game.from_record({"format": "chess"})
        Traceback (most recent call last):
        ...
        niugui.game.RecordError: format: expected "niugui-record", got 'chess'
        """
        if not isinstance(record, dict):
            raise RecordError(f"record: expected a JSON object, got {type(record).__name__}")
        if record.get("format") != FORMAT:
            raise RecordError(f'format: expected "{FORMAT}", got {record.get("format")!r}')
        version = record.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
            raise RecordError(f"version: this engine reads version {VERSION}, got {version!r}")
        variant = record.get("variant", {})
        if variant not in ({}, None):
            raise RecordError(
                f"variant: no rule variants are implemented, got {variant!r} (RULES.md section 6)"
            )
        first_drawer = record.get("first_drawer")
        if not isinstance(first_drawer, int) or isinstance(first_drawer, bool) or not 0 <= first_drawer < 4:
            raise RecordError(f"first_drawer: must be a seat 0..3, got {first_drawer!r}")
        game = _deal_of_record(record, first_drawer)
        meta = record.get("meta")
        if meta is not None and not isinstance(meta, dict):
            raise RecordError("meta: expected an object")
        actions = record.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError("actions: expected a list")
        for index, action in enumerate(actions):
            _apply_recorded(game, index, action)
        if "result" in record and record["result"] is not None:
            expected = game.result.to_dict() if game.result is not None else None
            if record["result"] != expected:
                raise RecordError(
                    f"result: the record says {record['result']!r} "
                    f"but replaying its actions gives {expected!r}"
                )
        return game

    def to_record(self) -> dict[str, Any]:
        """This game as it stands, as a record without ``meta`` (RECORD.md; with ``meta``:
        :func:`niugui.record.record_of_game`)."""
        record: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "variant": {},
            "first_drawer": self.first_drawer,
        }
        if self.deck is not None:
            record["deck"] = [str(CARDS[c]) for c in self.deck]
        else:
            record["hands"] = [[str(c) for c in self.dealt(seat)] for seat in range(SEATS)]
        record["actions"] = [
            {"seat": seat, "play": [str(c) for c in cards]} if action == "play"
            else {"seat": seat, action: True}
            for seat, action, cards in self.actions()
        ]
        if self.result is not None:
            record["result"] = self.result.to_dict()
        return record

    def copy(self) -> Game:
        """An independent copy (for search): same deal, same state."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._hands = list(self._hands)
        other._actions = list(self._actions)
        other._kept = list(self._kept)
        other._leads = list(self._leads)
        other._finish = list(self._finish)
        return other

    # ---- state --------------------------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        """The seat whose turn it is, or ``None`` once the game is over."""
        return self._to_move

    @property
    def result(self) -> Result | None:
        """``None`` while the game goes on, else how it ended."""
        return self._result

    @property
    def over(self) -> bool:
        return self._result is not None

    @property
    def current(self) -> Combo | None:
        """The play to beat in this trick, or ``None`` on a free lead."""
        return self._last

    @property
    def current_seat(self) -> int | None:
        """The seat whose play is to beat, or ``None`` on a free lead."""
        return None if self._last is None else self._last_seat

    def leads(self, start: int = 0) -> list[int]:
        """The index (in :meth:`actions`) of every play made on a free lead: where each trick began
        (R29; after the last of them, once every other seat holding cards has passed, the trick ends).
        With ``start``, only those from that index on (a reader that has seen the earlier ones).

        >>> game = Game.deal(seed=7, first_drawer=0)
        >>> game.play("D4"); game.pass_turn(); game.pass_turn(); game.pass_turn()
        Combo('single', [D4])
        >>> game.leads(), game.to_move, game.current_seat      # seat 2 has the next lead
        ([0], 2, None)
        >>> game.play(game.legal_plays()[0]); game.leads(), game.leads(start=1)
        Combo('single', [H5])
        ([0, 4], [4])
        """
        actions = self._actions
        leads = self._leads
        first = len(leads)
        while first and leads[first - 1] >= start:
            first -= 1
        return [i for i in leads[first:] if i < len(actions) and actions[i][1] == "play"]

    @property
    def finish(self) -> list[int]:
        """The seats that went out, in order (first is 上游, R30)."""
        return list(self._finish)

    @property
    def black(self) -> list[int]:
        """The 黑方 seats (R10). Hidden information: only the engine and a finished game show it."""
        return list(self._black)

    @property
    def mode(self) -> str:
        return "1v3" if len(self._black) == 1 else "2v2"

    def hand(self, seat: int) -> list[Card]:
        """The cards ``seat`` holds now. Hidden information: use :meth:`view` for a player."""
        return cards_of(self._hands[seat])

    def dealt(self, seat: int) -> list[Card]:
        """The cards ``seat`` was dealt. Hidden information until the game is over."""
        return cards_of(self._dealt[seat])

    def hand_mask(self, seat: int) -> int:
        return self._hands[seat]

    def count(self, seat: int) -> int:
        return self._hands[seat].bit_count()

    def counts(self) -> list[int]:
        """Every seat's number of cards (public, R12), seats 0..3."""
        return [hand.bit_count() for hand in self._hands]

    def actions(self) -> list[tuple[int, str, list[Card]]]:
        """Every action so far as (seat, "play" | "pass" | "escape", cards)."""
        return [(seat, action, cards_of(mask)) for seat, action, mask, _ in self._actions]

    def action_log(self) -> Sequence[tuple[int, str, int, str]]:
        """Every action so far as (seat, "play" | "pass" | "escape", mask, kind): the public history
        without building card lists (a fast path for bots' rollouts). Read-only: do not change it."""
        return self._actions

    def marks(self, seat: int) -> list[Card]:
        """The ♠3/♠2 marks shown at ``seat``: those of the two it has played (R11)."""
        return cards_of(self._marks_mask(seat))

    def _marks_mask(self, seat: int) -> int:
        return self._dealt[seat] & ~self._hands[seat] & BLACK_MASK

    # ---- what may be done ---------------------------------------------------------------------

    def legal_combos(self) -> list[Combo]:
        """Every legal play for the seat to move, as combinations (pass not included)."""
        seat = self._to_move
        if seat is None:
            return []
        last = self._last
        hand = self._hands[seat]
        if last is not None:
            if last.group == 1:  # the commonest case, straight from the hand (as moves.follow does)
                return follow_singles(hand, last.value)
            if last.group != FIVE:
                return follow(hand, None, last)
        kept = self._kept[seat]
        if kept is None or kept[0] != hand:
            kept = self._kept[seat] = keep(hand, kept)
        if last is not None:
            return follow(hand, kept[2], last)
        moves = kept[1] + kept[2]
        if not self._actions:  # the opening play must contain ♦4 (R26)
            moves = [m for m in moves if m.mask & 1]
        return moves

    def legal_plays(self) -> list[list[Card]]:
        """Every legal play for the seat to move, each exactly once, weakest card first."""
        return [cards_of(m.mask) for m in self.legal_combos()]

    def can_pass(self) -> bool:
        """Whether the seat to move may pass: never on a free lead (R27)."""
        return self._to_move is not None and self._last is not None

    # ---- actions ------------------------------------------------------------------------------

    def check_play(self, cards: str | Iterable[int | str] | Combo, seat: int | None = None) -> Combo:
        """The combination ``cards`` would play for the seat to move; changes nothing.

        Pass ``seat`` to have the engine check that it is that seat's turn (R27).
        Raises :class:`IllegalMove` naming the rule if the play is illegal.

        >>> game = Game.deal(seed=7, first_drawer=0)
        >>> game.check_play("D4").kind, game.to_move
        ('single', 2)
        """
        mover = self._to_move
        if mover is None or seat is not None:
            mover = self._check_turn(seat)
        if isinstance(cards, Combo):
            combo: Combo | None = cards
            mask = cards.mask
        else:
            listed = parse_cards(cards)
            mask = mask_of(listed)
            if mask.bit_count() != len(listed):
                raise IllegalMove("a card is listed twice (R1: each card exists once)", "R1")
            combo = None
        hand = self._hands[mover]
        if mask & ~hand:
            missing = " ".join(str(c) for c in cards_of(mask & ~hand))
            raise IllegalMove(
                f"{missing} is not in seat {mover}'s hand (R27: a seat plays only cards it holds)", "R27"
            )
        if combo is None:
            combo = classify_mask(mask)
            if combo is None:
                text = " ".join(str(c) for c in cards_of(mask)) or "nothing"
                raise IllegalMove(f"{text} is not a combination (R25)", "R25")
        last = self._last
        if last is None:
            if not mask & 1 and not self._actions:
                raise IllegalMove("the first play of the game must contain ♦4 (D4) (R26)", "R26")
        elif not combo.beats(last):
            raise self._does_not_beat(combo, last)
        return combo

    def check_pass(self, seat: int | None = None) -> None:
        """Raise :class:`IllegalMove` if the seat to move (or ``seat``) may not pass now (R27)."""
        if self._to_move is None or seat is not None:
            self._check_turn(seat)
        if self._last is None:
            raise IllegalMove("you have the lead and must play (R27: no pass on a free lead)", "R27")

    def play(self, cards: str | Iterable[int | str] | Combo, seat: int | None = None) -> Combo:
        """Play cards (a ``Combo``, ``Card``s, codes or text) for the seat to move; returns the play.

        Checked by :meth:`check_play` first: an illegal play raises :class:`IllegalMove` naming the
        rule and changes nothing.
        """
        combo = self.check_play(cards, seat)
        mover = self._to_move
        assert mover is not None
        mask = combo.mask
        hand = self._hands[mover] ^ mask
        self._hands[mover] = hand
        self._actions.append((mover, "play", mask, combo.kind))
        self._last = combo
        self._last_seat = mover
        if hand:
            self._passes_left = self._holding - 1  # every other seat holding cards (R29)
            self._to_move = self._next[mover]
        else:
            self._go_out(mover)
        return combo

    def pass_turn(self, seat: int | None = None) -> None:
        """Pass (过门) for the seat to move; not allowed on a free lead (R27)."""
        mover = self._to_move
        if mover is None or seat is not None or self._last is None:
            self.check_pass(seat)  # raises: only the seat to move passes, never on a free lead
        assert mover is not None
        self._actions.append((mover, "pass", 0, ""))
        left = self._passes_left - 1
        if left:
            self._passes_left = left
            self._to_move = self._next[mover]
            return
        # Everyone else still holding cards has passed: the trick ends (R29).
        self._leads.append(len(self._actions))  # the next action leads
        last_seat = self._last_seat
        self._to_move = last_seat if self._hands[last_seat] else self._next[last_seat]  # 接风
        self._last = None
        self._passes_left = 0

    def escape(self, seat: int) -> None:
        """Abandon the game (逃跑, R35): −9 for ``seat``, the game ends at once."""
        _check_seat(seat, "seat")
        if self._result is not None:
            raise IllegalMove("the game is over (R31)", "R31")
        if not self._hands[seat]:
            raise IllegalMove(f"seat {seat} has gone out and has nothing to abandon (R35)", "R35")
        self._actions.append((seat, "escape", 0, ""))
        self._end("escape", escape_scores(seat))

    # ---- internals ----------------------------------------------------------------------------

    def _check_turn(self, seat: int | None) -> int:
        mover = self._to_move
        if mover is None:
            raise IllegalMove("the game is over (R31)", "R31")
        if seat is not None and (seat != mover or isinstance(seat, bool)):
            raise IllegalMove(f"it is seat {mover}'s turn, not seat {seat}'s (R27)", "R27")
        return mover

    def _does_not_beat(self, combo: Combo, last: Combo) -> IllegalMove:
        if combo.group != last.group:
            rule = "R24" if FIVE in (combo.group, last.group) else "R17"
            why = (
                "five-card and loose combinations never beat each other"
                if rule == "R24"
                else ("a loose combination beats only the same type")
            )
            return IllegalMove(f"a {combo.kind} cannot be played on a {last.kind} ({rule}: {why})", rule)
        rule = "R24" if combo.group == FIVE else "R17"
        return IllegalMove(
            f"{combo.kind} {_codes(combo.mask)} does not beat {last.kind} {_codes(last.mask)} ({rule})", rule
        )

    def _go_out(self, seat: int) -> None:
        """``seat`` has played its last card."""
        self._finish.append(seat)  # 上游, 二游, 三游 (R30)
        self._holding -= 1
        if self._side_out():
            self._score()
            return
        self._passes_left = self._holding  # every seat still holding cards (R29)
        hands = self._hands
        self._next = tuple(
            next((s + step) % SEATS for step in (1, 2, 3) if hands[(s + step) % SEATS]) for s in range(SEATS)
        )
        self._to_move = self._next[seat]

    def _side_out(self) -> bool:
        """R31: has every seat of one side gone out?"""
        hands = self._hands
        black = self._black
        black_out = all(not hands[s] for s in black)
        red_out = all(not hands[s] for s in range(SEATS) if s not in black)
        return black_out or red_out

    def _score(self) -> None:
        self._end(*score(self._black, self._finish))

    def _end(self, outcome: str, scores: list[int]) -> None:
        self._result = Result(self.mode, outcome, list(self._finish), scores, list(self._black))
        self._to_move = None
        self._last = None

    # ---- views --------------------------------------------------------------------------------

    def view(self, seat: int | None, history: bool = True) -> SeatView:
        """What ``seat`` may know (R11, R12), as plain JSON data; ``None`` is a spectator.

        ``history=False`` leaves out the list of every action so far (a server sending each action
        as an event has no need to rebuild it every time).

        The seat's own hand and the side it tells (``side``, R11), every seat's card count, marks
        and finish place, all plays and passes, the current trick, whose turn it is, and on its own
        turn its legal plays. Once the game is over every hand is revealed, with the result.

        >>> v = Game.deal(seed=7, first_drawer=0).view(2)
        >>> v["counts"], len(v["hand"]), v["to_move"], ["D4"] in v["legal_plays"], v["can_pass"]
        ([14, 13, 13, 14], 13, 2, True, False)
        >>> v["side"] in ("black", "red", "double")
        True
        >>> {"hand", "side"} & Game.deal(seed=7, first_drawer=0).view(None).keys()
        set()
        """
        return self.views((seat,), history)[seat]

    def views(self, seats: Iterable[int | None], history: bool = True) -> dict[int | None, SeatView]:
        """:meth:`view` for several seats at once (a server sends one to each seat after every
        action): what every seat may know is built once and shared by the views, so read them, do
        not change them.

        >>> game = Game.deal(seed=7, first_drawer=0)
        >>> views = game.views([0, 2, None], history=False)
        >>> views[2] == game.view(2, history=False) and views[None] == game.view(None, history=False)
        True
        """
        wanted = list(seats)
        for seat in wanted:
            if seat is not None:
                _check_seat(seat, "seat")
        public: dict[str, Any] = {
            "first_drawer": self.first_drawer,
            "to_move": self._to_move,
            "counts": [h.bit_count() for h in self._hands],
            "marks": [codes_of(self._marks_mask(s)) for s in range(SEATS)],
            "finish": list(self._finish),
            "trick": [_action_dict(*a) for a in self._actions[self._leads[-1] :] if a[1] != "escape"],
            "current": None
            if self._last is None
            else {"seat": self._last_seat, "play": _codes_list(self._last.mask), "kind": self._last.kind},
            "over": self._result is not None,
        }
        if history:
            public["history"] = [_action_dict(*action) for action in self._actions]
            public["leads"] = self.leads()
        ended: dict[str, Any] | None = None
        if self._result is not None:
            ended = {
                "result": self._result.to_dict(),
                "hands": [_codes_list(h) for h in self._hands],
                "dealt": [_codes_list(h) for h in self._dealt],
            }
        out: dict[int | None, SeatView] = {}
        for seat in wanted:
            view: dict[str, Any] = {"seat": seat, **public}
            if seat is not None:
                view["hand"] = _codes_list(self._hands[seat])
                view["side"] = _side_of(self._dealt[seat])
                mine = seat == self._to_move
                view["legal_plays"] = [_codes_list(m.mask) for m in self.legal_combos()] if mine else []
                view["can_pass"] = mine and self.can_pass()
            if ended is not None:
                view.update(ended)
            out[seat] = view  # type: ignore[assignment]
        return out


def _side_of(dealt: int) -> str:
    """The side a seat knows it is on from its own dealt hand alone (R10, R11).

    >>> from niugui.cards import S3
    >>> _side_of(S3.mask), _side_of(BLACK_MASK), _side_of(0)
    ('black', 'double', 'red')
    """
    black = (dealt & BLACK_MASK).bit_count()
    return "double" if black == 2 else "black" if black else "red"


def _check_seat(seat: object, field: str) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < SEATS:
        raise ValueError(f"{field}: must be a seat 0..3 (R7), not {seat!r}")


def _codes(mask: int) -> str:
    return " ".join(_codes_list(mask))


_codes_list = codes_of


def _action_dict(seat: int, action: str, mask: int, kind: str) -> ActionEntry:
    if action == "play":
        return {"seat": seat, "play": _codes_list(mask), "kind": kind}
    if action == "pass":
        return {"seat": seat, "pass": True}
    return {"seat": seat, "escape": True}


def _deal_of_record(record: dict[str, Any], first_drawer: int) -> Game:
    has_deck, has_hands = "deck" in record, "hands" in record
    if has_deck == has_hands:
        raise RecordError("deck/hands: a record gives the deal as exactly one of 'deck' or 'hands'")
    try:
        if has_deck:
            deck = record["deck"]
            if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
                raise RecordError("deck: expected a list of 54 card codes")
            return Game.from_deck(deck, first_drawer)
        hands = record["hands"]
        if (
            not isinstance(hands, list)
            or len(hands) != 4
            or not all(isinstance(h, list) and all(isinstance(c, str) for c in h) for h in hands)
        ):
            raise RecordError("hands: expected four lists of card codes, seats 0..3")
        return Game.from_hands(hands, first_drawer)
    except RecordError:
        raise
    except ValueError as error:
        field = "deck" if has_deck else "hands"
        message = str(error)
        raise RecordError(message if message.startswith(field) else f"{field}: {message}") from None


def _apply_recorded(game: Game, index: int, action: Any) -> None:
    where = f"actions[{index}]"
    if not isinstance(action, dict):
        raise RecordError(f'{where}: expected an object like {{"seat": 1, "play": ["D4"]}}')
    seat = action.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise RecordError(f"{where}.seat: must be a seat 0..3, got {seat!r}")
    kinds = [k for k in ("play", "pass", "escape") if k in action]
    if len(kinds) != 1:
        raise RecordError(f"{where}: needs exactly one of 'play', 'pass' or 'escape'")
    kind = kinds[0]
    try:
        if kind == "play":
            cards = action["play"]
            if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
                raise RecordError(f"{where}.play: expected a list of card codes")
            try:
                game.play(cards, seat=seat)
            except IllegalMove:
                raise
            except ValueError as error:  # a bad card code
                raise IllegalMove(f"{error}", "R6") from None
        elif action[kind] is not True:
            raise RecordError(f"{where}.{kind}: expected true")
        elif kind == "pass":
            game.pass_turn(seat=seat)
        else:
            game.escape(seat)
    except IllegalMove as error:
        raise IllegalMove(f"{where}: {error}", error.rule, index) from None
