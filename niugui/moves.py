"""Legal-play generation: every combination a hand can play (R13–R27), from tables.

Every combination comes out of tables of prebuilt :class:`~niugui.combos.Combo` objects, made from
:func:`~niugui.combos.classify_mask` (the one place of the rules): the loose ones per block of two
ranks, the five-card ones per card mask, filled the first time a mask is met. Generation only walks
the hand's ranks, windows (R4) and suits to find which table entries it holds.

A game keeps each hand's plays as two lists, :func:`lead_lists`, and filters them as cards leave
(:func:`without`) instead of generating them again; :func:`follow` then finds the plays that beat a
play in them by group and value.

The order is fixed for all hands — by group (singles, pairs, triples, fours, five-card), then by
rank, suits and window in one canonical way — so the plays of a hand that lost some cards are exactly
the earlier plays without those cards, in the same order.

>>> from niugui.cards import mask_of, parse_cards
>>> hand = mask_of(parse_cards("D4 C4 S5 H6 D7 C8 BJ"))
>>> len(plays(hand))  # 7 singles, 1 pair, 2 straights (D4 or C4, then 5 6 7 8)
10
>>> from niugui.combos import classify
>>> [c.cards for c in plays(hand, classify(parse_cards("S8")))]
[[BJ]]
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Generic, TypeVar

from .combos import FIVE, FLUSH, WINDOWS, Combo, classify_mask

_K = TypeVar("_K")
_V = TypeVar("_V")


class _Table(dict[_K, _V], Generic[_K, _V]):
    """A table filled on first use: a missing key's entry is made once by ``make``."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[_K], _V]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: _K) -> _V:
        value = self[key] = self.make(key)
        return value


def _combo(mask: int) -> Combo:
    combo = classify_mask(mask)
    assert combo is not None, f"not a combination: {mask:#x}"
    return combo


Loose = tuple[tuple[Combo, ...], tuple[Combo, ...], tuple[Combo, ...], tuple[Combo, ...]]
"""A block of cards' singles, pairs, triples and fours."""

