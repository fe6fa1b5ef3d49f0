"""Combinations and their comparison (R4, R13–R25), exhaustively where the space is small, against
the oracle in engine_oracle.py (written from the rules text)."""

from __future__ import annotations

import random
from itertools import combinations, pairwise, product

import pytest
from engine_oracle import (
    DECK,
    FIVE_CLASSES,
    RANK_ORDER,
    SEQUENCE,
    SUIT_ORDER,
    SUITED,
    beats,
)
from engine_oracle import classify as oracle_classify

from niugui import Combo, classify, parse_cards

PAIRS = [a + b for r in RANK_ORDER for a, b in combinations([s + r for s in SUIT_ORDER], 2)]


def combo(codes: str) -> Combo:
    got = classify(parse_cards(codes))
    assert got is not None, codes
    return got


def nothing(codes: str) -> bool:
    return classify(parse_cards(codes)) is None


def check_same_as_oracle(hands: list[tuple[str, ...]]) -> None:
    """Engine and oracle agree on kind, and on beats for every ordered pair of these combinations."""
    engine = [classify(parse_cards(h)) for h in hands]
    oracle = [oracle_classify(h) for h in hands]
    for h, e, o in zip(hands, engine, oracle, strict=True):
        assert (e is None) == (o is None), h
        if e is not None and o is not None:
            assert e.kind == o[0], h
    for (ha, ea, oa), (hb, eb, ob) in product(zip(hands, engine, oracle, strict=True), repeat=2):
        if ea is None or eb is None or oa is None or ob is None:
            continue
        assert ea.beats(eb) == beats(oa, ob), (ha, hb)


# ---- loose combinations -----------------------------------------------------------------------


def test_R14_pairs_are_two_cards_of_one_rank_and_jokers_or_S3_S2_never_pair() -> None:
    assert len(PAIRS) == 78
    for pair in PAIRS:
        assert combo(f"{pair[:2]} {pair[2:]}").kind == "pair"
    assert nothing("BJ RJ") and nothing("S3 S2") and nothing("BJ S3") and nothing("D4 D5")


def test_R14_R17_all_pairs_against_all_pairs() -> None:
    """R14 exhaustive: every pair vs every other pair (78 x 77): rank (R3) first, then the higher suit
    of each pair (R2) — e.g. ♠5♦5 beats ♥5♣5. Two pairs without a common card (the only ones that meet
    in a game) always compare one way; two that share their top card are equal (neither beats)."""
    hands = [(p[:2], p[2:]) for p in PAIRS]
    check_same_as_oracle(hands)
    for a, b in product(hands, repeat=2):
        if not set(a) & set(b):
            ca, cb = classify(parse_cards(a)), classify(parse_cards(b))
            assert ca is not None and cb is not None and ca.beats(cb) != cb.beats(ca), (a, b)
    assert combo("S5 D5").beats(combo("H5 C5")) and not combo("H5 C5").beats(combo("S5 D5"))
    assert combo("D5 C5").beats(combo("S4 H4"))


def test_R15_R16_all_triples_and_fours() -> None:
    """R15 triples compare by rank then highest suit; R16 fours by rank (52 triples, 13 fours)."""
    triples = [t for r in RANK_ORDER for t in combinations([s + r for s in SUIT_ORDER], 3)]
    fours = [tuple(s + r for s in SUIT_ORDER) for r in RANK_ORDER]
    assert len(triples) == 52
    for t in triples:
        assert combo(" ".join(t)).kind == "triple"
    for f in fours:
        assert combo(" ".join(f)).kind == "four"
    check_same_as_oracle(triples)
    check_same_as_oracle(fours)
    assert combo("S9 H9 D9").beats(combo("H9 C9 D9"))
    assert combo("D3 C3 H3 S3").beats(combo("D2 C2 H2 S2"))


def test_R17_loose_combinations_beat_only_the_same_type_no_bombs() -> None:
    """R17: a four never beats a single, pair or triple; a pair never beats a single; etc."""
    samples = ["D4", "RJ", "D4 C4", "S3 H3", "D4 C4 H4", "S3 H3 C3", "D4 C4 H4 S4", "D3 C3 H3 S3"]
    for a, b in product(samples, repeat=2):
        ca, cb = combo(a), combo(b)
        if ca.kind != cb.kind:
            assert not ca.beats(cb), (a, b)
    assert not combo("D3 C3 H3 S3").beats(combo("D4"))  # no bombs


