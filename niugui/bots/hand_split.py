"""Split a hand into the fewest plays, keeping straights, flushes, full houses and pairs together.

The search picks up to two five-card combinations (straights, flushes, straight flushes: the only
ones that cut across ranks), then groups the rest by rank (fours, triples, pairs, singles) and joins
triples with the weakest pairs into full houses and fours with the weakest single (R18–R23). Among
splits with as few plays as possible it prefers fewer low singles.

>>> from niugui.cards import mask_of, parse_cards
>>> hand = mask_of(parse_cards("D4 C5 H6 S7 D8 D9 C9 HJ SJ DJ BJ"))
>>> for combo in split_hand(hand).plays:
...     print(combo.kind, *combo.cards)
straight D4 C5 H6 S7 D8
full_house D9 C9 DJ HJ SJ
single BJ
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from ..combos import (
    FIVE,
    FOUR,
    FOUR_PLUS_ONE,
    FULL_HOUSE,
    PAIR,
    SINGLE,
    TRIPLE,
    WINDOWS,
    Combo,
    classify_mask,
    four_plus_one_value,
    full_house_value,
    set_value,
    single_value,
)

JOKERS = 3 << 52
PLAY_COST = 1000
"""Each play costs this much; a single adds its lowness (0..12), so the cost orders splits by their
number of plays first, then by how weak their singles are."""
_POP = tuple(bin(n).count("1") for n in range(16))


@dataclass(frozen=True, slots=True)
class Split:
    """A hand's plays and the split's cost (lower is better: plays first, then low singles)."""

    plays: tuple[Combo, ...]
    cost: int

    @property
    def count(self) -> int:
        return len(self.plays)


# Each rank is a nibble of the mask (R5: card = rank * 4 + suit). These masks pick, in every nibble
# at once, its bit 0 (_LOW), bits 0 and 2, bits 0-1, and the bits a shift may bring in from a
# neighbouring nibble.
_LOW = sum(1 << (4 * r) for r in range(13))
_EVEN = 5 * _LOW
_LOW_PAIR = 3 * _LOW
_BELOW = (14 * _LOW, 12 * _LOW, 8 * _LOW)  # bits 1-3, 2-3, 3: where <<1, <<2, <<3 stay in a nibble
_ABOVE = (7 * _LOW, 3 * _LOW, 1 * _LOW)  # bits 0-2, 0-1, 0: where >>1, >>2, >>3 stay in a nibble


def _rank_counts(mask: int) -> int:
    """Each rank's number of cards (0-4), in that rank's nibble."""
    pairs = (mask & _EVEN) + (mask >> 1 & _EVEN)
    return (pairs & _LOW_PAIR) + (pairs >> 2 & _LOW_PAIR)


def _lowness(ranks: int) -> int:
    """The summed lowness (12 - rank) of the ranks whose nibble's bit 0 is set in ``ranks``."""
    return sum(12 - r for r in range(13) if ranks >> (4 * r) & 1)


_LOWNESS: dict[int, int] = {}
""":func:`_lowness` of each set of ranks met so far."""


def _loose_cost(mask: int) -> int:
    """The cost of grouping a remainder by rank (fours, triples, pairs, singles, then joins)."""
    jokers = _POP[mask >> 52 & 3]  # singles of lowness 0; may fill a four plus one (R22)
    counts = _rank_counts(mask)
    ones = counts & ~(counts >> 1) & _LOW  # ranks holding 1 card (binary 001; 4 is 100)
    pairs = (counts >> 1 & ~counts & _LOW).bit_count()  # 010
    triples = (counts & counts >> 1 & _LOW).bit_count()  # 011
    fours = (counts >> 2 & _LOW).bit_count()  # 100
    singles = ones.bit_count()
    plays = jokers + singles + pairs + triples + fours
    plays -= min(triples, pairs)  # each triple takes the weakest pair: a full house (R20)
    joined = min(fours, singles + jokers)  # each four takes the weakest single (R21)
    plays -= joined
    lowness = _LOWNESS.get(ones)
    if lowness is None:
        lowness = _LOWNESS[ones] = _lowness(ones)
    for _ in range(min(joined, singles)):  # the singles the fours took no longer count
        low = ones & -ones
        lowness -= 12 - (low.bit_length() - 1 >> 2)
        ones ^= low
    return PLAY_COST * plays + lowness


