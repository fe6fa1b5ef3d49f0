"""Combinations (牌型) and how they compare (RULES.md R13–R25).

Every combination has a *group* and a *value*: two combinations compare only within one group
(the four loose types each form their own group, R17; all five-card classes form one, R24), and a
higher value beats a lower one. So ``beats`` is two integer comparisons.

>>> from niugui.cards import parse_cards
>>> pair = classify(parse_cards("S5 H5"))
>>> pair.kind, pair.beats(classify(parse_cards("D5 C5")))
('pair', True)
>>> classify(parse_cards("D4 D6 D9 DJ DQ")).beats(classify(parse_cards("S4 H5 C6 D7 S8")))
True
>>> classify(parse_cards("BJ RJ")) is None
True
"""

from __future__ import annotations

from collections.abc import Iterable

from .cards import SMALL_JOKER, Card, cards_of, mask_of

SINGLE = "single"
PAIR = "pair"
TRIPLE = "triple"
FOUR = "four"
STRAIGHT = "straight"
FLUSH = "flush"
FULL_HOUSE = "full_house"
FOUR_PLUS_ONE = "four_plus_one"
STRAIGHT_FLUSH = "straight_flush"

LOOSE_KINDS = (SINGLE, PAIR, TRIPLE, FOUR)
"""The loose types, indexed by size - 1; each is its own group (R17)."""
FIVE_KINDS = (STRAIGHT, FLUSH, FULL_HOUSE, FOUR_PLUS_ONE, STRAIGHT_FLUSH)
"""The five-card classes in R24 order, weakest first."""
KINDS = LOOSE_KINDS + FIVE_KINDS

FIVE = 5
"""The group shared by all five-card combinations (R24)."""
CLASS_SPAN = 64
"""Five-card values are ``class_index * CLASS_SPAN + key``; every key is below it."""

ZH_NAMES = {
    SINGLE: "单牌",
    PAIR: "对子",
    TRIPLE: "干捞",
    FOUR: "四张",
    STRAIGHT: "顺子",
    FLUSH: "同花",
    FULL_HOUSE: "三带对",
    FOUR_PLUS_ONE: "四带一",
    STRAIGHT_FLUSH: "同花顺",
}

# R4: sequence positions A 2 3 4 … K A (0 … 13) and the rank index (R3) at each position.
_RANK_AT_POSITION = (10, 11, 12, *range(10), 10)
WINDOWS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_RANK_AT_POSITION[p] for p in range(start, start + 5)) for start in range(10)
)
"""The ten sequences of R4 as rank indices, lowest (A2345) first; a window's index is its key."""
WINDOW_OF_RANKS: dict[int, int] = {sum(1 << r for r in w): i for i, w in enumerate(WINDOWS)}
"""A 13-bit set of ranks → the index of the window it forms (R4)."""
FLUSH_RANK = tuple((r + 2) if r < 10 else {10: 12, 11: 0, 12: 1}[r] for r in range(13))
"""Rank index → its order inside a flush (R4: 2 low … A high)."""

_RANK_LOW_BITS = sum(1 << (4 * r) for r in range(13))
"""The lowest bit of each rank's nibble: ``mask`` folded onto it says which ranks ``mask`` holds."""
_WINDOW_OF_FOLDED: dict[int, int] = {sum(1 << (4 * r) for r in w): i for i, w in enumerate(WINDOWS)}
"""A folded set of ranks (one bit per rank nibble) → the index of the window it forms (R4)."""
_SUIT_MASKS = tuple(sum(1 << (4 * r + s) for r in range(13)) for s in range(4))
_FLUSH_HIGH: dict[int, int] = {}
"""A folded set of five ranks → the highest of them by R4's flush ranking, filled as sets are met."""