def test_R13_R17_loose_pairs_of_combinations_over_many_random_samples() -> None:
    """R13–R17 across types: random singles, pairs, triples and fours, engine vs oracle."""
    rng = random.Random(13)
    hands: list[tuple[str, ...]] = []
    for size in (1, 2, 3, 4):
        for _ in range(30):
            r = rng.choice(RANK_ORDER)
            hands.append(tuple(s + r for s in rng.sample(SUIT_ORDER, size)))
    hands += [("BJ",), ("RJ",)]
    check_same_as_oracle(hands)


# ---- sequences ----------------------------------------------------------------------------------


WINDOWS = [SEQUENCE[i : i + 5] for i in range(10)]


def test_R4_there_are_exactly_ten_sequences_A2345_lowest_10JQKA_highest() -> None:
    """R4: A2345 … 10JQKA; JQKA2, QKA23, KA234 (wrapping) are not sequences."""
    assert len(WINDOWS) == 10 and WINDOWS[0] == ["A", "2", "3", "4", "5"] and WINDOWS[-1][-1] == "A"
    mixed = ["D", "C", "H", "S", "D"]
    for ranks in (["J", "Q", "K", "A", "2"], ["Q", "K", "A", "2", "3"], ["K", "A", "2", "3", "4"]):
        cards = " ".join(s + r for s, r in zip(mixed, ranks, strict=True))
        assert nothing(cards), cards
        # one suit and no sequence: a flush (R19), never a straight flush
        assert combo(" ".join("H" + r for r in ranks)).kind == "flush"
    # every other set of five distinct ranks that is not a window is no straight
    windows = {frozenset(w) for w in WINDOWS}
    for ranks in combinations(RANK_ORDER, 5):
        cards = " ".join(s + r for s, r in zip(mixed, ranks, strict=True))
        got = classify(parse_cards(cards))
        assert (got is not None) == (frozenset(ranks) in windows), ranks
        if got is not None:
            assert got.kind == "straight"


@pytest.mark.parametrize("window", range(10), ids=lambda i: "".join(WINDOWS[i]))
def test_R18_R23_every_straight_and_straight_flush_of_each_window(window: int) -> None:
    """R18/R23 exhaustive: all 4^5 suit choices of the window: 4 straight flushes, 1020 straights;
    each ordered against every straight of the previous and the next window and within its own
    window by the last card's suit only; all agree with the oracle."""
    ranks = WINDOWS[window]
    hands = [
        tuple(s + r for s, r in zip(suits, ranks, strict=True)) for suits in product(SUIT_ORDER, repeat=5)
    ]
    kinds = [combo(" ".join(h)).kind for h in hands]
    assert kinds.count("straight_flush") == 4 and kinds.count("straight") == 1020
    # a sample against the neighbouring windows, the full window against itself by key
    rng = random.Random(window)
    sample = rng.sample(hands, 40) + [h for h in hands if len({c[0] for c in h}) == 1]
    for other in (window - 1, window + 1):
        if 0 <= other < 10:
            sample += [
                tuple(s + r for s, r in zip(suits, WINDOWS[other], strict=True))
                for suits in rng.sample(list(product(SUIT_ORDER, repeat=5)), 20)
            ]
    check_same_as_oracle(sample)
    last = ranks[-1]
    for h in hands:
        c = combo(" ".join(h))
        top_suit = next(card[0] for card in h if card[1] == last)
        for s in SUIT_ORDER:
            rival = (*tuple(("D" if top_suit != "D" else "C") + r for r in ranks[:4]), s + last)
            r_combo = combo(" ".join(rival))
            if c.kind == r_combo.kind == "straight":
                assert c.beats(r_combo) == (SUIT_ORDER.index(top_suit) > SUIT_ORDER.index(s))


