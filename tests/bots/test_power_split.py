"""The expert's building blocks checked against brute force: can-be-beaten and the fewest-plays split."""

from __future__ import annotations

import random
from functools import cache

from niugui.bots.hand_split import split_cost, split_hand
from niugui.bots.power import beatable
from niugui.cards import cards_of, mask_of, parse_cards
from niugui.combos import classify_mask
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