SINGLES: tuple[Combo, ...] = tuple(_combo(1 << card) for card in range(54))
"""``SINGLES[card]``: the single of that card (R13)."""
_SUITS_OF: tuple[tuple[int, ...], ...] = tuple(tuple(s for s in range(4) if n >> s & 1) for n in range(16))
"""A rank's 4-bit suit set → its suits."""
_CARD_BITS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(1 << (4 * rank + s) for s in _SUITS_OF[nib]) for nib in range(16)) for rank in range(13)
)
"""``_CARD_BITS[rank][suit set]``: the card masks of those suits of that rank, weakest first."""
SETS: tuple[tuple[tuple[tuple[Combo, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(
            tuple(_combo(sum(1 << (4 * rank + s) for s in sub)) for sub in combinations(_SUITS_OF[nib], size))
            for nib in range(16)
        )
        for rank in range(13)
    )
    if size >= 2
    else ()
    for size in range(5)
)
"""``SETS[size][rank][suit set]``: the pairs, triples or fours (R14–R16) those suits of that rank
form, suits in lexicographic order."""


def _block(index: int) -> Callable[[int], Loose]:
    """The loose plays of a block of eight bits, ``8 * index`` up: two ranks (the last: ♠3's rank
    and the jokers, which never pair, R14)."""

    def make(bits: int) -> Loose:
        mask = bits << (8 * index)
        singles = tuple(SINGLES[c] for c in range(54) if mask >> c & 1)
        groups: list[list[Combo]] = [[], [], []]
        for rank in (2 * index, 2 * index + 1):
            if rank < 13:
                for size in (2, 3, 4):
                    groups[size - 2] += SETS[size][rank][mask >> (4 * rank) & 15]
        pairs, triples, fours = (tuple(g) for g in groups)
        return singles, pairs, triples, fours

    return make


_BLOCKS: tuple[tuple[int, _Table[int, Loose]], ...] = tuple((8 * i, _Table(_block(i))) for i in range(7))


def _windows_in(ranks: int) -> tuple[tuple[int, ...], ...]:
    return tuple(w for w in WINDOWS if all(ranks >> r & 1 for r in w))


_WINDOWS_IN: _Table[int, tuple[tuple[int, ...], ...]] = _Table(_windows_in)
"""A 13-bit set of ranks → the sequences of R4 (as rank tuples) it covers, lowest first."""
_RANK_BITS = sum(1 << (4 * r) for r in range(13))
"""The lowest bit of each rank's nibble."""
_FIVES: _Table[int, Combo] = _Table(_combo)
"""Card mask → its five-card combination (R18–R23), made once."""
_SUIT_MASKS = tuple(sum(1 << (4 * r + s) for r in range(13)) for s in range(4))


def _flushes(suited: int) -> tuple[Combo, ...]:
    cards = [1 << c for c in range(52) if suited >> c & 1]
    fives = (_FIVES[sum(chosen)] for chosen in combinations(cards, 5))
    return tuple(combo for combo in fives if combo.kind == FLUSH)  # not the straight flushes


_FLUSH_SETS: _Table[int, tuple[Combo, ...]] = _Table(_flushes)
"""Five or more cards of one suit (a mask) → the flushes (R19) among them, lexicographically."""


def _rank_set(hand: int) -> int:
    """The 13-bit set of ranks present in ``hand``."""
    folded = hand | hand >> 1
    folded = (folded | folded >> 2) & _RANK_BITS
    return _RANK_SETS[folded]


_RANK_SETS: _Table[int, int] = _Table(lambda folded: sum(1 << r for r in range(13) if folded >> (4 * r) & 1))


def lead_lists(hand: int) -> tuple[list[Combo], list[Combo]]:
    """Every combination of ``hand`` (a mask) as (loose ones, five-card ones), in the fixed order."""
    singles, pairs, triples, fours = _loose_groups(hand)
    fives = _five_list(hand, pairs, triples, fours, singles) if len(singles) >= 5 else []
    singles += pairs
    singles += triples
    singles += fours
    return singles, fives


def loose_list(hand: int) -> list[Combo]:
    """The loose combinations of ``hand`` (R13–R16): :func:`lead_lists`' first list."""
    singles, pairs, triples, fours = _loose_groups(hand)
    singles += pairs
    singles += triples
    singles += fours
    return singles


def _loose_groups(hand: int) -> tuple[list[Combo], list[Combo], list[Combo], list[Combo]]:
    singles: list[Combo] = []
    pairs: list[Combo] = []
    triples: list[Combo] = []
    fours: list[Combo] = []
    for shift, table in _BLOCKS:
        bits = hand >> shift & 255
        if bits:
            s, p, t, f = table[bits]
            singles += s
            if p:
                pairs += p
                if t:
                    triples += t
                    if f:
                        fours += f
    return singles, pairs, triples, fours


def _five_list(hand: int, pairs: list[Combo], triples: list[Combo], fours: list[Combo],
               singles: list[Combo]) -> list[Combo]:
    """Five-card combinations (R18–R24): sequences, flushes, full houses, fours plus one."""
    table = _FIVES
    out: list[Combo] = []
    bits = _CARD_BITS
    for r0, r1, r2, r3, r4 in _WINDOWS_IN[_rank_set(hand)]:  # straights and straight flushes
        out += [
            table[a | b | c | d | e]
            for a in bits[r0][hand >> (4 * r0) & 15]
            for b in bits[r1][hand >> (4 * r1) & 15]
            for c in bits[r2][hand >> (4 * r2) & 15]
            for d in bits[r3][hand >> (4 * r3) & 15]
            for e in bits[r4][hand >> (4 * r4) & 15]
        ]
    for suit_mask in _SUIT_MASKS:
        suited = hand & suit_mask
        if suited.bit_count() >= 5:
            out += _FLUSH_SETS[suited]
    if triples:
        pair_masks = [p.mask for p in pairs]
        for triple in triples:
            t = triple.mask
            out += [table[t | p] for p in pair_masks if not p & t]
    for four in fours:
        f = four.mask
        out += [table[f | s.mask] for s in singles if not s.mask & f]
    return out


def plays(hand: int, current: Combo | None = None) -> list[Combo]:
    """Every combination in ``hand`` (a mask) — all of them on a lead, else those beating ``current``.

    Each combination appears exactly once, in the fixed order of the module docstring.
    """
    if current is None:
        loose, fives = lead_lists(hand)
        loose += fives
        return loose
    return follow(hand, None, current)


def follow(hand: int, fives: list[Combo] | None, current: Combo) -> list[Combo]:
    """The plays of ``hand`` that beat ``current`` (R17, R24): singles and sets straight from the
    hand's ranks, five-card plays by value from ``fives``, the hand's five-card list (made here when
    ``None``)."""
    group = current.group
    if group == 1:
        return singles_above(hand, current.value)
    if group != FIVE:
        return sets_above(hand, group, current.value)
    if fives is None:
        fives = lead_lists(hand)[1]
    value = current.value
    return [c for c in fives if c.value > value]


def without(combos: list[Combo], cards: int) -> list[Combo]:
    """``combos`` less those that use any of ``cards`` (a mask): what a hand can still play."""
    return [c for c in combos if not c.mask & cards]


def singles_above(hand: int, value: int) -> list[Combo]:
    """The singles of ``hand`` stronger than card ``value`` (R13, R5), weakest first."""
    out = []
    rest = hand >> (value + 1) << (value + 1)
    table = SINGLES
    while rest:
        low = rest & -rest
        out.append(table[low.bit_length() - 1])
        rest ^= low
    return out


def sets_above(hand: int, size: int, value: int) -> list[Combo]:
    """Pairs, triples or fours (R14–R16) of ``hand`` with value above ``value``."""
    tables = SETS[size]
    rank = value >> 2
    out = [c for c in tables[rank][hand >> (4 * rank) & 15] if c.value > value]
    for r in range(rank + 1, 13):
        nib = hand >> (4 * r) & 15
        if nib:
            out += tables[r][nib]
    return out