def test_R18_smallest_and_largest_straights() -> None:
    """R18: smallest A2345 ending ♦5, largest 10JQKA ending ♠A; 56789 and 34567 are straights."""
    smallest = combo("SA S2 S3 S4 D5")
    largest = combo("DT DJ DQ DK SA")
    assert smallest.kind == largest.kind == "straight"
    assert combo("D5 C6 H7 S8 D9").kind == combo("D3 C4 H5 S6 D7").kind == "straight"
    # one straight per (window, suit of its last card); all but the first beat the smallest and all but
    # the last lose to the largest (a straight with the same last card is equal: neither beats)
    every_straight = [
        combo(" ".join(s + r for s, r in zip(("D", "C", "H", "S", t), w, strict=True)))
        for w in WINDOWS
        for t in SUIT_ORDER
    ]
    assert all(c.kind == "straight" for c in every_straight)
    for c in every_straight[1:]:
        assert c.beats(smallest) and not smallest.beats(c)
    for c in every_straight[:-1]:
        assert largest.beats(c) and not c.beats(largest)
    for lower, higher in pairwise(every_straight):
        assert higher.beats(lower) and not lower.beats(higher)
    # the A of A2345 is low: 23456 ending ♦6 beats A2345 ending ♠5
    assert combo("D2 C3 H4 S5 D6").beats(combo("DA C2 H3 D4 S5"))


def test_R23_smallest_and_largest_straight_flushes() -> None:
    """R23: ♦A♦2♦3♦4♦5 the smallest straight flush, ♠10♠J♠Q♠K♠A the largest."""
    flushes = [combo(" ".join(s + r for r in w)) for w in WINDOWS for s in SUIT_ORDER]
    assert all(c.kind == "straight_flush" for c in flushes)
    low, high = combo("DA D2 D3 D4 D5"), combo("ST SJ SQ SK SA")
    for c in flushes:
        if c.mask != low.mask:
            assert c.beats(low)
        if c.mask != high.mask:
            assert high.beats(c)
    # the rank of the last card decides before its suit: ♦6-high beats ♠5-high
    assert combo("D2 D3 D4 D5 D6").beats(combo("SA S2 S3 S4 S5"))


# ---- flushes, full houses, four plus one ----------------------------------------------------------


def test_R19_flush_is_ranked_by_its_highest_card_A_high_2_low() -> None:
    """R19/R4: ♠4♠8♠J♠K♠2 is K-high (2 is low in a flush); an A-high flush beats it; 2 is lowest."""
    k_high = combo("S4 S8 SJ SK S2")
    assert k_high.kind == "flush"
    q_high = combo("H5 H6 H9 HJ HQ")
    assert k_high.beats(q_high)
    assert combo("D4 D6 D8 DT DA").beats(k_high)  # ♦A-high beats ♠K-high: the card first, then suit
    assert combo("CK C4 C6 C8 CT").beats(combo("D3 D2 D4 D6 D9"))  # K-high beats 9-high with 3, 2
    # same high card: suit decides
    assert combo("SK S4 S6 S8 ST").beats(combo("HK H4 H6 H8 HT"))
    # a 3-high flush does not exist, a 4-high neither (2 3 4 … would be a sequence or too few):
    # the lowest flush is 7-high ♦2♦3♦4♦5♦7
    lowest = combo("D2 D3 D4 D5 D7")
    assert lowest.kind == "flush"


def test_R19_every_flush_of_each_suit_against_the_oracle() -> None:
    """R19 exhaustive per suit: all C(13,5) = 1287 five-card sets of one suit; 1277 are flushes and 10
    straight flushes; a sample of cross-suit comparisons agrees with the oracle."""
    rng = random.Random(19)
    sample: list[tuple[str, ...]] = []
    for s in SUIT_ORDER:
        hands = [tuple(s + r for r in ranks) for ranks in combinations(RANK_ORDER, 5)]
        kinds = [combo(" ".join(h)).kind for h in hands]
        assert kinds.count("flush") == 1277 and kinds.count("straight_flush") == 10
        for h, k in zip(hands, kinds, strict=True):
            assert k == oracle_classify(h)[0]  # type: ignore[index]
        sample += rng.sample(hands, 60)
    check_same_as_oracle(sample)


