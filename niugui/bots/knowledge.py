"""What a seat knows: its hand, every card seen, the current trick, and who is likely its partner.

A :class:`Situation` is built from a seat's view (:func:`situation_from_view`) or, for search
rollouts, straight from a ``Game`` for the seat to move (:func:`situation_from_game`) — the two give
the same facts, and neither reads any other seat's hand. Either may be given a :class:`Tracker` that
read the same game's history at an earlier decision: it then reads only the actions since.

>>> from niugui import Game
>>> game = Game.deal(seed=3, first_drawer=0)
>>> seat = game.to_move
>>> situation_from_view(game.view(seat)) == situation_from_game(game)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..cards import BLACK_MASK, FULL_MASK, S2, S3, mask_of_codes
from ..combos import Combo, classify_mask
from ..game import SEATS, Game, SeatView, hand_sizes

EVIDENCE_WEIGHT = 0.2
"""How much one 'beat that seat's play' shifts the odds that two seats are on opposite sides."""


@dataclass(slots=True)
class Situation:
    """Everything the seat to move knows, in masks and counts."""

    seat: int
    hand: int
    counts: list[int]
    marks: list[int]
    """Per seat, the mask of ♠3/♠2 it has shown (R11)."""
    played: int
    """Every card played so far (public, R12)."""
    finish: list[int]
    current: Combo | None
    current_seat: int
    """The seat whose play is to beat; -1 on a free lead."""
    opening: bool
    """The first play of the game, which must contain ♦4 (R26)."""
    overtaken: list[list[int]] = field(default_factory=lambda: [[0] * SEATS for _ in range(SEATS)])
    """``overtaken[i][j]``: how often seat ``j`` beat a play of seat ``i`` (weighted; evidence of sides)."""
    declined: list[dict[int, int]] = field(default_factory=lambda: [{} for _ in range(SEATS)])
    """``declined[s][group]``: the lowest value of that group (R17, R24) seat ``s`` passed on — a hint
    that it holds nothing higher in that group."""

    @property
    def unseen(self) -> int:
        """Cards in the other seats' hands: neither in this hand nor played."""
        return FULL_MASK ^ self.hand ^ self.played


@lru_cache(maxsize=1 << 12)
def _combo(mask: int) -> Combo:
    combo = classify_mask(mask)
    assert combo is not None, mask
    return combo


class _History:
    """A pass over the public history: cards played, marks, who beat whom, who passed on what.

    Where tricks begin comes from the engine (the view's ``leads``, ``Game.leads()``), never from
    counting passes here: a play that is not a lead beat the play before it, and a pass (never on a
    free lead, R27) declined the play before it.

    Its ``overtaken`` and ``declined`` tables may be lent (to a :class:`Situation`, or to a copy):
    while lent they are copied before they change, never changed in place.
    """

    __slots__ = ("declined", "last", "left", "lent", "marks", "overtaken", "played")

    def __init__(self, first_drawer: int) -> None:
        self.left = hand_sizes(first_drawer)
        self.overtaken = [[0] * SEATS for _ in range(SEATS)]
        self.declined: list[dict[int, int]] = [{} for _ in range(SEATS)]
        self.played = 0
        self.marks = [0] * SEATS
        self.last: tuple[int, Combo] | None = None  # the latest play and its seat
        self.lent = [False, False]  # whether overtaken, declined are shared with someone

    def lend(self) -> tuple[list[list[int]], list[dict[int, int]]]:
        """The two tables, for a reader that keeps them as they are now."""
        self.lent = [True, True]
        return self.overtaken, self.declined

    def play(self, seat: int, mask: int, lead: bool) -> None:
        self.played |= mask
        self.marks[seat] |= mask & BLACK_MASK
        left = self.left
        if not lead and self.last is not None:
            beaten = self.last[0]
            if self.lent[0]:
                self.overtaken = [list(row) for row in self.overtaken]
                self.lent[0] = False
            self.overtaken[beaten][seat] += 2 if left[beaten] <= 3 else 1
        left[seat] -= mask.bit_count()
        self.last = (seat, _combo(mask))

    def pass_turn(self, seat: int) -> None:
        if self.last is None:
            return
        last = self.last[1]
        seen = self.declined[seat].get(last.group)
        if seen is None or last.value < seen:
            if self.lent[1]:
                self.declined = [dict(d) for d in self.declined]
                self.lent[1] = False
            self.declined[seat][last.group] = last.value


def _leads_from(leads: list[int], start: int) -> set[int]:
    """The indices in ``leads`` (ascending) from ``start`` on."""
    out = set()
    for index in reversed(leads):
        if index < start:
            break
        out.add(index)
    return out