def _loose_plays(mask: int) -> list[Combo]:
    """The plays of :func:`_loose_cost`'s grouping."""
    groups: list[list[tuple[int, int]]] = [[], [], [], []]  # by size: (rank, mask)
    for rank in range(13):
        nib = mask >> (4 * rank) & 15
        if nib:
            groups[_POP[nib] - 1].append((rank, nib << (4 * rank)))
    singles, pairs, triples, fours = groups
    singles += [(13 + joker - 52, 1 << joker) for joker in (52, 53) if mask >> joker & 1]
    out: list[Combo] = []
    for rank, triple in triples:
        if pairs:
            out.append(Combo(triple | pairs.pop(0)[1], FULL_HOUSE, FIVE, full_house_value(rank)))
        else:
            out.append(Combo(triple, TRIPLE, 3, _set_value(triple)))
    for rank, four in fours:
        if singles:
            out.append(Combo(four | singles.pop(0)[1], FOUR_PLUS_ONE, FIVE, four_plus_one_value(rank)))
        else:
            out.append(Combo(four, FOUR, 4, _set_value(four)))
    out.extend(Combo(m, PAIR, 2, _set_value(m)) for _, m in pairs)
    out.extend(Combo(m, SINGLE, 1, single_value(m.bit_length() - 1)) for _, m in singles)
    return out


def _set_value(mask: int) -> int:
    """The value of a pair, triple or four given as a mask of one rank."""
    top = mask.bit_length() - 1
    return set_value(top >> 2, top & 3)


_SUITS = tuple(_LOW << s for s in range(4))
_WINDOW_MASKS: tuple[tuple[int, tuple[int, ...], int, int], ...] = tuple(
    (
        sum(1 << (4 * r) for r in ranks),  # its ranks, folded onto bit 0
        tuple(sum(1 << (4 * r + s) for r in ranks) for s in (3, 2, 1, 0)),  # its straight flushes
        sum(15 << (4 * r) for r in ranks[:4]),  # the cards of its four lower ranks
        15 << (4 * ranks[4]),  # the cards of its top rank
    )
    for ranks in WINDOWS
)
"""Per sequence of R4 (lowest first): masks for :func:`five_candidates`."""


def five_candidates(hand: int) -> list[int]:
    """Straights, straight flushes and flushes worth keeping together (as masks)."""
    out: list[int] = []
    if hand.bit_count() < 5:
        return out
    folded = hand | hand >> 1
    folded = (folded | folded >> 2) & _LOW  # bit 0 of each rank held
    lowest = hand & ~(hand << 1 & _BELOW[0] | hand << 2 & _BELOW[1] | hand << 3 & _BELOW[2])
    highest = hand & ~(hand >> 1 & _ABOVE[0] | hand >> 2 & _ABOVE[1] | hand >> 3 & _ABOVE[2])
    for ranks, flushes, lower, top in _WINDOW_MASKS:
        if folded & ranks != ranks:
            continue
        for flush in flushes:  # a straight flush, in the highest suit that has one
            if hand & flush == flush:
                out.append(flush)
                break
        # A plain straight: the lowest suit of each rank, the top card in its highest suit.
        mask = lowest & lower | highest & top
        if mask not in out:
            out.append(mask)
    counts = _rank_counts(hand & ~JOKERS)
    alone = counts & ~(counts >> 1) & _LOW  # ranks holding one card
    for suit, suit_mask in enumerate(_SUITS):
        cards = hand & suit_mask
        if cards.bit_count() < 5:
            continue
        # Prefer cards that are alone in their rank (a flush should not break pairs), then weak ones.
        preferred = cards & alone << suit
        flush = 0
        for pool in (preferred, cards ^ preferred):
            while pool and flush.bit_count() < 5:
                low = pool & -pool
                flush |= low
                pool ^= low
        if flush not in out:
            out.append(flush)
    return out


@lru_cache(maxsize=1 << 13)
def _best(hand: int) -> tuple[int, tuple[int, ...]]:
    """(cost, fives): the cheapest split's cost and its five-card plays (masks)."""
    candidates = five_candidates(hand)  # every one a straight, flush or straight flush
    best: tuple[int, tuple[int, ...]] = (_loose_cost(hand), ())
    for size in (1, 2):
        for chosen in combinations(candidates, size):
            union = 0
            for m in chosen:
                if union & m:
                    break
                union |= m
            else:
                cost = PLAY_COST * size + _loose_cost(hand ^ union)
                if cost < best[0]:
                    best = (cost, chosen)
    return best


def split_cost(hand: int) -> tuple[int, int]:
    """(number of plays, cost) of the best split of ``hand``: cheap, for weighing candidate plays."""
    cost = _best(hand)[0]
    return cost // PLAY_COST, cost


@lru_cache(maxsize=1 << 11)
def split_hand(hand: int) -> Split:
    """The best split of ``hand`` (a mask) into plays."""
    cost, fives = _best(hand)
    plays: list[Combo] = []
    rest = hand
    for m in fives:
        combo = classify_mask(m)
        assert combo is not None
        plays.append(combo)
        rest ^= m
    return Split(tuple(plays + _loose_plays(rest)), cost)
