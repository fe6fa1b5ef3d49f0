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

from .cards import FULL_MASK, SMALL_JOKER, Card, cards_of, mask_of

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


# ---- values: the one encoding of a combination's value (R5, R14–R24) -------------------------------
# Everything that builds a Combo or compares against a value calls these; nothing else knows the layout.


def single_value(card: int) -> int:
    """A single's value: its card's strength index (R5), so a higher card has a higher value."""
    return card


def singles_above(value: int) -> int:
    """The mask of every card whose single beats a single of ``value`` (-1: every card).

    >>> from niugui.cards import cards_of
    >>> cards_of(singles_above(single_value(52)))
    [RJ]
    """
    return FULL_MASK >> (value + 1) << (value + 1)


def set_value(rank: int, top_suit: int) -> int:
    """A pair's, triple's or four's value (R14–R16): its rank (R3), then its highest suit (R2).

    >>> set_value(0, 3) < set_value(1, 0)      # any pair of 5s beats every pair of 4s
    True
    """
    return rank * 4 + top_suit


def set_rank(value: int) -> int:
    """The rank of a pair, triple or four of ``value`` (the inverse of :func:`set_value`)."""
    return value >> 2


def straight_value(window: int, top_suit: int, flush: bool = False) -> int:
    """A straight's (or straight flush's) value (R18, R23): its sequence window (R4, index in
    :data:`WINDOWS`), then the suit of its top card; a straight flush is the highest class (R24)."""
    return (4 * CLASS_SPAN if flush else 0) + window * 4 + top_suit


def flush_value(high: int, suit: int) -> int:
    """A flush's value (R19): its highest card in flush order (``FLUSH_RANK``), then its suit."""
    return CLASS_SPAN + high * 4 + suit


def full_house_value(rank: int) -> int:
    """A full house's value (R20): the rank of its triple."""
    return 2 * CLASS_SPAN + rank


def four_plus_one_value(rank: int) -> int:
    """A four plus one's value (R21, R22): the rank of its four."""
    return 3 * CLASS_SPAN + rank


SINGLE_VALUES: tuple[int, ...] = tuple(single_value(card) for card in range(FULL_MASK.bit_length()))
""":func:`single_value` of each card, as a table for move generation's inner loops."""
SET_VALUES: tuple[tuple[int, ...], ...] = tuple(tuple(set_value(r, s) for s in range(4)) for r in range(13))
"""``SET_VALUES[rank][top_suit]``: :func:`set_value` as a table for move generation's inner loops."""


def five_class(value: int) -> int:
    """The class of a five-card value, an index into :data:`FIVE_KINDS` (0 straight … 4 straight
    flush, R24); -1 (nothing to beat) counts as class 0.

    >>> FIVE_KINDS[five_class(full_house_value(3))]
    'full_house'
    """
    return max(value, 0) // CLASS_SPAN



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


def sequence(mask: int, window: int) -> Combo:
    """The straight or straight flush (R18, R23) of ``mask``: five cards, one of each rank of
    ``WINDOWS[window]`` (the caller knows it; :func:`classify_mask` finds it). For move generation,
    which makes sequences by window.

    >>> from niugui.cards import mask_of, parse_cards
    >>> sequence(mask_of(parse_cards("HA H2 H3 H4 H5")), 0).kind
    'straight_flush'
    """
    top_suit = (mask >> (4 * WINDOWS[window][4]) & 15).bit_length() - 1  # the top card's suit
    one_suit = not mask & ~_SUIT_MASKS[top_suit]
    kind = STRAIGHT_FLUSH if one_suit else STRAIGHT
    return Combo(mask, kind, FIVE, straight_value(window, top_suit, one_suit))


def classify_mask(mask: int) -> Combo | None:
    """:func:`classify` for a mask."""
    size = mask.bit_count()
    if size == 0 or size > 5 or mask >> 54:
        return None
    top = mask.bit_length() - 1
    if size == 1:
        return Combo(mask, SINGLE, 1, single_value(top))
    jokers = mask >> SMALL_JOKER
    if size < 5:
        if jokers or (mask & -mask).bit_length() - 1 >> 2 != top >> 2:
            return None
        return Combo(mask, LOOSE_KINDS[size - 1], size, set_value(top >> 2, top & 3))
    if jokers:
        if jokers == 3:
            return None
        rest = mask & ~(3 << SMALL_JOKER)
        rank = rest.bit_length() - 1 >> 2
        if rest == 15 << (4 * rank):
            return Combo(mask, FOUR_PLUS_ONE, FIVE, four_plus_one_value(rank))
        return None
    folded = mask | mask >> 1
    folded = (folded | folded >> 2) & _RANK_LOW_BITS  # one bit per rank held
    ranks = folded.bit_count()
    if ranks == 2:  # four plus one (4 + 1) or full house (3 + 2), keyed by the larger group's rank
        high = top >> 2
        low = (mask & -mask).bit_length() - 1 >> 2
        on_high = (mask >> (4 * high) & 15).bit_count()
        if on_high in (1, 4):
            return Combo(mask, FOUR_PLUS_ONE, FIVE, four_plus_one_value(high if on_high == 4 else low))
        return Combo(mask, FULL_HOUSE, FIVE, full_house_value(high if on_high == 3 else low))
    if ranks != 5:
        return None
    window = _WINDOW_OF_FOLDED.get(folded)
    if window is not None:
        return sequence(mask, window)
    one_suit = not mask & ~_SUIT_MASKS[top & 3]
    if one_suit:
        best = _FLUSH_HIGH.get(folded)
        if best is None:
            best = _FLUSH_HIGH[folded] = max(FLUSH_RANK[r] for r in range(13) if folded >> (4 * r) & 1)
        return Combo(mask, FLUSH, FIVE, flush_value(best, top & 3))
    return None