class Tracker:
    """The public history of one game, read up to some action and kept between decisions, so that
    each decision reads only the actions since the last (card tracking that does not start over).

    It reads for every seat alike (the public history is the same for all of them). Given a view or
    game that does not continue what it read — another game, a history that differs, counts that do
    not add up — it starts over, so a situation built with a tracker always equals one built without.
    """

    __slots__ = ("first_drawer", "history", "last", "read")

    def __init__(self, first_drawer: int) -> None:
        self.first_drawer = first_drawer
        self.history = _History(first_drawer)
        self.read = 0
        """How many actions it has read."""
        self.last: object = None
        """The last action read (a view's entry or an action-log tuple), to recognise the same game."""

    def restart(self, first_drawer: int) -> None:
        """Forget what it read: the next read starts from the first action."""
        self.__init__(first_drawer)  # type: ignore[misc]

    def copy(self) -> Tracker:
        """An independent copy (search: one per rollout from a shared root)."""
        other = Tracker.__new__(Tracker)
        other.first_drawer = self.first_drawer
        other.read = self.read
        other.last = self.last
        old = self.history
        history = other.history = _History.__new__(_History)
        history.left = list(old.left)
        history.overtaken, history.declined = old.lend()  # shared until either changes them
        history.lent = [True, True]
        history.played = old.played
        history.marks = list(old.marks)
        history.last = old.last
        return other

    def _continues(self, first_drawer: int, entries: list[Any] | Sequence[Any]) -> bool:
        read = self.read
        return first_drawer == self.first_drawer and len(entries) >= read and (
            not read or entries[read - 1] == self.last
        )

    def read_view(self, view: SeatView) -> None:
        """Read the view's history from where it stopped (or from the start, see the class)."""
        entries = view["history"]
        if not self._continues(view["first_drawer"], entries):
            self.restart(view["first_drawer"])
        history = self.history
        leads = _leads_from(view["leads"], self.read)
        for index in range(self.read, len(entries)):
            entry = entries[index]
            cards = entry.get("play")
            if cards is not None:
                history.play(entry["seat"], mask_of_codes(cards), index in leads)
            elif "pass" in entry:
                history.pass_turn(entry["seat"])
        self.read = len(entries)
        self.last = entries[-1] if entries else None

    def read_game(self, game: Game) -> None:
        """Read the game's action log from where it stopped (or from the start, see the class)."""
        actions = game.action_log()
        if not self._continues(game.first_drawer, actions):
            self.restart(game.first_drawer)
        read = self.read
        if read == len(actions):
            return
        history = self.history
        leads = set(game.leads(read))
        for index in range(read, len(actions)):
            actor, action, mask, _ = actions[index]
            if action == "play":
                history.play(actor, mask, index in leads)
            elif action == "pass":
                history.pass_turn(actor)
        self.read = len(actions)
        self.last = actions[-1]


def situation_from_view(view: SeatView, tracker: Tracker | None = None) -> Situation:
    """The situation of the seat whose view this is; ``tracker`` (which this updates) is what an
    earlier decision of the same game read."""
    seat = view["seat"]
    if seat is None:
        raise ValueError("view: a seat's view is needed, not a spectator's")
    hand = mask_of_codes(view["hand"])
    if tracker is None:
        tracker = Tracker(view["first_drawer"])
    tracker.read_view(view)
    history = tracker.history
    if history.left != view["counts"] or history.played & hand:
        tracker.restart(view["first_drawer"])  # it had read another game
        tracker.read_view(view)
        history = tracker.history
    current = view["current"]
    overtaken, declined = history.lend()  # the situation keeps them as they are now
    return Situation(
        seat=seat,
        hand=hand,
        counts=list(view["counts"]),
        marks=list(history.marks),  # the view's marks: the ♠3/♠2 each seat has played (R11)
        played=history.played,
        finish=list(view["finish"]),
        current=None if current is None else _combo(mask_of_codes(current["play"])),
        current_seat=-1 if current is None else current["seat"],
        opening=not view["history"],
        overtaken=overtaken,
        declined=declined,
    )


