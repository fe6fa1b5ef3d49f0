"""The expert's building blocks checked against brute force: can-be-beaten and the fewest-plays split."""

from __future__ import annotations

import random
from functools import cache

from niugui.bots.hand_split import PLAY_COST, _loose_cost, five_candidates, split_cost, split_hand
from niugui.bots.power import beatable
from niugui.cards import cards_of, mask_of, parse_cards
from niugui.combos import WINDOWS, classify_mask
from niugui.moves import plays


def random_mask(rng: random.Random, size: int) -> int:
    return mask_of(rng.sample(range(54), size))


def test_beatable_matches_brute_force() -> None:
    """R17, R24: 'some unseen combination beats it' equals an exhaustive search of the unseen cards."""
    rng = random.Random(7)
    checked = 0
    for _ in range(1500):
        unseen = random_mask(rng, rng.randrange(1, 16))
        for combo in rng.sample(plays(random_mask(rng, 14)), 3):
            expected = bool(plays(unseen, combo))
            assert beatable(combo, unseen) == expected, (cards_of(unseen), combo)
            checked += 1
    assert checked == 4500


@cache
def fewest_plays(hand: int) -> int:
    """The fewest plays that empty ``hand``, by exhaustive search (the lowest card goes in some play)."""
    if not hand:
        return 0
    low = hand & -hand
    return 1 + min(fewest_plays(hand ^ c.mask) for c in plays(hand) if c.mask & low)


def test_split_is_a_partition_into_combinations() -> None:
    rng = random.Random(3)
    for _ in range(400):
        hand = random_mask(rng, rng.choice((13, 14)))
        split = split_hand(hand)
        union = 0
        for combo in split.plays:
            assert classify_mask(combo.mask) is not None  # R13-R25: every part is playable
            assert not union & combo.mask
            union |= combo.mask
        assert union == hand
        assert split_cost(hand) == (split.count, split.cost)


def test_split_has_the_fewest_plays() -> None:
    """Against exhaustive search on random 9-card hands (R13-R23 combinations only)."""
    rng = random.Random(11)
    worse = 0
    for _ in range(300):
        hand = random_mask(rng, 9)
        if split_hand(hand).count > fewest_plays(hand):
            worse += 1
    assert worse == 0


def test_split_keeps_straights_and_full_houses() -> None:
    hand = mask_of(parse_cards("D4 C5 H6 S7 D8 D9 C9 HJ SJ DJ BJ"))
    kinds = sorted(c.kind for c in split_hand(hand).plays)
    assert kinds == ["full_house", "single", "straight"]


def reference_loose_cost(mask: int) -> int:
    """The loose grouping's cost counted rank by rank (the plain form of hand_split._loose_cost)."""
    jokers = (mask >> 52 & 3).bit_count()
    plays = jokers
    pairs = triples = fours = 0
    singles: list[int] = []
    for rank in range(13):
        n = (mask >> (4 * rank) & 15).bit_count()
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
    plays -= min(triples, pairs)
    joined = min(fours, len(singles) + jokers)
    plays -= joined
    return PLAY_COST * plays + sum(12 - r for r in singles[joined:])


def reference_five_candidates(hand: int) -> list[int]:
    """hand_split.five_candidates written rank by rank and suit by suit."""
    nibbles = [hand >> (4 * r) & 15 for r in range(13)]
    out: list[int] = []
    for ranks in WINDOWS:
        if not all(nibbles[r] for r in ranks):
            continue
        common = 15
        for r in ranks:
            common &= nibbles[r]
        if common:  # the straight flush in the highest suit that has one
            out.append(sum(1 << (4 * r + common.bit_length() - 1) for r in ranks))
        mask = sum((nibbles[r] & -nibbles[r]) << (4 * r) for r in ranks[:4])
        mask |= 1 << (4 * ranks[4] + nibbles[ranks[4]].bit_length() - 1)
        if mask not in out:
            out.append(mask)
    for suit in range(4):
        cards = [4 * r + suit for r in range(13) if nibbles[r] >> suit & 1]
        if len(cards) >= 5:
            cards.sort(key=lambda c: (nibbles[c >> 2].bit_count() > 1, c))
            flush = sum(1 << c for c in cards[:5])
            if flush not in out:
                out.append(flush)
    return out


def test_bitwise_split_helpers_equal_their_rank_by_rank_forms() -> None:
    """The split's cost and its five-card candidates, computed on all ranks at once, equal the plain
    rank-by-rank computations on hands rich in sets, fours, sequences and flushes (and jokers)."""
    rng = random.Random(12)
    for _ in range(6000):
        style = rng.randrange(3)
        size = rng.randint(0, 18)
        if style == 0:
            pool = list(range(54))
        elif style == 1:
            pool = [4 * r + s for r in rng.sample(range(13), rng.randint(1, 6)) for s in range(4)] + [52, 53]
        else:
            pool = [4 * r + s for r in range(13) for s in rng.sample(range(4), rng.randint(1, 2))]
        hand = mask_of(rng.sample(pool, min(size, len(pool))))
        assert _loose_cost(hand) == reference_loose_cost(hand), cards_of(hand)
        candidates = five_candidates(hand)
        assert candidates == reference_five_candidates(hand), cards_of(hand)
        assert all(classify_mask(m) is not None for m in candidates)  # every one is playable