def test_R20_full_house_keyed_by_triple_pair_ignored() -> None:
    """R20: 55566 and 77744; the triple's rank decides, the pair is ignored; three 3s is the largest."""
    assert combo("D5 C5 H5 D6 C6").kind == "full_house"
    assert combo("D7 C7 H7 D4 C4").beats(combo("S5 H5 C5 S3 H3"))
    assert not combo("S5 H5 C5 S3 H3").beats(combo("D7 C7 H7 D4 C4"))
    biggest = combo("D3 C3 H3 D4 C4")
    rng = random.Random(20)
    hands = []
    for triple_rank, pair_rank in product(RANK_ORDER, repeat=2):
        if triple_rank != pair_rank:
            t = rng.sample(SUIT_ORDER, 3)
            p = rng.sample(SUIT_ORDER, 2)
            hands.append(tuple(s + triple_rank for s in t) + tuple(s + pair_rank for s in p))
            if triple_rank != "3":
                assert biggest.beats(combo(" ".join(hands[-1])))
    assert all(combo(" ".join(h)).kind == "full_house" for h in hands)
    check_same_as_oracle(hands)
    assert nothing("D5 C5 H5 BJ RJ") and nothing("D5 C5 H5 D6 BJ")


def test_R21_R22_four_plus_one_keyed_by_the_four_single_ignored_joker_allowed() -> None:
    """R21: 99997 and 6666J; the four's rank decides; any single, a joker too (R22)."""
    assert combo("D9 C9 H9 S9 D7").kind == "four_plus_one"
    assert combo("D6 C6 H6 S6 SJ").kind == "four_plus_one"
    assert combo("D6 C6 H6 S6 RJ").kind == "four_plus_one"
    assert combo("D6 C6 H6 S6 BJ").kind == "four_plus_one"
    assert combo("D9 C9 H9 S9 D4").beats(combo("D6 C6 H6 S6 RJ"))  # the single is ignored
    assert combo("D3 C3 H3 S3 D4").beats(combo("D2 C2 H2 S2 RJ"))
    hands = []
    for four_rank in RANK_ORDER:
        for single in ["BJ", "RJ", *(c for c in SUITED if c[1] != four_rank)][::7]:
            hands.append((*tuple(s + four_rank for s in SUIT_ORDER), single))
    assert all(combo(" ".join(h)).kind == "four_plus_one" for h in hands)
    check_same_as_oracle(hands)


def test_R22_jokers_in_no_other_five_card_combination() -> None:
    """R22: a joker is the single of a four plus one, nothing else: no straight, flush, full house."""
    assert nothing("BJ S4 S5 S6 S7")  # no joker in a sequence
    assert nothing("RJ H4 H6 H8 HT")  # no joker in a flush
    assert nothing("BJ D5 C5 H5 S6")  # no joker in a full house
    assert nothing("BJ RJ D5 C5 H5")
    assert nothing("BJ RJ D5 C5 H5 S5")  # a four with two jokers is six cards
    assert nothing("BJ RJ D5 C5 H5")  # two jokers are no pair: no full house


def test_R14_R25_jokers_never_pair_or_group() -> None:
    """R14/R25: 小王+大王 is no pair; jokers make no triple or four; they are singles only (R13)."""
    assert combo("BJ").kind == combo("RJ").kind == "single"
    assert combo("RJ").beats(combo("BJ")) and combo("BJ").beats(combo("S3"))
    assert nothing("BJ RJ") and nothing("BJ RJ S3") and nothing("BJ D4") and nothing("RJ S3 H3")
    assert nothing("BJ S3 H3 C3")


def test_R24_five_card_class_order() -> None:
    """R24: straight < flush < full house < four plus one < straight flush, whatever the keys: the
    weakest of a class beats the strongest of every lower class."""
    weakest = {
        "straight": combo("DA C2 H3 S4 D5"),
        "flush": combo("D2 D3 D4 D5 D7"),
        "full_house": combo("D4 C4 H4 D5 C5"),
        "four_plus_one": combo("D4 C4 H4 S4 D5"),
        "straight_flush": combo("DA D2 D3 D4 D5"),
    }
    strongest = {
        "straight": combo("DT DJ DQ DK SA"),
        "flush": combo("SA SK SQ SJ S9"),
        "full_house": combo("D3 C3 H3 D2 C2"),
        "four_plus_one": combo("D3 C3 H3 S3 RJ"),
        "straight_flush": combo("ST SJ SQ SK SA"),
    }
    for kind, c in [*weakest.items(), *strongest.items()]:
        assert c.kind == kind
    for i, low in enumerate(FIVE_CLASSES):
        for high in FIVE_CLASSES[i + 1 :]:
            assert weakest[high].beats(strongest[low]), (high, low)
            assert not strongest[low].beats(weakest[high]), (low, high)


