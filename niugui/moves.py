"""Legal-play generation: every combination a hand can play (R13–R27), from tables.

Every combination comes out of tables of prebuilt :class:`~niugui.combos.Combo` objects made by
:func:`~niugui.combos.classify_mask`, the one place of the rules: singles per card, pairs, triples
and fours per rank and suit set, the loose plays of each block of two ranks, and the five-card ones
per card mask (filled the first time a mask is met). Generation only walks the hand's blocks, the
sequences of R4 it covers and its suits to find which entries it holds.

A game keeps each hand's plays (:func:`keep`) and, as cards leave, filters them — a play removes
every combination that shares a card — instead of generating them again; following a play takes the
singles and sets that beat it straight from the hand and the five-card plays from the kept list by
value (:func:`follow`).

The order is fixed for all hands — by group (singles, pairs, triples, fours, five-card), then by
rank, suits and sequence in one canonical way — so the plays of a hand that lost some cards are
exactly its earlier plays without those cards, in the same order.

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

from .combos import (
    FIVE,
    FLUSH,
    SINGLE_VALUES,
    WINDOWS,
    Combo,
    classify_mask,
    sequence,
    set_rank,
    singles_above,
)

# ---- tables -------------------------------------------------------------------------------------

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


SINGLES: tuple[Combo, ...] = tuple(_combo(1 << card) for card in range(54))
"""``SINGLES[card]``: the single of that card (R13)."""
_BEATING_SINGLES: dict[int, int] = {v: singles_above(v) for v in (-1, *SINGLE_VALUES)}
"""A single's value → the mask of the cards whose singles beat it (:func:`combos.singles_above`)."""
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

Loose = tuple[tuple[Combo, ...], tuple[Combo, ...], tuple[Combo, ...], tuple[Combo, ...]]
"""Some cards' singles, pairs, triples and fours."""


def _block(index: int) -> Callable[[int], Loose]:
    """The loose plays of the block of eight bits from ``8 * index`` up: two ranks (the last block:
    the rank of 3 and the two jokers, which never pair, R14)."""
    low, high = 2 * index, min(2 * index + 1, 12)

    def make(bits: int) -> Loose:
        singles = tuple(SINGLES[8 * index + c] for c in range(8) if bits >> c & 1)
        low_nib, high_nib = bits & 15, bits >> 4 & 15 if high > low else 0
        pairs, triples, fours = (SETS[size][low][low_nib] + SETS[size][high][high_nib] for size in (2, 3, 4))
        return singles, pairs, triples, fours

    return make


_BLOCKS: tuple[tuple[int, _Table[int, Loose]], ...] = tuple((8 * i, _Table(_block(i))) for i in range(7))
"""(shift, table) of each block: ``table[hand >> shift & 255]`` is that block's :data:`Loose`."""

_RANK_BITS = sum(1 << (4 * r) for r in range(13))
"""The lowest bit of each rank's nibble: a hand folded onto them shows which ranks it holds."""


def _window_parts(ranks: tuple[int, ...]) -> tuple[int, int, int]:
    """A sequence of R4 (rank indices, lowest first) cut into three parts of at most two ranks, each
    ascending in R3 order (A2345 is cut where it wraps from 3 to 4), as masks of all their cards."""
    parts: list[list[int]] = []
    for rank in ranks:
        if parts and len(parts[-1]) < 2 and rank > parts[-1][-1]:
            parts[-1].append(rank)
        else:
            parts.append([rank])
    assert len(parts) == 3, ranks
    first, middle, last = (sum(15 << (4 * r) for r in part) for part in parts)
    return first, middle, last


def _sequence_table(window: int) -> _Table[int, Combo]:
    return _Table(lambda mask: sequence(mask, window))


_SEQUENCES: tuple[tuple[int, tuple[int, int, int], _Table[int, Combo]], ...] = tuple(
    (sum(1 << (4 * r) for r in w), _window_parts(w), _sequence_table(i)) for i, w in enumerate(WINDOWS)
)
"""Each sequence of R4, lowest first: (its ranks, folded like a hand; its three parts; card mask →
its straight or straight flush, made once)."""


def _product(cards: int) -> tuple[int, ...]:
    """Every way to take one card of each rank of ``cards`` (a mask), as masks: lexicographic, the
    lowest rank varying slowest, suits weakest first."""
    out = [0]
    while cards:
        rank = (cards & -cards).bit_length() - 1 >> 2
        out = [m | b for m in out for b in _CARD_BITS[rank][cards >> (4 * rank) & 15]]
        cards &= ~(15 << (4 * rank))
    return tuple(out)


_PRODUCTS: _Table[int, tuple[int, ...]] = _Table(_product)
"""The cards of a hand in one part of a sequence (a mask) → :func:`_product` of them."""
_FIVES: _Table[int, Combo] = _Table(_combo)
"""Card mask → its five-card combination (R18–R23), made once."""
_SUIT_MASKS = tuple(sum(1 << (4 * r + s) for r in range(13)) for s in range(4))

