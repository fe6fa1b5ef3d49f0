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

from ..combos import CLASS_SPAN, FIVE, FLUSH_RANK, WINDOWS, Combo


def lowness(combo: Combo) -> int:
    """0 (strong) .. 12 (weak): how unlikely the play is to win a trick on its own."""
    if combo.group == FIVE:
        return max(0, 6 - combo.value // CLASS_SPAN * 2)
    rank = combo.value >> 2 if combo.value < 52 else 13
    return max(0, 12 - rank)


def beatable(combo: Combo, unseen: int) -> bool:
    """Whether some combination made of ``unseen`` cards beats ``combo``.

    The unseen cards are spread over several hands, so this may say True where no single hand can.
    """
    group, value = combo.group, combo.value
    if group == 1:
        return unseen >> (value + 1) != 0
    if group != FIVE:
        rank = value >> 2
        for r in range(rank, 13):
            nib = unseen >> (4 * r) & 15
            if nib.bit_count() >= group and (r > rank or nib.bit_length() - 1 > (value & 3)):
                return True
        return False
    return _five_beatable(unseen, value)


def _five_beatable(unseen: int, value: int) -> bool:
    cls = value // CLASS_SPAN
    key = value % CLASS_SPAN
    nibbles = [unseen >> (4 * r) & 15 for r in range(13)]
    for window, ranks in enumerate(WINDOWS):  # straight flushes (R23)
        common = 15
        for r in ranks:
            common &= nibbles[r]
        if common and 4 * CLASS_SPAN + window * 4 + common.bit_length() - 1 > value:
            return True
    fours = [r for r, n in enumerate(nibbles) if n == 15]
    if cls <= 3 and unseen.bit_count() > 4 and any(cls < 3 or r > key for r in fours):
        return True  # four plus one (R21): a four and any other card
    if cls <= 2:  # full house (R20)
        counts = [n.bit_count() for n in nibbles]
        for r, n in enumerate(counts):
            if n >= 3 and (cls < 2 or r > key) and any(m >= 2 for q, m in enumerate(counts) if q != r):
                return True
    if cls <= 1:  # flush (R19)
        for suit in range(4):
            in_suit = [r for r in range(13) if nibbles[r] >> suit & 1]
            if len(in_suit) < 5:
                continue
            if cls < 1 or CLASS_SPAN + max(FLUSH_RANK[r] for r in in_suit) * 4 + suit > value:
                return True
    if cls == 0:  # straight (R18)
        for window, ranks in enumerate(WINDOWS):
            if all(nibbles[r] for r in ranks) and window * 4 + nibbles[ranks[4]].bit_length() - 1 > key:
                return True
    return False