class Combo:
    """A playable combination: its cards (as a mask), kind, group and value.

    Made by :func:`classify` or by move generation, never by hand, so a ``Combo`` is always valid.

    >>> from niugui.cards import parse_cards
    >>> c = classify(parse_cards("D4 C4 H4 S4 BJ"))
    >>> c.kind, c.cards, c.zh
    ('four_plus_one', [D4, C4, H4, S4, BJ], '四带一')
    """

    __slots__ = ("group", "kind", "mask", "value")

    def __init__(self, mask: int, kind: str, group: int, value: int) -> None:
        self.mask = mask
        self.kind = kind
        self.group = group
        self.value = value

    @property
    def cards(self) -> list[Card]:
        """The cards, weakest first."""
        return cards_of(self.mask)

    @property
    def size(self) -> int:
        return self.mask.bit_count()

    @property
    def zh(self) -> str:
        return ZH_NAMES[self.kind]

    def beats(self, other: Combo) -> bool:
        """True when this combination may be played on ``other`` (R17, R24)."""
        return self.group == other.group and self.value > other.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Combo) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __repr__(self) -> str:
        return f"Combo({self.kind!r}, {self.cards!r})"


def classify(cards: Iterable[int] | int) -> Combo | None:
    """The combination these cards form, or ``None`` if they form none (R25).

    Takes cards (or card indices), or a 54-bit mask. Duplicate cards form no combination.

    >>> from niugui.cards import parse_cards
    >>> classify(parse_cards("HA H2 H3 H4 H5"))
    Combo('straight_flush', [H4, H5, HA, H2, H3])
    >>> classify(parse_cards("S3 S2")) is None
    True
    """
    if isinstance(cards, Card):  # one card, not a mask
        mask = 1 << cards
    elif isinstance(cards, int):
        mask = cards
    else:
        listed = list(cards)
        mask = mask_of(listed)
        if mask.bit_count() != len(listed):
            return None
    return classify_mask(mask)


def classify_mask(mask: int) -> Combo | None:
    """:func:`classify` for a mask."""
    size = mask.bit_count()
    if size == 0 or size > 5 or mask >> 54:
        return None
    top = mask.bit_length() - 1
    if size == 1:
        return Combo(mask, SINGLE, 1, top)
    jokers = mask >> SMALL_JOKER
    if size < 5:
        if jokers or (mask & -mask).bit_length() - 1 >> 2 != top >> 2:
            return None
        return Combo(mask, LOOSE_KINDS[size - 1], size, top)
    if jokers:
        if jokers == 3:
            return None
        rest = mask & ~(3 << SMALL_JOKER)
        rank = rest.bit_length() - 1 >> 2
        if rest == 15 << (4 * rank):
            return Combo(mask, FOUR_PLUS_ONE, FIVE, 3 * CLASS_SPAN + rank)
        return None
    folded = mask | mask >> 1
    folded = (folded | folded >> 2) & _RANK_LOW_BITS  # one bit per rank held
    ranks = folded.bit_count()
    if ranks == 2:  # four plus one (4 + 1) or full house (3 + 2), keyed by the larger group's rank
        high = top >> 2
        low = (mask & -mask).bit_length() - 1 >> 2
        on_high = (mask >> (4 * high) & 15).bit_count()
        if on_high in (1, 4):
            return Combo(mask, FOUR_PLUS_ONE, FIVE, 3 * CLASS_SPAN + (high if on_high == 4 else low))
        return Combo(mask, FULL_HOUSE, FIVE, 2 * CLASS_SPAN + (high if on_high == 3 else low))
    if ranks != 5:
        return None
    one_suit = not mask & ~_SUIT_MASKS[top & 3]
    window = _WINDOW_OF_FOLDED.get(folded)
    if window is not None:
        top_rank = WINDOWS[window][4]
        key = window * 4 + (mask >> (4 * top_rank) & 15).bit_length() - 1  # the top card's suit
        if one_suit:
            return Combo(mask, STRAIGHT_FLUSH, FIVE, 4 * CLASS_SPAN + key)
        return Combo(mask, STRAIGHT, FIVE, key)
    if one_suit:
        best = _FLUSH_HIGH.get(folded)
        if best is None:
            best = _FLUSH_HIGH[folded] = max(FLUSH_RANK[r] for r in range(13) if folded >> (4 * r) & 1)
        return Combo(mask, FLUSH, FIVE, CLASS_SPAN + best * 4 + (top & 3))
    return None