def test_R24_five_card_and_loose_never_beat_each_other() -> None:
    loose = [combo(c) for c in ("RJ", "S3 H3", "S3 H3 C3", "D3 C3 H3 S3")]
    five = [combo("DA C2 H3 S4 D5"), combo("ST SJ SQ SK SA")]
    for a, b in product(loose, five):
        assert not a.beats(b) and not b.beats(a)


def test_R25_sets_that_are_no_combination() -> None:
    """R25: two jokers, 2/3/4 cards not of one rank, 6+ cards, five cards of no class, nothing."""
    for bad in (
        "BJ RJ",
        "D4 D5",
        "D4 C4 D5",
        "D4 C4 H4 D5",
        "D4 C4 H4 S4 D5 C5",
        "D4 C5 H6 S7 D9",
        "D4 C4 H5 S5 D6",
        "D4 C4 H4 S5 D6",
        "S4 S5 S6 S7 S8 S9",
    ):
        assert nothing(bad), bad
    assert classify([]) is None
    assert classify(parse_cards("D4 D4")) is None  # the same card twice is no pair


def test_R13_R25_engine_classification_matches_oracle_on_random_sets() -> None:
    """R13–R25: 60,000 random sets of 1–6 cards (biased towards few ranks and one suit, where the
    combinations are), kind and None agree with the oracle; random pairs agree on beats."""
    rng = random.Random(25)
    found: list[tuple[str, ...]] = []
    for i in range(60000):
        size = rng.choice((1, 2, 3, 4, 5, 5, 5, 6))
        mode = i % 3
        if mode == 0:
            pool = DECK
        elif mode == 1:  # few ranks
            ranks = rng.sample(RANK_ORDER, rng.randint(2, 3))
            pool = [c for c in DECK if c[1:] in ranks and c not in ("BJ", "RJ")] + ["BJ", "RJ"]
        else:  # one suit mostly
            s = rng.choice(SUIT_ORDER)
            pool = [c for c in SUITED if c[0] == s] + [rng.choice(SUITED)]
        hand = tuple(rng.sample(pool, min(size, len(pool))))
        engine = classify(parse_cards(hand))
        oracle = oracle_classify(hand)
        assert (engine is None) == (oracle is None), hand
        if engine is not None and oracle is not None:
            assert engine.kind == oracle[0], hand
            found.append(hand)
    kinds = {oracle_classify(h)[0] for h in found}  # type: ignore[index]
    assert kinds == {"single", "pair", "triple", "four", *FIVE_CLASSES}
    fives = [h for h in found if len(h) == 5]
    rng.shuffle(fives)
    check_same_as_oracle(fives[:150])


def five_card_representatives() -> list[tuple[str, ...]]:
    """One five-card combination for every (class, key) there is: 40 straights, 32 flushes (high card
    7…A, four suits), 13 full houses, 13 fours plus one, 40 straight flushes."""
    reps: list[tuple[str, ...]] = []
    for w in WINDOWS:
        for t in SUIT_ORDER:
            reps.append(tuple(s + r for s, r in zip(("D", "C", "H", "S", t), w, strict=True)))
            reps.append(tuple(t + r for r in w))
    flush_order = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
    for high in flush_order[5:]:
        below = flush_order[: flush_order.index(high)]
        # the lowest four ranks below the high card that do not make a sequence with it
        lows = next(
            lows
            for lows in combinations(below, 4)
            if (oracle_classify(tuple("S" + r for r in (*lows, high))) or ("",))[0] == "flush"
        )
        for t in SUIT_ORDER:
            reps.append(tuple(t + r for r in (*lows, high)))
    for i, r in enumerate(RANK_ORDER):
        other = RANK_ORDER[(i + 1) % 13]
        reps.append(("D" + r, "C" + r, "H" + r, "D" + other, "C" + other))
        reps.append((*tuple(s + r for s in SUIT_ORDER), "BJ"))
    return reps


def test_R18_R24_every_five_card_key_against_every_other() -> None:
    """R18–R24 exhaustive over keys: one representative of each (class, key) — 138 combinations —
    compared with each other (19,044 ordered pairs) agree with the oracle: class first (R24), then
    the key of R18/R19/R20/R21/R23."""
    reps = five_card_representatives()
    keys = {oracle_classify(r) for r in reps}
    assert len(reps) == len(keys) == 138
    check_same_as_oracle(reps)
