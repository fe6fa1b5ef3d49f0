"""Legal-play generation: every combination a hand can play, straight from the hand (R13–R27).

Generation works by type on the hand's 54-bit mask, and when following a play it builds only the
group that can beat it, so the common case (following a single or a pair) is cheap.

>>> from niugui.cards import mask_of, parse_cards
>>> hand = mask_of(parse_cards("D4 C4 S5 H6 D7 C8 BJ"))
>>> len(plays(hand))  # 7 singles, 1 pair, 2 straights (D4 or C4, then 5 6 7 8)
10
>>> from niugui.combos import classify
>>> [c.cards for c in plays(hand, classify(parse_cards("S8")))]
[[BJ]]
"""

from __future__ import annotations

from itertools import combinations, product

from .combos import (
    FIVE,
    FLUSH,
    FLUSH_RANK,
    FOUR_PLUS_ONE,
    FULL_HOUSE,
    LOOSE_KINDS,
    SET_VALUES,
    SINGLE,
    SINGLE_VALUES,
    STRAIGHT,
    STRAIGHT_FLUSH,
    WINDOW_OF_RANKS,
    WINDOWS,
    Combo,
    five_class,
    flush_value,
    four_plus_one_value,
    full_house_value,
    set_rank,
    singles_above,
    straight_value,
)

_SUITS_OF: tuple[tuple[int, ...], ...] = tuple(tuple(s for s in range(4) if n >> s & 1) for n in range(16))
"""A rank's 4-bit suit set → its suits."""
_SUBSETS: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
    tuple(
        tuple((sum(1 << s for s in sub), max(sub, default=-1)) for sub in combinations(_SUITS_OF[n], size))
        for n in range(16)
    )
    for size in range(5)
)
"""``_SUBSETS[size][suit_set]``: each ``size``-subset as (suit set, highest suit)."""


def plays(hand: int, current: Combo | None = None) -> list[Combo]:
    """Every combination in ``hand`` (a mask) — all of them on a lead, else those beating ``current``.

    Each combination appears exactly once; the order is by group, then by generation.
    """
    if current is None:
        out = _singles(hand, -1)
        for size in (2, 3, 4):
            out += _sets(hand, size, -1)
        out += _fives(hand, -1)
        return out
    group = current.group
    if group == 1:
        return _singles(hand, current.value)
    if group == FIVE:
        return _fives(hand, current.value)
    return _sets(hand, group, current.value)


def _singles(hand: int, above: int) -> list[Combo]:
    out = []
    rest = hand & singles_above(above)
    while rest:
        low = rest & -rest
        out.append(Combo(low, SINGLE, 1, SINGLE_VALUES[low.bit_length() - 1]))
        rest ^= low
    return out


def _sets(hand: int, size: int, above: int) -> list[Combo]:
    """Pairs, triples or fours (R14–R16) with value above ``above``."""
    out = []
    kind = LOOSE_KINDS[size - 1]
    subsets = _SUBSETS[size]
    for rank in range(set_rank(max(above, 0)), 13):
        shift = rank * 4
        values = SET_VALUES[rank]
        for sub, high in subsets[hand >> shift & 15]:
            value = values[high]
            if value > above:
                out.append(Combo(sub << shift, kind, size, value))
    return out


def _fives(hand: int, above: int) -> list[Combo]:
    """Five-card combinations (R18–R24) with value above ``above``."""
    nibbles = [hand >> (4 * r) & 15 for r in range(13)]
    out: list[Combo] = []
    first_class = five_class(above)
    # Straights (class 0) and straight flushes (class 4) come from one enumeration of the windows.
    _sequences(nibbles, above if first_class in (0, 4) else straight_value(0, 0, flush=True) - 1, out)
    if first_class <= 1:
        _flushes(hand, above, out)
    if first_class <= 2:
        _full_houses(nibbles, above, out)
    if first_class <= 3:
        _four_plus_ones(hand, nibbles, above, out)
    return out


def _sequences(nibbles: list[int], above: int, out: list[Combo]) -> None:
    """Straights and straight flushes (R18, R23)."""
    for window, ranks in enumerate(WINDOWS):
        if not all(nibbles[r] for r in ranks):
            continue
        for suits in product(*(_SUITS_OF[nibbles[r]] for r in ranks)):
            top = suits[4]
            flush = suits[0] == suits[1] == suits[2] == suits[3] == top
            value = straight_value(window, top, flush)
            if value > above:
                mask = 0
                for r, s in zip(ranks, suits, strict=True):
                    mask |= 1 << (4 * r + s)
                out.append(Combo(mask, STRAIGHT_FLUSH if flush else STRAIGHT, FIVE, value))


def _flushes(hand: int, above: int, out: list[Combo]) -> None:
    """Flushes (R19): five of a suit that are not a sequence."""
    for suit in range(4):
        ranks = [r for r in range(13) if hand >> (4 * r + suit) & 1]
        if len(ranks) < 5:
            continue
        for chosen in combinations(ranks, 5):
            rank_set = 0
            mask = 0
            high = 0
            for r in chosen:
                rank_set |= 1 << r
                mask |= 1 << (4 * r + suit)
                if FLUSH_RANK[r] > high:
                    high = FLUSH_RANK[r]
            value = flush_value(high, suit)
            if value > above and rank_set not in WINDOW_OF_RANKS:
                out.append(Combo(mask, FLUSH, FIVE, value))


def _full_houses(nibbles: list[int], above: int, out: list[Combo]) -> None:
    """Full houses (R20): a triple and a pair of another rank; the triple's rank is the key."""
    for rank in range(13):
        if nibbles[rank].bit_count() < 3:
            continue
        value = full_house_value(rank)
        if value <= above:
            continue
        pairs = [
            sub << (4 * other)
            for other in range(13)
            if other != rank
            for sub, _ in _SUBSETS[2][nibbles[other]]
        ]
        for triple, _ in _SUBSETS[3][nibbles[rank]]:
            triple <<= 4 * rank
            for pair in pairs:
                out.append(Combo(triple | pair, FULL_HOUSE, FIVE, value))


def _four_plus_ones(hand: int, nibbles: list[int], above: int, out: list[Combo]) -> None:
    """Four plus one (R21, R22): a four and any other card, jokers included."""
    for rank in range(13):
        if nibbles[rank] != 15:
            continue
        value = four_plus_one_value(rank)
        if value <= above:
            continue
        four = 15 << (4 * rank)
        rest = hand & ~four
        while rest:
            low = rest & -rest
            out.append(Combo(four | low, FOUR_PLUS_ONE, FIVE, value))
            rest ^= low

