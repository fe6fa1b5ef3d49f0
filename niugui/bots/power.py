"""How strong a play is against the cards still unseen: can anything out there beat it? (R17, R24)

>>> from niugui.cards import mask_of, parse_cards
>>> from niugui.combos import classify
>>> unseen = mask_of(parse_cards("D5 C5 SA"))
>>> beatable(classify(parse_cards("HA")), unseen), beatable(classify(parse_cards("S2")), unseen)
(True, False)
>>> beatable(classify(parse_cards("D4 C4")), unseen)
True
"""

from __future__ import annotations

from ..combos import (
    FIVE,
    FLUSH_RANK,
    WINDOWS,
    Combo,
    five_class,
    flush_value,
    four_plus_one_value,
    full_house_value,
    set_rank,
    set_value,
    singles_above,
    straight_value,
)


def lowness(combo: Combo) -> int:
    """0 (strong) .. 12 (weak): how unlikely the play is to win a trick on its own."""
    if combo.group == FIVE:
        return max(0, 6 - five_class(combo.value) * 2)
    top = combo.mask.bit_length() - 1  # the highest card: its rank (R3), jokers above every rank
    return max(0, 12 - min(top >> 2, 13))


def beatable(combo: Combo, unseen: int) -> bool:
    """Whether some combination made of ``unseen`` cards beats ``combo``.

    The unseen cards are spread over several hands, so this may say True where no single hand can.
    """
    group, value = combo.group, combo.value
    if group == 1:
        return unseen & singles_above(value) != 0
    if group != FIVE:
        for r in range(set_rank(value), 13):
            nib = unseen >> (4 * r) & 15
            if nib.bit_count() >= group and set_value(r, nib.bit_length() - 1) > value:
                return True
        return False
    return _five_beatable(unseen, value)


def _five_beatable(unseen: int, value: int) -> bool:
    cls = five_class(value)
    nibbles = [unseen >> (4 * r) & 15 for r in range(13)]
    for window, ranks in enumerate(WINDOWS):  # straight flushes (R23)
        common = 15
        for r in ranks:
            common &= nibbles[r]
        if common and straight_value(window, common.bit_length() - 1, flush=True) > value:
            return True
    fours = [r for r, n in enumerate(nibbles) if n == 15]
    if cls <= 3 and unseen.bit_count() > 4 and any(four_plus_one_value(r) > value for r in fours):
        return True  # four plus one (R21): a four and any other card
    if cls <= 2:  # full house (R20)
        counts = [n.bit_count() for n in nibbles]
        for r, n in enumerate(counts):
            if n >= 3 and full_house_value(r) > value and any(m >= 2 for q, m in enumerate(counts) if q != r):
                return True
    if cls <= 1:  # flush (R19)
        for suit in range(4):
            in_suit = [r for r in range(13) if nibbles[r] >> suit & 1]
            if len(in_suit) >= 5 and flush_value(max(FLUSH_RANK[r] for r in in_suit), suit) > value:
                return True
    if cls == 0:  # straight (R18)
        for window, ranks in enumerate(WINDOWS):
            top_suit = nibbles[ranks[4]].bit_length() - 1
            if all(nibbles[r] for r in ranks) and straight_value(window, top_suit) > value:
                return True
    return False
