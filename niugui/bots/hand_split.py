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


def _loose_cost(mask: int) -> int:
    """The cost of grouping a remainder by rank (fours, triples, pairs, singles, then joins)."""
    jokers = _POP[mask >> 52 & 3]  # singles of lowness 0; may fill a four plus one (R22)
    plays = jokers
    pairs = triples = fours = 0
    singles: list[int] = []
    for rank in range(13):
        n = _POP[mask >> (4 * rank) & 15]
        if not n:
            continue
        plays += 1
        if n == 1:
            singles.append(rank)
        elif n == 2:
            pairs += 1
        elif n == 3:
            triples += 1
        else:
            fours += 1
    plays -= min(triples, pairs)  # each triple takes the weakest pair: a full house (R20)
    joined = min(fours, len(singles) + jokers)  # each four takes the weakest single (R21)
    plays -= joined
    return PLAY_COST * plays + sum(12 - r for r in singles[joined:])


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


def five_candidates(hand: int) -> list[int]:
    """Straights, straight flushes and flushes worth keeping together (as masks)."""
    nibbles = [hand >> (4 * r) & 15 for r in range(13)]
    out: list[int] = []
    for ranks in WINDOWS:
        if not all(nibbles[r] for r in ranks):
            continue
        common = 15
        for r in ranks:
            common &= nibbles[r]
        suit = common.bit_length() - 1
        if common:  # a straight flush, in the highest suit that has one
            out.append(sum(1 << (4 * r + suit) for r in ranks))
        # A plain straight: the lowest suit of each rank, the top card in its highest suit.
        mask = 0
        for r in ranks[:4]:
            nib = nibbles[r]
            mask |= (nib & -nib) << (4 * r)
        top = ranks[4]
        mask |= 1 << (4 * top + nibbles[top].bit_length() - 1)
        if mask not in out:
            out.append(mask)
    for suit in range(4):
        cards = [4 * r + suit for r in range(13) if nibbles[r] >> suit & 1]
        if len(cards) < 5:
            continue
        # Prefer cards that are alone in their rank (a flush should not break pairs), then weak ones.
        cards.sort(key=lambda c: (nibbles[c >> 2].bit_count() > 1, c))
        flush = sum(1 << c for c in cards[:5])
        if flush not in out:
            out.append(flush)
    return out


@lru_cache(maxsize=1 << 13)
def _best(hand: int) -> tuple[int, tuple[int, ...]]:
    """(cost, fives): the cheapest split's cost and its five-card plays (masks)."""
    candidates = [m for m in five_candidates(hand) if classify_mask(m) is not None]
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
