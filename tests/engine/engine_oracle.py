"""An independent reference for the engine's tests, written from RULES.md and seed-rules.zh.txt.

Nothing here imports the engine: cards are R6 code strings ("S3", "HT", "BJ"), orders are spelled
out from the rules text, and combinations are classified by counting ranks and suits. Tests compare
the engine against this module, never the engine against itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

# R2: ♦ 方块 < ♣ 梅花 < ♥ 红心 < ♠ 黑桃 (letters of R6).
SUIT_ORDER = ["D", "C", "H", "S"]
# R3: 4 < 5 < 6 < 7 < 8 < 9 < 10 < J < Q < K < A < 2 < 3 (T is 10 in R6).
RANK_ORDER = ["4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "3"]
# R3: both jokers above every rank, 小王 (BJ) < 大王 (RJ).
JOKERS = ["BJ", "RJ"]
# R4: the sequence order; A is low (A2345) or high (10JQKA), nothing wraps.
SEQUENCE = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
# R4: inside a flush a single card ranks A high, 2 low.
FLUSH_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
# R24: straight < flush < full house < four plus one < straight flush.
FIVE_CLASSES = ["straight", "flush", "full_house", "four_plus_one", "straight_flush"]
LOOSE = {1: "single", 2: "pair", 3: "triple", 4: "four"}

# R1: 13 ranks x 4 suits plus the two jokers.
DECK = [s + r for r in RANK_ORDER for s in SUIT_ORDER] + JOKERS
SUITED = [c for c in DECK if c not in JOKERS]


def rank(code: str) -> str:
    return code[1]


def suit(code: str) -> str:
    return code[0]


def strength(code: str) -> tuple[int, int]:
    """R5: rank by R3, then suit by R2; jokers above every rank, 小王 < 大王."""
    if code in JOKERS:
        return (len(RANK_ORDER) + JOKERS.index(code), 0)
    return (RANK_ORDER.index(rank(code)), SUIT_ORDER.index(suit(code)))


def single_beats(a: str, b: str) -> bool:
    """R13/R5: does single ``a`` beat single ``b``?"""
    return strength(a) > strength(b)


Key = tuple[int, ...]
Classified = tuple[str, Key]
"""(kind, key): keys of one kind (loose) or of one class order (five-card) compare as tuples."""


def sequence_window(ranks: set[str]) -> int | None:
    """R4: the start position (0 = A2345 … 9 = 10JQKA) of the sequence these five ranks form."""
    for start in range(len(SEQUENCE) - 4):
        if set(SEQUENCE[start : start + 5]) == ranks:
            return start
    return None


def classify(cards: Sequence[str]) -> Classified | None:
    """The kind and key of a combination (R13–R23), or None (R25)."""
    n = len(cards)
    if n != len(set(cards)) or not 1 <= n <= 5:
        return None
    if n == 1:
        return ("single", strength(cards[0]))
    jokers = [c for c in cards if c in JOKERS]
    suited = [c for c in cards if c not in JOKERS]
    if n < 5:
        # R14–R16: n cards of one rank; jokers never pair or group.
        if jokers or len({rank(c) for c in suited}) != 1:
            return None
        r = RANK_ORDER.index(rank(suited[0]))
        high_suit = max(SUIT_ORDER.index(suit(c)) for c in suited)
        return (LOOSE[n], (r, high_suit))
    counts = Counter(rank(c) for c in suited)
    # R21/R22: four of a rank plus any one card (a joker allowed as that single).
    if len(jokers) == 1 and sorted(counts.values()) == [4]:
        return ("four_plus_one", (3, RANK_ORDER.index(next(iter(counts)))))
    if jokers:
        return None  # R22: no other five-card combination takes a joker
    shape = sorted(counts.values())
    if shape == [1, 4]:
        four = next(r for r, k in counts.items() if k == 4)
        return ("four_plus_one", (3, RANK_ORDER.index(four)))
    if shape == [2, 3]:  # R20: the triple's rank is the key, the pair is ignored
        three = next(r for r, k in counts.items() if k == 3)
        return ("full_house", (2, RANK_ORDER.index(three)))
    if shape != [1, 1, 1, 1, 1]:
        return None
    one_suit = len({suit(c) for c in cards}) == 1
    window = sequence_window(set(counts))
    if window is not None:
        # R18/R23: key = the last card of the sequence (its position), then its suit.
        last = next(c for c in cards if rank(c) == SEQUENCE[window + 4])
        key = (window, SUIT_ORDER.index(suit(last)))
        return ("straight_flush", (4, *key)) if one_suit else ("straight", (0, *key))
    if one_suit:
        # R19: the highest card by flush ranking (A high, 2 low), then suit.
        high = max(FLUSH_ORDER.index(rank(c)) for c in cards)
        return ("flush", (1, high, SUIT_ORDER.index(suit(cards[0]))))
    return None


def beats(a: Classified, b: Classified) -> bool:
    """R17/R24: loose combinations beat only the same type; five-card ones compare class, then key."""
    kind_a, key_a = a
    kind_b, key_b = b
    a_five, b_five = kind_a in FIVE_CLASSES, kind_b in FIVE_CLASSES
    if a_five != b_five:
        return False
    if not a_five and kind_a != kind_b:
        return False
    return key_a > key_b


def legal_plays(hand: Iterable[str], current: Sequence[str] | None, opening: bool) -> set[frozenset[str]]:
    """Brute force: every subset of 1–5 cards that is a combination and may be played now.

    On a free lead anything goes (R27); otherwise it must beat ``current`` (R17, R24); the first play
    of the game must contain ♦4 (R26).
    """
    cards = sorted(hand)
    return {
        frozenset(subset)
        for size in range(1, 6)
        for subset in combinations(cards, size)
        if may_play(subset, current, opening)
    }


def may_play(cards: Sequence[str], current: Sequence[str] | None, opening: bool) -> bool:
    """R25, R17/R24, R26: a combination, beating the play to beat if any, with ♦4 if it opens the game."""
    if opening and "D4" not in cards:
        return False
    got = classify(cards)
    if got is None:
        return False
    if current is None:
        return True
    target = classify(current)
    assert target is not None
    return beats(got, target)


def canonical(plays: Iterable[Iterable[str]]) -> list[tuple[str, ...]]:
    """Plays in a fixed order that depends only on their cards (DECK order)."""
    return sorted(tuple(sorted(p, key=DECK.index)) for p in plays)


def hand_sizes(first_drawer: int) -> list[int]:
    """R9: the first drawer and the next seat clockwise ((first_drawer - 1) % 4) hold 14, others 13."""
    return [14 if seat in (first_drawer, (first_drawer - 1) % 4) else 13 for seat in range(4)]


def deal(deck: Sequence[str], first_drawer: int) -> list[list[str]]:
    """R9/R7: one card at a time, first drawer first, then clockwise (seat i, then seat i-1)."""
    hands: list[list[str]] = [[], [], [], []]
    seat = first_drawer
    for card in deck:
        hands[seat].append(card)
        seat = (seat - 1) % 4
    return hands


def black_side(dealt: Sequence[Iterable[str]]) -> list[int]:
    """R10: the seats holding ♠3 and ♠2 (one seat in 1v3)."""
    return sorted({seat for seat, hand in enumerate(dealt) for c in hand if c in ("S3", "S2")})


def side_out(black: Sequence[int], out: Iterable[int]) -> bool:
    """R31: has every seat of one side gone out?"""
    gone = set(out)
    red = [s for s in range(4) if s not in black]
    return set(black) <= gone or set(red) <= gone


def expected_result(black: Sequence[int], finish: Sequence[int]) -> dict[str, object]:
    """R32–R34 from the finish order and the black side, as RECORD.md's result object."""
    finish = list(finish)
    if len(black) == 1:  # R34
        double = black[0]
        others = [s for s in range(4) if s != double]
        if finish[0] == double:
            outcome, scores = "double_win", {double: 9, **{s: -3 for s in others}}
        elif double in finish:
            outcome, scores = "double_draw", {s: 0 for s in range(4)}
        else:
            assert set(others) <= set(finish)
            outcome, scores = "double_caught", {double: -6, **{s: 2 for s in others}}
        mode = "1v3"
    else:  # R32, R33
        red = [s for s in range(4) if s not in black]
        winners = list(black) if finish[0] in black else red
        losers = [s for s in range(4) if s not in winners]
        partner = next(s for s in winners if s != finish[0])
        place = finish.index(partner) if partner in finish else 3  # 3: 下游
        outcome, points = {1: ("sweep", 2), 2: ("win", 1), 3: ("draw", 0)}[place]
        scores = {**{s: points for s in winners}, **{s: -points for s in losers}}
        mode = "2v2"
    return {
        "mode": mode,
        "outcome": outcome,
        "finish": finish,
        "scores": [scores[s] for s in range(4)],
        "black": sorted(black),
    }