# ---- generation ---------------------------------------------------------------------------------


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
        return follow_singles(hand, current.value)
    if group != FIVE:
        return follow_sets(hand, group, current.value)
    if fives is None:
        fives = lead_lists(hand)[1]
    value = current.value
    return [c for c in fives if c.value > value]


Kept = tuple[int, list[Combo], list[Combo]]
"""A hand's plays kept between actions: (the hand, its loose plays, its five-card plays). The lists
are never changed in place, so a kept value may be shared (for example by copies of a game)."""


def keep(hand: int, kept: Kept | None = None) -> Kept:
    """The plays of ``hand`` as :func:`lead_lists` gives them: filtered from ``kept`` (the plays of a
    hand that held all of these cards and more) by dropping every play that uses a card gone since,
    or, without ``kept``, made afresh.

    >>> from niugui.cards import mask_of, parse_cards
    >>> hand = mask_of(parse_cards("D4 C5 H6 S7 D8 D9"))
    >>> [len(k[2]) for k in (keep(hand), keep(hand & ~1, keep(hand)))]  # D4-D8 and C5-D9, then one
    [2, 1]
    >>> keep(hand & ~1, keep(hand)) == keep(hand & ~1)
    True
    """
    if kept is None or hand & ~kept[0]:
        loose, fives = lead_lists(hand)
        return hand, loose, fives
    gone = kept[0] ^ hand
    fives = kept[2]
    return (
        hand,
        [c for c in kept[1] if not c.mask & gone],
        [c for c in fives if not c.mask & gone] if fives else fives,
    )


def lead_lists(hand: int) -> tuple[list[Combo], list[Combo]]:
    """Every combination of ``hand`` (a mask) as (loose ones, five-card ones), in the fixed order."""
    singles, pairs, triples, fours = _loose_groups(hand)
    fives = _fives(hand, singles, pairs, triples, fours) if len(singles) >= 5 else []
    singles += pairs
    singles += triples
    singles += fours
    return singles, fives


def follow_singles(hand: int, value: int) -> list[Combo]:
    """The singles of ``hand`` that beat a single of ``value`` (R13, R5), weakest first."""
    out = []
    rest = hand & _BEATING_SINGLES[value]
    table = SINGLES
    while rest:
        low = rest & -rest
        out.append(table[low.bit_length() - 1])
        rest ^= low
    return out


def follow_sets(hand: int, size: int, value: int) -> list[Combo]:
    """The pairs, triples or fours (R14–R16, by ``size``) of ``hand`` that beat one of ``value``."""
    tables = SETS[size]
    rank = set_rank(value)
    out = [c for c in tables[rank][hand >> (4 * rank) & 15] if c.value > value]
    for r in range(rank + 1, 13):
        nib = hand >> (4 * r) & 15
        if nib:
            out += tables[r][nib]
    return out


def _loose_groups(hand: int) -> tuple[list[Combo], list[Combo], list[Combo], list[Combo]]:
    """The singles, pairs, triples and fours of ``hand`` (R13–R16), block by block."""
    singles: list[Combo] = []
    pairs: list[Combo] = []
    triples: list[Combo] = []
    fours: list[Combo] = []
    for shift, table in _BLOCKS:
        bits = hand >> shift & 255
        if bits:
            s, p, t, f = table[bits]
            singles += s
            if p:  # no pair, no triple or four
                pairs += p
                if t:
                    triples += t
                    if f:
                        fours += f
    return singles, pairs, triples, fours


def _fives(hand: int, singles: list[Combo], pairs: list[Combo], triples: list[Combo],
           fours: list[Combo]) -> list[Combo]:
    """Five-card combinations (R18–R24): sequences, flushes, full houses, fours plus one."""
    table = _FIVES
    out: list[Combo] = []
    folded = hand | hand >> 1
    folded = (folded | folded >> 2) & _RANK_BITS  # one bit per rank held
    products = _PRODUCTS
    for ranks, (first, middle, last), sequences in _SEQUENCES:  # straights, straight flushes (R18, R23)
        if folded & ranks == ranks:
            out += [
                sequences[a | b | c]
                for a in products[hand & first]
                for b in products[hand & middle]
                for c in products[hand & last]
            ]
    for suit_mask in _SUIT_MASKS:  # flushes (R19)
        suited = hand & suit_mask
        if suited.bit_count() >= 5:
            out += _flushes(suited)
    if triples:  # full houses (R20): a triple and a pair of another rank
        pair_masks = [p.mask for p in pairs]
        for triple in triples:
            t = triple.mask
            out += [table[t | p] for p in pair_masks if not p & t]
    for four in fours:  # four plus one (R21, R22): any other card, jokers included
        f = four.mask
        out += [table[f | s.mask] for s in singles if not s.mask & f]
    return out


def _flushes(suited: int) -> list[Combo]:
    """The flushes (R19) among five or more cards of one suit (a mask), lexicographically."""
    cards = []
    while suited:
        low = suited & -suited
        cards.append(low)
        suited ^= low
    table = _FIVES
    fives = [table[a | b | c | d | e] for a, b, c, d, e in combinations(cards, 5)]
    return [combo for combo in fives if combo.kind == FLUSH]  # not the straight flushes
