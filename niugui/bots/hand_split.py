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

from ..combos import WINDOWS, Combo, classify_mask
from .power import lowness

JOKERS = 3 << 52


@dataclass(frozen=True, slots=True)
class Split:
    """A hand's plays and the split's cost (lower is better: plays first, then low singles)."""

    plays: tuple[Combo, ...]
    cost: int

    @property
    def count(self) -> int:
        return len(self.plays)


def _loose(mask: int) -> tuple[list[Combo], int]:
    """Group a five-free remainder by rank, then join full houses and four-plus-ones."""
    fours: list[int] = []
    triples: list[int] = []
    pairs: list[int] = []
    singles: list[int] = []
    for rank in range(13):
        nib = mask >> (4 * rank) & 15
        if not nib:
            continue
        part = nib << (4 * rank)
        n = nib.bit_count()
        (singles, pairs, triples, fours)[n - 1].append(part)
    jokers = mask & JOKERS
    while jokers:
        low = jokers & -jokers
        singles.append(low)
        jokers ^= low
    out: list[Combo] = []
    for triple in triples:
        if pairs and pairs[0] >> 44 == 0:  # a full house takes the weakest pair below A (R20)
            out.append(_combo(triple | pairs.pop(0)))
        else:
            out.append(_combo(triple))
    for four in fours:
        if singles and singles[0] >> 40 == 0:  # four plus one takes a single below A (R21)
            out.append(_combo(four | singles.pop(0)))
        else:
            out.append(_combo(four))
    out.extend(_combo(p) for p in pairs)
    out.extend(_combo(s) for s in singles)
    cost = 0
    for combo in out:
        cost += 100 + (lowness(combo) if combo.group == 1 else 0)
    return out, cost


def _combo(mask: int) -> Combo:
    combo = classify_mask(mask)
    assert combo is not None, mask
    return combo


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


@lru_cache(maxsize=1 << 16)
def split_hand(hand: int) -> Split:
    """The best split of ``hand`` (a mask) into plays."""
    candidates = [m for m in five_candidates(hand) if classify_mask(m) is not None]
    plays, cost = _loose(hand)
    best = Split(tuple(plays), cost)
    for size in (1, 2):
        for chosen in combinations(candidates, size):
            union = 0
            for m in chosen:
                if union & m:
                    break
                union |= m
            else:
                rest, cost = _loose(hand ^ union)
                cost += 100 * size
                if cost < best.cost:
                    best = Split(tuple([*(_combo(m) for m in chosen), *rest]), cost)
    return best