class RefGame:
    """A slow reference of play (R26–R31), written from the rules, to follow an engine game.

    It keeps hands as sets of codes and the trick as the last play plus the set of seats that passed
    since it; the engine keeps counters and masks.
    """

    def __init__(self, hands: Sequence[Iterable[str]]) -> None:
        self.hands = [set(h) for h in hands]
        self.played: list[list[str]] = [[], [], [], []]
        self.black = black_side(self.hands)
        self.to_move: int | None = next(s for s in range(4) if "D4" in self.hands[s])  # R26
        self.current: list[str] | None = None
        self.current_seat = -1
        self.passed: set[int] = set()
        self.finish: list[int] = []
        self.opening = True
        self.over = False
        self.escaped: int | None = None

    def next_holding(self, seat: int) -> int:
        """R27: the next seat in play order (R7: seat + 1) that still holds cards."""
        for step in (1, 2, 3):
            if self.hands[(seat + step) % 4]:
                return (seat + step) % 4
        raise AssertionError("nobody holds cards")

    def legal(self) -> set[frozenset[str]]:
        assert self.to_move is not None
        return legal_plays(self.hands[self.to_move], self.current, self.opening)

    def can_pass(self) -> bool:
        return not self.over and self.current is not None

    def play(self, seat: int, cards: Iterable[str]) -> None:
        cards = list(cards)
        assert seat == self.to_move and set(cards) <= self.hands[seat]
        self.hands[seat] -= set(cards)
        self.played[seat] += cards
        self.current, self.current_seat, self.passed, self.opening = cards, seat, set(), False
        if not self.hands[seat]:
            self.finish.append(seat)  # R30
            if side_out(self.black, self.finish):  # R31
                self.over, self.to_move, self.current = True, None, None
                return
        self.to_move = self.next_holding(seat)

    def pass_turn(self, seat: int) -> None:
        assert seat == self.to_move and self.current is not None
        self.passed.add(seat)
        others = {s for s in range(4) if self.hands[s] and s != self.current_seat}
        if others <= self.passed:  # R29: every other seat holding cards passed
            last = self.current_seat
            self.to_move = last if self.hands[last] else self.next_holding(last)  # 接风
            self.current, self.passed = None, set()
        else:
            self.to_move = self.next_holding(seat)

    def marks(self, seat: int) -> list[str]:
        """R11: the ♠3/♠2 a seat has played, shown at that seat (in R5 order: ♠2 before ♠3)."""
        return [c for c in ("S2", "S3") if c in self.played[seat]]

    def escape(self, seat: int) -> None:
        self.over, self.to_move, self.current, self.escaped = True, None, None, seat

    def result(self) -> dict[str, object] | None:
        if not self.over:
            return None
        if self.escaped is not None:  # R35
            scores = [0, 0, 0, 0]
            scores[self.escaped] = -9
            mode = "1v3" if len(self.black) == 1 else "2v2"
            return {
                "mode": mode,
                "outcome": "escape",
                "finish": list(self.finish),
                "scores": scores,
                "black": list(self.black),
            }
        return expected_result(self.black, self.finish)