def situation_from_game(game: Game, tracker: Tracker | None = None) -> Situation:
    """The situation of the seat to move, read from a ``Game`` without building a view (fast path);
    ``tracker`` (which this updates) is what an earlier decision of the same game read.

    Reads the public action log (who played what), where tricks began and that seat's own hand only.
    """
    seat = game.to_move
    if seat is None:
        raise ValueError("the game is over: no seat is to move (R31)")
    if tracker is None:
        tracker = Tracker(game.first_drawer)
    tracker.read_game(game)
    counts = game.counts()
    history = tracker.history
    if history.left != counts:
        tracker.restart(game.first_drawer)  # it had read another game
        tracker.read_game(game)
        history = tracker.history
    current_seat = game.current_seat
    overtaken, declined = history.lend()  # the situation keeps them as they are now
    return Situation(
        seat=seat,
        hand=game.hand_mask(seat),
        counts=counts,
        marks=list(history.marks),
        played=history.played,
        finish=game.finish,
        current=game.current,
        current_seat=-1 if current_seat is None else current_seat,
        opening=not tracker.read,
        overtaken=overtaken,
        declined=declined,
    )


@dataclass(slots=True)
class Sides:
    """What the seat believes about sides (R10, R11)."""

    partner: list[float]
    """Probability that each seat is on this seat's side (0 for itself)."""
    double: bool
    """This seat holds (or held) both ♠3 and ♠2: it is the 双牛鬼, alone against three (1v3)."""
    double_seat: int
    """The 双牛鬼 when known (this seat, or a seat showing both marks), else -1."""


_EXP: dict[int, float] = {}
"""``math.exp(EVIDENCE_WEIGHT * n)`` for each integer ``n`` met so far."""


def _black_shares(sit: Situation, mine: int) -> list[float]:
    """For an unmarked black card this seat does not hold: each seat's chance of holding it, in
    proportion to its cards, shifted by who beat whom (see :func:`infer_sides`)."""
    me = sit.seat
    counts = sit.counts
    overtaken = sit.overtaken
    marks = sit.marks
    mine_row = overtaken[me]
    exp = _EXP
    weights = [0.0, 0.0, 0.0, 0.0]
    for s in range(SEATS):
        if s == me or not counts[s]:
            continue
        row = overtaken[s]
        with_me = mine_row[s] + row[me]
        toward_black = -with_me if mine else with_me
        for b in range(SEATS):  # beating or being beaten by a seat known to be black
            if marks[b] and b != s:
                toward_black -= overtaken[b][s] + row[b]
        factor = exp.get(toward_black)
        if factor is None:
            factor = exp[toward_black] = math.exp(EVIDENCE_WEIGHT * toward_black)
        weights[s] = counts[s] * factor
    total = sum(weights) or 1.0
    return [w / total for w in weights]


def infer_sides(sit: Situation) -> Sides:
    """Partners from this seat's own cards, the ♠3/♠2 marks and who beat whom.

    >>> mine = mask_of_codes(["S3", "S2", "D5"])              # seat 0 holds ♠3 and ♠2
    >>> sit = Situation(0, mine, [3, 5, 5, 5], [0, 0, 0, 0], 0, [], None, -1, False)
    >>> infer_sides(sit).double, infer_sides(sit).partner
    (True, [0.0, 0.0, 0.0, 0.0])
    >>> shown = [0, mask_of_codes(["S3"]), 0, mask_of_codes(["S2"])]   # a red seat sees both marks
    >>> infer_sides(Situation(0, mask_of_codes(["D5"]), [1, 5, 5, 5], shown, 0, [], None, -1, False)).partner
    [0.0, 0.0, 1.0, 0.0]
    """
    me = sit.seat
    marks = sit.marks
    mine = (sit.hand | marks[me]) & BLACK_MASK
    if mine == BLACK_MASK:
        return Sides([0.0] * SEATS, True, me)
    if BLACK_MASK in marks:
        seat = marks.index(BLACK_MASK)
        return Sides([0.0 if s in (me, seat) else 1.0 for s in range(SEATS)], False, seat)
    shown = marks[0] | marks[1] | marks[2] | marks[3]
    holds: list[list[float]] = []  # holds[k][s]: P(seat s holds black card k)
    shares: list[float] | None = None  # the same for both cards: made once
    for bit in (S3.mask, S2.mask):
        if (mine | shown) & bit:  # held here, or marked at the seat that played it
            known = [0.0] * SEATS
            known[me if mine & bit else next(s for s in range(SEATS) if marks[s] & bit)] = 1.0
            holds.append(known)
            continue
        if shares is None:
            shares = _black_shares(sit, mine)
        holds.append(shares)
    if mine:  # black: the partner holds the other card
        other = holds[1 if mine == S3.mask else 0]
        partner = [0.0 if s == me else other[s] for s in range(SEATS)]
    else:  # red: a partner holds neither black card
        threes, twos = holds
        partner = [0.0 if s == me else (1.0 - threes[s]) * (1.0 - twos[s]) for s in range(SEATS)]
    return Sides(partner, False, -1)
